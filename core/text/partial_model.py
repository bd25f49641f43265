"""The partial-input model of the simple features (paper 004's X): a multinomial naive Bayes on a
field's binary n-grams, cross-fitted, whose out-of-fold prediction is a feature ("hypothesis-only
prediction = contradiction") and whose accuracy says how much the field alone gives away."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["cross_fitted_nb"]


def cross_fitted_nb(X: sp.csr_matrix, y_codes: np.ndarray, n_classes: int, fit_rows: np.ndarray, folds: int,
                    random_state=0, alpha: float = 1.0) -> tuple:
    """Out-of-fold predictions of a multinomial naive Bayes on binary features.

    Rows in `fit_rows` are split into `folds` folds; each fold is predicted by a
    model fitted on the other folds. Rows outside `fit_rows` are predicted by the
    model fitted on all of `fit_rows`. Closed form: per-fold feature-label counts
    are the totals minus the fold's own counts, so all folds cost one pass.

    Returns
    -------
    pred : int array (N,)
        Predicted class codes.
    accuracy : float
        Out-of-fold accuracy on `fit_rows`.
    """
    N = X.shape[0]
    fit_idx = np.flatnonzero(fit_rows)
    Y = sp.csr_matrix(
        (np.ones(len(fit_idx), np.float32), (fit_idx, y_codes[fit_idx])), shape=(N, n_classes)
    )
    XT = X.T.tocsr()
    total = np.asarray((XT @ Y).todense(), dtype=np.float64)  # F x L
    class_total = np.bincount(y_codes[fit_idx], minlength=n_classes).astype(np.float64)

    def scores(counts, class_counts, rows):
        theta = np.log(counts + alpha) - np.log(counts.sum(axis=0, keepdims=True) + alpha * counts.shape[0])
        prior = np.log(np.maximum(class_counts, 1e-12) / max(class_counts.sum(), 1e-12))
        return np.asarray(X[rows] @ theta) + prior

    pred = np.full(N, -1, dtype=np.int64)
    rng = np.random.default_rng(random_state)
    fold_of = rng.permutation(len(fit_idx)) % folds
    for f in range(folds):
        rows = fit_idx[fold_of == f]
        if not len(rows):
            continue
        Yf = Y[rows]
        own = np.asarray((X[rows].T @ Yf).todense(), dtype=np.float64)
        s = scores(total - own, class_total - np.bincount(y_codes[rows], minlength=n_classes), rows)
        pred[rows] = s.argmax(axis=1)
    rest = np.flatnonzero(~fit_rows)
    if len(rest):
        pred[rest] = scores(total, class_total, rest).argmax(axis=1)
    acc = float((pred[fit_idx] == y_codes[fit_idx]).mean()) if len(fit_idx) else float("nan")
    return pred, acc
