"""The process-wide part of the dashboard, shared by every session: cache, run store, team
store, jobs. Nothing here belongs to one user: per-user state lives in `dashboard.session`."""
from __future__ import annotations

import threading

import streamlit as st

from core import paths
from core.jobs import JobRunner
from core.runs import RunStore
from core.store import TeamStore
from dashboard.cache import BoundedCache

__all__ = ["Server", "server"]


class Server:
    """One per server process.

    Attributes
    ----------
    cache : BoundedCache
        Datasets, Φ, runs, tables, projections, z-statistics (memory-bounded).
    store : core.runs.RunStore
        Finished runs on disk, keyed by their parameters (the compute cache).
    team : core.store.TeamStore
        Workspaces, members and roles, the runs each workspace holds, saved views and
        reviews (``$ARTIFACT_LENS_DB_URL``; a SQLite file by default). Runs a dead server
        left "running" are marked interrupted when it opens.
    jobs : core.jobs.JobRunner
        Background work, by key.
    map_slots : threading.Semaphore
        UMAP child processes allowed at once (one: each takes a core for minutes).
    """

    def __init__(self):
        self.cache = BoundedCache()
        self.store = RunStore(paths.cache_dir() / "runs")
        self.team = TeamStore()   # raises InputError (named URL, what to check) when unreachable
        self.team.recover()
        self.jobs = JobRunner()
        self.map_slots = threading.Semaphore(1)


@st.cache_resource(show_spinner=False)
def server() -> Server:
    return Server()
