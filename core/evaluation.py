"""Measures of what a filtered split did: accuracy on full / filtered / random
subsets, and KNN-distance bias.

* `subset_accuracy`: cross-validated accuracy of model families on several
  subsets of the same data (paper 000 §4.2 compares the full set D, the
  AFLite-filtered set and a random subset of equal size; a drop that a random
  subset of the same size does not show is the bias AFLite removed).
* `knn_distances`: paper 003 Table 3. Held-out examples are compared with their K
  nearest training neighbours, within their own class and against the other
  classes, before filtering (training = everything else) and after (training =
  the retained examples only). The paper does not print its normalisation; here a
  cell is the mean cosine distance (1 − cos) to the K nearest neighbours, averaged
  over the held-out examples of the class. Distances that grow after filtering mean
  the filtered set is less redundant with unseen data.
"""
from __future__ import annotations

from typing import Dict, Iterable, Sequence

import numpy as np
import pandas as pd

from core.errors import InputError

FAMILIES = ("logistic", "svm", "ridge", "knn")


def _model(name: str, random_state: int):
    from sklearn.linear_model import LogisticRegression, RidgeClassifier
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.svm import LinearSVC

    if name == "logistic":
        return LogisticRegression(max_iter=1000, random_state=random_state)
    if name == "svm":
        return LinearSVC(random_state=random_state)
    if name == "ridge":
        return RidgeClassifier()
    if name == "knn":
        return KNeighborsClassifier(n_neighbors=15)
    raise InputError(f"unknown model family {name!r}; choose from {', '.join(FAMILIES)}.")


def subset_accuracy(X, y, subsets: Dict[str, np.ndarray], *, families: Sequence[str] = ("logistic",),
                    folds: int = 5, random_state: int = 0) -> pd.DataFrame:
    """Cross-validated accuracy of each model family on each subset.

    Parameters
    ----------
    X : (N, d) array
        The representation Φ.
    y : (N,) labels.
    subsets : dict name -> (N,) bool mask
        E.g. ``{"full": all, "filtered": af.retained_, "random": random_mask}``.
    families : sequence of str
        Any of ``logistic``, ``svm``, ``ridge``, ``knn``.
    folds : int
        Stratified folds (≥ 2).

    Returns
    -------
    DataFrame with columns ``subset, family, size, accuracy, majority`` (the
    share of the most frequent label: the accuracy of always guessing it).
    """
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    X = np.asarray(X, dtype=np.float32)
    y = np.asarray(y)
    if len(X) != len(y):
        raise InputError(f"X has {len(X)} rows but y has {len(y)} labels; give one label per row.")
    if not isinstance(folds, (int, np.integer)) or folds < 2:
        raise InputError(f"folds={folds!r} must be a whole number ≥ 2.")
    rows = []
    for name, mask in subsets.items():
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != y.shape:
            raise InputError(f"subset {name!r} has {mask.shape[0]} entries; it needs one per example ({len(y)}).")
        ys = y[mask]
        labels, counts = np.unique(ys, return_counts=True) if len(ys) else ([], np.array([0]))
        if len(labels) < 2 or counts.min() < folds:
            raise InputError(f"subset {name!r} has too few examples per label for {folds}-fold accuracy "
                             f"(smallest label: {int(counts.min())}); use fewer folds or a larger subset.")
        cv = StratifiedKFold(folds, shuffle=True, random_state=random_state)
        for fam in families:
            acc = cross_val_score(_model(fam, random_state), X[mask], ys, cv=cv).mean()
            rows.append({"subset": name, "family": fam, "size": int(mask.sum()),
                         "accuracy": float(acc), "majority": float(counts.max() / counts.sum())})
    return pd.DataFrame(rows)


def _normalise(X):
    X = np.asarray(X, dtype=np.float32)
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    return X / np.maximum(norms, 1e-12)


def _mean_knn_distance(Q, R, ks, chunk=2048):
    """Mean over rows of Q of the mean cosine distance to the K nearest rows of R, per K."""
    kmax = min(max(ks), len(R))
    totals = np.zeros(len(ks))
    for lo in range(0, len(Q), chunk):
        sim = Q[lo:lo + chunk] @ R.T
        top = -np.partition(-sim, kmax - 1, axis=1)[:, :kmax]
        top = -np.sort(-top, axis=1)
        dist = 1.0 - top
        csum = np.cumsum(dist, axis=1)
        for i, k in enumerate(ks):
            kk = min(k, kmax)
            totals[i] += (csum[:, kk - 1] / kk).sum()
    return totals / max(len(Q), 1)


def knn_distances(X, y, retained, *, ks: Iterable[int] = (1, 5, 10, 50), held_out: float = 0.1,
                  random_state: int = 0) -> pd.DataFrame:
    """KNN-distance bias before and after filtering (paper 003, Table 3).

    Parameters
    ----------
    X : (N, d) array
        The representation in which distances are measured (cosine).
    y : (N,) labels.
    retained : (N,) bool
        The filtered set.
    ks : iterable of int
        Neighbourhood sizes K (paper: 1, 5, 10, 50).
    held_out : float in (0, 1)
        Share of the examples, stratified by label, held out as queries; the rest
        is the training data (all of it before, its retained part after).

    Returns
    -------
    DataFrame with columns ``label, against`` ("same class" or "other classes"),
    ``K``, ``before``, ``after``, ``change``.
    """
    from sklearn.model_selection import train_test_split

    ks = sorted({int(k) for k in ks})
    if not ks or ks[0] < 1:
        raise InputError(f"ks={ks!r} must be positive neighbourhood sizes, e.g. (1, 5, 10, 50).")
    if not 0 < held_out < 1:
        raise InputError(f"held_out={held_out!r} must be a fraction in (0, 1), e.g. 0.1.")
    Xn = _normalise(X)
    y = np.asarray(y)
    retained = np.asarray(retained, dtype=bool)
    if not (len(Xn) == len(y) == len(retained)):
        raise InputError(f"X ({len(Xn)}), y ({len(y)}) and retained ({len(retained)}) must have one entry per example.")
    idx = np.arange(len(y))
    train, query = train_test_split(idx, test_size=held_out, stratify=y, random_state=random_state)
    rows = []
    for label in np.unique(y):
        q = Xn[query[y[query] == label]]
        for against, pool in (("same class", y[train] == label), ("other classes", y[train] != label)):
            before_ref = Xn[train[pool]]
            after_ref = Xn[train[pool & retained[train]]]
            if len(before_ref) == 0 or len(after_ref) == 0 or len(q) == 0:
                continue
            before = _mean_knn_distance(q, before_ref, ks)
            after = _mean_knn_distance(q, after_ref, ks)
            for k, b, a in zip(ks, before, after):
                rows.append({"label": label, "against": against, "K": k, "before": float(b),
                             "after": float(a), "change": float(a - b)})
    return pd.DataFrame(rows)
