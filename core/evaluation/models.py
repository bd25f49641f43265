"""The model families an evaluation trains, and how one is built and fitted (see `core.evaluation`)."""
from __future__ import annotations

import warnings
from typing import Optional

import numpy as np
import pandas as pd

from core.errors import InputError


#: every model family this module trains (the first four are the historical `subset_accuracy` set)
FAMILIES = ("logistic", "svm", "ridge", "knn", "rbf-svm", "mlp")
#: the families of paper 000 Table 3 style tables (issue 12)
TABLE_FAMILIES = ("logistic", "svm", "rbf-svm", "knn", "mlp")
FAMILY_NAMES = {"logistic": "logistic regression", "svm": "linear SVM", "ridge": "ridge classifier",
                "knn": "k-nearest neighbours", "rbf-svm": "RBF-SVM", "mlp": "MLP (one hidden layer of 64)"}
#: neighbours of the KNN family
KNN_K = 15
#: above this many training examples the RBF-SVM is a Nyström approximation (500 components + linear SVM):
#: an exact kernel SVM costs O(n²) memory and minutes at 16k examples
RBF_EXACT_MAX = 4000
TRAIN_SETS = ("full", "aflite", "random", "single-model")
EVAL_SETS = ("i.i.d.", "AFLite-filtered")
#: paper 000 §3 / Fig. 2: four inner/outer radius ratios; the largest separation (0.2) gets flipped labels
SEPARATIONS = (0.2, 0.4, 0.6, 0.8)


def make_model(name: str, random_state: int, params: Optional[dict] = None, *, n_train: int = 0, d: int = 0,
           scale: float = 1.0):
    from sklearn.linear_model import LogisticRegression, RidgeClassifier
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.neural_network import MLPClassifier
    from sklearn.svm import SVC, LinearSVC

    params = dict(params or {})
    if name == "logistic":
        return LogisticRegression(**{"max_iter": 1000, "random_state": random_state, **params})
    if name == "svm":
        return LinearSVC(**{"random_state": random_state, **params})
    if name == "ridge":
        return RidgeClassifier(**params)
    if name == "knn":
        return KNeighborsClassifier(**{"n_neighbors": KNN_K, **params})
    if name == "rbf-svm":
        if n_train > RBF_EXACT_MAX:
            from sklearn.kernel_approximation import Nystroem
            from sklearn.pipeline import make_pipeline

            gamma = 1.0 / max(d * scale, 1e-12)   # SVC's gamma="scale"
            return make_pipeline(Nystroem(gamma=gamma, n_components=500, random_state=random_state),
                                 LinearSVC(**{"random_state": random_state, **params}))
        return SVC(**{"kernel": "rbf", "gamma": "scale", **params})
    if name == "mlp":
        # early stopping (10 % validation) only where 10 % is a usable validation set
        return MLPClassifier(**{"hidden_layer_sizes": (64,), "max_iter": 300, "early_stopping": n_train >= 2000,
                                "random_state": random_state, **params})
    raise InputError(f"unknown model family {name!r}; choose from {', '.join(FAMILIES)}.")


def check_families(families) -> list:
    families = list(families)
    for fam in families:
        if fam not in FAMILIES:
            raise InputError(f"unknown model family {fam!r}; choose from {', '.join(FAMILIES)}.")
    if not families:
        raise InputError("no model family chosen; choose one or more of " + ", ".join(TABLE_FAMILIES) + ".")
    return families


def fit_predict(fam: str, Xtr, ytr, Xte, random_state: int, params: Optional[dict] = None):
    """(predictions or None, note): one family fitted on (Xtr, ytr) and applied to Xte.

    A failed fit gives None and a note naming the cause; a fit that stopped before
    converging gives predictions and a note saying so."""
    from sklearn.exceptions import ConvergenceWarning

    name = FAMILY_NAMES.get(fam, fam)
    labels = np.unique(ytr)
    if len(labels) < 2:
        return None, f"{name}: the training set has {len(ytr)} examples of {len(labels)} label(s); it needs two labels"
    k = int((params or {}).get("n_neighbors", KNN_K))
    if fam == "knn" and len(ytr) < k:
        return None, f"{name}: K = {k} neighbours but the training set has only {len(ytr)} examples"
    scale = float(np.var(Xtr)) if fam == "rbf-svm" else 1.0
    model = make_model(fam, random_state, params, n_train=len(ytr), d=Xtr.shape[1], scale=scale)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        try:
            model.fit(Xtr, ytr)
            pred = model.predict(Xte) if len(Xte) else np.array([], dtype=ytr.dtype)
        except (ValueError, np.linalg.LinAlgError, MemoryError) as exc:
            return None, f"{name} could not be fitted: {exc}"
    if any(issubclass(w.category, ConvergenceWarning) for w in caught):
        iters = getattr(model, "max_iter", None) or (params or {}).get("max_iter")
        return pred, (f"{name} did not converge" + (f" in max_iter = {iters} iterations" if iters else "")
                      + "; its accuracy may be understated")
    return pred, ""


def notes_of(frame: pd.DataFrame) -> list:
    return list(frame.attrs.get("notes", []))


def with_notes(frame: pd.DataFrame, notes) -> pd.DataFrame:
    seen, out = set(), []
    for n in notes:
        if n and n not in seen:
            seen.add(n)
            out.append(n)
    frame.attrs["notes"] = out
    return frame
