"""Artifacts across splits (issue 23): do the label cues found on a training split also give the
labels away on an evaluation split? If they do, a benchmark rewards the artifacts.

`cue_transfer(train, eval_)`:

- **cues**: the ``k`` features of highest z on TRAIN that exceed z* (z-statistics, paper 004
  eq. 2; partial-input predictions aside, which each split's own model makes), each with its label; on EVAL, how many examples have the feature (``n_eval``), the
  share of them carrying that label (``share_eval``) and its z there (``z_eval``, against
  EVAL's chance 1 / labels). A cue transfers when ``z_eval`` is large too.
- **models**: the accuracy on EVAL of a model trained on TRAIN that sees only the partial input
  (the last text field: the hypothesis) and of one that sees only the top cues (whether each is
  present), beside the majority label's share and chance: well above them, the artifacts of
  TRAIN carry over.
- **predictable**: the AFLite view. m linear models, each trained on a random t-share of TRAIN
  on a representation Φ fitted on both splits' text together (unsupervised: no label crosses),
  score every EVAL example by the share of models that predict its label (AFLite's p̃), and
  every TRAIN example by the models that did not train on it; the share with p̃ ≥ τ on each.
- **near-duplicates** across the splits: pairs whose every text field shares most of its
  wording (`core.text.duplicates`), the leak FiftyOne's "leaky splits" looks for.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from ..aflite.inputs import encode_labels
from ..aflite.partitions import Plan
from ..aflite.scorers import SklearnScorer
from ..aflite.selection import check_tau, passing
from ..data.dataset import Dataset
from ..base.errors import InputError
from ..base.progress import check_cancel, report, span
from ..zstats.statistics import z_from_share
from ..models import make_model

__all__ = ["Transfer", "cue_transfer", "CUE_COLUMNS"]

CUE_COLUMNS = ["feature", "label", "n_train", "z_train", "n_eval", "share_eval", "z_eval"]


@dataclass
class Transfer:
    cues: pd.DataFrame             # CUE_COLUMNS
    duplicates: pd.DataFrame       # train_id, eval_id, overlap
    summary: dict = field(default_factory=dict)


def _z(share: float, n: int, p0: float) -> float:
    return float("nan") if n <= 0 else float(z_from_share(share, n, p0))


def _presence(dataset: Dataset, names) -> np.ndarray:
    """Example × cue presence (0/1) of the named features, in the dataset's row order."""
    from ..text.features import feature_matrix

    fm = feature_matrix(dataset)
    at = {str(n): i for i, n in enumerate(fm.names)}
    out = np.zeros((len(fm.ids), len(names)), dtype=np.float32)
    for j, name in enumerate(names):
        if name in at:
            out[:, j] = fm.X[:, at[name]].toarray().ravel()
    order = pd.Index(np.asarray(fm.ids).astype(str)).get_indexer(dataset.table.index.astype(str))
    return out[order]


def _accuracy(model, Xt, yt, Xe, ye) -> float:
    model.fit(Xt, yt)
    return float((model.predict(Xe) == ye).mean())


def cue_transfer(train: Dataset, eval_: Dataset, *, k: int = 20, min_count: int = 5, alpha: float = 0.01,
                 spec: str = "tfidf-svd", m: int = 16, train_share: float = 0.1, tau: float = 0.75,
                 random_state: int = 0, progress=None, cancel=None) -> Transfer:
    """The report described in the module docstring (TRAIN's cues on EVAL, models, p̃, leaks)."""
    from ..zstats import compute_z

    tau = check_tau(tau)
    eval_ = _checked_splits(train, eval_, k)
    labels = list(train.classes)
    y_eval = eval_.table[train.label].astype(str).to_numpy()
    y_train = train.table[train.label].astype(str).to_numpy()
    unknown = sorted(set(y_eval) - set(labels))
    p0 = 1.0 / len(labels)

    report(progress, 0.0, "z-statistics of the training split")
    zs = compute_z(train, min_count=min_count, alpha=alpha, progress=span(progress, 0.0, 0.3), cancel=cancel)
    # a partial-input prediction is a feature each split's own cross-fitted model makes: on EVAL it is
    # not TRAIN's cue (TRAIN's model on EVAL is the partial-input accuracy below)
    top = zs.table[zs.table["significant"] & (zs.table["kind"] != "pred")].head(int(k))
    check_cancel(cancel)
    report(progress, 0.3, "the cues on the evaluation split")
    present = _presence(eval_, list(top["feature"]))
    cues = _cues_on_eval(top, present, y_eval, p0)

    report(progress, 0.45, "models trained on the training split")
    field_ = train.text[-1]
    partial = _partial_accuracy(train, eval_, field_, y_train, y_eval)
    cue_model = (_accuracy(make_model("logistic", 0, {"max_iter": 2000}), _presence(train, list(top["feature"])), y_train,
                           present, y_eval) if len(top) else float("nan"))
    majority = float(pd.Series(y_eval).value_counts(normalize=True).iloc[0]) if len(y_eval) else float("nan")
    check_cancel(cancel)

    report(progress, 0.6, "AFLite's view: p̃ of the evaluation split")
    both = Dataset(table=pd.concat([train.table[[*train.text, train.label]].set_axis(
        "train:" + train.table.index.astype(str)), eval_.table[[*train.text, train.label]].set_axis(
        "eval:" + eval_.table.index.astype(str))]), label=train.label, text=list(train.text), name="train+eval")
    rep_spec, in_train, p_tilde = _aflite_view(both, spec, labels, m, train_share, random_state, progress, cancel)

    report(progress, 0.85, "near-duplicates across the splits")
    duplicates = _crossing_duplicates(both, list(train.text), cancel)

    def share_at(mask):
        vals = p_tilde[mask]
        vals = vals[np.isfinite(vals)]
        return float(passing(vals, tau).mean()) if len(vals) else float("nan")

    transferring = cues[(cues["z_eval"] > zs.z_star) & (cues["n_eval"] > 0)]
    summary = {"train_examples": int(len(train)), "eval_examples": int(len(eval_)), "labels": labels,
               # a model trained on TRAIN never predicts these: its accuracy counts them as errors
               "labels_only_in_eval": unknown, "eval_examples_with_a_label_only_in_eval": int(np.isin(y_eval, unknown).sum()),
               "z_star_train": float(zs.z_star), "cues": int(len(cues)), "cues_transferring": int(len(transferring)),
               "partial_input_field": field_, "partial_input_accuracy_eval": partial,
               "top_cues_accuracy_eval": cue_model, "majority_share_eval": majority, "chance": p0,
               "representation": rep_spec, "tau": float(tau), "m": int(m), "train_share": float(train_share),
               "predictable_share_train": share_at(in_train), "predictable_share_eval": share_at(~in_train),
               "near_duplicate_pairs": int(len(duplicates)),
               "eval_examples_with_a_near_duplicate_in_train": int(duplicates["eval_id"].nunique())}
    report(progress, 1.0, "cue transfer done")
    return Transfer(cues=cues, duplicates=duplicates.reset_index(drop=True), summary=summary)


def _checked_splits(train: Dataset, eval_: Dataset, k) -> Dataset:
    """The evaluation split with the training split's feature columns, or InputError for splits that
    cannot be compared (other columns, the same rows, no shared label, empty text)."""
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise InputError(f"k must be a whole number of at least 1, not {k!r}.")
    missing = [c for c in (train.label, *train.text, *train.features) if c not in eval_.table.columns]
    if missing:
        raise InputError(f"the evaluation split has no column {missing[0]!r}, which the training split uses; give "
                         "splits with the same columns (or --text/--label/--feature naming columns both have).")
    if list(eval_.features) != list(train.features):   # TRAIN's cues are looked for in the same columns on EVAL
        eval_ = replace(eval_, features=list(train.features))
    if not train.text:
        raise InputError("cue transfer compares text features; this dataset has no text columns (--text).")
    if train.fingerprint == eval_.fingerprint:
        raise InputError("the evaluation split is the training split (the same rows); a model scored on the data it "
                         "was trained on says nothing about transfer. Give another split (e.g. the dev or test split).")
    labels = list(train.classes)
    y_eval = eval_.table[train.label].astype(str).to_numpy()
    if not set(y_eval) & set(labels):
        raise InputError(f"no label of the evaluation split ({', '.join(map(repr, sorted(set(y_eval))[:5]))}) is one "
                         f"of the training split's ({', '.join(map(repr, labels[:5]))}); give splits of the same task, "
                         "or --label naming the column both use.")
    empty = [c for c in train.text if not eval_.table[c].fillna("").astype(str).str.strip().ne("").any()]
    if empty:
        raise InputError(f"the evaluation split's text column {empty[0]!r} is empty in every row, so no cue can "
                         "appear in it; give the column that holds the text (--text).")
    return eval_


def _cues_on_eval(top: pd.DataFrame, present: np.ndarray, y_eval: np.ndarray, p0: float) -> pd.DataFrame:
    """Each of TRAIN's top cues on EVAL: how many examples carry it, the share with its label, its z."""
    rows = []
    for j, cue in enumerate(top.itertuples(index=False)):
        has = present[:, j] > 0
        n_eval = int(has.sum())
        share = float((y_eval[has] == str(cue.label)).mean()) if n_eval else float("nan")
        rows.append({"feature": cue.feature, "label": cue.label, "n_train": int(cue.n), "z_train": float(cue.z),
                     "n_eval": n_eval, "share_eval": share, "z_eval": _z(share, n_eval, p0)})
    return pd.DataFrame(rows, columns=CUE_COLUMNS)


def _partial_accuracy(train: Dataset, eval_: Dataset, field_: str, y_train, y_eval) -> float:
    """The accuracy on EVAL of a model trained on TRAIN's ``field_`` alone: the TF-IDF of word
    1-2-grams that Φ's ``tfidf-svd`` fits (`core.representations.text.fit_tfidf`), fitted on TRAIN
    (NaN for a field with no vocabulary)."""
    from ..representations.text import fit_tfidf

    try:
        vec, Xt = fit_tfidf(train.table[field_].fillna("").astype(str).tolist(), "1-2", 2, field_)
    except InputError:   # an empty vocabulary
        return float("nan")
    Xe = vec.transform(eval_.table[field_].fillna("").astype(str).tolist())
    return _accuracy(make_model("logistic", 0, {"max_iter": 2000}), Xt, y_train, Xe, y_eval)


def _aflite_view(both: Dataset, spec: str, labels: list, m: int, train_share: float, random_state, progress,
                 cancel) -> tuple:
    """(Φ's spec, which rows are TRAIN's, AFLite's p̃ of every row): p̃ (eq. 4) with its logistic family
    (`core.aflite.scorers`) and the m training sets drawn from TRAIN alone: EVAL is always held out,
    TRAIN by the models that did not train on it."""
    from ..representations import represent

    rep = represent(both, spec, cancel=cancel)
    ids = np.asarray(rep.ids).astype(str)
    X = np.asarray(rep.X, dtype=np.float32)
    in_train = np.char.startswith(ids, "train:")
    y_all = both.table[both.label].astype(str).reindex(ids).to_numpy()
    rng = np.random.default_rng(random_state)
    tr = np.flatnonzero(in_train)
    size = min(len(tr), max(len(labels), int(round(train_share * len(tr)))))
    picks = [rng.choice(tr, size=size, replace=False) for _ in range(int(m))]
    scorer = SklearnScorer("logistic", X, np.zeros(X.shape[1], dtype=np.float32), encode_labels(y_all)[0],
                           random_state)
    votes, seen = scorer.score(np.arange(len(ids)), Plan.of_training_sets(len(ids), picks),
                               lambda f, msg: report(progress, 0.6 + 0.25 * f, f"AFLite's view: {msg}"), cancel, 0)
    return rep.spec, in_train, np.divide(votes, seen, out=np.full(len(ids), np.nan), where=seen > 0)


def _crossing_duplicates(both: Dataset, text: list, cancel) -> pd.DataFrame:
    """Near-duplicate pairs with one example in each split: ``train_id``, ``eval_id``, ``overlap``."""
    from ..text.duplicates import DuplicateIndex

    pairs = DuplicateIndex(both.table, text).pairs(cancel=cancel)
    pairs = pairs[pairs["a"].str.startswith("train:") != pairs["b"].str.startswith("train:")]
    a_train = pairs["a"].str.startswith("train:")
    duplicates = pd.DataFrame({"train_id": np.where(a_train, pairs["a"], pairs["b"]),
                               "eval_id": np.where(a_train, pairs["b"], pairs["a"]),
                               "overlap": pairs["overlap"].to_numpy()})
    duplicates["train_id"] = duplicates["train_id"].str.slice(len("train:"))
    duplicates["eval_id"] = duplicates["eval_id"].str.slice(len("eval:"))
    return duplicates
