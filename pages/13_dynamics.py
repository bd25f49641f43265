"""Dynamics: training dynamics on Φ (dataset cartography) beside AFLite: which removed examples were
easy, which were ambiguous, which look mislabelled (cleanlab)."""
import streamlit as st

from artifact_lens.plots.cartography import data_map, region_counts
from artifact_lens.base.errors import InputError
from artifact_lens.base.bounds import EPOCHS, FOLDS
from artifact_lens.dashboard.services import current, run_view, dynamics, information
from artifact_lens.dashboard.services.navigation import page_file
from artifact_lens.dashboard.widgets.formatting import metric_row, plain
from artifact_lens.dashboard.widgets.job_panel import watch
from artifact_lens.dashboard.widgets.knobs import live_knobs
from artifact_lens.dashboard.widgets.page import require_run, start_page
from artifact_lens.dashboard.widgets.review_panel import review_panel
from artifact_lens.dashboard.services.team import member

tab = start_page("Dynamics", caption=(
    "Swayamdipta et al. 2020: a model on Φ is trained for a few epochs and each example's probability of its label "
    "is recorded after every epoch. Confidence is its mean, variability its spread: easy-to-learn examples are "
    "learned at once, ambiguous ones keep moving, hard-to-learn ones (often mislabelled) are never learned."))
run, ds = require_run(tab)

if member(tab).can("run filters"):
    with st.form("dyn_form"):
        c1, c2, c3 = st.columns(3)
        epochs = c1.number_input("Epochs", *EPOCHS.range, 10, key="dyn_epochs")
        model = c2.radio("Model", ["linear", "mlp"], horizontal=True, key="dyn_model",
                         format_func={"linear": "linear (softmax)", "mlp": "MLP (one hidden layer)"}.get)
        folds = c3.number_input("Cross-fitting folds (1: in-sample, as the paper)", 1, FOLDS.high, 5,
                                key="dyn_folds")
        if st.form_submit_button("Map the training dynamics", type="primary", key="dyn_run"):
            try:
                dynamics.start(tab, int(epochs), model, int(folds))
            except InputError as exc:
                st.error(plain(exc))
watch(tab, dynamics.job, "Training dynamics", "dyn_job", dynamics.ended)
found = dynamics.result(tab)
if found is None:
    st.info("No map of this dataset's training dynamics yet." + (" Choose the options above and press Map."
                                                                 if member(tab).can("run filters") else
                                                                 " A curator or owner can compute one."))
    st.stop()
st.caption(f"This map was {dynamics.where_it_ran(found)}.")
for note in found.params["notes"]:
    st.info(plain(note))


@st.fragment
def joint_view() -> None:
    live = live_knobs(tab, run)
    frame = run_view.table(tab, run).browse(live)[["id", ds.label, *ds.text, "predictability", "retained"]]
    frame = frame.merge(found.table.drop(columns="label"), on="id", how="inner")
    summary = found.summary()
    metric_row({**{r: f"{n:,}" for r, n in summary["regions"].items()},
                "Possibly mislabelled": f"{summary.get('label_issues', 0):,}",
                "Model's held-out accuracy": f"{summary['accuracy']:.0%}"})
    bits = information.columns(tab)   # PVI (Predictability page), when computed
    frame = frame if bits is None else frame.join(bits[["pvi"]], on="id")
    colour = st.radio("Colour by", ["predictability", "status", *(["pvi"] if bits is not None else [])],
                      horizontal=True, key="dyn_colour", format_func={"predictability": "AFLite's p̃", "pvi": "PVI (bits)",
                                                                      "status": "retained / removed"}.get)
    v, c = dynamics.borders(found)
    event = st.plotly_chart(data_map(frame.rename(columns={ds.label: "label"}), colour=colour, variability_border=v,
                                     confidence_border=c), key="dyn_map", on_select="rerun",
                            selection_mode=("box", "lasso"))
    st.dataframe(region_counts(frame), key="dyn_regions")
    st.caption("AFLite removes what Φ predicts; here, whether those examples were easy (artifacts), ambiguous "
               "(keep: they teach the task) or hard to learn (look at their labels). \"Possibly mislabelled\" "
               "counts the examples cleanlab flags: their given label is unlikely under the model's out-of-sample "
               "probabilities.")
    points = ((event or {}).get("selection") or {}).get("points") or []
    rows = sorted({int(p["customdata"][0]) for p in points if p.get("customdata")})
    suspects = frame[frame["label_issue"]].sort_values("label_quality") if "label_issue" in frame else frame.iloc[:0]
    shown = frame.iloc[rows] if rows else suspects
    chosen = bool(rows)
    st.subheader(f"Selected on the map: {len(shown):,}" if chosen else f"Possibly mislabelled: {len(shown):,}")
    if len(shown) and st.button("Show these on the Map page", key="dyn_to_map"):
        dynamics.select_on_map(tab, shown["id"])
        st.switch_page(page_file("pages/4_map.py"))
    pick = st.dataframe(shown.head(500), hide_index=True, key="dyn_table", on_select="rerun",
                        selection_mode="single-row")
    if pick.selection.rows:
        with st.container(border=True):
            review_panel(tab, run, str(shown["id"].iloc[pick.selection.rows[0]]), key="dyn_review")


joint_view()
