"""The process-wide part of the dashboard, shared by every session: cache, run store, team
store, jobs. Nothing here belongs to one user: per-user state lives in `dashboard.state.session`.
Plain Python (no streamlit): services get the `Server` in their `dashboard.state.tab.Tab`, and
`dashboard.process.shared.server` is where Streamlit keeps the process's one instance.

Stopping (SIGTERM from ``docker compose stop``, systemd or a test): the first `Server` of a
``streamlit run`` process chains a handler onto Streamlit's own. On SIGTERM it sets
`Server.stopping` (a prepared export stops between chunks), asks every background job to
stop (AFLite phases and Φ check their cancel token; a UMAP child process gets SIGTERM) and
arms a backstop timer (``ARTIFACT_LENS_STOP_DEADLINE`` seconds, 8 by default: SIGALRM, whose
default action ends the process even if a native call never returns), then Streamlit shuts down. When the
interpreter exits (`atexit`, still before daemon threads are frozen) the jobs get up to
`JOBS_GRACE` seconds to finish cancelling, so their files are complete or removed (every file
goes through `core.base.paths.atomic_write`), and the prepared exports are deleted. Interrupted
runs show as interrupted after the restart.
"""
from __future__ import annotations

import atexit
import logging
import os
import signal
import threading
import weakref

from artifact_lens.base import paths
from artifact_lens.base.job_backends import backend_for
from artifact_lens.base.jobs import JobRunner
from artifact_lens.results.stores import Results
from artifact_lens.team.store import TeamStore
from artifact_lens.base.settings import settings
from artifact_lens.dashboard.process.cache import BoundedCache

__all__ = ["Server", "exports_folder", "JOBS_GRACE"]


def _plotly_json_without_object_arrays() -> None:
    """Every figure reaches the browser through plotly's JSON, and with orjson installed plotly
    first hands it the figure as is: orjson fails on a numpy object array (strings: labels,
    hover texts) and leaks what it had read before plotly retries with lists (ijl/orjson#422),
    so a server grew by every string of every figure it drew (~300 MB per ten Map redraws at
    100k). Object arrays are turned into lists first, once per process."""
    import numpy as np
    from plotly.io import _json

    original = getattr(_json, "to_json_plotly", None)
    if original is None or getattr(original, "_lists_first", False):
        return

    def lists(value):
        if isinstance(value, np.ndarray) and value.dtype == object:
            return value.tolist()
        if isinstance(value, dict):
            return {k: lists(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)) and any(isinstance(v, (dict, list, tuple, np.ndarray)) for v in value):
            return [lists(v) for v in value]
        return value

    def to_json_plotly(plotly_object, *args, **kwargs):
        if isinstance(plotly_object, dict):
            plotly_object = lists(plotly_object)
        return original(plotly_object, *args, **kwargs)

    to_json_plotly._lists_first = True
    _json.to_json_plotly = to_json_plotly


_plotly_json_without_object_arrays()

log = logging.getLogger("artifact_lens.server")

#: Seconds the jobs get at exit to finish cancelling.
JOBS_GRACE = 2.5

# Process-wide on purpose: a signal handler and atexit hook exist once per process, and they
# reach the live servers (normally one) through this set. No per-user state.
_servers: "weakref.WeakSet[Server]" = weakref.WeakSet()
_hooks_lock = threading.Lock()
_hooks_installed = False


def exports_folder():
    """Where the Export page's prepared files live (``$ARTIFACT_LENS_CACHE/exports``)."""
    return paths.cache_dir() / "exports"


class Server:
    """One per server process.

    Attributes
    ----------
    cache : BoundedCache
        Datasets, Φ, runs, tables, projections, z-statistics (memory-bounded).
    store : core.results.runs.RunStore
        Finished runs on disk, keyed by their parameters (the compute cache).
    results : core.results.stores.Results
        Every store of computed results; ``store``, ``evaluations``, ``quality_tables`` and
        ``comparisons`` are its stores the pages read. They, the maps and the Φs are pruned to
        ``ARTIFACT_LENS_RESULTS_MB`` by the ``pruning`` thread at start.
    team : core.team.store.TeamStore
        Workspaces, members and roles, the runs each workspace holds, saved views and
        reviews (``$ARTIFACT_LENS_DB_URL``; a SQLite file by default). Runs in progress hold a
        lease this server renews (a heartbeat thread); a run whose lease ran out (its server
        died) is marked interrupted by any server on the database.
    jobs : core.base.jobs.JobRunner
        Background work, by key; its heavy steps on ``jobs.backend`` (this process, or the Dask
        cluster of ``ARTIFACT_LENS_SCHEDULER``).
    map_slots : threading.Semaphore
        UMAP child processes allowed at once (one: each takes a core for minutes).
    stopping : threading.Event
        Set when the process is stopping (SIGTERM): long work in page scripts checks it.
    """

    def __init__(self):
        self.cache = BoundedCache()
        self.results = Results(paths.cache_dir())   # the stores of computed results (core.base.result_store)
        r = self.results
        self.store, self.evaluations, self.quality_tables, self.comparisons = \
            r.runs, r.evaluations, r.quality_tables, r.comparisons
        self.team = TeamStore()   # raises InputError (named URL, what to check) when unreachable
        self.team.recover()
        # heavy steps of jobs run here or on the Dask cluster ARTIFACT_LENS_SCHEDULER names
        self.jobs = JobRunner(workers=settings().job_workers, backend=backend_for(settings().scheduler))
        self.map_slots = threading.Semaphore(1)
        self.stopping = threading.Event()
        self.exports = exports_folder()
        self._made_exports = False   # whether this server made the folder (and may remove it at the stop)
        # prepared exports and projection temporaries of a server that was killed
        paths.remove_stale_temporaries(self.exports)
        self.pruning = self.jobs.service("prune results", lambda stop: self.prune())
        _servers.add(self)
        _install_hooks()
        # the beat read once: a setting changed later must not stop the leases' renewal
        every = settings().run_lease / 3
        self.jobs.service("run-lease heartbeat", lambda stop: self._heartbeat(every, stop))

    def export_folder(self):
        """The folder the Export page prepares files in, made on first use (then removed at the stop
        when nothing else is left in it; a folder that was there before is left)."""
        try:
            self.exports.mkdir(parents=True)
            self._made_exports = True
        except FileExistsError:
            pass
        return self.exports

    def prune(self) -> dict:
        """Keep the computed results within ``ARTIFACT_LENS_RESULTS_MB`` (`core.base.result_store.prune`):
        outdated formats first, then the least recently used."""
        try:
            return self.results.prune(settings().results_mb * 1e6)
        except OSError as exc:   # a disk problem never stops a server from starting
            log.warning("could not prune the result caches: %s", exc)
            return {}

    def _heartbeat(self, every: float, stop: threading.Event) -> None:
        """Every ``every`` s (a third of the run lease) until the server stops: renew the leases of
        the runs this process computes, and mark interrupted the runs of servers that stopped
        renewing theirs (another app process on the same database that died)."""
        while not stop.wait(every) and not self.stopping.is_set():
            try:
                self.team.renew_leases()
                self.team.recover(own=False)
            except Exception:  # noqa: BLE001  (a database hiccup: the next beat tries again)
                log.exception("the run-lease heartbeat failed; trying again at the next beat")

    def begin_stop(self) -> None:
        """Stop accepting long work and ask every job to stop (returns at once)."""
        self.stopping.set()
        self.jobs.cancel_all()

    def finish_stop(self, timeout: float = JOBS_GRACE) -> list:
        """Wait for the jobs to end (up to ``timeout`` s) and delete the prepared exports;
        the jobs still running at the deadline."""
        self.begin_stop()
        left = self.jobs.shutdown(timeout)
        self.jobs.backend.close()
        for job in left:
            log.warning("job %s did not stop within %.1f s of the shutdown", job.name, timeout)
        # only the files this process prepared (".<name>.<pid>.<random>.tmp"), then the folder if this
        # server made it and that leaves it empty: a folder of the user's stays, with what they put there
        for prepared in self.exports.glob(f".*.{os.getpid()}.*.tmp"):
            prepared.unlink(missing_ok=True)
        if self._made_exports:
            try:
                self.exports.rmdir()
            except OSError:
                pass   # gone already, or it holds files this process did not prepare
        return left


def _begin_stop_all() -> None:
    for srv in list(_servers):
        srv.begin_stop()


def _finish_stop_all() -> None:
    for srv in list(_servers):
        try:
            srv.finish_stop()
        except Exception:  # noqa: BLE001  (exiting anyway: say what went wrong)
            log.exception("cleaning up at exit failed")


def _install_hooks() -> None:
    """Once per process: the atexit cleanup, and under ``streamlit run`` the SIGTERM handler."""
    global _hooks_installed
    with _hooks_lock:
        if _hooks_installed:
            return
        _hooks_installed = True
    atexit.register(_finish_stop_all)
    previous = signal.getsignal(signal.SIGTERM)
    if getattr(previous, "__module__", "") != "streamlit.web.bootstrap":
        return   # not a `streamlit run` server (AppTest, a script): leave the process's signals alone
    try:
        from streamlit.runtime import Runtime

        loop = Runtime.instance()._get_async_objs().eventloop   # the main thread's loop
    except Exception:  # noqa: BLE001  (another Streamlit layout: atexit still cleans up)
        log.warning("could not reach Streamlit's event loop; SIGTERM will not cancel jobs first")
        return
    loop.call_soon_threadsafe(_install_signal_handler, previous)


def _install_signal_handler(previous) -> None:
    """On the main thread (signal handlers can only be set there): chain onto Streamlit's."""

    deadline = settings().stop_deadline   # read now: a bad value has been refused at start already

    def on_sigterm(signum, frame):
        if hasattr(signal, "setitimer"):
            signal.signal(signal.SIGALRM, signal.SIG_DFL)   # its default action ends the process
            signal.setitimer(signal.ITIMER_REAL, deadline)
        _begin_stop_all()
        previous(signum, frame)   # Streamlit stops the server; atexit then waits for the jobs

    try:
        signal.signal(signal.SIGTERM, on_sigterm)
    except ValueError:   # not the main thread after all
        log.warning("SIGTERM handler not installed (not on the main thread)")
