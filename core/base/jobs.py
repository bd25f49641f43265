"""Background jobs: long work (representations, AFLite fits, projections) in a thread the app polls.

A `Job` runs ``fn(ctx)`` in a daemon thread. ``ctx`` (a `JobContext`) reports a
progress fraction and message, publishes records as they arrive (one per AFLite
phase) and carries the cancel token (a `threading.Event`). The job ends with a
result, a `Cancelled`, or an error whose traceback is logged (logger
``artifact_lens.jobs``) and kept on the job for the page that started it.
`JobRunner` keeps jobs by key, so asking twice for the same work joins the first job, and
bounds how many compute at once (``workers``): the others wait, pending and cancellable.

Heavy steps inside a job go through `offload` (``ctx.offload(fn, *args, **kwargs)``), which
hands them to the runner's backend (`core.base.job_backends`): `LocalBackend` calls ``fn`` in
the job's thread; `DaskBackend` runs it on a Dask cluster (``ARTIFACT_LENS_SCHEDULER``), so a
team's evaluation takes the workers' cores, not the web process's. Either way ``fn`` gets ``progress`` and
``cancel`` keyword arguments that behave alike: progress reaches the job panel (through a
Dask queue from a worker), and Cancel stops the work at its next check (through a Dask event).
Nothing here imports streamlit.
"""
from __future__ import annotations

import logging
import threading
import time
import traceback
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Optional

from .cores import computing, share
from .errors import Cancelled, InputError
from .job_backends import LocalBackend
from .keys import require_key
from .progress import Remaining

__all__ = ["Job", "JobKind", "JobKey", "JobContext", "JobRunner", "offload", "KEPT"]

log = logging.getLogger("artifact_lens.jobs")


class JobContext:
    """What a job's function receives: progress, records, and the cancel token."""

    def __init__(self, job: "Job"):
        self._job = job
        self.cancel = job._cancel

    def progress(self, fraction: float, message: str = "") -> None:
        """A ``progress(fraction, message)`` callback; also raises `Cancelled` when cancelled."""
        with self._job._lock:
            self._job.fraction = min(max(float(fraction), 0.0), 1.0)
            if message:
                self._job.message = str(message)
        if self.cancel.is_set():
            raise Cancelled("cancelled by the user")

    @property
    def cores(self) -> int:
        """Threads this job may use now: the machine's cores shared among the jobs computing at
        this moment (`core.base.cores.share`; a job alone gets every core). Work of many steps
        takes `core.base.cores.SHARE` instead, read again before each step; on a Dask backend the
        heavy step runs on a worker, which takes as many of its own."""
        return share()

    def emit(self, record) -> None:
        """Publish an intermediate record (e.g. one AFLite phase) for the app to draw."""
        with self._job._lock:
            self._job.records.append(record)

    def offload(self, fn: Callable, *args, progress: Optional[Callable] = None, cancel=None, relay: tuple = (),
                **kwargs):
        """``fn(*args, progress=..., cancel=..., **kwargs)`` on the runner's backend (see the
        module doc). ``progress`` defaults to this job's; the cancel token is always this job's
        (a ``cancel`` given is that one or None); the keyword arguments named in ``relay`` are
        callbacks (e.g. ``on_phase``) whose calls on a worker are replayed here."""
        backend = self._job.backend or LocalBackend()
        return backend.run(fn, args, kwargs, progress=progress or self.progress, cancel=self.cancel, relay=relay)


#: where a kind of job keeps its result: "shared" (the server's bounded cache and the result store
#: on disk: every member reads it, after a restart too), "memory" (the cache only: a result the
#: store cannot hold, such as fitted models), "own" (a store of the service's own: runs,
#: evaluations, maps, quality tables)
KEPT = ("shared", "memory", "own")


@dataclass(frozen=True)
class JobKind:
    """A kind of background job, declared once (the dashboard's are in
    `dashboard.services.cached_jobs`): its name in job keys and cache entries, what a person
    reads while it runs, and where its result is kept (`KEPT`)."""

    name: str
    title: str
    kept: str = "own"
    #: its progress grows with the time spent (equal phases, folds, epochs), so the pace so far
    #: estimates the time left; False for a job of unequal steps (a certificate's: a step at 15 % of
    #: the bar can take most of the time), which shows no estimate rather than one 10-40x short
    paced: bool = True

    def __post_init__(self):
        if not self.name or ":" in self.name:
            raise ValueError(f"a job kind's name is a word without ':', not {self.name!r}")
        if self.kept not in KEPT:
            raise ValueError(f"a job kind keeps its result {' or '.join(KEPT)}, not {self.kept!r}")


@dataclass(frozen=True)
class JobKey:
    """What a background job computes, typed: its `JobKind`, what it is about (``about``: a run's
    key, or empty) and the key of its inputs (a `core.base.keys.ResultKey`: a job is named by the data
    it reads, as its result is). ``str()`` is the runner's
    key, ``kind:about:digest`` with empty parts left out, so a job is found by its parts
    (`JobRunner.running`), never by parsing a string back."""

    kind: JobKind
    digest: str
    about: str = ""

    def __post_init__(self):
        if not isinstance(self.kind, JobKind):
            raise TypeError(f"a job key's kind is a JobKind declared once, not {type(self.kind).__name__}")
        require_key(self.digest, "a job")

    def __str__(self) -> str:
        return ":".join(p for p in (self.kind.name, self.about, self.digest) if p)


def _typed(key) -> "JobKey":
    if not isinstance(key, JobKey):
        raise TypeError(f"a job is named by a JobKey (kind, digest, about), not {type(key).__name__}")
    return key


class Job:
    """A function running in a daemon thread, polled by the app.

    ``fn(ctx)`` gets a `JobContext`; its return value becomes `result`, an
    exception becomes `error` (`Cancelled` gives status ``"cancelled"``).
    Status: ``"pending"``, ``"running"``, ``"done"``, ``"error"``, ``"cancelled"``.
    """

    def __init__(self, fn: Callable[[JobContext], Any], *, name: str = "", key=None,
                 slots: Optional[threading.Semaphore] = None, backend=None):
        self.spec = None if key is None else _typed(key)   # what it computes (a job run on its own has none)
        key = None if key is None else str(key)
        self.fn, self.name, self.key, self._slots, self.backend = fn, name, key, slots, backend
        self.status = "pending"
        self.fraction, self.message = 0.0, ""
        self._remaining = Remaining()   # the time left as shown: it never rises
        self.records: list = []
        self.result = None
        self.error: Optional[BaseException] = None
        self.traceback = ""
        self.error_id = ""
        self.started = self.finished = None
        self._cancel = threading.Event()
        self._lock = threading.Lock()
        self._thread: Optional[threading.Thread] = None

    def start(self) -> "Job":
        if self._thread is not None:
            return self
        self.started = time.time()
        self._thread = threading.Thread(target=self._run, name=f"job:{self.name}", daemon=True)
        self._thread.start()
        return self

    def _take_slot(self) -> bool:
        """Wait (pending, cancellable) for one of the runner's worker slots; False if cancelled."""
        if self._slots is None:
            return True
        while not self._slots.acquire(timeout=0.25):
            if self._cancel.is_set():
                return False
            with self._lock:
                self.message = "waiting for a free worker (other jobs are running)"
        if self._cancel.is_set():   # cancelled while it waited: give the slot to the next job
            self._slots.release()
            return False
        return True

    def _run(self) -> None:
        ctx = JobContext(self)
        if not self._take_slot():
            self.error, self.status, self.finished = Cancelled("cancelled before it started"), "cancelled", time.time()
            return
        self.status = "running"
        with self._lock:
            self.message = ""
        try:
            with computing():
                result = self.fn(ctx)
        except Cancelled as exc:
            self.error, self.status = exc, "cancelled"
        except BaseException as exc:  # reported to the app, which shows it and keeps going
            self.error, self.status = exc, "error"
            self.traceback = traceback.format_exc()
            if isinstance(exc, InputError):  # a user's mistake: the message says what to fix
                log.info("job %s stopped: %s", self.name, exc)
            else:  # the id lets a user who saw only a short message find this traceback
                self.error_id = uuid.uuid4().hex[:8]
                log.error("job %s failed (error id %s)\n%s", self.name, self.error_id, self.traceback)
        else:
            self.result, self.fraction, self.status = result, 1.0, "done"
        finally:
            self.finished = time.time()
            if self._slots is not None:
                self._slots.release()

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    @property
    def done(self) -> bool:
        return self.status in ("done", "error", "cancelled")

    @property
    def elapsed(self) -> float:
        if self.started is None:
            return 0.0
        return (self.finished or time.time()) - self.started

    def wait(self, timeout: Optional[float] = None) -> "Job":
        if self._thread is not None:
            self._thread.join(timeout)
        return self

    def snapshot(self) -> dict:
        with self._lock:
            elapsed = self.elapsed
            paced = self.spec is None or self.spec.kind.paced
            left = self._remaining.left(elapsed, self.fraction) if paced else None
            return {"name": self.name, "status": self.status, "fraction": self.fraction, "message": self.message,
                    "records": list(self.records), "elapsed": elapsed, "left": left,
                    "over": paced and self._remaining.over}


class JobRunner:
    """Jobs by key: submitting a key whose job is still running returns that job.

    Finished jobs are kept (their result or error is read once by the page that
    polls them) up to ``keep_finished``; older finished jobs are forgotten, so a
    long-lived server does not accumulate results.
    """

    def __init__(self, keep_finished: int = 32, workers: Optional[int] = None, backend=None):
        self._jobs: dict = {}
        self.backend = backend or LocalBackend()
        self._lock = threading.Lock()
        self.keep_finished = keep_finished
        # at most ``workers`` jobs compute at once (the others wait, pending and cancellable), so
        # a team's long work never takes every core from the web process; None: no bound
        self.workers = workers
        self._slots = threading.BoundedSemaphore(workers) if workers else None
        self._stop = threading.Event()   # set by `shutdown`: the services stop
        self._services: list = []

    def submit(self, key: JobKey, fn: Callable[[JobContext], Any], *, name: str = "") -> Job:
        """Start ``fn`` as the job of ``key``, or return that key's job while it still runs (a key
        that is not a `JobKey` is a TypeError: no job is named by a bare string)."""
        spec, key = _typed(key), str(key)
        with self._lock:
            job = self._jobs.get(key)
            if job is not None and not job.done:
                return job
            job = Job(fn, name=name or spec.kind.title, key=spec, slots=self._slots, backend=self.backend)
            self._jobs.pop(key, None)
            self._jobs[key] = job
            finished = [k for k, j in self._jobs.items() if j.done]   # oldest first
            for k in finished[:max(0, len(finished) - self.keep_finished)]:
                del self._jobs[k]
        return job.start()

    def get(self, key: Optional[JobKey]) -> Optional[Job]:
        """The job of ``key``; None for an unknown key or none (a session watching nothing)."""
        if key is None:
            return None
        with self._lock:
            return self._jobs.get(str(_typed(key)))

    def running(self, kind: Optional[JobKind] = None, about: Optional[str] = None) -> list:
        """The jobs not done yet; with ``kind`` / ``about``, only those whose `JobKey` has them."""
        with self._lock:
            jobs = [j for j in self._jobs.values() if not j.done]
        if kind is None and about is None:
            return jobs
        return [j for j in jobs if kind in (None, j.spec.kind) and about in (None, j.spec.about)]

    def forget(self, key: JobKey) -> None:
        with self._lock:
            self._jobs.pop(str(_typed(key)), None)

    def cancel_all(self) -> list:
        """Ask every running job to stop (it raises `Cancelled` at its next progress or cancel
        check; a UMAP child process is terminated); the jobs asked."""
        jobs = self.running()
        for job in jobs:
            job.cancel()
        return jobs

    def service(self, name: str, fn: Callable[[threading.Event], Any]) -> threading.Thread:
        """Start ``fn(stop)`` in a background thread the runner owns: housekeeping that is not a
        user's job (the server's start-up pruning, the run-lease heartbeat). ``stop`` is set by
        `shutdown`, which also waits for the thread; a service that loops waits on it."""
        thread = threading.Thread(target=fn, args=(self._stop,), name=name, daemon=True)
        with self._lock:
            self._services = [t for t in self._services if t.is_alive()] + [thread]
        thread.start()
        return thread

    def shutdown(self, timeout: float = 2.0) -> list:
        """Cancel every running job, stop the services, and wait up to ``timeout`` seconds in all
        for them to end, so their files are finished or removed (`core.base.paths.atomic_write`),
        not half-written. Returns the jobs still running at the deadline (a native call that
        never checks)."""
        deadline = time.monotonic() + max(float(timeout), 0.0)
        self._stop.set()
        for job in self.cancel_all():
            job.wait(max(deadline - time.monotonic(), 0.0))
        with self._lock:
            services = list(self._services)
        for thread in services:
            if thread is not threading.current_thread():
                thread.join(max(deadline - time.monotonic(), 0.0))
        return self.running()


def offload(ctx: Optional[JobContext], fn: Callable, *args, relay: tuple = (), **kwargs):
    """`JobContext.offload` when there is a job; a plain call of ``fn`` when there is none
    (the same work called outside a job, e.g. by a test)."""
    if ctx is None:
        return fn(*args, **kwargs)
    return ctx.offload(fn, *args, relay=relay, **kwargs)

