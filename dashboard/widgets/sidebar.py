"""The sidebar: who is signed in (or single-user mode), the workspace, the current dataset,
Φ and run, plus the background job's progress."""
from __future__ import annotations

import streamlit as st

from artifact_lens.aflite.summaries import live_view
from artifact_lens.dashboard.services import current, run_view, pipelines, team
from artifact_lens.dashboard.state import identity
from artifact_lens.dashboard.widgets.job_panel import job_panel
from artifact_lens.dashboard.services.team import member


def show_live(tab, run) -> None:
    """The live τ and n in the sidebar (called by the sidebar and by the live knobs)."""
    placeholder = tab.session.live_line
    if placeholder is not None:
        tau, n = run_view.live_values(tab, run)
        placeholder.text(f"live: {live_view(tau, n, len(run.ids))}")


def _team(tab) -> None:
    m = member(tab)
    if not m.signed_in:
        st.caption("Single-user mode: no sign-in is configured, so everything here is yours. A shared "
                   "instance with sign-in and roles: see the Hosting page of the docs (`artifact-lens docs hosting`).")
        return
    spaces = team.workspaces(tab)
    st.text(f"{m.email}\n{m.role} in {m.workspace}")
    if len(spaces) > 1:
        ids = [w[0] for w in spaces]
        st.selectbox("Workspace", ids, index=ids.index(m.workspace_id), key="workspace_pick",
                     format_func=dict((w[0], f"{w[1]} ({w[2]})") for w in spaces).get, on_change=_switch, args=(tab,))
    st.button("Sign out", key="sign_out", on_click=identity.log_out)


def _switch(tab) -> None:
    # another workspace: its newest run opens (nothing of the previous workspace stays on view)
    sess = tab.session
    sess.workspace_id = st.session_state["workspace_pick"]
    sess.member, sess.ds_key, sess.run_key, sess.source = None, "", None, None
    sess.pending_key = sess.pending_source = None
    pipelines.forget_job(tab)
    st.query_params.clear()


def sidebar(tab) -> None:
    sess = tab.session
    ds = current.dataset(tab)
    run = run_view.run(tab)
    with st.sidebar:
        _team(tab)
        st.markdown("**Dataset**")
        name = sess.source.label if sess.source and sess.source.label else ds.name
        # items and pairs by what they are: an item's "label" is its gold's letter, a pair's a drawn side
        st.text(f"{name}\n{len(ds):,} {ds.unit}s" + (f", {len(ds.classes)} labels" if ds.unit == "example" else ""))
        st.markdown("**Representation Φ**")
        st.text(sess.spec)
        st.markdown("**Run**")
        if run is None:
            st.text("not scored yet")
        else:
            p = run.params
            st.text(f"m={p.get('n_partitions')} t={p.get('train_size')} k={p.get('slice_size')}\n"
                    f"{p.get('model')} / {p.get('strategy')}, seed {p.get('random_state')}\n"
                    f"{run.n_phases} phases in {run.seconds:.1f} s"
                    + (f"\nremoval order: quality ({run.quality.get('name', 'a column')}), τ = "
                       f"{run.trajectory.tau:.2f}" if run.quality else "")
                    + (f"\njoint filter: {len(run.review_first):,} possibly mislabelled kept" if run.joint else ""))
            # the live knobs redraw in a fragment: they rewrite this placeholder as they move
            sess.live_line = st.empty()
            show_live(tab, run)
        job_panel(tab)
