"""Checks of the inputs of a fit: the representation X and the labels y."""
from __future__ import annotations

import numpy as np

from ..base.errors import InputError
from ..data.labels import encode_labels as _encode

__all__ = ["check_X", "check_values", "scan_rows", "encode_labels", "check_removal_order", "check_protected"]

_CHECK_ROWS = 8192    # rows checked at a time (bounds the temporary: 8192 × d floats)


def encode_labels(y):
    """Labels of any hashable type -> (codes, classes), sorted classes when sortable."""
    return _encode(y, what="y")


#: |x| above this overflows float32 sums of products (Gram matrices) at realistic N and d
MAX_ABS = 1e12


def scan_rows(chunk, lo):
    """(rows with NaN/inf, largest finite |x|) of the rows ``lo, lo+1, …`` in ``chunk``."""
    row_max = np.abs(chunk).max(axis=1)   # NaN/inf propagate into the row maximum
    bad = ~np.isfinite(row_max)
    return lo + np.flatnonzero(bad), float(row_max[~bad].max()) if (~bad).any() else 0.0


def check_values(scans) -> None:
    """Refuse X from its `scan_rows` results (one per chunk, in row order)."""
    bad_rows, largest = [], 0.0
    for rows, top in scans:
        bad_rows.append(rows)
        largest = max(largest, top)
    rows = np.concatenate(bad_rows) if bad_rows else np.empty(0, dtype=np.int64)
    if len(rows):
        raise InputError(
            f"X has NaN or infinite values in {len(rows)} row(s) (first: row {rows[0]}): "
            "drop or impute those rows, or fix the representation.")
    if largest > MAX_ABS:
        raise InputError(f"X has values as large as {largest:.3g}, which overflow the models' sums of products; "
                         "scale X first (e.g. standardise each column).")


def check_X(X, *, keep_half: bool = False) -> np.ndarray:
    """X as a C-ordered float32 (N, d) matrix (no copy for float32 input, e.g. a memmap). With
    ``keep_half``, C-ordered float16 stays float16 (no copy either): the device scorer reads it in
    chunks and widens each one where it computes, so a 10M × 768 memory map (15 GB) is never a
    30 GB float32 copy in this process."""
    if hasattr(X, "toarray") and hasattr(X, "nnz"):
        raise InputError("X is a sparse matrix: give a dense (N, d) array, e.g. X.toarray() for a small one, or "
                         "reduce it first (e.g. TruncatedSVD) as the tfidf-svd representation does.")
    try:   # a memory map stays one (np.asarray would make it a plain view, which its record then misnames)
        X = X if isinstance(X, np.memmap) else np.asarray(X)
    except Exception as exc:  # ragged lists etc.
        raise InputError(f"X could not be read as a matrix ({exc}): give an (N, d) float array.") from None
    if X.ndim != 2:
        raise InputError(f"X has shape {X.shape}: give an (N, d) matrix, one row per example.")
    if not (np.issubdtype(X.dtype, np.floating) or np.issubdtype(X.dtype, np.integer)
            or X.dtype == bool):
        raise InputError(f"X has dtype {X.dtype}: give numbers (an (N, d) float array).")
    if X.shape[1] == 0:
        raise InputError("X has 0 columns: give a representation with at least one feature.")
    if X.shape[0] == 0:
        raise InputError("X has no rows: give one row per example.")
    half = keep_half and X.dtype == np.float16 and X.flags.c_contiguous
    if not (half or X.dtype == np.float32 and X.flags.c_contiguous):
        X = np.asarray(X, dtype=np.float32, order="C")
    check_values(scan_rows(X[lo:lo + _CHECK_ROWS], lo) for lo in range(0, X.shape[0], _CHECK_ROWS))
    return X


def check_removal_order(quality, N: int, strategy: str):
    """A fit's ``quality`` as (N,) float64 (or None): one finite score per row, any scale (it only
    orders the removals; the DQI's own [0, 1] contract is `core.quality.check_quality`)."""
    if quality is None:
        return None
    q = np.asarray(quality, dtype=np.float64)
    if q.shape != (N,):
        raise InputError(f"quality has shape {q.shape}: give one score per row of X, shape ({N},).")
    if not np.isfinite(q).all():
        raise InputError("quality has NaN or infinite values: give a finite score for every row.")
    if strategy == "slice-sample":
        raise InputError("quality cannot be combined with strategy='slice-sample': quality "
                         "fixes the removal order; use strategy='greedy-slice'.")
    return q


def check_protected(protected, N: int):
    """A fit's ``protected`` rows as (N,) bool (or None): one True/False per row, not all True."""
    if protected is None:
        return None
    keep = np.asarray(protected)
    if keep.shape != (N,) or keep.dtype != bool:
        raise InputError(f"protected has shape {keep.shape} and dtype {keep.dtype}: give one True/False per "
                         f"row of X, shape ({N},).")
    if keep.all():
        raise InputError("protected marks every row: nothing could be removed; protect fewer examples.")
    return keep
