"""Predictability: distributions of AFLite's scores p̃ per label, retained vs removed, and phase by phase."""
import streamlit as st

from artifact_lens.plots.aflite import VIOLIN_POINTS, phase_boxes, score_histogram, score_violins
from artifact_lens.aflite.summaries import phase_scores
from artifact_lens.dashboard.services import current, run_view
from artifact_lens.dashboard.widgets.information_panel import choice_baselines_section, information_section
from artifact_lens.dashboard.widgets.knobs import live_knobs
from artifact_lens.dashboard.widgets.page import require_run, start_page

tab = start_page("Predictability", caption=(
    "p̃(i): the share of the models that held example i out and predicted its label correctly (paper 000, "
    "eq. 4), from the last phase that scored it. The dashed line is τ."))
run, ds = require_run(tab)


@st.fragment
def charts():
    live = live_knobs(tab, run)
    tau = run_view.live_values(tab, run)[0]
    frame = run_view.table(tab, run).browse(live)
    frame = frame[~frame["warmup"]]
    frame = frame.assign(status=frame["retained"].map({True: "retained", False: "removed"}))
    c1, c2 = st.columns(2)
    per = "gold position" if ds.choices is not None else "label"   # an item's "label" is its gold's letter
    c1.plotly_chart(score_histogram(frame, ds.label, tau, title=f"p̃ per {per}", classes=ds.classes), key="hist_label")
    c2.plotly_chart(score_histogram(frame, "status", tau, title="p̃: retained vs removed"), key="hist_status")
    st.plotly_chart(score_violins(frame, ds.label, tau), key="violin")
    sizes = frame.groupby([ds.label, "status"]).size()
    if sizes.max() > VIOLIN_POINTS:
        st.caption(f"Each violin's shape is estimated from at most {VIOLIN_POINTS:,} of its examples (a seeded "
                   "sample); the histograms above and the counts below cover all of them.")
    st.dataframe(sizes.unstack(fill_value=0), key="status_counts")


charts()

st.subheader("Scores phase by phase")
long = phase_scores(run, labels=ds.table[ds.label].reindex(run.ids).to_numpy(), max_phases=12)
st.plotly_chart(phase_boxes(long, run_view.live_values(tab, run)[0], classes=ds.classes), key="phases")

st.subheader("Baselines of the items" if ds.choices is not None else "V-usable information")
if ds.choices is not None:   # items: their baselines (options only, position only), as `pvi` measures them
    choice_baselines_section(tab)
else:
    scored = run_view.table(tab, run).browse(run_view.live_result(tab, run))
    information_section(tab, scored[~scored["warmup"]], ds.classes)
