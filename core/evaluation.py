"""Measures of what a filtered split did, the way the papers prove it (issue 12).

Every building block returns a pandas table. Bad input that concerns one cell (a
training set that lacks a label of the evaluation split, fewer examples of a class
than folds or than K, a model family that does not converge, a difficulty column
with missing or non-numeric values) never stops the table: the cell gets a ``note``
naming the cause, the table's ``attrs["notes"]`` collects them, and the other cells
are computed.

* `subset_accuracy`: cross-validated accuracy of model families on several subsets
  of the same data (paper 000 §4.2: full set D, AFLite-filtered set, a random subset
  of equal size; a drop the random subset does not show is the bias AFLite removed).
* `heldout_split`, `training_sets`, `evaluation_sets`, `family_table`: paper 000
  Table 3. One i.i.d. held-out split (stratified by label) is set aside; the model
  families (logistic regression, linear SVM, RBF-SVM, k-nearest neighbours, a small
  MLP) are trained on four sets drawn from the rest — **full**, **AFLite** (the
  examples of the rest the run retained at the chosen τ/n), **random** (a uniformly
  random subset of the rest of the AFLite set's size; optionally stratified so it
  keeps the full set's label shares) and **single-model** (paper 000 §4.2's
  non-iterative, single-model filter run on the rest, to the same size) — and
  evaluated on the held-out split (**i.i.d.**) and on that split filtered by AFLite
  (**AFLite-filtered**). *How the evaluation split is filtered*: the run scored every
  example, the held-out ones included, so the AFLite-filtered evaluation split is
  the held-out examples the run itself retained at the chosen τ/n (the run's own
  decision, the way paper 000 filters its dev and validation sets with the same
  AFLite pass; no second fit and no other model is involved). Cells: accuracy,
  Δ to the full training set, a percentile-bootstrap 95 % interval where the
  evaluation split is small.
* `knn_distances`: paper 003 Table 3. Held-out examples are compared with their K
  nearest training neighbours, within their own class and against the other
  classes, before filtering (training = everything else) and after (training =
  the retained examples only). The paper does not print its normalisation; here a
  cell is the mean cosine distance (1 − cos) to the K nearest neighbours, averaged
  over the held-out examples of the class. Distances that grow after filtering mean
  the filtered set is less redundant with unseen data.
* `phase_table`: representation bias R (mean p̃ on S, eq. 5) and held-out accuracy
  per phase, with the phases that run at the chosen τ/n.
* `coarse_action`: paper 002 Algorithm 1 lines 2–9, the learning-curve "coarse
  action": accuracy on growing random fractions b, 2b, … of the data; the fraction
  where it stops improving (by more than a tolerance) is the suggested target size n.
* `difficulty_check`: an external per-example number (models that got it right, a
  human rating) among retained vs removed vs a random subset of the retained size,
  with a permutation p-value.
* `synthetic_report`: paper 000 §3 / Fig. 2, the circles at four separations.
* `evaluate`: all of it for one run, as an `Evaluation` (plain tables, JSON-able),
  and `EvaluationStore`, where finished evaluations are kept beside the run store.
"""
from __future__ import annotations

import hashlib
import json
import time
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Dict, Iterable, Optional, Sequence

import numpy as np
import pandas as pd

from core.errors import InputError
from core.progress import check_cancel, report, span

__all__ = ["FAMILIES", "TABLE_FAMILIES", "FAMILY_NAMES", "SEPARATIONS", "subset_accuracy", "knn_distances",
           "heldout_split", "training_sets", "evaluation_sets", "family_table", "phase_table", "coarse_action",
           "difficulty_check", "synthetic_report", "default_partial_spec", "EvaluationOptions", "Evaluation",
           "evaluate", "EvaluationStore"]

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


def _model(name: str, random_state: int, params: Optional[dict] = None, *, n_train: int = 0, d: int = 0,
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


def _check_families(families) -> list:
    families = list(families)
    for fam in families:
        if fam not in FAMILIES:
            raise InputError(f"unknown model family {fam!r}; choose from {', '.join(FAMILIES)}.")
    if not families:
        raise InputError("no model family chosen; choose one or more of " + ", ".join(TABLE_FAMILIES) + ".")
    return families


def _fit_predict(fam: str, Xtr, ytr, Xte, random_state: int, params: Optional[dict] = None):
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
    model = _model(fam, random_state, params, n_train=len(ytr), d=Xtr.shape[1], scale=scale)
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


def _notes_of(frame: pd.DataFrame) -> list:
    return list(frame.attrs.get("notes", []))


def _with_notes(frame: pd.DataFrame, notes) -> pd.DataFrame:
    seen, out = set(), []
    for n in notes:
        if n and n not in seen:
            seen.add(n)
            out.append(n)
    frame.attrs["notes"] = out
    return frame


# ---------------------------------------------------------------------- cross-validated subsets
def subset_accuracy(X, y, subsets: Dict[str, np.ndarray], *, families: Sequence[str] = ("logistic",),
                    folds: int = 5, random_state: int = 0, errors: str = "raise") -> pd.DataFrame:
    """Cross-validated accuracy of each model family on each subset.

    Parameters
    ----------
    X : (N, d) array
        The representation Φ.
    y : (N,) labels.
    subsets : dict name -> (N,) bool mask
        E.g. ``{"full": all, "filtered": af.retained_, "random": random_mask}``.
    families : sequence of str
        Any of `FAMILIES`.
    folds : int
        Stratified folds (≥ 2).
    errors : "raise" or "note"
        A subset with fewer examples per label than ``folds``: raise `InputError`
        (the default), or give its rows NaN accuracy and a ``note`` naming the label.

    Returns
    -------
    DataFrame with columns ``subset, family, size, accuracy, majority`` (the
    share of the most frequent label: the accuracy of always guessing it) and,
    with ``errors="note"``, ``note``.
    """
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    X = np.asarray(X, dtype=np.float32)
    y = np.asarray(y)
    families = _check_families(families)
    if errors not in ("raise", "note"):
        raise InputError(f"errors={errors!r} must be 'raise' or 'note'.")
    if len(X) != len(y):
        raise InputError(f"X has {len(X)} rows but y has {len(y)} labels; give one label per row.")
    if not isinstance(folds, (int, np.integer)) or folds < 2:
        raise InputError(f"folds={folds!r} must be a whole number ≥ 2.")
    rows, notes = [], []
    for name, mask in subsets.items():
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != y.shape:
            raise InputError(f"subset {name!r} has {mask.shape[0]} entries; it needs one per example ({len(y)}).")
        ys = y[mask]
        labels, counts = np.unique(ys, return_counts=True) if len(ys) else (np.array([]), np.array([0]))
        majority = float(counts.max() / max(counts.sum(), 1))
        if len(labels) < 2 or counts.min() < folds:
            small = labels[np.argmin(counts)] if len(labels) else None
            msg = (f"subset {name!r} has too few examples per label for {folds}-fold accuracy "
                   f"(smallest label: {int(counts.min())}" + (f", label {small!r}" if small is not None else "")
                   + "); use fewer folds or a larger subset.")
            if errors == "raise":
                raise InputError(msg)
            notes.append(msg)
            for fam in families:
                rows.append({"subset": name, "family": fam, "size": int(mask.sum()), "accuracy": np.nan,
                             "majority": majority, "note": msg})
            continue
        cv = StratifiedKFold(folds, shuffle=True, random_state=random_state)
        for fam in families:
            note = ""
            try:
                from sklearn.exceptions import ConvergenceWarning

                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", ConvergenceWarning)
                    pred = cross_val_predict(_model(fam, random_state, n_train=int(mask.sum()), d=X.shape[1],
                                                    scale=float(np.var(X[mask]))), X[mask], ys, cv=cv)
                acc = float(np.mean(pred == ys))
                if any(issubclass(w.category, ConvergenceWarning) for w in caught):
                    note = f"{FAMILY_NAMES[fam]} did not converge on subset {name!r}; its accuracy may be understated"
            except ValueError as exc:
                if errors == "raise":
                    raise
                acc, note = np.nan, f"{FAMILY_NAMES[fam]} could not be fitted on subset {name!r}: {exc}"
            notes.append(note)
            row = {"subset": name, "family": fam, "size": int(mask.sum()), "accuracy": acc, "majority": majority}
            if errors == "note":
                row["note"] = note
            rows.append(row)
    return _with_notes(pd.DataFrame(rows), notes)


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


def _split_indices(y, share, random_state):
    """(train indices, held-out indices, note): stratified by label where every label has ≥ 2 examples."""
    from sklearn.model_selection import train_test_split

    y = np.asarray(y)
    idx = np.arange(len(y))
    labels, counts = np.unique(y, return_counts=True)
    n_test = int(np.ceil(share * len(y)))
    if (counts >= 2).all() and n_test >= len(labels) and len(y) - n_test >= len(labels):
        tr, te = train_test_split(idx, test_size=share, stratify=y, random_state=random_state)
        return np.sort(tr), np.sort(te), ""
    few = [str(lab) for lab, c in zip(labels, counts) if c < 2]
    note = ("the held-out split is not stratified by label: " + (
        f"label(s) {', '.join(few)} have a single example" if few else "it is smaller than the number of labels"))
    tr, te = train_test_split(idx, test_size=share, random_state=random_state)
    return np.sort(tr), np.sort(te), note


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
    ``K``, ``before``, ``after``, ``change``, ``note``. A class with fewer
    training examples than K (before or after filtering) is measured over the
    examples it has, and its ``note`` says so; a class with none gets no row and
    a note in ``attrs["notes"]``.
    """
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
    train, query, split_note = _split_indices(y, held_out, random_state)
    rows, notes = [], [split_note]
    for label in np.unique(y):
        q = Xn[query[y[query] == label]]
        for against, pool in (("same class", y[train] == label), ("other classes", y[train] != label)):
            before_ref = Xn[train[pool]]
            after_ref = Xn[train[pool & retained[train]]]
            if len(before_ref) == 0 or len(after_ref) == 0 or len(q) == 0:
                what = ("no held-out example" if len(q) == 0 else "no training example" if len(before_ref) == 0
                        else "no retained training example")
                notes.append(f"label {label!r}, {against}: {what}, so no KNN distance")
                continue
            before = _mean_knn_distance(q, before_ref, ks)
            after = _mean_knn_distance(q, after_ref, ks)
            for k, b, a in zip(ks, before, after):
                short = [f"{w} has {n}" for w, n in (("before", len(before_ref)), ("after", len(after_ref))) if n < k]
                note = (f"label {label!r}, {against}: fewer training examples than K = {k} ("
                        + ", ".join(short) + "); the mean is over those") if short else ""
                notes.append(note)
                rows.append({"label": label, "against": against, "K": k, "before": float(b),
                             "after": float(a), "change": float(a - b), "note": note})
    frame = pd.DataFrame(rows, columns=["label", "against", "K", "before", "after", "change", "note"])
    return _with_notes(frame, notes)


# ---------------------------------------------------------------------- paper 000 Table 3
@dataclass
class Split:
    """An i.i.d. held-out split: boolean masks over the N examples."""

    train: np.ndarray
    test: np.ndarray
    note: str = ""


def heldout_split(y, share: float = 0.2, random_state: int = 0) -> Split:
    """Set aside ``share`` of the examples (stratified by label when every label has two
    examples) as the i.i.d. evaluation split."""
    if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 < share < 1:
        raise InputError(f"eval_share={share!r} must be a fraction in (0, 1), e.g. 0.2.")
    y = np.asarray(y)
    if len(y) < 4:
        raise InputError(f"only {len(y)} examples: an evaluation needs at least 4 (two to train, two to evaluate).")
    tr, te, note = _split_indices(y, share, random_state)
    train, test = np.zeros(len(y), bool), np.zeros(len(y), bool)
    train[tr], test[te] = True, True
    return Split(train, test, note)


def _stratified_random(y, pool: np.ndarray, size: int, rng) -> np.ndarray:
    """``size`` examples of ``pool`` (indices) keeping the pool's label shares (largest remainders)."""
    labels, counts = np.unique(y[pool], return_counts=True)
    exact = counts / counts.sum() * size
    take = np.floor(exact).astype(int)
    for i in np.argsort(-(exact - take), kind="stable")[: size - int(take.sum())]:
        take[i] += 1
    chosen = [rng.choice(pool[y[pool] == lab], size=min(t, c), replace=False) for lab, t, c in zip(labels, take, counts)]
    return np.concatenate(chosen) if chosen else np.array([], int)


def training_sets(X, y, retained, split: Split, *, stratified: bool = False, random_state: int = 0) -> tuple:
    """The four training sets of paper 000 §4.2, drawn from ``split.train``.

    Returns
    -------
    (dict name -> (N,) bool mask, notes): ``full`` (every training example),
    ``aflite`` (those the run retained), ``random`` (a random subset of the
    training examples of the AFLite set's size; with ``stratified`` it keeps the
    full training set's label shares) and ``single-model``
    (`core.aflite.single_model_filter` on the training examples, same size).
    """
    from core.aflite import single_model_filter

    y = np.asarray(y)
    retained = np.asarray(retained, bool)
    train = split.train
    pool = np.flatnonzero(train)
    aflite = train & retained
    size = int(aflite.sum())
    rng = np.random.default_rng(random_state)
    notes = []
    random = np.zeros(len(y), bool)
    if stratified:
        random[_stratified_random(y, pool, size, rng)] = True
    else:
        random[rng.choice(pool, size=size, replace=False)] = True
    single = np.zeros(len(y), bool)
    if 1 <= size < len(pool):
        try:
            single[pool[single_model_filter(np.asarray(X)[pool], y[pool], size, random_state=random_state)]] = True
        except InputError as exc:
            notes.append(f"single-model filter: {exc}")
    elif size == len(pool):
        single[pool] = True
        notes.append("AFLite retained every training example, so every filtered set equals the full one")
    else:
        notes.append("AFLite retained no training example: the filtered training sets are empty")
    return {"full": train.copy(), "aflite": aflite, "random": random, "single-model": single}, notes


def evaluation_sets(retained, split: Split) -> dict:
    """``i.i.d.`` (the held-out split) and ``AFLite-filtered`` (its examples the run retained)."""
    return {"i.i.d.": split.test.copy(), "AFLite-filtered": split.test & np.asarray(retained, bool)}


def _bootstrap(correct: np.ndarray, n_boot: int, rng) -> tuple:
    if len(correct) == 0:
        return np.nan, np.nan
    draws = rng.integers(0, len(correct), size=(n_boot, len(correct)))
    means = correct[draws].mean(axis=1)
    return float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))


def family_table(X, y, train_sets: dict, eval_sets: dict, *, families: Sequence[str] = TABLE_FAMILIES,
                 bootstrap="auto", bootstrap_below: int = 5000, n_boot: int = 1000,
                 family_params: Optional[dict] = None, random_state: int = 0, progress=None,
                 cancel=None) -> pd.DataFrame:
    """Accuracy of each family trained on each training set, on each evaluation set (paper 000 Table 3).

    Parameters
    ----------
    X : (N, d) array
        What the models see (Φ, or a partial-input representation).
    y : (N,) labels.
    train_sets, eval_sets : dict name -> (N,) bool mask
        From `training_sets` and `evaluation_sets`.
    families : sequence of str
        Model families (`TABLE_FAMILIES` by default).
    bootstrap : "auto", True or False
        Percentile-bootstrap 95 % intervals of each accuracy (``n_boot`` resamples
        of the evaluation examples); "auto": for evaluation sets smaller than
        ``bootstrap_below``.
    family_params : dict family -> dict
        Constructor overrides, e.g. ``{"mlp": {"max_iter": 50}}``.

    Returns
    -------
    Long table ``family, train_set, train_size, eval_set, eval_size, accuracy,
    ci_low, ci_high, delta_full`` (accuracy minus the full training set's, same
    family and evaluation set), ``note``. Evaluation labels the training set
    lacks are counted as errors (no model can predict them) and named in the note.
    """
    X = np.asarray(X, dtype=np.float32)
    y = np.asarray(y)
    families = _check_families(families)
    family_params = family_params or {}
    rng = np.random.default_rng(random_state)
    rows, notes = [], []
    total = max(len(families) * len(train_sets), 1)
    done = 0
    for fam in families:
        for tname, tmask in train_sets.items():
            check_cancel(cancel)
            report(progress, done / total, f"{FAMILY_NAMES.get(fam, fam)} on the {tname} training set")
            done += 1
            tmask = np.asarray(tmask, bool)
            ytr = y[tmask]
            all_eval = np.zeros(len(y), bool)
            for emask in eval_sets.values():
                all_eval |= np.asarray(emask, bool)
            pred_all = np.full(len(y), None, dtype=object)
            pred, note = (None, f"the {tname} training set is empty") if not tmask.any() else _fit_predict(
                fam, X[tmask], ytr, X[all_eval], random_state, family_params.get(fam))
            if note:
                note = f"{note} (the {tname} training set)"
            if pred is not None:
                pred_all[np.flatnonzero(all_eval)] = pred
            for ename, emask in eval_sets.items():
                emask = np.asarray(emask, bool)
                yev = y[emask]
                cell_notes = [note] if note else []
                missing = sorted(set(np.unique(yev).tolist()) - set(np.unique(ytr).tolist()), key=str)
                if missing and tmask.any():
                    n_missing = int(np.isin(yev, missing).sum())
                    cell_notes.append(f"the {ename} evaluation split has label(s) {', '.join(map(repr, missing))} "
                                      f"({n_missing} examples) that the {tname} training set lacks; they count as errors")
                acc = lo = hi = np.nan
                if pred is not None and len(yev):
                    correct = (pred_all[emask] == yev).astype(float)
                    acc = float(correct.mean())
                    if bootstrap is True or (bootstrap == "auto" and len(yev) < bootstrap_below):
                        lo, hi = _bootstrap(correct, n_boot, rng)
                elif not len(yev):
                    cell_notes.append(f"the {ename} evaluation split is empty")
                notes.extend(cell_notes)
                rows.append({"family": fam, "train_set": tname, "train_size": int(tmask.sum()), "eval_set": ename,
                             "eval_size": int(emask.sum()), "accuracy": acc, "ci_low": lo, "ci_high": hi,
                             "note": "; ".join(cell_notes)})
    frame = pd.DataFrame(rows, columns=["family", "train_set", "train_size", "eval_set", "eval_size", "accuracy",
                                        "ci_low", "ci_high", "note"])
    full = frame[frame["train_set"] == "full"].set_index(["family", "eval_set"])["accuracy"]
    keys = list(zip(frame["family"], frame["eval_set"]))
    frame.insert(8, "delta_full", frame["accuracy"].to_numpy() - full.reindex(keys).to_numpy()
                 if "full" in train_sets else np.nan)
    report(progress, 1.0, "families done")
    return _with_notes(frame, notes)


def pivot_families(frame: pd.DataFrame) -> pd.DataFrame:
    """The long `family_table` as paper 000 Table 3: one row per family, columns (evaluation set, training set)."""
    if not len(frame):
        return pd.DataFrame()
    wide = frame.pivot_table(index="family", columns=["eval_set", "train_set"], values="accuracy", sort=False,
                             dropna=False)
    return wide


# ---------------------------------------------------------------------- phases, coarse action
def phase_table(history, n_phases_chosen: Optional[int] = None) -> pd.DataFrame:
    """R (mean p̃ on S, eq. 5) and held-out accuracy per phase; ``chosen`` marks the phases
    that run at the chosen τ/n (the first ``n_phases_chosen``)."""
    frame = pd.DataFrame(list(history or []))
    cols = [c for c in ("phase", "size", "removed", "R", "heldout_accuracy", "n_passing_tau", "stop_reason")
            if c in frame.columns]
    frame = frame[cols].copy() if len(frame) else pd.DataFrame(columns=["phase", "size", "removed", "R",
                                                                         "heldout_accuracy"])
    n = len(frame) if n_phases_chosen is None else int(n_phases_chosen)
    frame["chosen"] = frame["phase"].astype(int) < n if len(frame) else pd.Series(dtype=bool)
    return frame


def coarse_action(X, y, *, step: float = 0.1, tolerance: float = 0.0, family: str = "logistic",
                  eval_share: float = 0.2, random_state: int = 0, family_params: Optional[dict] = None,
                  progress=None, cancel=None) -> pd.DataFrame:
    """The coarse action of paper 002, Algorithm 1 lines 2–9.

    An i.i.d. held-out split (``eval_share``, stratified) is set aside; a model of
    ``family`` is trained on the first a % of a fixed random order of the rest, for
    a = b, 2b, …, 100 % (b = ``step``), and its held-out ("IID") accuracy recorded.
    Algorithm 1 grows a by b while the accuracy improves; the suggested fraction is
    the first a whose next step does not improve the accuracy by more than
    ``tolerance`` (0: any improvement counts, as in the paper), or 100 % when it
    never stops improving. The whole curve is computed (for the figure).

    Returns
    -------
    Table ``fraction, train_size, accuracy, gain, note``; ``attrs``: ``fraction``
    (the suggested share), ``size`` (round(fraction · N), the suggested target size
    n), ``step``, ``tolerance``, ``family``, ``notes``.
    """
    if isinstance(step, bool) or not isinstance(step, (int, float)) or not 0 < step <= 0.5:
        raise InputError(f"step={step!r} must be a fraction in (0, 0.5], e.g. 0.1 (10 %).")
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not 0 <= tolerance < 1:
        raise InputError(f"tolerance={tolerance!r} must be an accuracy gain in [0, 1), e.g. 0.005.")
    _check_families([family])
    X = np.asarray(X, dtype=np.float32)
    y = np.asarray(y)
    split = heldout_split(y, eval_share, random_state)
    pool = np.random.default_rng(random_state).permutation(np.flatnonzero(split.train))
    n_steps = int(np.floor(1.0 / step + 1e-9))
    fractions = [round(step * (i + 1), 6) for i in range(n_steps)]
    if fractions[-1] < 1.0:
        fractions.append(1.0)
    rows, notes = [], [split.note]
    for i, a in enumerate(fractions):
        check_cancel(cancel)
        report(progress, i / len(fractions), f"coarse action: {a:.0%} of the data")
        part = pool[: max(int(round(a * len(pool))), 1)]
        pred, note = _fit_predict(family, X[part], y[part], X[split.test], random_state,
                                  (family_params or {}).get(family))
        acc = float(np.mean(pred == y[split.test])) if pred is not None else np.nan
        notes.append(note)
        rows.append({"fraction": a, "train_size": int(len(part)), "accuracy": acc, "note": note})
    frame = pd.DataFrame(rows)
    frame["gain"] = frame["accuracy"].diff()
    chosen = coarse_stop(fractions, frame["accuracy"].to_numpy(), tolerance)
    frame = frame[["fraction", "train_size", "accuracy", "gain", "note"]]
    frame.attrs.update(fraction=float(chosen), size=int(round(chosen * len(y))), step=float(step),
                       tolerance=float(tolerance), family=family)
    report(progress, 1.0, "coarse action done")
    return _with_notes(frame, notes)


def coarse_stop(fractions, accuracy, tolerance: float = 0.0) -> float:
    """Algorithm 1's stopping rule: grow a while acc(a + b) > acc(a) + tolerance; the first a
    where it does not (or the last fraction). Fractions whose accuracy is missing are skipped."""
    acc = np.asarray(accuracy, dtype=float)
    for i in range(len(fractions) - 1):
        if np.isnan(acc[i]):
            continue
        if not (acc[i + 1] > acc[i] + tolerance):
            return float(fractions[i])
    return float(fractions[-1])


# ---------------------------------------------------------------------- external difficulty
def difficulty_check(values, retained, *, name: str = "difficulty", permutations: int = 2000, bins: int = 20,
                     random_state: int = 0) -> tuple:
    """An external per-example number among retained vs removed vs a random subset of the retained size.

    Parameters
    ----------
    values : (N,) array-like
        E.g. how many of a set of trained models got the example right, a human
        difficulty rating. Missing and non-numeric entries are left out (a note
        says how many, and names a few); the rest is still compared.
    retained : (N,) bool
        The filtered set at the chosen τ/n.
    permutations : int
        Label permutations for the two-sided p-value of mean(retained) − mean(removed).

    Returns
    -------
    (summary, histogram): ``summary`` has one row per group (``retained``, ``removed``,
    ``random``) with ``n, mean, std, q25, median, q75``; ``attrs``: ``p_value``,
    ``difference`` (retained − removed mean), ``notes``. ``histogram``: ``group,
    left, right, share`` (the distribution figure).
    """
    raw = pd.Series(np.asarray(values, dtype=object) if not isinstance(values, pd.Series) else values.to_numpy())
    retained = np.asarray(retained, bool)
    if len(raw) != len(retained):
        raise InputError(f"the {name} column has {len(raw)} values but there are {len(retained)} examples.")
    missing = raw.isna().to_numpy()
    num = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
    bad = np.isnan(num) & ~missing
    inf = np.isinf(num)
    notes = []
    if missing.any():
        notes.append(f"the {name} column has {int(missing.sum())} missing value(s); those examples are left out")
    if bad.any():
        examples = ", ".join(repr(str(v))[:30] for v in raw[bad].unique()[:3])
        notes.append(f"the {name} column has {int(bad.sum())} non-numeric value(s) (e.g. {examples}); "
                     "those examples are left out")
    if inf.any():
        notes.append(f"the {name} column has {int(inf.sum())} infinite value(s); those examples are left out")
    ok = np.isfinite(num)
    rng = np.random.default_rng(random_state)
    size = int(retained.sum())
    random = np.zeros(len(retained), bool)
    if size:
        random[rng.choice(len(retained), size=size, replace=False)] = True
    groups = {"retained": retained & ok, "removed": ~retained & ok, "random": random & ok}
    rows = []
    for g, m in groups.items():
        v = num[m]
        if len(v) == 0:
            notes.append(f"no {g} example has a numeric {name} value")
        rows.append({"group": g, "n": int(len(v)), "mean": float(v.mean()) if len(v) else np.nan,
                     "std": float(v.std(ddof=1)) if len(v) > 1 else np.nan,
                     "q25": float(np.quantile(v, 0.25)) if len(v) else np.nan,
                     "median": float(np.median(v)) if len(v) else np.nan,
                     "q75": float(np.quantile(v, 0.75)) if len(v) else np.nan})
    summary = pd.DataFrame(rows)
    a, b = num[groups["retained"]], num[groups["removed"]]
    p_value = diff = np.nan
    if len(a) >= 1 and len(b) >= 1 and len(a) + len(b) >= 3:
        diff = float(a.mean() - b.mean())
        both = np.concatenate([a, b])
        hits = 0
        for _ in range(int(permutations)):
            perm = rng.permutation(both)
            hits += abs(perm[: len(a)].mean() - perm[len(a):].mean()) >= abs(diff) - 1e-12
        p_value = (hits + 1) / (int(permutations) + 1)
    else:
        notes.append(f"retained and removed need numeric {name} values to compare; no p-value")
    summary.attrs.update(p_value=p_value, difference=diff, name=name, permutations=int(permutations))
    valid = num[ok]
    hist_rows = []
    if len(valid):
        edges = np.histogram_bin_edges(valid, bins=min(bins, max(len(np.unique(valid)), 1)))
        for g, m in groups.items():
            counts, _ = np.histogram(num[m], bins=edges)
            total = max(counts.sum(), 1)
            for lo, hi, c in zip(edges[:-1], edges[1:], counts):
                hist_rows.append({"group": g, "left": float(lo), "right": float(hi), "share": float(c / total)})
    hist = pd.DataFrame(hist_rows, columns=["group", "left", "right", "share"])
    return _with_notes(summary, notes), hist


# ---------------------------------------------------------------------- synthetic report
SYNTHETIC_PARAMS = dict(n_partitions=64, train_size=0.1, slice_size=0.05, tau=0.0, target_size=0.3, model="ridge")


def synthetic_report(*, separations: Sequence[float] = SEPARATIONS, n: int = 2000, flip_share: float = 0.05,
                     params: Optional[dict] = None, folds: int = 5, max_points: int = 800, random_state: int = 0,
                     progress=None, cancel=None) -> tuple:
    """Paper 000 §3 / Fig. 2: the circles demo at four separations, before and after AFLite.

    At each separation (inner/outer radius ratio; the largest separation, the
    smallest ratio, gets ``flip_share`` of its biased points' labels flipped, as in
    the paper) `core.demos.make_circles` builds ``n`` points, AFLite (``params``;
    default `SYNTHETIC_PARAMS`) filters them, and ``folds``-fold accuracy is measured
    before (all points) and after (retained points) for a linear model (logistic
    regression on every feature, bias features included) and an RBF-SVM on the two
    true coordinates.

    Returns
    -------
    (table, points): ``table`` has per separation ``separation, flipped, n,
    retained, biased_before, biased_after`` (biased shares), ``biased_removed``
    (share of the biased points AFLite removed), ``flipped_removed``,
    ``linear_before, linear_after, rbf_before, rbf_after``; ``points`` holds up to
    ``max_points`` points per separation (``separation, x0, x1, label, biased,
    retained``) for the before/after scatter.
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.svm import SVC

    from core.aflite import AFLite
    from core.demos import make_circles

    params = {**SYNTHETIC_PARAMS, **(params or {}), "random_state": random_state}
    rows, points = [], []
    for i, sep in enumerate(separations):
        check_cancel(cancel)
        report(progress, i / len(separations), f"synthetic report: separation {sep}")
        flip = flip_share if i == int(np.argmin(separations)) else 0.0
        ds = make_circles(n=n, separation=float(sep), flip_share=flip, random_state=random_state)
        X = np.stack(ds.table[ds.embedding].to_numpy()).astype(np.float32)
        y = ds.y
        kept = AFLite(**params).fit(X, y).retained_
        biased = ds.table["biased"].to_numpy()
        flipped = ds.table["flipped"].to_numpy()
        cv = StratifiedKFold(folds, shuffle=True, random_state=random_state)

        def cv_acc(model, Z, yy):
            if min(np.unique(yy, return_counts=True)[1]) < folds or len(np.unique(yy)) < 2:
                return np.nan
            return float(cross_val_score(model, Z, yy, cv=cv).mean())

        rows.append({"separation": float(sep), "flipped": int(flipped.sum()), "n": int(n), "retained": int(kept.sum()),
                     "biased_before": float(biased.mean()), "biased_after": float(biased[kept].mean()) if kept.any() else np.nan,
                     "biased_removed": float((biased & ~kept).sum() / max(biased.sum(), 1)),
                     "flipped_removed": float((flipped & ~kept).sum() / flipped.sum()) if flipped.any() else np.nan,
                     "linear_before": cv_acc(LogisticRegression(max_iter=1000), X, y),
                     "linear_after": cv_acc(LogisticRegression(max_iter=1000), X[kept], y[kept]),
                     "rbf_before": cv_acc(SVC(), X[:, :2], y), "rbf_after": cv_acc(SVC(), X[kept][:, :2], y[kept])})
        show = np.random.default_rng(random_state).permutation(n)[:max_points]
        points.append(pd.DataFrame({"separation": float(sep), "x0": X[show, 0], "x1": X[show, 1],
                                    "label": np.asarray(ds.table["label"])[show], "biased": biased[show],
                                    "retained": kept[show]}))
    report(progress, 1.0, "synthetic report done")
    return pd.DataFrame(rows), pd.concat(points, ignore_index=True)


# ---------------------------------------------------------------------- the whole evaluation of a run
def default_partial_spec(dataset) -> Optional[str]:
    """The partial-input representation for a dataset with two or more text fields: TF-IDF/SVD
    over the last one (the hypothesis of a premise/hypothesis pair); None otherwise."""
    text = list(getattr(dataset, "text", []) or [])
    return f"tfidf-svd:fields={text[-1]}" if len(text) >= 2 else None


@dataclass
class EvaluationOptions:
    """What an evaluation computes (its store key is a hash of these and the run's key and τ/n).

    ``families``: model families of the tables; ``eval_share``: the i.i.d. held-out
    share; ``stratified``: stratify the random baseline by label; ``bootstrap``:
    "auto" / True / False; ``partial_spec``: the partial-input representation
    ("" for none, None for `default_partial_spec`); ``knn_ks``: K of the KNN
    distances; ``coarse_step``, ``coarse_tolerance``, ``coarse_family``: the coarse
    action; ``difficulty``: a numeric column for the external difficulty check;
    ``synthetic``: add the circles report; ``seed``: every random choice.
    """

    families: tuple = TABLE_FAMILIES
    eval_share: float = 0.2
    stratified: bool = False
    bootstrap: object = "auto"
    partial_spec: Optional[str] = None
    knn_ks: tuple = (1, 5, 10, 50)
    coarse_step: float = 0.1
    coarse_tolerance: float = 0.0
    coarse_family: str = "logistic"
    difficulty: Optional[str] = None
    synthetic: bool = False
    seed: int = 0
    family_params: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        out = asdict(self)
        out["families"], out["knn_ks"] = list(self.families), [int(k) for k in self.knn_ks]
        return out

    @classmethod
    def from_dict(cls, data: dict) -> "EvaluationOptions":
        data = dict(data)
        data["families"] = tuple(data.get("families", TABLE_FAMILIES))
        data["knn_ks"] = tuple(int(k) for k in data.get("knn_ks", (1, 5, 10, 50)))
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})

    def check(self) -> "EvaluationOptions":
        _check_families(self.families)
        _check_families([self.coarse_family])
        if not 0 < float(self.eval_share) < 1:
            raise InputError(f"eval_share={self.eval_share!r} must be a fraction in (0, 1), e.g. 0.2.")
        if not self.knn_ks or min(int(k) for k in self.knn_ks) < 1:
            raise InputError(f"knn_ks={self.knn_ks!r} must be positive neighbourhood sizes, e.g. 1,5,10,50.")
        if not 0 < float(self.coarse_step) <= 0.5:
            raise InputError(f"coarse step b={self.coarse_step!r} must be a fraction in (0, 0.5], e.g. 0.1.")
        if not 0 <= float(self.coarse_tolerance) < 1:
            raise InputError(f"coarse tolerance={self.coarse_tolerance!r} must be in [0, 1), e.g. 0.005.")
        return self


#: the tables of an `Evaluation`, in report order
TABLES = ("families", "partial_input", "knn", "phases", "coarse", "difficulty", "difficulty_hist", "synthetic",
          "synthetic_points", "training_sets")


@dataclass
class Evaluation:
    """One run's evaluation as plain data: ``options``, ``context`` (dataset, run key,
    representation, τ, n, sizes), ``tables`` (name -> DataFrame, see `TABLES`),
    ``notes`` (bad input met on the way, each naming its cause) and ``summary``
    (coarse-action fraction and suggested n, difficulty p-value, seconds)."""

    options: dict
    context: dict
    tables: Dict[str, pd.DataFrame]
    notes: list = field(default_factory=list)
    summary: dict = field(default_factory=dict)
    created: float = field(default_factory=time.time)

    @property
    def key(self) -> str:
        return evaluation_key(self.context.get("run_key", ""), self.context.get("tau"), self.context.get("n"),
                              self.options)

    def to_dict(self) -> dict:
        from core.runs import _jsonable

        return _jsonable({"format": 1, "options": self.options, "context": self.context, "notes": self.notes,
                          "summary": self.summary, "created": self.created,
                          "tables": {k: json.loads(v.to_json(orient="split", index=False, default_handler=str))
                                     for k, v in self.tables.items()}})

    @classmethod
    def from_dict(cls, data: dict) -> "Evaluation":
        tables = {k: pd.DataFrame(v["data"], columns=v["columns"]) for k, v in data.get("tables", {}).items()}
        return cls(options=data["options"], context=data["context"], tables=tables, notes=list(data.get("notes", [])),
                   summary=dict(data.get("summary", {})), created=float(data.get("created", time.time())))

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1, default=str)


def evaluation_key(run_key: str, tau, n, options: dict) -> str:
    blob = json.dumps([run_key, tau, n, options], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def evaluate(dataset, representation, retained, *, history=None, n_phases_chosen: Optional[int] = None,
             options: Optional[EvaluationOptions] = None, context: Optional[dict] = None, progress=None,
             cancel=None) -> Evaluation:
    """Everything issue 12 asks of one filtered split.

    Parameters
    ----------
    dataset : core.dataset.Dataset
    representation : core.representations.Representation
        Φ of the run (rows aligned with ``retained``; warm-up examples excluded).
    retained : (N,) bool
        The run's retained mask at the chosen τ/n.
    history : list of dict
        The run's per-phase records (R, held-out accuracy).
    n_phases_chosen : int
        Phases that run at the chosen τ/n (marked in the phase figure).
    options : EvaluationOptions
    context : dict
        Recorded as is (run key, τ, n, dataset name ...).

    Returns
    -------
    Evaluation
    """
    from core.representations import represent

    t0 = time.perf_counter()
    opts = (options or EvaluationOptions()).check()
    seed = int(opts.seed)
    X = np.asarray(representation.X, dtype=np.float32)
    ids = np.asarray(representation.ids).astype(str)
    retained = np.asarray(retained, bool)
    if len(retained) != len(ids):
        raise InputError(f"the retained mask has {len(retained)} entries but Φ has {len(ids)} rows.")
    y = dataset.table[dataset.label].reindex(ids).to_numpy()
    notes, tables = [], {}
    partial_spec = default_partial_spec(dataset) if opts.partial_spec is None else (opts.partial_spec or None)
    weights = {"families": 0.4, "partial": 0.25 if partial_spec else 0.0, "knn": 0.05, "coarse": 0.15,
               "difficulty": 0.02, "synthetic": 0.13 if opts.synthetic else 0.0}
    scale = 1.0 / sum(weights.values())
    start = [0.0]

    def stage(name):
        lo = start[0]
        hi = lo + weights[name] * scale
        start[0] = hi
        return span(progress, lo, hi)

    split = heldout_split(y, opts.eval_share, seed)
    notes.append(split.note)
    train_sets, set_notes = training_sets(X, y, retained, split, stratified=opts.stratified, random_state=seed)
    notes.extend(set_notes)
    eval_sets = evaluation_sets(retained, split)
    tables["training_sets"] = pd.DataFrame(
        [{"set": k, "role": "training", "size": int(m.sum()),
          **{f"label {lab}": int((y[m] == lab).sum()) for lab in np.unique(y)}} for k, m in train_sets.items()]
        + [{"set": k, "role": "evaluation", "size": int(m.sum()),
            **{f"label {lab}": int((y[m] == lab).sum()) for lab in np.unique(y)}} for k, m in eval_sets.items()])
    fam = family_table(X, y, train_sets, eval_sets, families=opts.families, bootstrap=opts.bootstrap,
                       family_params=opts.family_params, random_state=seed, progress=stage("families"), cancel=cancel)
    fam.insert(0, "representation", representation.spec)
    tables["families"] = fam
    notes.extend(_notes_of(fam))
    if partial_spec:
        prog = stage("partial")
        try:
            prep = represent(dataset, partial_spec, cancel=cancel)
        except InputError as exc:
            notes.append(f"partial-input table: the representation {partial_spec!r} cannot be built ({exc})")
            prep = None
        if prep is not None and prep.spec == representation.spec:
            notes.append(f"partial-input table: {prep.spec} is Φ itself (the run is already partial-input), so it "
                         "repeats the families table; evaluate with a full-input representation to compare the two")
        if prep is not None:
            pos = pd.Index(np.asarray(prep.ids).astype(str)).get_indexer(ids)
            if (pos < 0).any():
                notes.append(f"partial-input table: {int((pos < 0).sum())} examples of Φ are not in {prep.spec} "
                             "(a warm-up representation?); they are left out of that table")
            keep = pos >= 0
            Xp = np.zeros((len(ids), prep.X.shape[1]), np.float32)
            Xp[keep] = prep.X[pos[keep]]
            part = family_table(Xp, y, {k: m & keep for k, m in train_sets.items()},
                                {k: m & keep for k, m in eval_sets.items()}, families=opts.families,
                                bootstrap=opts.bootstrap, family_params=opts.family_params, random_state=seed,
                                progress=prog, cancel=cancel)
            part.insert(0, "representation", prep.spec)
            tables["partial_input"] = part
            notes.extend(f"partial input: {n}" for n in _notes_of(part))
    elif opts.partial_spec is None:
        notes.append("no partial-input table: the dataset has fewer than two text fields (set partial_spec to "
                     "choose a representation, e.g. tfidf-svd:fields=hypothesis)")
    check_cancel(cancel)
    report(stage("knn"), 0.0, "KNN distances")
    knn = knn_distances(X, y, retained, ks=opts.knn_ks, random_state=seed)
    tables["knn"] = knn
    notes.extend(_notes_of(knn))
    tables["phases"] = phase_table(history, n_phases_chosen)
    coarse = coarse_action(X, y, step=float(opts.coarse_step), tolerance=float(opts.coarse_tolerance),
                           family=opts.coarse_family, eval_share=opts.eval_share, random_state=seed,
                           family_params=opts.family_params, progress=stage("coarse"), cancel=cancel)
    tables["coarse"] = coarse
    notes.extend(f"coarse action: {n}" for n in _notes_of(coarse))
    summary = {"coarse_fraction": coarse.attrs["fraction"], "coarse_n": coarse.attrs["size"],
               "coarse_step": coarse.attrs["step"], "coarse_tolerance": coarse.attrs["tolerance"],
               "coarse_family": coarse.attrs["family"]}
    stage("difficulty")
    if opts.difficulty:
        col = opts.difficulty
        if col not in dataset.table.columns:
            notes.append(f"difficulty check: there is no column {col!r}; the columns are: "
                         + ", ".join(map(str, dataset.table.columns)))
        else:
            diff, hist = difficulty_check(dataset.table[col].reindex(ids), retained, name=col, random_state=seed)
            tables["difficulty"], tables["difficulty_hist"] = diff, hist
            notes.extend(f"difficulty check: {n}" for n in _notes_of(diff))
            summary.update(difficulty_column=col, difficulty_p_value=diff.attrs["p_value"],
                           difficulty_difference=diff.attrs["difference"])
    if opts.synthetic:
        syn, pts = synthetic_report(random_state=seed, progress=stage("synthetic"), cancel=cancel)
        tables["synthetic"], tables["synthetic_points"] = syn, pts
    summary["seconds"] = round(time.perf_counter() - t0, 2)
    report(progress, 1.0, "evaluation done")
    ctx = {"dataset": dataset.name, "fingerprint": dataset.fingerprint, "representation": representation.spec,
           "partial_representation": partial_spec, "N": int(len(ids)), "retained": int(retained.sum()),
           "eval_filter": "the held-out examples the run retained at the chosen τ/n", **(context or {})}
    seen = []
    for n in notes:
        if n and n not in seen:
            seen.append(n)
    return Evaluation(options=opts.to_dict(), context=ctx, tables=tables, notes=seen, summary=summary)


class EvaluationStore:
    """Finished evaluations on disk, one JSON file per (run key, τ, n, options), in a folder beside
    the run store: a reload, a CLI call or a teammate on the same server reads them instead of
    recomputing. Files are replaced atomically."""

    def __init__(self, root):
        self.root = Path(root)

    def path(self, key: str) -> Path:
        return self.root / f"{key}.json"

    def get(self, key: str) -> Optional[Evaluation]:
        p = self.path(key)
        if not p.exists():
            return None
        try:
            return Evaluation.from_dict(json.loads(p.read_text()))
        except (OSError, ValueError, KeyError, TypeError):
            return None   # a damaged cache file is a miss: evaluations are recomputed, never lost data

    def put(self, ev: Evaluation) -> str:
        from core import paths

        key = ev.key
        blob = ev.to_json().encode()
        paths.atomic_write(self.path(key), lambda fh: fh.write(blob))
        return key

    def for_run(self, run_key: str) -> list:
        """The stored evaluations of one run, newest first (each loaded)."""
        if not self.root.exists():
            return []
        found = []
        for p in self.root.glob("*.json"):
            ev = self.get(p.stem)
            if ev is not None and ev.context.get("run_key") == run_key:
                found.append(ev)
        return sorted(found, key=lambda e: -e.created)
