"""The quality widgets: the Filter page's DQI panel (knobs, weights, light thresholds) and the
offer to compute the components where a page needs them (`dashboard.services.quality` holds the state
and the work)."""
from __future__ import annotations

from typing import Optional

import pandas as pd
import streamlit as st

from artifact_lens.base.bounds import MIN_COUNT
from artifact_lens.base.errors import InputError
from artifact_lens.quality import COMPONENTS, DEFAULT_THRESHOLDS, DEFAULT_WEIGHTS, DQI_COMPONENTS
from artifact_lens.dashboard.services import current, team
from artifact_lens.dashboard.widgets.formatting import plain
from artifact_lens.dashboard.widgets.job_panel import watch
from artifact_lens.dashboard.services.quality import BADGES, current_scored, job, start, state
from artifact_lens.dashboard.widgets.reruns import redraw


#: why the quality components are not offered for multiple-choice items
NOT_FOR_ITEMS = ("Quality (DQI) reads labelled examples (its components tie n-grams to a label as a class); it does "
                 "not apply to multiple-choice items, whose label is the gold option's letter.")


def _for_items(tab) -> bool:
    return current.dataset(tab).choices is not None


def _progress(tab, key: str) -> None:
    """The components' job: progress and Cancel while it runs; a rerun when it ends."""
    watch(tab, job, "Quality components", key, lambda tab, _: setattr(state(tab), "job", None))


def offer(tab, key: str, what: str) -> Optional[pd.DataFrame]:
    """The current dataset's scored quality table, or None after offering to compute it (a
    button for curators and owners, a caption for others) and showing a running job; None for
    multiple-choice items, which it does not apply to (`NOT_FOR_ITEMS`)."""
    if _for_items(tab):
        return None
    found = current_scored(tab)
    if found is not None:
        return found
    running = job(tab)
    if running is not None and not running.done:
        _progress(tab, key)
        return None
    if team.member(tab).can("run filters"):
        c1, c2 = st.columns([1, 3])
        if c1.button("Compute quality (DQI)", key=f"{key}_compute"):
            try:
                start(tab)
                redraw()
            except InputError as exc:
                st.error(plain(exc))
        c2.caption(f"{what} needs the quality components of this dataset on Φ (a background job, once; knobs "
                   "on the Filter page under “Quality (DQI)”).")
    else:
        st.caption(f"{what} appears once a curator or owner computes the quality components of this dataset on Φ.")
    _progress(tab, key)
    return None


def panel(tab) -> Optional[pd.DataFrame]:
    """The Filter page's expander: the context's status and knobs, the weights of ``dqi`` and the
    thresholds of every light (defaults: `core.quality.DEFAULT_WEIGHTS`, `DEFAULT_THRESHOLDS`); for
    multiple-choice items, why it is not offered."""
    if _for_items(tab):
        st.caption(NOT_FOR_ITEMS)
        return None
    qs = state(tab)
    with st.expander("Quality (DQI): components, weights and light thresholds", expanded=False):
        st.caption("Seven per-example components after DQI (paper 002; `core.quality`), each in [0, 1], higher = "
                   "better; a weighted `dqi` score; lights red / yellow / green: red below the first threshold, "
                   "green from the second. Shown in Examples, on the Map and in exports; used by quality-ordered runs.")
        c1, c2 = st.columns(2)
        qs.min_count = int(c1.number_input("n-grams need at least this many examples to have a z (label_tied)",
                                           *MIN_COUNT.range, int(qs.min_count), key="q_min_count"))
        exact = c2.checkbox("Neighbours in all of Φ (exact; slower above 64 dimensions)", qs.nn_dim is None,
                            key="q_exact")
        qs.nn_dim = None if exact else 64
        st.markdown("**Weights of the combined score** (defaults: label-tied n-grams most, then word overlap and "
                    "semantic similarity between the fields)")
        cols = st.columns(len(COMPONENTS))
        for col, c in zip(cols, COMPONENTS):
            qs.weights[c] = float(col.number_input(c.replace("_", " "), 0.0, 10.0, float(qs.weights[c]), 0.5,
                                                   key=f"qw_{c}", help=f"{DQI_COMPONENTS[c]}; default "
                                                                        f"{DEFAULT_WEIGHTS[c]:g}"))
        st.markdown("**Light thresholds** (red below, green from)")
        cols = st.columns(4)
        for i, c in enumerate([*COMPONENTS, "dqi"]):
            lo, hi = cols[i % 4].slider(c.replace("_", " "), 0.0, 1.0, tuple(float(v) for v in qs.thresholds[c]),
                                        0.01, key=f"qt_{c}", help=f"default {DEFAULT_THRESHOLDS[c]}")
            qs.thresholds[c] = (lo, hi)
        if sum(qs.weights.values()) <= 0:
            st.error("The weights are all zero; give at least one component a positive weight.")
            qs.weights = dict(DEFAULT_WEIGHTS)
        found = offer(tab, "q_panel", "Quality")
        if found is not None:
            counts = found["light"].value_counts()
            st.text(f"Computed for {len(found):,} examples on {tab.session.spec}: mean dqi "
                    f"{found['dqi'].mean():.3f}; lights " + ", ".join(
                        f"{BADGES[k]} {k} {int(counts.get(k, 0)):,}" for k in ("red", "yellow", "green")))
            st.dataframe(found[[*COMPONENTS, "dqi"]].describe().loc[["mean", "min", "50%", "max"]], key="q_summary")
    return current_scored(tab)
