"""The process-wide part of the dashboard, shared by every session: cache, run store, jobs."""
from __future__ import annotations

import streamlit as st

from core import paths
from core.jobs import JobRunner
from core.runs import RunStore
from dashboard.cache import BoundedCache

__all__ = ["Server", "server"]


class Server:
    """One per server process.

    Attributes
    ----------
    cache : BoundedCache
        Datasets, Φ, runs, tables, projections, z-statistics (memory-bounded).
    store : core.runs.RunStore
        Finished runs on disk, keyed by their parameters.
    jobs : core.jobs.JobRunner
        Background work, by key.
    """

    def __init__(self):
        self.cache = BoundedCache()
        self.store = RunStore(paths.cache_dir() / "runs")
        self.jobs = JobRunner()


@st.cache_resource(show_spinner=False)
def server() -> Server:
    return Server()
