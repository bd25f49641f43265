"""Features: z-statistics of simple features (Gardner plot, top features), what AFLite removed of them,
z-filtering and consistency filtering."""
import streamlit as st

from artifact_lens.base.bounds import MIN_COUNT
from artifact_lens.base.errors import InputError
from artifact_lens.text.features import KINDS
from artifact_lens.plots.zstats import gardner_plot, top_features_bar
from artifact_lens.dashboard.services import current, run_view
from artifact_lens.dashboard.widgets.feature_panels import (consistency_panel, feature_examples, transfer_panel,
                                                            unit_cues_panel, zfilter_panel)
from artifact_lens.dashboard.widgets.formatting import metric_row, plain
from artifact_lens.dashboard.services.team import member
from artifact_lens.dashboard.widgets.page import start_page

tab = start_page("Features", caption=(
    "z-statistics (paper 004 eq. 2): for a feature seen in n examples, z = (p̂(l|x) − p0)/√(p0(1 − "
    "p0)/n). Points above the dashed curve exceed the Bonferroni threshold z* and give their label away."))
ds = current.dataset(tab)
run = run_view.run(tab)
if unit_cues_panel(tab, ds):   # pairs and items have cue tables of their own
    st.stop()
if not ds.text and not ds.features:
    st.info("This dataset has no text or feature columns, so there are no simple features to test. "
            "Mark boolean or categorical columns as features on the Data page.")
    st.stop()

with st.form("z_form"):
    c1, c2, c3, c4 = st.columns(4)
    min_count = c1.number_input("min count (n ≥)", *MIN_COUNT.range, 5, key="z_min_count")
    alpha = c2.select_slider("α (Bonferroni)", [0.001, 0.01, 0.05, 0.1], value=0.01, key="z_alpha")
    kinds = c3.multiselect("Feature kinds", ["ngram", "length", "overlap", "ratio", "pred", "null", "column"],
                           key="z_kinds", help="Empty: all kinds.")
    fields = c4.multiselect("Fields", ds.text + list(ds.features), key="z_fields")
    st.form_submit_button("Update", key="z_update")
try:
    with st.spinner("Computing z-statistics (once per dataset and settings)…"):
        zs = current.zstats(tab, int(min_count), float(alpha))
except InputError as exc:
    st.error(plain(exc))
    st.stop()
field = fields or None
shown_kinds = kinds or list(KINDS)
ngram_on = "ngram" in shown_kinds
other_kinds = [k for k in shown_kinds if k != "ngram"]
kind = shown_kinds if kinds else None
summary = zs.summary(kind=kind, field=field)   # every number below follows the kind and field filters
metric_row({
    "Features tested": f"{summary['n_tests']:,}",
    "Shown (these filters)": f"{summary['n_shown']:,}",
    "z*": f"{summary['z_star']:.2f}",
    "Significant features": f"{summary['n_significant_features']:,}",
    "Largest z": f"{summary['z_max']:.1f}" if summary["n_shown"] else "–",
})
st.caption("z* corrects α for every feature tested (all kinds and fields); the filters above hide features, "
           "they do not change z*. Every other number on this page counts only the features shown.")
if summary["z_max_feature"]:
    st.text(f"Largest z: {summary['z_max_feature']}")


def clicked_features(event) -> list:
    """Features of the points picked on a Gardner plot (looked up by row: the plot shows names escaped)."""
    points = ((event or {}).get("selection") or {}).get("points") or []
    rows = [int(p["customdata"][0]) for p in points if p.get("customdata")]
    return zs.table.loc[rows, "feature"].astype(str).tolist() if rows else []


clicked = []
# ---------------------------------------------------------------- n-grams per field: the paper's view
st.subheader("Words and n-grams per field (Gardner et al. 2021)")
if not ngram_on:
    st.caption("n-grams are filtered out (Feature kinds above).")
else:
    s_ngram = zs.summary(kind="ngram", field=field)
    metric_row({
        "n-grams shown": f"{s_ngram['n_shown']:,}",
        "Significant n-grams": f"{s_ngram['n_significant_features']:,}",
        "Largest z among n-grams": f"{s_ngram['z_max']:.1f}" if s_ngram["n_shown"] else "–",
    })
    st.caption("A feature is named '<n-gram>@<field>'. The most extreme few per label are named on the plot, "
               "the others on hover; click a point to read its examples below.")
    if s_ngram["n_shown"]:
        event = st.plotly_chart(gardner_plot(zs, kind="ngram", field=field, classes=ds.classes), key="gardner",
                                on_select="rerun", selection_mode=("points", "box", "lasso"))
        clicked += clicked_features(event)
        st.plotly_chart(top_features_bar(zs, k=10, kind="ngram", field=field, classes=ds.classes,
                                         title="Top 10 n-grams per label"), key="topbar")

# ---------------------------------------------------------------- the other kinds
st.subheader("Prediction, overlap, length and column features")
if not other_kinds:
    st.caption("These kinds are filtered out (Feature kinds above).")
else:
    s_other = zs.summary(kind=other_kinds, field=field)
    metric_row({
        "Features shown": f"{s_other['n_shown']:,}",
        "Significant": f"{s_other['n_significant_features']:,}",
        "Largest z among them": f"{s_other['z_max']:.1f}" if s_other["n_shown"] else "–",
    })
    st.caption("pred: a partial-input model's prediction; overlap/ratio: word overlap between fields; length: "
               "length bins; null: empty fields; column: feature columns of the dataset.")
    if s_other["n_shown"]:
        event = st.plotly_chart(gardner_plot(zs, kind=other_kinds, field=field, classes=ds.classes, annotate=2,
                                             height=460), key="gardner_other", on_select="rerun",
                                selection_mode=("points", "box", "lasso"))
        clicked += clicked_features(event)
        st.plotly_chart(top_features_bar(zs, k=5, kind=other_kinds, field=field, classes=ds.classes,
                                         title="Top 5 of these features per label"), key="topbar_other")

# ---------------------------------------------------------------- one feature, then the filters
feature_examples(tab, zs, ds, run, clicked, kind, field)
if not member(tab).can("run filters"):   # filters cost the shared server minutes of CPU
    st.caption(f"Your role here is {member(tab).role}: z-filtering and consistency filtering need a curator or owner.")
    st.stop()
zfilter_panel(tab, ds)
consistency_panel(tab, zs, int(min_count), float(alpha))
transfer_panel(tab)
