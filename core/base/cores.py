"""How many cores work may use, and BLAS on one thread.

`usable_cores` is the count a job may spread over (the process's CPU affinity: a container's
or taskset's limit, not the host's). `share` divides them among the jobs computing at this moment
(each inside `computing`); `SHARE` given as a thread count means "my share, read again before each
step", so a job that started beside another takes every core once the other ends.

`one_blas_thread` runs a block with BLAS on one thread. Code that spreads its own work over
threads (the AFLite engine, the evaluation's fits) needs it, because each thread's BLAS calls would
otherwise start every core's worth of BLAS threads; and every result that is stored or compared
(Φ, PVI, a certificate) is computed under it, because BLAS's sums depend on its thread count (a
result must not: not on the machine, nor on another job holding the limit). BLAS's thread count is
one setting for the whole process, so the limit is counted: the first block to enter sets it,
the last to leave restores it, and two jobs that overlap never see it lifted under them.
"""
from __future__ import annotations

import contextlib
import os
import threading

__all__ = ["usable_cores", "one_blas_thread", "computing", "share", "SHARE", "threads_now"]


def usable_cores() -> int:
    """Cores this process may run on."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except (AttributeError, OSError):   # no affinity on this platform
        return os.cpu_count() or 1


class _BlasLimit:
    """The process's one count of blocks that want BLAS on one thread."""

    def __init__(self):
        self.lock = threading.Lock()
        self.holders = 0
        self.limit = None
        self.controller = None

    def enter(self) -> None:
        with self.lock:
            if self.holders == 0:
                if self.controller is None:   # built once: inspecting the loaded libraries costs ms
                    import scipy.linalg  # noqa: F401  (load scipy's BLAS before inspecting libraries)
                    from threadpoolctl import ThreadpoolController

                    self.controller = ThreadpoolController()
                self.limit = self.controller.limit(limits=1, user_api="blas")
            self.holders += 1

    def leave(self) -> None:
        with self.lock:
            self.holders -= 1
            if self.holders == 0 and self.limit is not None:
                self.limit.restore_original_limits()
                self.limit = None


_BLAS = _BlasLimit()


@contextlib.contextmanager
def one_blas_thread():
    """BLAS on one thread for the block (and for any block that overlaps it; see the module)."""
    _BLAS.enter()
    try:
        yield
    finally:
        _BLAS.leave()


class _Computing:
    """The process's one count of jobs computing now (a worker process's own, on Dask)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.jobs = 0


_JOBS = _Computing()


@contextlib.contextmanager
def computing():
    """The block is one job computing: `share` divides the cores among such blocks."""
    with _JOBS.lock:
        _JOBS.jobs += 1
    try:
        yield
    finally:
        with _JOBS.lock:
            _JOBS.jobs -= 1


def share() -> int:
    """Threads one job may use now: the usable cores divided among the jobs computing (at least 1)."""
    with _JOBS.lock:
        jobs = _JOBS.jobs
    return max(usable_cores() // max(jobs, 1), 1)


class _Share:
    """A thread count that is read again before each step (`threads_now`): the job's `share`."""

    def __repr__(self) -> str:
        return "SHARE"

    def __reduce__(self):   # one instance, in a worker process too
        return "SHARE"


SHARE = _Share()


def threads_now(n_jobs) -> int:
    """The threads ``n_jobs`` allows at this moment: `share` for `SHARE`, else the number (at least 1)."""
    return share() if n_jobs is SHARE else max(int(n_jobs), 1)
