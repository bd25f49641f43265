"""Baselines of paper 000 §4.2: a random subset of the same size, and single-model,
non-iterative filtering."""
from __future__ import annotations

import numpy as np

from .inputs import check_X, encode_labels
from .selection import is_int, resolve_size
from ..base.errors import InputError

__all__ = ["random_subset", "single_model_filter"]


def random_subset(n_examples: int, size, *, random_state=0) -> np.ndarray:
    """Baseline of paper 000 §4 (D_92k): a uniformly random subset of the same size.

    Parameters
    ----------
    n_examples : int
        N.
    size : int or float in (0, 1)
        Size of the subset (e.g. AFLite's ``retained_.sum()``).

    Returns
    -------
    (N,) bool mask with exactly ``size`` True.
    """
    if not is_int(n_examples) or n_examples < 1:
        raise InputError(f"n_examples={n_examples!r} is invalid: give a positive integer.")
    s = resolve_size("size", "n", size, n_examples)
    if not 0 <= s <= n_examples:
        raise InputError(f"size={size!r} is invalid: give a size between 0 and {n_examples}.")
    rng = np.random.default_rng(random_state)
    mask = np.zeros(n_examples, dtype=bool)
    mask[rng.choice(n_examples, size=s, replace=False)] = True
    return mask


def single_model_filter(X, y, size, *, n_folds=5, alpha=1e-3, random_state=0) -> np.ndarray:
    """Baseline of paper 000 §4.2: single-model, non-iterative filtering.

    One ridge model per fold (``n_folds``-fold cross-fitting, so every example is
    predicted once by a model that did not see it), one pass: examples are ranked
    by their margin for the true label (score of y minus the best other score) and
    the ``size`` least predictable are kept. No partitions ensemble, no phases.

    Returns
    -------
    (N,) bool mask with exactly ``size`` True.
    """
    X = check_X(X)
    codes, classes = encode_labels(y)
    N = len(X)
    if len(codes) != N:
        raise InputError(f"len(X)={N} but len(y)={len(codes)}: give exactly one label per row of X.")
    if len(classes) < 2:
        raise InputError(f"y has a single class ({classes[0]!r}): give at least two classes.")
    s = resolve_size("size", "n", size, N)
    if not 1 <= s < N:
        raise InputError(f"size={size!r} is invalid: give a size between 1 and {N - 1}.")
    if not is_int(n_folds) or not 2 <= n_folds <= N:
        raise InputError(f"n_folds={n_folds!r} is invalid: give an integer between 2 and {N}.")
    C = len(classes)
    Xc = X - X.mean(axis=0, dtype=np.float64).astype(np.float32)
    Xt = np.hstack([Xc, np.ones((N, 1), np.float32)]).astype(np.float64)
    Y = np.eye(C)[codes]
    fold = np.random.default_rng(random_state).permutation(N) % n_folds
    margin = np.empty(N)
    for f in range(n_folds):
        tr, te = fold != f, fold == f
        A = Xt[tr].T @ Xt[tr]
        d = A.shape[0] - 1
        A[np.arange(d), np.arange(d)] += alpha * max(np.trace(A[:d, :d]) / max(d, 1), 1e-12)
        W = np.linalg.solve(A, Xt[tr].T @ Y[tr])
        out = Xt[te] @ W
        yt = codes[te]
        own = out[np.arange(len(yt)), yt]
        out[np.arange(len(yt)), yt] = -np.inf
        margin[te] = own - out.max(axis=1)
    keep = np.zeros(N, dtype=bool)
    keep[np.argsort(margin, kind="stable")[:s]] = True
    return keep
