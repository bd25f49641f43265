"""Consistency filtering (paper 004 §2.2.2): drop examples whose gold label a model trained on
other examples finds unlikely."""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field as dc_field
from typing import Optional, Sequence

import numpy as np
import pandas as pd

from ..base.bounds import FOLDS
from ..base.errors import InputError
from ..text.features import FeatureOptions, build_features
from ..data.labels import encode_labels
from ..base.progress import check_cancel, report
from .inputs import ZInput, check_min_count, classes_of, resolve_input, resolve_seed
from ..models import make_model


@dataclass
class ConsistencyResult:
    """Consistency filtering (paper 004 §2.2.2): keep examples with p_M(l | x) > τ.

    Attributes
    ----------
    scores : DataFrame
        Per example (index = ids, input order): ``label``, ``p_gold`` (the
        cross-fitted model's probability of the gold label), ``predicted``,
        ``kept`` (p_gold > threshold).
    threshold : float
        τ.
    kept, dropped : DataFrame
        Rows of the input table; `dropped` has ``p_gold`` and ``predicted`` added.
    accuracy : float
        Cross-fitted accuracy of the model.
    params : dict
    """

    scores: pd.DataFrame
    threshold: float
    table: pd.DataFrame
    accuracy: float
    params: dict = dc_field(default_factory=dict)

    @property
    def kept(self) -> pd.DataFrame:
        return self.table[self.scores["p_gold"].to_numpy() > self.threshold]

    @property
    def dropped(self) -> pd.DataFrame:
        mask = self.scores["p_gold"].to_numpy() <= self.threshold
        out = self.table[mask].copy()
        out["p_gold"] = self.scores["p_gold"].to_numpy()[mask]
        out["predicted"] = self.scores["predicted"].to_numpy()[mask]
        return out

    def with_threshold(self, threshold: float) -> "ConsistencyResult":
        """The same scores at another τ (no refitting: τ is a live knob)."""
        _check_threshold(threshold)
        scores = self.scores.copy()
        scores["kept"] = scores["p_gold"] > threshold
        return ConsistencyResult(scores, float(threshold), self.table, self.accuracy, {**self.params, "threshold": threshold})

    def summary(self) -> dict:
        kept = int(self.scores["kept"].sum())
        return {"threshold": self.threshold, "kept": kept, "dropped": int(len(self.scores) - kept),
                "accuracy": self.accuracy}


def _check_threshold(threshold):
    if not isinstance(threshold, (int, float, np.floating)) or not 0 <= threshold < 1:
        raise InputError(f"threshold={threshold!r} must be a probability τ in [0, 1), e.g. 0.2.")


def consistency_filter(
    data,
    *,
    label: Optional[str] = None,
    text: Optional[Sequence[str]] = None,
    pair="auto",
    threshold: float = 0.2,
    X=None,
    reference=None,
    model=None,
    folds: int = 5,
    min_count: int = 2,
    random_state=0,
    progress=None,
    cancel=None,
) -> ConsistencyResult:
    """Drop examples whose gold label a model trained on other examples finds unlikely.

    p_M(l | x) is cross-fitted: the data are split into `folds` folds and each
    fold is scored by a model fitted on the others. With a `reference` dataset
    (the paper's D0) the model is fitted on the reference and scores every example.
    An example is kept when p_M(gold | x) > τ (`threshold`), dropped when ≤ τ.

    Parameters
    ----------
    data : DataFrame or Dataset
    label, text, pair : see `compute_z`
    threshold : float
        τ in [0, 1); default 0.2.
    X : array or sparse matrix (N, d), optional
        Inputs of the model, rows aligned with `data` (e.g. a representation's
        `.X`). Default: the binary n-gram, length and pair features of the text
        (`core.text.features`, no partial-input predictions).
    reference : DataFrame or Dataset, optional
        Train on these examples instead of cross-fitting (needs the text columns;
        not combined with `X`).
    model : scikit-learn classifier with predict_proba, optional
        Default: ``LogisticRegression(C=0.5, tol=1e-3, max_iter=300)``.
    folds : int
        Cross-fitting folds (≥ 2).
    min_count : int
        Minimum count of an n-gram to be a model input.

    Returns
    -------
    ConsistencyResult
    """
    from sklearn.base import clone

    _check_threshold(threshold)
    min_count = check_min_count(min_count)
    if isinstance(folds, bool) or not isinstance(folds, (int, np.integer)) or not FOLDS.low <= folds <= FOLDS.high:
        raise InputError(f"folds={folds!r} must be a whole number from {FOLDS.low} to {FOLDS.high} (cross-fitting).")
    inp = resolve_input(data, label, text, pair, None)
    # A loose tolerance keeps 5 fits on 10k x 30k sparse inputs to seconds; τ needs ranks, not 6 digits.
    model = model if model is not None else make_model("logistic", 0, {"C": 0.5, "tol": 1e-3, "max_iter": 300})
    opts = FeatureOptions(partial_input=None, null=False)
    combined, classes, n_ref = _training_rows(inp, reference, X)
    lacking = sorted(set(inp.table[inp.label]) - set(classes), key=str)
    if lacking:
        raise InputError(f"data has labels the reference lacks: {lacking}.")
    gold = encode_labels(inp.table[inp.label].to_numpy(), classes, what=inp.label)[0]
    if X is None:
        report(progress, 0.0, "features")
        fm = build_features(combined, text=inp.text, pair=inp.pair, options=opts, min_count=min_count, cancel=cancel)
        M = fm.X
    else:
        M = X.X if hasattr(X, "X") and hasattr(X, "ids") else X
        if M.shape[0] != len(inp.table):
            raise InputError(f"X has {M.shape[0]} rows but data has {len(inp.table)} examples; pass one row per example.")
    y_all = encode_labels(combined[inp.label].to_numpy(), classes, what=inp.label)[0]
    L = len(classes)
    proba = np.zeros((len(inp.table), L))
    notes, folds_used = [], None
    if n_ref:
        check_cancel(cancel)
        report(progress, 0.3, "fitting on the reference")
        m = clone(model).fit(M[:n_ref], y_all[:n_ref])
        proba[:, m.classes_] = m.predict_proba(M[n_ref:])
    else:
        proba, folds_used, notes = _cross_fitted(M, gold, classes, model, folds, random_state, progress, cancel)
    p_gold = proba[np.arange(len(gold)), gold]
    predicted = np.asarray(classes, dtype=object)[proba.argmax(axis=1)]
    scores = pd.DataFrame(
        {"label": inp.table[inp.label].to_numpy(), "p_gold": p_gold, "predicted": predicted, "kept": p_gold > threshold},
        index=inp.table.index,
    )
    acc = float((proba.argmax(axis=1) == gold).mean())
    report(progress, 1.0, f"accuracy {acc:.3f}")
    params = {"label": inp.label, "text": list(inp.text), "threshold": float(threshold), "folds": int(folds),
              "folds_used": folds_used, "model": repr(model), "reference_size": n_ref, "min_count": min_count,
              "notes": notes}
    return ConsistencyResult(scores, float(threshold), inp.table, acc, params)


def _training_rows(inp, reference, X) -> tuple:
    """(the rows a model learns from and the data's rows after them, the labels, how many rows are
    the reference's): the reference's (the paper's D0) then the data's, or the data's alone."""
    cols = [inp.label, *inp.text]
    if reference is None:
        return inp.table[cols].reset_index(drop=True), classes_of(inp.table[inp.label]), 0
    if X is not None:
        raise InputError("give either X or reference, not both: with a reference, features come from the text.")
    ref = resolve_seed(reference, ZInput(inp.table, inp.label, inp.text, inp.pair, []))
    return (pd.concat([ref[cols], inp.table[cols]], ignore_index=True), classes_of(ref[inp.label], what="reference"),
            len(ref))


def _cross_fitted(M, gold: np.ndarray, classes, model, folds: int, random_state, progress, cancel) -> tuple:
    """(p_M(l | x) of every example, scored by a model fitted on the other folds; the folds used;
    notes): stratified folds, fewer when the smallest label cannot fill them (said in a note)."""
    from sklearn.base import clone
    from sklearn.model_selection import StratifiedKFold

    notes, L = [], len(classes)
    proba = np.zeros((len(gold), L))
    if folds > len(gold):
        raise InputError(f"folds={folds} is more than the {len(gold)} examples; choose at most {len(gold)} "
                         "(5 is usual).")
    min_class = int(np.bincount(gold, minlength=L).min())
    folds_used = int(min(folds, max(min_class, 2)))
    if folds_used < folds:   # stratified folds need every label in every fold
        notes.append(f"folds={folds} lowered to {folds_used}: the smallest label has only {min_class} examples.")
    if int(np.bincount(gold, minlength=L).max()) < folds_used:
        raise InputError(f"no label has {folds_used} examples ({len(gold)} examples, {L} labels), so no fold can "
                         "learn any label: the label column looks like an id or free text; check --label.")
    if min_class < 2:
        lonely = [str(classes[c]) for c in np.flatnonzero(np.bincount(gold, minlength=L) < 2)]
        notes.append(f"label{'s' if len(lonely) > 1 else ''} {', '.join(map(repr, lonely[:5]))} "
                     f"{'have' if len(lonely) > 1 else 'has'} a single example: no fold can learn it, so it "
                     "scores p_gold = 0 and is removed; add examples of it or drop it first.")
    splitter = StratifiedKFold(n_splits=folds_used, shuffle=True, random_state=random_state)
    with warnings.catch_warnings():   # the single-example case is said in the notes above
        warnings.filterwarnings("ignore", message="The least populated class", category=UserWarning)
        fold_list = list(splitter.split(np.zeros(len(gold)), gold))
    for i, (tr, te) in enumerate(fold_list):
        check_cancel(cancel)
        report(progress, 0.1 + 0.9 * i / folds_used, f"fold {i + 1}/{folds_used}")
        m = clone(model).fit(M[tr], gold[tr])
        proba[np.ix_(te, m.classes_)] = m.predict_proba(M[te])
    return proba, folds_used, notes
