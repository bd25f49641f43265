"""The measures of paper 000 §3–4: cross-validated accuracy on subsets, KNN distances, the held-out
split and the training sets of Table 3, and the family table (see `core.evaluation`)."""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Dict, Iterable, Optional, Sequence

import numpy as np
import pandas as pd

from ..base.errors import InputError
from ..base.progress import report
from .models import Fit, fit_many, with_notes
from ..models import KNN_K, check_families, make_model, table_names, title
from ..representations.neighbours import cosine_neighbours, normalise_rows


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
        Any of the registered families (`core.models`).
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
    families = check_families(families)
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
                    # k-NN: no more neighbours than the smallest training fold holds
                    fold_train = int(mask.sum()) - -(-int(mask.sum()) // folds)
                    knn = {"n_neighbors": min(KNN_K, fold_train)} if fam == "knn" else None
                    pred = cross_val_predict(make_model(fam, random_state, knn, n_train=int(mask.sum()), d=X.shape[1],
                                                    scale=float(np.var(X[mask]))), X[mask], ys, cv=cv)
                acc = float(np.mean(pred == ys))
                if any(issubclass(w.category, ConvergenceWarning) for w in caught):
                    note = f"{title(fam)} did not converge on subset {name!r}; its accuracy may be understated"
            except ValueError as exc:
                if errors == "raise":
                    raise
                acc, note = np.nan, f"{title(fam)} could not be fitted on subset {name!r}: {exc}"
            notes.append(note)
            row = {"subset": name, "family": fam, "size": int(mask.sum()), "accuracy": acc, "majority": majority}
            if errors == "note":
                row["note"] = note
            rows.append(row)
    return with_notes(pd.DataFrame(rows), notes)


def _mean_knn_distance(Q, R, ks, chunk=2048):
    """Mean over rows of Q of the mean cosine distance to the K nearest rows of R, per K (both
    row-normalised)."""
    top, _ = cosine_neighbours(Q, R, max(ks), chunk=chunk)
    kmax = top.shape[1]
    csum = np.cumsum(1.0 - top, axis=1)
    return np.array([(csum[:, min(k, kmax) - 1] / min(k, kmax)).sum(dtype=np.float64) for k in ks]) / max(len(Q), 1)


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
    Xn = normalise_rows(X)
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
    return with_notes(frame, notes)


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
    from ..aflite import single_model_filter

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


def family_table(X, y, train_sets: dict, eval_sets: dict, *, families: Optional[Sequence[str]] = None,
                 bootstrap="auto", bootstrap_below: int = 5000, n_boot: int = 1000,
                 family_params: Optional[dict] = None, random_state: int = 0, n_jobs: int = 1,
                 device: Optional[str] = None, progress=None, cancel=None) -> pd.DataFrame:
    """Accuracy of each family trained on each training set, on each evaluation set (paper 000 Table 3).

    Parameters
    ----------
    X : (N, d) array
        What the models see (Φ, or a partial-input representation).
    y : (N,) labels.
    train_sets, eval_sets : dict name -> (N,) bool mask
        From `training_sets` and `evaluation_sets`.
    families : sequence of str
        Model families (None: `core.models.table_names()`).
    bootstrap : "auto", True or False
        Percentile-bootstrap 95 % intervals of each accuracy (``n_boot`` resamples
        of the evaluation examples); "auto": for evaluation sets smaller than
        ``bootstrap_below``.
    family_params : dict family -> dict
        Constructor overrides, e.g. ``{"mlp": {"max_iter": 50}}``.
    n_jobs : int
        Fits at once (threads; `core.evaluation.models.fit_many`). The table does not depend on it.
    device : str or None
        Where the families with a device version train (`core.models.on_device`); None: the CPU.

    Returns
    -------
    Long table ``family, train_set, train_size, eval_set, eval_size, accuracy,
    ci_low, ci_high, delta_full`` (accuracy minus the full training set's, same
    family and evaluation set), ``note``. Evaluation labels the training set
    lacks are counted as errors (no model can predict them) and named in the note.
    """
    X = np.asarray(X, dtype=np.float32)
    y = np.asarray(y)
    families = check_families(table_names() if families is None else families)
    family_params = family_params or {}
    rng = np.random.default_rng(random_state)
    rows, notes = [], []
    all_eval = np.zeros(len(y), bool)
    for emask in eval_sets.values():
        all_eval |= np.asarray(emask, bool)
    test = np.flatnonzero(all_eval)
    cells = [(fam, tname, np.asarray(tmask, bool)) for fam in families for tname, tmask in train_sets.items()]
    fitted = [i for i, (_, _, tmask) in enumerate(cells) if tmask.any()]
    finished = [0]

    def on_done(_, fit):
        finished[0] += 1
        report(progress, finished[0] / max(len(fitted), 1),
               f"{title(fit.family)}: {finished[0]} of {len(fitted)} fits done")

    report(progress, 0.0, f"{len(fitted)} fits of {len(families)} families")
    results = fit_many(X, y, [Fit(cells[i][0], np.flatnonzero(cells[i][2]), test, random_state,
                                  family_params.get(cells[i][0])) for i in fitted],
                       n_jobs=n_jobs, device=device, on_done=on_done, cancel=cancel)
    by_cell = dict(zip(fitted, results))
    for i, (fam, tname, tmask) in enumerate(cells):
        ytr = y[tmask]
        pred_all = np.full(len(y), None, dtype=object)
        pred, note = by_cell.get(i, (None, f"the {tname} training set is empty"))
        if note:
            note = f"{note} (the {tname} training set)"
        if pred is not None:
            pred_all[test] = pred
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
    return with_notes(frame, notes)


def pivot_families(frame: pd.DataFrame) -> pd.DataFrame:
    """The long `family_table` as paper 000 Table 3: one row per family, columns (evaluation set, training set)."""
    if not len(frame):
        return pd.DataFrame()
    wide = frame.pivot_table(index="family", columns=["eval_set", "train_set"], values="accuracy", sort=False,
                             dropna=False)
    return wide
