"""The sidebar: current dataset, Φ and run, plus the background job's progress."""
from __future__ import annotations

import streamlit as st

from dashboard import current
from dashboard.job_panel import job_panel
from dashboard.session import session


def show_live(run) -> None:
    """The live τ and n in the sidebar (called by the sidebar and by the live knobs)."""
    placeholder = session().live_line
    if placeholder is not None:
        tau, n = current.live_values(run)
        placeholder.text(f"live: τ={tau:.2f}, n={n:,}")


def sidebar() -> None:
    sess = session()
    ds = current.dataset()
    run = current.run()
    with st.sidebar:
        st.markdown("**Dataset**")
        name = sess.source.label if sess.source and sess.source.label else ds.name
        st.text(f"{name}\n{len(ds):,} examples, {len(ds.classes)} labels")
        st.markdown("**Representation Φ**")
        st.text(sess.spec)
        st.markdown("**Run**")
        if run is None:
            st.text("not scored yet")
        else:
            p = run.params
            st.text(f"m={p.get('n_partitions')} t={p.get('train_size')} k={p.get('slice_size')}\n"
                    f"{p.get('model')} / {p.get('strategy')}, seed {p.get('random_state')}\n"
                    f"{run.n_phases} phases in {run.seconds:.1f} s")
            # the live knobs redraw in a fragment: they rewrite this placeholder as they move
            sess.live_line = st.empty()
            show_live(run)
        job_panel()
