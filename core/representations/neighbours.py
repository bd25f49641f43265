"""Nearest neighbours in a representation Φ by cosine similarity, computed one way.

`nearest`: one example's neighbours (the example detail view: its nearest neighbours, possible
duplicates, "more like this"); one query is one matrix-vector product over Φ, about 0.1 s for
100k × 768 float32 on one core, so nothing is indexed ahead of time. `cosine_neighbours`: the K
nearest rows of one matrix for every row of another, in chunks that bound the similarities held
in memory (the evaluation's KNN distances; `max_cosine`, K = 1, for the quality components'
nearest neighbour and inter-split similarity).
"""
from __future__ import annotations

import numpy as np

from ..base.errors import InputError

__all__ = ["nearest", "top_k", "normalise_rows", "cosine_neighbours", "max_cosine"]


def nearest(X, row: int, k: int = 10):
    """(rows, similarities) of the ``k`` rows of ``X`` most cosine-similar to row ``row``
    (itself excluded), most similar first. Zero rows have similarity 0 to everything."""
    X = np.asarray(X)
    if X.ndim != 2 or not len(X):
        raise InputError("the representation must be a non-empty 2-D array of vectors.")
    if not 0 <= int(row) < len(X):
        raise InputError(f"row={row!r} is invalid: give 0 <= row < {len(X)}.")
    k = max(0, min(int(k), len(X) - 1))
    R = normalise_rows(X)
    # one more than asked, then the row itself dropped (it may tie with exact duplicates)
    sims, rows = cosine_neighbours(R[[int(row)]], R, k + 1)
    others = rows[0] != int(row)
    return rows[0][others][:k], sims[0][others][:k]


def top_k(scores, k: int) -> np.ndarray:
    """Positions of the ``k`` highest ``scores``, highest first (ties in position order): one
    partial sort, then a stable sort of those ``k`` only."""
    scores = np.asarray(scores)
    k = max(0, min(int(k), len(scores)))
    if k == 0:
        return np.array([], dtype=np.int64)
    top = np.argpartition(-scores, k - 1)[:k]
    return top[np.argsort(-scores[top], kind="stable")].astype(np.int64)


def normalise_rows(X) -> np.ndarray:
    """``X`` as float32 with each row of unit length (a zero row stays zero)."""
    X = np.asarray(X, dtype=np.float32)
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    return X / np.maximum(norms, 1e-12)


def cosine_neighbours(Q: np.ndarray, R: np.ndarray, k: int, *, exclude_self: bool = False, chunk: int = 2048):
    """(similarities, rows), each (len(Q), k'): for every row of ``Q`` the ``k' = min(k, len(R))``
    rows of ``R`` with the largest dot products, largest first. Give both row-normalised
    (`normalise_rows`) for cosines. ``exclude_self``: ``Q`` is ``R`` (a row is not its own
    neighbour). ``chunk`` rows of ``Q`` at a time, so ``chunk × len(R)`` similarities at most are
    in memory."""
    k = max(0, min(int(k), len(R) - (1 if exclude_self else 0)))
    sims = np.full((len(Q), k), -np.inf, dtype=np.float32)
    rows = np.full((len(Q), k), -1, dtype=np.int64)
    if k == 0:
        return sims, rows
    for lo in range(0, len(Q), max(1, int(chunk))):
        S = Q[lo:lo + chunk] @ R.T
        if exclude_self:
            at = np.arange(S.shape[0])
            S[at, lo + at] = -np.inf
        if k == 1:   # the common case (a best match): one pass, ties to the first row
            best = S.argmax(axis=1)[:, None]
        else:
            best = np.argpartition(-S, k - 1, axis=1)[:, :k]
            order = np.argsort(-np.take_along_axis(S, best, axis=1), axis=1, kind="stable")
            best = np.take_along_axis(best, order, axis=1)
        rows[lo:lo + len(S)] = best
        sims[lo:lo + len(S)] = np.take_along_axis(S, best, axis=1)
    return sims, rows


def max_cosine(Q: np.ndarray, R: np.ndarray, *, exclude_self: bool, budget: int = 1 << 25):
    """(largest similarity, its row of ``R``) for each row of ``Q`` (`cosine_neighbours`, K = 1),
    at most ``budget`` similarities in memory; -inf and -1 where ``R`` has no row to offer."""
    if not len(R) or (exclude_self and len(R) < 2):
        return np.full(len(Q), -np.inf, dtype=np.float32), np.full(len(Q), -1, dtype=np.int64)
    sims, rows = cosine_neighbours(Q, R, 1, exclude_self=exclude_self, chunk=max(1, budget // len(R)))
    return sims[:, 0], rows[:, 0]
