"""Filter: AFLite's knobs. τ and n are live (from the trajectory); k, m, t, family, strategy refit in the background."""
import streamlit as st

from artifact_lens.plots.aflite import bias_per_phase, label_balance
from artifact_lens.aflite.summaries import below_chance, label_summary, phase_frame, phases_run, where_it_ran
from artifact_lens.dashboard.services import current, run_view, reviews
from artifact_lens.dashboard.widgets import quality_panel
from artifact_lens.dashboard.widgets.filter_panels import comparison, joint_note, run_form, saved_views, team_supported
from artifact_lens.dashboard.widgets.formatting import metric_row
from artifact_lens.dashboard.widgets.knobs import live_knobs
from artifact_lens.dashboard.widgets.page import require_run, start_page
from artifact_lens.dashboard.services.team import member

tab = start_page("Filter", caption=(
    "AFLite (paper 000, Algorithm 1): m models per phase, each trained on t examples, score every "
    "held-out example; each phase removes the k most predictable examples with p̃ ≥ τ until fewer than k "
    "pass τ or |S| ≤ n."))
sess = tab.session
run, ds = require_run(tab)
st.caption(f"This run was {where_it_ran(run)}.")
joint_note(run)


# ---------------------------------------------------------------- live knobs (fragment: redraws only this part)
@st.fragment
def live():
    result = live_knobs(tab, run)
    mask = result["retained"]
    past = below_chance(run, result)
    if past:
        st.info(f"At this τ and n the last phase (phase {past['phase']}) predicts held-out labels with accuracy "
                f"{past['accuracy']:.2f}, below chance ({past['chance']:.2f}): the remaining examples are adversarial "
                "to Φ, not just free of its shortcuts. A larger n or τ keeps more of the data.")
    summary = label_summary(run_view.run_labels(tab, run), mask)
    phases = phase_frame(run, mask)
    n_run = phases_run(phases)
    metric_row({
        "Retained": f"{int(mask.sum()):,}",
        "Removed": f"{int((~mask).sum()):,}",
        "Warm-up (excluded)": f"{len(run.excluded_ids):,}",
        "Phases at this τ, n": f"{n_run} of {run.n_phases}",
    })
    changed = reviews.overridden(tab, run, result)
    if changed:
        st.caption(changed)
    left, right = st.columns([3, 2])   # the table's seven columns fit without a scroll bar
    with left:
        st.markdown("**Per label**")
        share = st.column_config.NumberColumn
        st.dataframe(summary.style.format({"removed_share": "{:.1%}", "share_before": "{:.1%}", "share_after": "{:.1%}"}),
                     key="label_summary", width="stretch", column_config={
                         "removed_share": share("removed", help="share of the label's examples removed"),
                         "share_before": share("before", help="the label's share of all examples"),
                         "share_after": share("after", help="the label's share of the retained examples")})
    with right:
        st.plotly_chart(label_balance(summary, classes=ds.classes), key="balance")
    if len(phases):
        st.plotly_chart(bias_per_phase(phases, n_run), key="bias")
        with st.expander("Phase history"):
            st.dataframe(phases, hide_index=True, key="phase_table")


live()

# ---------------------------------------------------------------- below: saved views, comparison, new runs
team_supported(tab, run)
saved_views(tab, run)
quality_panel.panel(tab)      # quality (DQI): components, weights, thresholds
comparison(tab, run, ds, sess)
if not member(tab).can("run filters"):
    st.caption(f"Your role here is {member(tab).role}: τ and n are yours to move; new runs need a curator or owner.")
    st.stop()
run_form(tab, run, sess)
