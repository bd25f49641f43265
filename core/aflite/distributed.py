"""AFLite on a Dask cluster (`dask.distributed`): X as a chunked dask array.

`DaskRows` is `core.aflite.storage.LocalRows` for rows that live on Dask workers:
X is rechunked to the engine's fixed row ranges and persisted, so every range task
(the mean, the projection, the block Gram contributions, the predictions) runs on
the worker that holds the range, and only the small results travel: per range, its
blocks' Gram contributions once per fit and then (correct, held) counts per phase.
The driver keeps the block Gram matrices, downdates them, and solves the m
partitions on its own threads: a solve reads ~4 MB (its summed Gram and partial
rows) for ~5 ms of work at 768-d, so shipping it to a worker would cost more than
it saves. Range tasks are the same functions on the same rows as in-process, and
the driver combines their results in range order, so for the same seed the run is
bit for bit the local run.

A worker that dies mid-run has its tasks (and, from the loaders, its ranges) redone
elsewhere by Dask; if that keeps failing the run stops with `ClusterError` and
nothing is saved. `load_array` opens `.npy` (memory-mapped in each worker), Zarr and
Parquet (one vector column, read by row group) lazily, without reading the file in
this process.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .inputs import check_values, scan_rows
from .storage import RANGE_ROWS, range_of, resolve_jobs, row_ranges, run_tasks
from ..base.cluster import ClusterError, connect  # noqa: F401  (re-exported: AFLite's cluster entry point)
from ..base.errors import Cancelled, InputError
from ..base.progress import check_cancel

__all__ = ["DaskRows", "ClusterError", "connect", "load_array"]   # the connection lives in core.base.cluster

_WAIT = 0.25   # seconds between cancellation checks while waiting for the cluster


def _range_take(chunk, lo, *, at):
    return np.take(chunk, at, axis=0)


def _as_float32(chunk):
    return np.ascontiguousarray(chunk, dtype=np.float32)


class DaskRows:
    """X on a Dask cluster, with `LocalRows`' interface (``map``, ``take``, ``tasks``)."""

    distributed = True

    def __init__(self, X, client=None, n_jobs=None):
        self.client = client if client is not None else connect()
        if X.ndim != 2:
            raise InputError(f"X has shape {X.shape}: give an (N, d) matrix, one row per example.")
        if any(np.isnan(c) for c in X.shape):
            raise InputError("X has unknown chunk sizes (e.g. from a dataframe): compute them first, "
                             "e.g. X.compute_chunk_sizes() or to_dask_array(lengths=True).")
        if not (np.issubdtype(X.dtype, np.floating) or np.issubdtype(X.dtype, np.integer)):
            raise InputError(f"X has dtype {X.dtype}: give numbers (an (N, d) float array).")
        if X.shape[0] == 0 or X.shape[1] == 0:
            raise InputError(f"X has shape {X.shape}: give at least one row and one column.")
        self.shape = tuple(int(s) for s in X.shape)
        self.ranges = row_ranges(self.shape[0])
        X = X.map_blocks(_as_float32, dtype=np.float32) if X.dtype != np.float32 else X
        X = X.rechunk((RANGE_ROWS, self.shape[1]))
        self.X = self.client.persist(X)
        keys = [k[0] if isinstance(k, list) else k for k in self.X.__dask_keys__()]
        from distributed import futures_of

        by_key = {f.key: f for f in futures_of(self.X)}
        self._chunks = [by_key[k] for k in keys]
        self.n_jobs = resolve_jobs(n_jobs)   # the solves run here (module docstring), on threads
        self._check_values()

    # ------------------------------------------------------------------ waiting
    def _results(self, futures, cancel):
        """The futures' results in order, checking ``cancel``; a failed task becomes
        ClusterError (all outstanding work is cancelled)."""
        import threading

        try:
            for f in futures:
                # A done-callback rather than result(timeout=...): the latter raised
                # UnboundLocalError instead of TimeoutError in distributed 2026.8.
                done = threading.Event()
                f.add_done_callback(lambda _f, _done=done: _done.set())
                while not done.wait(_WAIT):
                    check_cancel(cancel)
                check_cancel(cancel)
                yield f.result()
        except Exception as exc:
            self.client.cancel([f for f in futures if not f.done()])
            if isinstance(exc, (InputError, Cancelled)):
                raise
            raise ClusterError(f"the Dask cluster failed the run ({exc.__class__.__name__}: {exc}); nothing was "
                               "saved. Check the workers' logs and memory (a worker that died repeatedly stops the "
                               "run), then start the run again.") from exc

    # ------------------------------------------------------------------ LocalRows' interface
    def map(self, fn, per_range: dict, common: dict, cancel=None):
        """``fn(chunk, lo, **per_range[key], **common)`` on the worker holding the key's range
        (`core.aflite.storage.range_of`), in key order."""
        shared = {k: self.client.scatter(v, broadcast=True) if isinstance(v, np.ndarray) and v.nbytes > 65536 else v
                  for k, v in common.items()}
        futures = [self.client.submit(fn, self._chunks[range_of(key)], self.ranges[range_of(key)][0], **per_range[key],
                                      **shared, pure=False)
                   for key in sorted(per_range)]
        return self._results(futures, cancel)

    def take(self, rows: np.ndarray) -> np.ndarray:
        """Rows ``rows`` (ascending) gathered from the workers that hold them."""
        rows = np.asarray(rows, dtype=np.int64)
        out = np.empty((len(rows), self.shape[1]), dtype=np.float32)
        if len(rows) == 0:
            return out
        starts = np.array([lo for lo, _ in self.ranges] + [self.shape[0]])
        which = np.searchsorted(starts, rows, side="right") - 1
        per_range = {int(i): {"at": rows[which == i] - self.ranges[i][0]} for i in np.unique(which)}
        for i, part in zip(sorted(per_range), self.map(_range_take, per_range, {})):
            out[which == i] = part
        return out

    def fetcher(self, rows: np.ndarray):
        """``take`` for subsets of ``rows``, which are gathered from the workers once (one
        round trip, not one per partition)."""
        rows = np.asarray(rows, dtype=np.int64)
        held = self.take(rows)
        return lambda idx: held[np.searchsorted(rows, idx)]

    def tasks(self, fn, kwargs, common, cancel=None):
        return run_tasks(fn, kwargs, common, cancel, self.n_jobs)

    def derive(self, fn, common: dict, d_out: int, cancel=None) -> "DaskRows":
        """The rows ``fn(chunk, lo, **common)`` (e.g. a projection), computed and kept on the workers."""
        import dask.array as da

        parts = []
        for i, (lo, hi) in enumerate(self.ranges):
            parts.append(da.from_delayed(_delayed(fn, self._chunks[i], lo, common), shape=(hi - lo, d_out),
                                         dtype=np.float32))
        return DaskRows(da.concatenate(parts), self.client, self.n_jobs)

    def describe(self) -> dict:
        info = self.client.scheduler_info()
        return {"backend": "dask", "scheduler": info.get("address"), "workers": len(info.get("workers", {})),
                "range_rows": RANGE_ROWS}

    # ------------------------------------------------------------------ checks
    def _check_values(self):
        check_values(self.map(scan_rows, {i: {} for i in range(len(self.ranges))}, {}))


def _delayed(fn, chunk_future, lo, common):
    import dask

    return dask.delayed(lambda c: np.ascontiguousarray(fn(c, lo, **common), dtype=np.float32))(chunk_future)


# ------------------------------------------------------------------ lazy loaders


def _npy_rows(path, lo, hi):
    return np.ascontiguousarray(np.load(path, mmap_mode="r")[lo:hi], dtype=np.float32)


def _parquet_group(path, group, column):
    import pyarrow.parquet as pq

    col = pq.ParquetFile(path).read_row_group(group, columns=[column]).column(0).combine_chunks()
    width = len(col[0]) if len(col) else 0
    flat = col.flatten().to_numpy(zero_copy_only=False)
    return np.ascontiguousarray(flat.reshape(len(col), width), dtype=np.float32)


def load_array(path, column: str | None = None):
    """A lazy (N, d) dask array of the vectors in ``path``: ``.npy`` (each task
    memory-maps its rows), Zarr (a ``.zarr`` folder) or Parquet (one list column of
    vectors, ``column`` or the only one, read by row group)."""
    import dask
    import dask.array as da

    path = Path(path).expanduser()
    if not path.exists():
        raise InputError(f"'{path}' does not exist: give the path of a .npy file, a .zarr folder or a .parquet file.")
    suffix = path.suffix.lower()
    if suffix == ".npy":
        try:
            head = np.load(path, mmap_mode="r")
        except ValueError as exc:
            raise InputError(f"'{path.name}' cannot be memory-mapped ({exc}): save it with numpy.save as a "
                             "plain numeric (N, d) array.") from None
        if head.ndim != 2:
            raise InputError(f"'{path.name}' holds an array of shape {head.shape}: give an (N, d) matrix.")
        N, d = head.shape
        parts = [da.from_delayed(dask.delayed(_npy_rows)(str(path), lo, hi), shape=(hi - lo, d), dtype=np.float32)
                 for lo, hi in row_ranges(N)]
        return da.concatenate(parts) if parts else da.zeros((0, d), dtype=np.float32)
    if suffix == ".zarr" or (path.is_dir() and (path / ".zarray").exists() or (path / "zarr.json").exists()):
        return da.from_zarr(str(path))
    if suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        meta = pq.ParquetFile(path)
        lists = [f.name for f in meta.schema_arrow
                 if pa.types.is_list(f.type) or pa.types.is_fixed_size_list(f.type) or pa.types.is_large_list(f.type)]
        if column is None:
            if len(lists) != 1:
                raise InputError(f"'{path.name}' has {len(lists)} list columns ({', '.join(lists) or 'none'}): "
                                 "name the vector column (column=NAME).")
            column = lists[0]
        elif column not in lists:
            raise InputError(f"'{path.name}' has no list column '{column}'; its list columns: {', '.join(lists) or 'none'}.")
        first = _parquet_group(str(path), 0, column) if meta.num_row_groups else np.empty((0, 0), np.float32)
        d = first.shape[1]
        parts = []
        for g in range(meta.num_row_groups):
            n = meta.metadata.row_group(g).num_rows
            parts.append(da.from_delayed(dask.delayed(_parquet_group)(str(path), g, column), shape=(n, d),
                                         dtype=np.float32))
        return da.concatenate(parts)
    raise InputError(f"'{path.name}': a Dask run reads .npy, .zarr or .parquet vectors; convert it to one of them.")
