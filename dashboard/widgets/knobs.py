"""The live τ and n sliders: answered from the run's trajectory, never by a refit."""
from __future__ import annotations

import math

import streamlit as st

from artifact_lens.aflite.knobs import KNOBS
from artifact_lens.base.bounds import MIN_COUNT
from artifact_lens.dashboard.services import current, run_view
from artifact_lens.dashboard.state import url
from artifact_lens.dashboard.widgets.sidebar import show_live


def live_knobs(tab, run, *, n_too: bool = True) -> dict:
    """Draw the τ (and n) sliders; their values go to the session so every page shares them.

    Bounds come from the run: τ ≥ the fitted τ and n ≥ the fitted n (below them the
    recorded trajectory cannot answer). Returns `run_view.live_result` for the new values.
    """
    sess = tab.session
    bounds = run.trajectory.live_bounds()
    N = bounds["N"]
    tau0, n0 = run_view.live_values(tab, run)
    cols = st.columns(2 if n_too else 1)
    if run.trajectory.quality is not None:
        # quality-ordered (paper 002): which examples a phase removes among p̃ ≥ τ depends on τ
        cols[0].markdown(f"τ = {tau0:.2f}: fixed by this quality-ordered run (the lowest-quality examples among "
                         "p̃ ≥ τ go first, so another τ needs another run); n is live.")
    else:
        top, step = KNOBS["tau"].live
        sess.tau = cols[0].slider("τ: early-stopping threshold on p̃ (live)", bounds["tau_min"], top, float(tau0),
                                  step, key=sess.knob_key("w_tau"), help="Only examples with predictability ≥ τ are removed; "
                                                          "filtering stops when fewer than k pass τ.")
    if n_too:
        # the slider shows shares on its step's grid: its lowest step must not fall below the fitted n
        top, step = KNOBS["target_size"].live
        per = round(1 / step)   # steps per whole: a share k / per is exact where k × step is not (57 × 0.01)
        lo = min(math.ceil(round(bounds["n_min"] / N * per, 9)) / per, top)
        offered = float(min(max(n0 / N, lo), top))
        share = cols[1].slider("n: target size, share of the scored examples (live)", lo, top, offered, step,
                               key=sess.knob_key("w_target"), help="Filtering stops when |S| ≤ n. Below the fitted n a refit is needed.")
        if share != offered:   # moved by the user: n becomes that share's count, kept as a count from now on
            sess.target = round(share * N)
        # else n stays what the session holds: reading n back from the slider's share (n0 / N rounded to
        # the slider's grid) and resolving it again lost an example per reload
        cols[1].caption(f"n = {run_view.live_values(tab, run)[1]:,} of {N:,} scored examples")
    url.remember()
    show_live(tab, run)
    return run_view.live_result(tab, run)


def cue_settings(key: str, counted: str, least: int) -> tuple:
    """The settings of a cue table (the pair and the option cue tables): the least number of
    ``counted`` that differ on a feature (``least`` by default: the command line's), and the Bonferroni
    α; in a form, so a change is one rerun."""
    with st.form(f"{key}_form"):
        c1, c2 = st.columns(2)
        min_count = c1.number_input(f"{counted} that differ (n ≥)", *MIN_COUNT.range, int(least),
                                    key=f"{key}_min_count")
        alpha = c2.select_slider("α (Bonferroni)", [0.001, 0.01, 0.05, 0.1], value=0.01, key=f"{key}_alpha")
        st.form_submit_button("Update", key=f"{key}_update")
    return int(min_count), float(alpha)
