"""Nearest neighbours of an example in a representation Φ (cosine similarity).

Used by the example detail view (its nearest neighbours, possible duplicates, and
"more like this"). One query is one matrix-vector product over Φ: about 0.1 s for
100k × 768 float32 on one core, so nothing is indexed ahead of time.
"""
from __future__ import annotations

import numpy as np

from core.base.errors import InputError

__all__ = ["nearest", "top_k"]


def nearest(X, row: int, k: int = 10):
    """(rows, similarities) of the ``k`` rows of ``X`` most cosine-similar to row ``row``
    (itself excluded), most similar first. Zero rows have similarity 0 to everything."""
    X = np.asarray(X)
    if X.ndim != 2 or not len(X):
        raise InputError("the representation must be a non-empty 2-D array of vectors.")
    if not 0 <= int(row) < len(X):
        raise InputError(f"row={row!r} is invalid: give 0 <= row < {len(X)}.")
    k = max(0, min(int(k), len(X) - 1))
    x = X[int(row)].astype(np.float32)
    norms = np.linalg.norm(X, axis=1).astype(np.float32)
    denom = norms * float(np.linalg.norm(x))
    sims = np.divide(X @ x, denom, out=np.zeros(len(X), dtype=np.float32), where=denom > 0)
    sims[int(row)] = -np.inf
    top = top_k(sims, k)
    return top, sims[top]


def top_k(scores, k: int) -> np.ndarray:
    """Positions of the ``k`` highest ``scores``, highest first (ties in position order): one
    partial sort, then a stable sort of those ``k`` only."""
    scores = np.asarray(scores)
    k = max(0, min(int(k), len(scores)))
    if k == 0:
        return np.array([], dtype=np.int64)
    top = np.argpartition(-scores, k - 1)[:k]
    return top[np.argsort(-scores[top], kind="stable")].astype(np.int64)
