"""The Features page's panels: the examples carrying one feature (and what AFLite removed of
them), z-filtering and consistency filtering (forms that start background jobs, and their results)."""
import pandas as pd
import streamlit as st

from artifact_lens.base.errors import InputError
from artifact_lens.base.bounds import BATCH_SIZE, FOLDS, MIN_COUNT, SEED
from artifact_lens.plots.zstats import zfilter_history
from artifact_lens.dashboard.services import current, run_view, filters
from artifact_lens.dashboard.services import transfer as cues_across
from artifact_lens.dashboard.widgets.formatting import metric_row, plain
from artifact_lens.dashboard.widgets.job_panel import watch

__all__ = ["feature_examples", "zfilter_panel", "consistency_panel", "transfer_panel"]


def unit_cues_panel(tab, ds) -> bool:
    """The cue table of preference pairs (the side that has more of a feature) or of items (the option
    that has the most of it), and True; False for labelled examples, whose page goes on."""
    from artifact_lens.dashboard.widgets.choice_panels import option_cues_panel
    from artifact_lens.dashboard.widgets.pair_panels import pair_cues_panel

    if ds.pairs is not None:
        pair_cues_panel(tab)
    elif ds.choices is not None:
        option_cues_panel(tab, ds)
    return ds.pairs is not None or ds.choices is not None


def feature_examples(tab, zs, ds, run, clicked: list, kind, field) -> None:
    """Pick a feature (clicked on a plot, or among the top ones): its z per label and its examples."""
    st.subheader("Examples carrying a feature")
    top = zs.top(20, kind=kind, field=field)
    top = pd.concat([top[top["kind"] == "ngram"], top[top["kind"] != "ngram"]])   # the paper's view first
    options = list(dict.fromkeys(clicked + top["feature"].tolist()))
    if not options:
        st.info("No feature with z > 0 for these filters.")
    else:
        feature = st.selectbox("Feature (click a point on the plot, or pick one)", options, key="z_feature")
        rows = zs.table[zs.table["feature"] == feature]
        st.dataframe(rows[["feature", "label", "n", "count", "p_hat", "z", "significant"]], hide_index=True,
                     key="feature_z")
        ids = current.ids_with_feature(tab, feature)
        if run is not None:
            frame = run_view.table(tab, run).browse(run_view.live_result(tab, run))
            carrying = frame[frame["id"].isin(pd.Index(ids))]
            scored = carrying[~carrying["warmup"]]
            metric_row({
                "Examples with the feature": f"{len(carrying):,}",
                "Removed by AFLite (at the live τ, n)": f"{int((~scored['retained']).sum()):,}",
                "Removed share": f"{(~scored['retained']).mean():.0%}" if len(scored) else "–",
            })
            st.dataframe(carrying.head(500), hide_index=True, key="feature_examples")
        else:
            st.dataframe(ds.table.loc[ids].head(500), key="feature_examples")


def zfilter_panel(tab, ds) -> None:
    """z-filtering (paper 004, Algorithm 1): the form, the job, the result."""
    st.subheader("z-filtering (paper 004, Algorithm 1)")
    with st.form("zfilter_form"):
        c1, c2, c3, c4 = st.columns(4)
        batch = c1.number_input("Batch size", *BATCH_SIZE.range, min(500, max(10, len(ds) // 10)), key="zf_batch")
        k = c2.number_input("k biased features per label", 1, 500, 20, key="zf_k")
        zmin = c3.number_input("min count", *MIN_COUNT.range, 5, key="zf_min")
        seed = c4.number_input("Shuffle seed", *SEED.range, 0, key="zf_seed")
        run_zf = st.form_submit_button("Run z-filtering", key="run_zfilter")
    try:
        if run_zf:
            filters.zfilter_start(tab, (int(batch), int(k), int(zmin), int(seed)))
    except InputError as exc:
        st.error(plain(exc))
    res = filters.zfilter_result(tab)
    if res is not None:
        metric_row({
            "Accepted": f"{len(res.accepted):,}",
            "Rejected": f"{len(res.rejected):,}",
            "Largest z before": f"{res.z_max_before:.1f}",
            "Largest z after": f"{res.z_max_after:.1f}",
        })
        st.plotly_chart(zfilter_history(res), key="zf_history")
        st.dataframe(res.reasons().head(50), hide_index=True, key="zf_reasons")
    watch(tab, filters.zfilter_job, "z-filtering", "zf_job", filters.ended)


def consistency_panel(tab, zs, min_count: int, alpha: float) -> None:
    """Consistency filtering (paper 004 §2.2.2): the form, the job, z before and after."""
    st.subheader("Consistency filtering (paper 004 §2.2.2)")
    with st.form("cons_form"):
        c1, c2 = st.columns(2)
        threshold = c1.slider("τ: drop when p(gold | x) ≤ τ", 0.0, 0.95, 0.2, 0.05, key="cf_threshold")
        folds = c2.number_input("Cross-fitting folds", *FOLDS.range, 5, key="cf_folds")
        run_cf = st.form_submit_button("Run consistency filtering", key="run_consistency")
    try:
        if run_cf:
            filters.consistency_start(tab, float(threshold), int(folds))
        res = filters.consistency_result(tab)
        if res is not None:
            after = filters.after_consistency(tab, res, int(min_count), float(alpha))
            metric_row({
                "Kept": f"{int(res.scores['kept'].sum()):,}",
                "Dropped": f"{int((~res.scores['kept']).sum()):,}",
                "Largest z before": f"{zs.z_max:.1f}",
                "Largest z after": f"{after.z_max:.1f}",
            })
            st.caption(f"Cross-fitted model accuracy: {res.accuracy:.3f}")
            st.dataframe(res.dropped.head(500), key="cf_dropped")
    except InputError as exc:
        st.error(plain(exc))
    watch(tab, filters.consistency_job, "Consistency filtering", "cf_job", filters.ended)


def transfer_panel(tab) -> None:
    """Cues across splits (issue 23): does this dataset's cues give the labels away on another split?"""
    from artifact_lens.plots.transfer import transfer_figure

    st.subheader("Cues across splits")
    with st.form("transfer_form"):
        path = st.text_input("Another split of this dataset (a file or folder this server may read; same columns)",
                             key="tr_path", placeholder="data/snli_test.jsonl")
        run_tr = st.form_submit_button("Measure this dataset's cues on it", key="run_transfer")
    try:
        if run_tr:
            cues_across.start(tab, path)
    except InputError as exc:
        st.error(plain(exc))
    watch(tab, cues_across.job, "Cues across splits", "tr_job", cues_across.ended)
    found = cues_across.result(tab)
    if found is None:
        return
    s = found.summary
    st.caption(f"Measured on {plain(cues_across.source(tab))}.")
    metric_row({
        "Cues that carry over": f"{s['cues_transferring']} of {s['cues']}",
        f"Model on {s['partial_input_field']} alone": f"{s['partial_input_accuracy_eval']:.1%}",
        "Model on the top cues alone": f"{s['top_cues_accuracy_eval']:.1%}",
        "Majority label": f"{s['majority_share_eval']:.1%}",
        "Near-duplicates across": f"{s['near_duplicate_pairs']:,}",
    })
    st.plotly_chart(transfer_figure(found), key="tr_figure")
    st.dataframe(found.cues, hide_index=True, key="tr_cues")
    st.caption(f"Predictable (p̃ ≥ {s['tau']:.2f}) by an AFLite ensemble trained on this dataset: "
               f"{s['predictable_share_train']:.1%} of it, {s['predictable_share_eval']:.1%} of the other split. "
               "The same report: artifact-lens transfer.")
