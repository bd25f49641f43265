"""Evaluate: prove the filtered split is less biased and harder (paper 000 Table 3 and Fig. 2, paper 003
Table 3, paper 002 Algorithm 1), in a background job; results are stored with the run."""
import time

import streamlit as st

from artifact_lens.evaluation.plots import figures
from artifact_lens.exports.report import family_wide, report_name
from artifact_lens.evaluation.verdict import verdict
from artifact_lens.aflite.summaries import live_view
from artifact_lens.dashboard.services import current, run_view
from artifact_lens.dashboard.services import evaluation as evaluation_jobs
from artifact_lens.dashboard.widgets.formatting import metric_row, plain
from artifact_lens.dashboard.widgets.job_panel import watch
from artifact_lens.dashboard.widgets.page import require_run, start_page
from artifact_lens.dashboard.widgets.evaluation_panels import interrupted_panel, options_form
from artifact_lens.dashboard.widgets.certificate_panel import certificate_section, items_certificate_section
from artifact_lens.dashboard.services.team import member

tab = start_page("Evaluate", caption=(
    "Model families trained on the full, AFLite-filtered, random and single-model-filtered training sets, evaluated "
    "on an i.i.d. held-out split and on that split filtered by AFLite; KNN distances; the coarse action; an "
    "external difficulty check; the synthetic circles. At the live τ and n; stored with the run."))
sess = tab.session
run, ds = require_run(tab)
tau, n = run_view.live_values(tab, run)
live = run_view.live_result(tab, run)
st.caption(f"The split at {live_view(tau, n, len(run.ids))}: {int(live['retained'].sum()):,} of {len(run.ids):,} "
           "retained.")

if ds.choices is not None:   # items: the certificate alone (the model families read labels as classes)
    items_certificate_section(tab, run)
# ---------------------------------------------------------------- options (curators and owners)
running = evaluation_jobs.running(tab, run)
options_form(tab, run, ds, running)


# ---------------------------------------------------------------- the background job
def ended(tab, job) -> None:
    evaluation_jobs.unwatch(tab)
    if job.status == "done":
        sess.eval_key = job.result


watch(tab, evaluation_jobs.job, "Evaluation", "eval", ended)
interrupted_panel(tab, run, running)
certificate_section(tab, run)

# ---------------------------------------------------------------- results
found = evaluation_jobs.stored(tab, run)
if not found:
    if running is not None:
        st.info("The first evaluation of this run is running; its results appear here when it ends.")
    else:
        st.info("No evaluation of this run yet." + (" Choose the options above and press Evaluate."
                                                    if member(tab).can("run filters") else ""))
    st.stop()
ev = evaluation_jobs.shown(tab, run)
if len(found) > 1:
    labels = {e.key: (f"{time.strftime('%Y-%m-%d %H:%M', time.localtime(e.created))}: τ = {e.context.get('tau'):.2f}, "
                      f"n = {e.context.get('n'):,}, {', '.join(e.options['families'])}") for e in found}
    pick = st.selectbox("Stored evaluations of this run", list(labels), index=list(labels).index(ev.key),
                        format_func=labels.get, key="eval_pick")
    ev = next(e for e in found if e.key == pick)
ctx, s, t = ev.context, ev.summary, ev.tables
figs = figures(ev)
said = verdict(ev)
if said:
    st.success(plain(said), icon="⚖️")
lowest = run.trajectory.live_bounds()["n_min"]
usable = max(int(s["coarse_n"]), int(lowest))   # one n on the page: the metric's is the button's (1,968 beside 2,952)
metric_row({"τ, n evaluated": f"{ctx.get('tau'):.2f}, {ctx.get('n'):,}",
            "Coarse action stops at": f"{s['coarse_fraction']:.0%}",
            "Suggested n": f"{usable:,}",
            "Difficulty p-value": f"{s['difficulty_p_value']:.3g}" if s.get("difficulty_p_value") is not None else "–"})
if said_where := evaluation_jobs.where_trained(ev):
    st.caption(said_where)


# the Filter page's n slider starts from it
st.button(f"Use n = {usable:,} on the Filter page", key="eval_use_n", on_click=tab.session.set_live, kwargs={"n": usable})
if s["coarse_n"] < lowest:
    st.caption(f"The coarse action stops at n = {int(s['coarse_n']):,}, but this run answers n ≥ {lowest:,} without a "
               f"refit, so the suggestion is n = {lowest:,}. Run AFLite with a smaller deepest n (Filter page) to go "
               "lower.")
for note in ev.notes:
    st.warning(plain(note))

st.subheader("Model families (paper 000 Table 3)")
st.caption(f"On {ctx.get('representation')}. Filtered evaluation split: {ctx.get('eval_filter')}. "
           "Cells: accuracy [95 % bootstrap interval] (Δ to full).")
st.dataframe(family_wide(t["families"]), key="eval_families_table")
st.plotly_chart(figs["families"], key="eval_families_fig")
if "partial_input" in t:
    st.subheader(f"Partial input: {ctx.get('partial_representation')}")
    if "families" in t and t["partial_input"].equals(t["families"]):   # Φ reads only the partial input already
        st.caption("Φ already reads only what the partial input reads, so the families table above is the "
                   "partial-input table; evaluate with a full-input Φ to compare the two.")
    else:
        st.dataframe(family_wide(t["partial_input"]), key="eval_partial_table")
        st.plotly_chart(figs["partial_input"], key="eval_partial_fig")
st.subheader("KNN distances (paper 003 Table 3)")
st.dataframe(t["knn"], hide_index=True, key="eval_knn_table")
st.plotly_chart(figs["knn"], key="eval_knn_fig")
st.subheader("Representation bias per phase")
st.plotly_chart(figs["phases"], key="eval_phases_fig")
st.subheader("Coarse action (paper 002 Algorithm 1)")
st.plotly_chart(figs["coarse"], key="eval_coarse_fig")
if "difficulty" in t:
    st.subheader(f"External difficulty: {s.get('difficulty_column')}")
    st.dataframe(t["difficulty"], hide_index=True, key="eval_difficulty_table")
    st.plotly_chart(figs["difficulty"], key="eval_difficulty_fig")
if "synthetic" in t:
    st.subheader("Synthetic circles (paper 000 Fig. 2)")
    st.dataframe(t["synthetic"], hide_index=True, key="eval_synthetic_table")
    st.plotly_chart(figs["synthetic_accuracy"], key="eval_synthetic_acc")
    st.plotly_chart(figs["synthetic_scatter"], key="eval_synthetic_scatter")
st.download_button("Download the HTML report", evaluation_jobs.report(tab, run, ev),
                   file_name=report_name(ev), mime="text/html", key="eval_report")
