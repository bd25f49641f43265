"""Where the rows of X live, and how per-range work reaches them.

The engine reads X in fixed row ranges of `RANGE_ROWS` rows (a function of N alone,
never of the machine): every pass over X (the mean, the projection, the block Gram
matrices, the predictions) is one task per range whose result the driver combines
in range order. Because a range's task is the same function of the same rows
wherever it runs, a run gives the same numbers bit for bit on one thread, on
several, or on a Dask cluster (`core.aflite.distributed.DaskRows`).

`LocalRows` holds X in this process (an array, or a memory map whose pages the OS
reads as the ranges are touched); its tasks run on ``n_jobs`` threads (numpy and
BLAS release the GIL), each on one BLAS thread.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterator, Sequence

import numpy as np

from ..base.progress import check_cancel

__all__ = ["RANGE_ROWS", "LocalRows", "row_ranges", "range_of", "resolve_jobs", "run_tasks", "trim_heap"]

#: Rows per range: 48 MB of a 768-d float32 matrix, so a task's working set is small
#: while a 1M-row pass is ~60 tasks.
RANGE_ROWS = 16384


def row_ranges(N: int) -> list:
    """The fixed ranges [lo, hi) that tile N rows."""
    return [(lo, min(N, lo + RANGE_ROWS)) for lo in range(0, N, RANGE_ROWS)]


def range_of(key) -> int:
    """The range a task of ``map`` reads: its key is the range index i, or (i, j) when range i
    is split into several tasks (more tasks than ranges: every thread busy on a small X)."""
    return key if isinstance(key, (int, np.integer)) else key[0]


def trim_heap() -> None:
    """Give freed heap memory back to the OS (glibc's malloc_trim).

    A phase frees tens of MB of temporaries allocated by several threads; glibc keeps
    such memory in per-thread arenas, so without this the resident size crept up by
    ~0.2 GB per phase at 1M rows. A no-op where glibc is absent."""
    global _libc
    if _libc is None:
        import ctypes
        import ctypes.util

        try:
            _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            _libc.malloc_trim.argtypes = [ctypes.c_size_t]
        except (OSError, AttributeError):
            _libc = False
    if _libc:
        _libc.malloc_trim(0)


_libc = None


def resolve_jobs(n_jobs) -> int:
    """scikit-learn's convention: None → 1, -1 → every core, -2 → all but one."""
    from ..base.cores import usable_cores

    cores = usable_cores()
    if n_jobs is None:
        return 1
    n = int(n_jobs)
    return max(1, cores + 1 + n if n < 0 else min(n, cores))


def run_tasks(fn: Callable, kwargs: Sequence[dict], common: dict, cancel, n_jobs: int) -> Iterator:
    """``fn(**kwargs[i], **common)`` for each i on ``n_jobs`` threads, yielded in order. At
    most two tasks per thread run ahead of the consumer, which bounds the results held
    at once."""
    def run(kw):
        check_cancel(cancel)
        return fn(**kw, **common)

    if n_jobs == 1 or len(kwargs) < 2:
        for kw in kwargs:
            yield run(kw)
        return
    # BLAS is already limited to one thread for the whole fit (process-wide).
    with ThreadPoolExecutor(n_jobs) as pool:
        pending = []
        try:
            for kw in kwargs:
                pending.append(pool.submit(run, kw))
                if len(pending) >= 2 * n_jobs:
                    yield pending.pop(0).result()
            while pending:
                yield pending.pop(0).result()
        finally:
            for f in pending:
                f.cancel()


class LocalRows:
    """X in this process: ``map`` runs a range task on each range, ``take`` gathers rows."""

    distributed = False

    def __init__(self, X: np.ndarray, n_jobs=None):
        self.X = X
        self.shape = X.shape
        self.ranges = row_ranges(X.shape[0])
        self.n_jobs = resolve_jobs(n_jobs)

    def take(self, rows: np.ndarray) -> np.ndarray:
        """Rows ``rows`` of X (ascending indices read a memory map in file order)."""
        return np.take(self.X, rows, axis=0)

    def fetcher(self, rows: np.ndarray) -> Callable:
        """``take`` for subsets of ``rows``: here a plain read of X when asked."""
        return self.take

    def tasks(self, fn: Callable, kwargs: Sequence[dict], common: dict, cancel=None) -> Iterator:
        return run_tasks(fn, kwargs, common, cancel, self.n_jobs)

    def map(self, fn: Callable, per_range: dict, common: dict, cancel=None) -> Iterator:
        """``fn(X[lo:hi], lo, **per_range[key], **common)`` for each key of ``per_range``: a range
        index i, or (i, j) for the j-th of several tasks on range i (`range_of`); yielded in key order."""
        def task(key, **kw):
            lo, hi = self.ranges[range_of(key)]
            return fn(self.X[lo:hi], lo, **kw)

        order = sorted(per_range)
        return self.tasks(task, [dict(per_range[key], key=key) for key in order], common, cancel)

    def derive(self, fn: Callable, common: dict, d_out: int, cancel=None) -> "LocalRows":
        """The rows ``fn(X[lo:hi], lo, **common)`` (e.g. a projection), in memory."""
        Z = np.empty((self.shape[0], d_out), dtype=np.float32)
        every = {i: {} for i in range(len(self.ranges))}
        for (lo, hi), part in zip(self.ranges, self.map(fn, every, common, cancel)):
            Z[lo:hi] = part
        return LocalRows(Z, self.n_jobs)

    def describe(self) -> dict:
        return {"backend": "local", "threads": self.n_jobs, "memory_mapped": isinstance(self.X, np.memmap),
                "range_rows": RANGE_ROWS}

