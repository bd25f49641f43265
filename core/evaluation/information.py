"""V-usable information (Ethayarajh, Choi and Swayamdipta, ICML 2022, "Understanding Dataset
Difficulty with V-Usable Information") per example, beside AFLite's p̃.

For an example (x, y) and a model family V:

    PVI(x → y) = −log₂ g[∅](y) + log₂ g′[x](y)

g′ is a model of the family trained on (Φ(x), y) pairs and g[∅] the same family trained with the
input left out, which learns the label distribution: its prediction is the label prior. Both are
**cross-fitted** here (K stratified folds): every example is scored by models that never saw it, so
PVI is an out-of-sample quantity, and the V-information I_V(X → Y) is its mean (paper, Def. 3 and
eq. 4). With a partial-input Φ (the hypothesis only, or any ``fields=`` spec) it measures how many
bits about the label the artifact alone carries: an example with high hypothesis-only PVI can be
labelled without reading its premise.

Conventions: logarithms in base 2 (bits); a probability is floored at `FLOOR` (a model's 0 would
make PVI −∞); g[∅] is the training folds' label shares. Families with probabilities:
`core.models.probabilistic()`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np
import pandas as pd

from ..base.cores import one_blas_thread
from ..base.errors import InputError
from ..base.progress import check_cancel, report, span
from ..data.labels import encode_labels
from ..base.devices import computing_on, where
from ..models import probabilistic

__all__ = ["UsableInformation", "pvi", "dataset_pvi", "FLOOR"]

#: the smallest probability a model is taken to give (bits stay finite: −log₂ 1e-6 ≈ 19.9)
FLOOR = 1e-6


@dataclass
class UsableInformation:
    """Per-example PVI and its summary.

    ``table``: ``id``, ``label``, ``pvi`` (bits), ``p_model`` (g′[x](y), out of sample),
    ``p_prior`` (g[∅](y)), ``correct`` (g′'s most probable label is the gold one), ``fold``. ``summary``: ``v_information`` (mean PVI, bits) with its
    ``stderr`` and a 95 % interval, ``v_entropy`` (H_V(Y): mean −log₂ g[∅](y)), ``conditional_v_entropy``
    (H_V(Y | X)), ``per_label`` (mean PVI by gold label), ``family``, ``folds``, ``examples``."""

    table: pd.DataFrame
    summary: dict = field(default_factory=dict)

    def per_label(self) -> pd.DataFrame:
        """Mean, spread and count of PVI by gold label."""
        return (self.table.groupby("label", sort=True)["pvi"].agg(["mean", "std", "count"])
                .rename(columns={"mean": "pvi_mean", "std": "pvi_std", "count": "examples"}).reset_index())


def _check(X, y, family: str, folds: int):
    if family not in probabilistic():   # PVI reads the probability of the gold label
        raise InputError(f"PVI needs a family that gives probabilities; {family!r} is not one of "
                         f"{', '.join(probabilistic())}.")
    X = np.asarray(X, dtype=np.float32)
    if X.ndim != 2 or len(X) != len(y):
        raise InputError(f"Φ has shape {X.shape} for {len(y)} labels: give one vector per example.")
    if not np.isfinite(X).all():
        raise InputError("Φ has NaN or infinite values: give finite vectors (or another representation).")
    folds = int(folds)
    if folds < 2:
        raise InputError(f"folds={folds}: cross-fitting needs at least 2 folds, so that no example scores itself.")
    return X, folds


def _fold_model(family: str, device, random_state: int, n_classes: int):
    """(``fit_proba(Xtr, codes, Xte)`` -> (len(Xte), n_classes) probabilities, where it computes):
    the family's version on ``device`` where it has one that gives probabilities (the CPU's optimum,
    to the solver's tolerance), else scikit-learn's on the CPU (None)."""
    from ..models import family as family_of, make_model

    on = family_of(family).device
    if device not in (None, "numpy") and on is not None and on.proba is not None:
        return (lambda Xtr, codes, Xte: on.proba(device, Xtr, codes, Xte, n_classes, **on.defaults)[0]), device

    def fit_proba(Xtr, codes, Xte):
        model = make_model(family, int(random_state), n_train=len(Xtr), d=Xtr.shape[1]).fit(Xtr, codes)
        proba = np.zeros((len(Xte), n_classes))
        proba[:, model.classes_] = model.predict_proba(Xte)
        return proba

    return fit_proba, None


def pvi(X, y, *, ids=None, classes=None, family: str = "logistic", folds: int = 5, random_state: int = 0,
        max_train: Optional[int] = None, device=None, progress=None, cancel=None) -> UsableInformation:
    """Cross-fitted pointwise V-information of each example (module docstring).

    ``X`` (N, d) is Φ, ``y`` the gold labels (any hashable type), ``ids`` their ids (default
    0..N−1). Each of ``folds`` stratified folds is scored by a model trained on the others, and
    its g[∅] is the others' label shares. ``max_train`` caps each fold's training examples (a seeded
    sample of the others): the models are then as strong on a large dataset as on a small one, so
    a measure compared across sizes does not grow with the data. ``device`` (`core.base.devices`)
    trains the folds' models there where the family can. InputError when a label has fewer
    examples than folds (a fold's model could not know it), or for a family without probabilities."""
    from sklearn.model_selection import StratifiedKFold

    codes, names = encode_labels(y, classes, what="the labels")
    X, folds = _check(X, codes, family, folds)
    counts = np.bincount(codes, minlength=len(names))
    if len(names) < 2:
        raise InputError("V-information needs at least two labels: with one, there is nothing to predict.")
    if counts.min() < folds:
        rare = names[int(np.argmin(counts))]
        raise InputError(f"label {rare!r} has {int(counts.min())} examples, fewer than folds={folds}: every fold's model "
                         "must see every label; give fewer folds (--folds) or more examples of that label.")
    n = len(codes)
    if family == "knn":
        from ..models.families import KNN_K

        smallest = n - -(-n // folds)   # the training rows of the largest test fold
        if smallest <= KNN_K:
            # K neighbours out of K training rows is every row: each example would get the training
            # label shares, the prior itself, and a PVI of 0 that says nothing
            raise InputError(f"the knn family reads K = {KNN_K} neighbours, but a fold's model trains on {smallest} "
                             f"examples here ({n} in {folds} folds), so every PVI would be 0; give more examples, "
                             "fewer folds (--folds), or another family (--family logistic).")
    p_model, p_prior, fold_of = np.empty(n), np.empty(n), np.empty(n, dtype=np.int64)
    correct = np.zeros(n, dtype=bool)
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=int(random_state))
    fit_proba, trained_on = _fold_model(family, device, random_state, len(names))
    with one_blas_thread():   # the same PVI on any machine, busy or not (`core.base.cores`)
        for k, (train, test) in enumerate(splitter.split(np.zeros(n), codes)):
            check_cancel(cancel)
            report(progress, k / folds, f"PVI: fold {k + 1} of {folds}")
            if max_train is not None and len(train) > int(max_train):
                train = np.sort(np.random.default_rng([int(random_state), k]).choice(train, int(max_train), replace=False))
            proba = fit_proba(X[train], codes[train], X[test])
            p_model[test] = proba[np.arange(len(test)), codes[test]]
            correct[test] = proba.argmax(axis=1) == codes[test]
            prior = np.bincount(codes[train], minlength=len(names)) / len(train)
            p_prior[test] = prior[codes[test]]
            fold_of[test] = k
    p_model, p_prior = np.maximum(p_model, FLOOR), np.maximum(p_prior, FLOOR)
    score = np.log2(p_model) - np.log2(p_prior)
    table = pd.DataFrame({"id": np.arange(n).astype(str) if ids is None else np.asarray(ids).astype(str),
                          "label": names[codes], "pvi": score, "p_model": p_model, "p_prior": p_prior,
                          "correct": correct, "fold": fold_of})
    mean, stderr = float(score.mean()), float(score.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    report(progress, 1.0, "PVI done")
    out = UsableInformation(table=table)
    out.summary = {"v_information": mean, "stderr": stderr, "ci95": [mean - 1.96 * stderr, mean + 1.96 * stderr],
                   "accuracy": float(correct.mean()), "majority": float(counts.max() / n),
                   "v_entropy": float(-np.log2(p_prior).mean()), "conditional_v_entropy": float(-np.log2(p_model).mean()),
                   "per_label": {str(r["label"]): float(r["pvi_mean"]) for _, r in out.per_label().iterrows()},
                   "family": family, "folds": folds, "examples": n, "random_state": int(random_state),
                   "device": where(trained_on)}   # where the models trained (knn and mlp: the CPU)
    return out


def dataset_pvi(dataset, spec: str, *, family: str = "logistic", folds: int = 5, random_state: int = 0,
                max_train: Optional[int] = None, device=None, cache_dir=None, progress=None,
                cancel=None) -> UsableInformation:
    """`pvi` of a `core.data.dataset.Dataset` on the representation ``spec`` (a partial-input spec such
    as ``tfidf-svd:fields=hypothesis`` gives the artifact's bits), for the examples Φ represents
    (warm-up examples are not scored), with the dataset's ids and class order; with a ``device``,
    Φ's SVD (when it is built) and the folds' models compute there."""
    from ..representations import represent

    # Φ first (from the cache, or built), then the folds: each named, neither sending the bar back
    with computing_on(device):
        rep = represent(dataset, spec, cache_dir=cache_dir, progress=span(progress, 0.0, 0.3, f"Φ ({spec})"),
                        cancel=cancel)
    ids = np.asarray(rep.ids).astype(str)
    y = dataset.table[dataset.label].reindex(ids).to_numpy()
    out = pvi(np.asarray(rep.X), y, ids=ids, classes=dataset.classes, family=family, folds=folds,
              random_state=random_state, max_train=max_train, device=device, progress=span(progress, 0.3, 1.0),
              cancel=cancel)
    out.summary["representation"] = rep.spec
    return out
