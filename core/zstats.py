"""z-statistics of task-independent features, z-filtering and consistency filtering.

After Gardner et al. (2021) and paper 004 (Wu et al. 2022):

* **z-statistics** (004 §3.1, eq. 2). For a feature x seen in n examples, of
  which `count` have label l, p̂(l|x) = count / n and

      z*(x, l) = (p̂(l|x) − p0) / √(p0 (1 − p0) / n),   p0 = 1 / (number of labels).

  A feature whose z exceeds the one-sided Bonferroni threshold
  z* = Φ⁻¹(1 − α / m) (m = number of features tested; Gardner: α = 0.01, about
  4.96 for 28k tokens) gives its label away. `z_table` / `compute_z`.
* **z-filtering** (004 §3.2, Algorithm 1). Go through the data D′ in shuffled
  batches; before each batch find the k features of highest z for each label l,
  B_Z(l), on the examples Z accepted so far; accept an example of label l only if
  it has none of B_Z(l). With a seed dataset Z starts as D_seed (conditional
  z-filtering Z(D′ | D_seed)). `z_filter`.
* **Consistency filtering** (004 §2.2.2). Drop examples whose gold label a model
  trained on other examples gives probability p_M(l | x) ≤ τ. `consistency_filter`.

Features are built by `core.features` (its docstring defines the tokenisation).
Everything returns small dataclasses holding pandas tables, ready for the CLI
(``to_csv``) and the dashboard; figures are in `core.zplots`.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field as dc_field
from typing import Optional, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import scipy.sparse as sp
from scipy.stats import norm

from core.errors import InputError
from core.labels import encode_labels
from core.features import FeatureMatrix, FeatureOptions, build_features, check_text_columns
from core.progress import check_cancel, report, span

try:  # the Dataset is optional input; DataFrames work without it
    from core.dataset import Dataset
except Exception:  # pragma: no cover
    Dataset = None  # type: ignore


# --------------------------------------------------------------------------- statistics


def bonferroni_threshold(alpha: float, n_tests: int) -> float:
    """One-sided Bonferroni threshold z* = Φ⁻¹(1 − α / m) for m = `n_tests` features.

    >>> round(bonferroni_threshold(0.01, 28000), 2)
    4.96
    """
    if not 0 < alpha < 1:
        raise InputError(f"alpha={alpha!r} must be a significance level in (0, 1), e.g. 0.01.")
    return float(norm.isf(alpha / max(int(n_tests), 1)))


def z_scores(counts: np.ndarray, n: np.ndarray, p0: float) -> np.ndarray:
    """Paper 004 eq. 2 for every feature and label.

    Parameters
    ----------
    counts : array (F, L)
        Examples having feature x with label l.
    n : array (F,)
        Examples having feature x.
    p0 : float
        Uniform label probability 1 / L.

    Returns
    -------
    z : float64 array (F, L); NaN where n = 0.
    """
    n = np.asarray(n, dtype=np.float64)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        p_hat = np.asarray(counts, dtype=np.float64) / n
        return (p_hat - p0) / np.sqrt(p0 * (1 - p0) / n)


def _label_counts(X: sp.csr_matrix, y: np.ndarray, n_classes: int) -> np.ndarray:
    """counts[x, l] = number of rows with feature x and label l (one sparse product)."""
    Y = sp.csr_matrix((np.ones(len(y), np.float32), (np.arange(len(y)), y)), shape=(len(y), n_classes))
    return np.asarray((X.T @ Y).todense(), dtype=np.float64)


@dataclass
class ZStats:
    """z-statistics of every feature and label.

    Attributes
    ----------
    table : DataFrame
        One row per (feature, label), sorted by z descending, columns
        ``feature, label, n, count, p_hat, z, significant, kind, field``:
        n = examples with the feature, count = those with the label,
        p_hat = p̂(l|x) = count / n, z = eq. 2, significant = z > z_star.
    z_star : float
        One-sided Bonferroni threshold Φ⁻¹(1 − α / n_tests).
    alpha : float
        Family-wise significance level α.
    p0 : float
        1 / number of labels.
    n_tests : int
        Number of features tested (features with n ≥ min_count).
    n_examples : int
    labels : list
        Label names.
    min_count : int
    label_counts : dict
        Label -> number of examples.
    info : dict
        Feature-extraction info (tokenisation, options, partial-model accuracy).
    """

    table: pd.DataFrame
    z_star: float
    alpha: float
    p0: float
    n_tests: int
    n_examples: int
    labels: list
    min_count: int
    label_counts: dict = dc_field(default_factory=dict)
    info: dict = dc_field(default_factory=dict)

    @property
    def significant(self) -> pd.DataFrame:
        """Rows whose z exceeds z* (the features that give their label away)."""
        return self.table[self.table["significant"]]

    @property
    def z_max(self) -> float:
        """The largest z over all features and labels."""
        return float(self.table["z"].max()) if len(self.table) else float("nan")

    @property
    def z_max_feature(self) -> str:
        if not len(self.table):
            return ""
        row = self.table.iloc[int(np.nanargmax(self.table["z"].to_numpy()))]
        return f"{row['feature']} ({row['label']})"

    def top(self, k: int = 10, *, kind=None, field=None, label=None) -> pd.DataFrame:
        """The k features of highest z for each label (z > 0), with their rank.

        Parameters
        ----------
        k : int
            Features per label.
        kind, field : str or list of str, optional
            Keep only these feature kinds (``ngram``, ``length``, ``overlap``,
            ``ratio``, ``pred``, ``null``, ``column``) / fields (``hypothesis``).
        label : str or list, optional
            Only these labels.
        """
        t = self.table[self.table["z"] > 0]
        for col, want in (("kind", kind), ("field", field), ("label", label)):
            if want is not None:
                want = [want] if isinstance(want, str) or not isinstance(want, (list, tuple, set)) else list(want)
                t = t[t[col].isin(want)]
        out = t.groupby("label", sort=False, observed=True).head(int(k)).copy()
        out["rank"] = out.groupby("label", observed=True).cumcount() + 1
        order = {l: i for i, l in enumerate(self.labels)}
        out = out.sort_values(["label", "rank"], key=lambda s: s.map(order) if s.name == "label" else s)
        return out.reset_index(drop=True)

    def summary(self, *, kind=None, field=None) -> dict:
        """Counts and the largest z, over the features of these ``kind``/``field`` only when
        given (``n_shown``: features shown). z* and ``n_tests`` are always those of the whole
        test: a filter hides features, it does not change the Bonferroni correction."""
        table = self.table
        for col, want in (("kind", kind), ("field", field)):
            if want is not None:
                want = [want] if isinstance(want, str) else list(want)
                table = table[table[col].isin(want)]
        sig = table[table["significant"]]
        if len(table):
            row = table.iloc[int(np.nanargmax(table["z"].to_numpy()))]
            z_max, z_max_feature = float(row["z"]), f"{row['feature']} ({row['label']})"
        else:
            z_max, z_max_feature = float("nan"), ""
        return {
            "n_examples": self.n_examples,
            "n_tests": self.n_tests,
            "n_shown": int(table["feature"].nunique()),
            "labels": list(self.labels),
            "p0": self.p0,
            "alpha": self.alpha,
            "z_star": self.z_star,
            "n_significant_features": int(sig["feature"].nunique()),
            "z_max": z_max,
            "z_max_feature": z_max_feature,
        }


def _zstats_from_counts(fm: FeatureMatrix, counts, n, labels, label_counts, min_count, alpha, n_examples) -> ZStats:
    keep = n >= max(int(min_count), 1)
    idx = np.flatnonzero(keep)
    L = len(labels)
    p0 = 1.0 / L
    z = z_scores(counts[idx], n[idx], p0)
    n_tests = len(idx)
    z_star = bonferroni_threshold(alpha, n_tests)
    zf = z.ravel()
    order = np.argsort(-zf, kind="stable")
    feat = np.repeat(idx, L)[order]
    lab = np.tile(np.arange(L), len(idx))[order]
    cnt = counts[idx].ravel()[order]
    nn = n[feat].astype(np.int64)
    # Millions of rows on big data: feature names go through arrow (zero-copy into pandas' str
    # dtype), the few distinct labels, kinds and fields become categoricals.
    feature_col = pa.array(fm.names, type=pa.large_string()).take(pa.array(feat)).to_pandas()

    def categorical(values, codes):
        cats, inverse = np.unique(np.asarray(values, dtype=object).astype(str), return_inverse=True)
        return pd.Categorical.from_codes(inverse[codes], categories=cats)

    table = pd.DataFrame(
        {
            "feature": feature_col,
            "label": pd.Categorical.from_codes(lab, categories=pd.Index(list(labels), dtype=object)),
            "n": nn,
            "count": cnt.astype(np.int64),
            "p_hat": cnt / nn,
            "z": zf[order],
            "significant": zf[order] > z_star,
            "kind": categorical(fm.kind, feat),
            "field": categorical(fm.field, feat),
        }
    )
    table.attrs.update({"z_star": z_star, "alpha": alpha, "p0": p0, "n_tests": n_tests})
    return ZStats(
        table=table, z_star=z_star, alpha=float(alpha), p0=p0, n_tests=n_tests, n_examples=int(n_examples),
        labels=list(labels), min_count=int(min_count), label_counts=dict(label_counts), info=dict(fm.info),
    )


# --------------------------------------------------------------------------- inputs


@dataclass
class _Input:
    table: pd.DataFrame
    label: str
    text: list
    pair: Optional[tuple]
    features: list


def _resolve(data, label=None, text=None, pair="auto", features=None, what="data") -> _Input:
    """Column roles from a Dataset (its roles are the defaults) or a DataFrame."""
    if Dataset is not None and isinstance(data, Dataset):
        table = data.table
        label = label or data.label
        text = list(data.text) if text is None else text
        features = list(data.features) if features is None else features
    elif isinstance(data, pd.DataFrame):
        table = data
        if label is None:
            if "label" not in table.columns:
                raise InputError(
                    f"{what}: no label column given and none is named 'label'; pass label=... "
                    f"(columns: {list(map(str, table.columns))})."
                )
            label = "label"
        features = list(features or [])
        if text is None:
            text = [c for c in table.columns if c != label and c not in features and _holds_strings(table[c])]
    else:
        raise InputError(
            f"{what} must be a pandas DataFrame or a core.dataset.Dataset, not {type(data).__name__}; "
            f"load files with core.sources.load_dataset(...)."
        )
    if label not in table.columns:
        raise InputError(f"{what}: label column {label!r} is not in the data; columns are {list(map(str, table.columns))}.")
    if len(table) == 0:
        raise InputError(f"{what} has no examples; z-statistics need labelled examples.")
    text = check_text_columns(table, [text] if isinstance(text, str) else list(text))
    if not text and not features:
        raise InputError(
            f"{what}: no text columns and no feature columns; pass text=['premise', 'hypothesis'] "
            f"(columns of strings) and/or features=[boolean or categorical columns]."
        )
    if label in text:
        raise InputError(f"the label column {label!r} cannot also be a text column; remove it from text.")
    missing = table[label].isna()
    if missing.any():
        raise InputError(
            f"{what}: label column {label!r} is missing in {int(missing.sum())} rows; drop them or choose another label."
        )
    if isinstance(pair, str) and pair == "auto":
        pair = tuple(text) if len(text) == 2 else None
    elif pair is not None:
        pair = tuple(pair)
        if len(pair) != 2 or any(p not in text for p in pair):
            raise InputError(f"pair={pair!r} must name two of the text columns {text} (e.g. ('premise', 'hypothesis')).")
    return _Input(table, label, text, pair, list(features))


def _holds_strings(s: pd.Series) -> bool:
    if pd.api.types.is_bool_dtype(s) or pd.api.types.is_numeric_dtype(s):
        return False
    if pd.api.types.is_object_dtype(s):
        sample = s.dropna().iloc[:2000]
        return len(sample) > 0 and all(isinstance(v, str) for v in sample)
    return pd.api.types.is_string_dtype(s)


def _classes(values: pd.Series, what="data") -> list:
    classes = sorted(pd.unique(values).tolist(), key=str)
    if len(classes) < 2:
        raise InputError(
            f"{what}: the label has only one class ({classes[0]!r} for all {len(values)} examples); z-statistics compare "
            f"labels, so they need at least two. Choose another label column or add examples of other labels."
        )
    return classes


def _check_min_count(min_count) -> int:
    if not isinstance(min_count, (int, np.integer)) or min_count < 1:
        raise InputError(f"min_count={min_count!r} must be a whole number ≥ 1 (e.g. 20).")
    return int(min_count)


def _features_for(inp: _Input, table, y, classes, *, min_count, options, fit_rows=None, random_state=0,
                  progress=None, cancel=None) -> FeatureMatrix:
    fm = build_features(
        table, text=inp.text, y_codes=y, classes=classes, pair=inp.pair, columns=inp.features, options=options,
        min_count=min_count, fit_rows=fit_rows, random_state=random_state, progress=progress, cancel=cancel,
    )
    if fm.X.shape[1] == 0 or (min_count > 1 and (fm.n >= min_count).sum() == 0):
        largest = int(fm.n.max()) if fm.X.shape[1] else 0
        raise InputError(
            f"min_count={min_count} is above every feature's count (the most frequent feature is in {largest} "
            f"examples); lower min_count."
        )
    return fm


# --------------------------------------------------------------------------- z-table


def compute_z(
    data,
    *,
    label: Optional[str] = None,
    text: Optional[Sequence[str]] = None,
    pair="auto",
    features: Optional[Sequence[str]] = None,
    min_count: int = 1,
    alpha: float = 0.01,
    options: Optional[FeatureOptions] = None,
    random_state=0,
    progress=None,
    cancel=None,
) -> ZStats:
    """z-statistics of every task-independent feature and label (paper 004 eq. 2).

    Parameters
    ----------
    data : DataFrame or core.dataset.Dataset
        The examples. For a Dataset, `label`, `text` and `features` default to
        its roles.
    label : str
        Label column (DataFrame default: ``"label"``).
    text : list of str
        Text columns (DataFrame default: every column of strings but the label).
    pair : "auto", (a, b) or None
        Text columns forming a pair (premise, hypothesis) for the pair features;
        "auto" = the two text columns when there are exactly two.
    features : list of str
        User-marked boolean or categorical columns.
    min_count : int
        Test only features present in at least this many examples.
    alpha : float
        Family-wise level α of the one-sided Bonferroni threshold z*.
    options : core.features.FeatureOptions
        Feature set and bins.
    random_state : int
        Seed of the cross-fitted partial-input model.

    Returns
    -------
    ZStats
    """
    min_count = _check_min_count(min_count)
    inp = _resolve(data, label, text, pair, features)
    classes = _classes(inp.table[inp.label])
    y = encode_labels(inp.table[inp.label].to_numpy(), classes, what=inp.label)[0]
    sub = span(progress, 0.0, 0.9)
    fm = _features_for(inp, inp.table, y, classes, min_count=min_count, options=options,
                       random_state=random_state, progress=sub, cancel=cancel)
    check_cancel(cancel)
    report(progress, 0.92, "counting features per label")
    counts = _label_counts(fm.X, y, len(classes))
    n = fm.n
    zs = _zstats_from_counts(fm, counts, n, classes, dict(zip(classes, np.bincount(y, minlength=len(classes)).tolist())),
                             min_count, alpha, len(y))
    report(progress, 1.0, f"{zs.n_tests} features tested")
    return zs


def z_table(data, *, label=None, text=None, pair="auto", features=None, min_count: int = 1, alpha: float = 0.01,
            options: Optional[FeatureOptions] = None, random_state=0, progress=None, cancel=None) -> pd.DataFrame:
    """The z-table as a DataFrame (see `compute_z` for the parameters).

    Columns ``feature, label, n, count, p_hat, z, significant, kind, field``,
    sorted by z descending; ``table.attrs`` holds ``z_star``, ``alpha``, ``p0``
    and ``n_tests``. Ready for ``to_csv``.
    """
    return compute_z(data, label=label, text=text, pair=pair, features=features, min_count=min_count, alpha=alpha,
                     options=options, random_state=random_state, progress=progress, cancel=cancel).table


# --------------------------------------------------------------------------- z-filtering


@dataclass
class ZFilterResult:
    """What z-filtering accepted and rejected (paper 004, Algorithm 1).

    Attributes
    ----------
    accepted : DataFrame
        The accepted candidates Z(D′) (or Z(D′ | D_seed)): rows of the input table,
        in input order, index = ids.
    rejected : DataFrame
        The rejected candidates Z⁻(D′), input order, with three more columns:
        ``rejected_by`` (the biased feature of the example's label that it has,
        the one of highest z), ``rejected_z`` (that z when it was rejected) and
        ``rejected_in_batch``.
    history : DataFrame
        One row per batch: ``batch, size, accepted, rejected, z_max`` (largest z
        on Z before the batch), ``n_biased`` (features in ∪_l B_Z(l)).
    before, after : ZStats
        z-statistics before filtering (on D′, or D_seed ∪ D′) and after (on Z,
        or D_seed ∪ Z(D′ | D_seed)).
    params : dict
    """

    accepted: pd.DataFrame
    rejected: pd.DataFrame
    history: pd.DataFrame
    before: ZStats
    after: ZStats
    params: dict = dc_field(default_factory=dict)

    @property
    def accepted_ids(self) -> np.ndarray:
        return self.accepted.index.to_numpy(dtype=object)

    @property
    def rejected_ids(self) -> np.ndarray:
        return self.rejected.index.to_numpy(dtype=object)

    @property
    def z_max_before(self) -> float:
        return self.before.z_max

    @property
    def z_max_after(self) -> float:
        return self.after.z_max

    def reasons(self) -> pd.DataFrame:
        """How many rejections each biased feature caused, per label."""
        if not len(self.rejected):
            return pd.DataFrame(columns=["rejected_by", "label", "rejected"])
        lab = self.params["label"]
        return (
            self.rejected.groupby(["rejected_by", lab]).size().rename("rejected").reset_index()
            .rename(columns={lab: "label"}).sort_values("rejected", ascending=False, ignore_index=True)
        )

    def summary(self) -> dict:
        return {
            "accepted": int(len(self.accepted)),
            "rejected": int(len(self.rejected)),
            "z_max_before": self.z_max_before,
            "z_max_before_feature": self.before.z_max_feature,
            "z_max_after": self.z_max_after,
            "z_max_after_feature": self.after.z_max_feature,
            "batches": int(len(self.history)),
            **{k: v for k, v in self.params.items() if k in ("batch_size", "k", "alpha", "min_count", "seed_size")},
        }


def _size(value, total: int, name: str) -> int:
    """An int count or a float fraction in (0, 1) of `total` (scikit-learn style).

    Unlike AFLite's sizes (`core.aflite.resolve_size`, rounded down so n never
    overshoots), a batch fraction rounds up: a batch must hold at least one example.
    """
    if isinstance(value, bool):
        value = None
    if isinstance(value, (int, np.integer)) and value >= 1:
        return int(value)
    if isinstance(value, (float, np.floating)) and 0 < value < 1:
        return max(1, int(math.ceil(value * total)))
    raise InputError(
        f"{name}={value!r} would make empty batches; use a count ≥ 1 (e.g. 500) or a fraction in (0, 1) (e.g. 0.05)."
    )


def _biased_sets(counts, n, p0, *, k, alpha, min_count):
    """B_Z(l) for every label: the top-k features by z (z > 0; and z > z*(α) when α is given).

    Returns the feature indices and, aligned, their label codes and z.
    """
    tested = n >= min_count
    z = z_scores(counts, n, p0)
    z[~tested] = -np.inf
    z = np.nan_to_num(z, nan=-np.inf)
    floor = 0.0
    if alpha is not None:
        floor = max(floor, bonferroni_threshold(alpha, int(tested.sum())))
    cols, labs, zs = [], [], []
    for l in range(counts.shape[1]):
        zl = z[:, l]
        cand = np.flatnonzero(zl > floor)
        if k is not None and len(cand) > k:
            part = np.argpartition(-zl[cand], k - 1)[:k]
            cand = cand[part]
        cols.append(cand)
        labs.append(np.full(len(cand), l, dtype=np.int64))
        zs.append(zl[cand])
    return np.concatenate(cols), np.concatenate(labs), np.concatenate(zs), (float(z.max()) if tested.any() else float("nan"))


def z_filter(
    data,
    *,
    label: Optional[str] = None,
    text: Optional[Sequence[str]] = None,
    pair="auto",
    features: Optional[Sequence[str]] = None,
    seed_data=None,
    batch_size=500,
    k: Optional[int] = 20,
    alpha: Optional[float] = None,
    min_count: int = 1,
    options: Optional[FeatureOptions] = None,
    random_state=0,
    progress=None,
    cancel=None,
) -> ZFilterResult:
    """z-filtering (paper 004, Algorithm 1), optionally conditional on a seed dataset.

    Parameters
    ----------
    data : DataFrame or core.dataset.Dataset
        The candidates D′.
    label, text, pair, features : see `compute_z`
        The seed dataset must have the same label, text and feature columns.
    seed_data : DataFrame or Dataset, optional
        D_seed: Z starts as the seed, so candidates are accepted only if they
        avoid the seed's (and the growing Z's) biased features: Z(D′ | D_seed).
        The partial-input model is then trained on the seed only (as the paper
        trains it on D0) and predicts the candidates.
    batch_size : int or float
        Candidates per batch D′_t: a count, or a fraction in (0, 1) of |D′|.
    k : int or None
        Biased features per label, |B_Z(l)| (paper: 20). None: all features
        above z*(α) (then `alpha` is required).
    alpha : float or None
        If given, a feature is biased only if its z also exceeds the one-sided
        Bonferroni threshold z*(α) on the current Z.
    min_count : int
        Only features present in at least this many examples of Z can be biased.
    options : core.features.FeatureOptions
    random_state : int
        Seed of the batch shuffle (and of the partial-input model's folds).
    progress, cancel
        See `core.progress`; reported once per batch.

    Returns
    -------
    ZFilterResult
    """
    min_count = _check_min_count(min_count)
    if k is None and alpha is None:
        raise InputError("give k (biased features per label, e.g. 20) or alpha (e.g. 0.01), or both.")
    if k is not None and (not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 1):
        raise InputError(f"k={k!r} must be a whole number ≥ 1 of biased features per label (paper: 20).")
    if alpha is not None and not 0 < alpha < 1:
        raise InputError(f"alpha={alpha!r} must be in (0, 1), e.g. 0.01.")
    inp = _resolve(data, label, text, pair, features, what="data")
    bs = _size(batch_size, len(inp.table), "batch_size")
    cols = [inp.label, *inp.text, *inp.features]

    seed_table = None
    if seed_data is not None:
        seed_table = _resolve_seed(seed_data, inp)
        classes = _classes(seed_table[inp.label], what="seed_data")
        extra = sorted(set(pd.unique(inp.table[inp.label]).tolist()) - set(classes), key=str)
        if extra:
            raise InputError(
                f"data has labels {extra} that the seed dataset does not have (seed labels: {classes}); "
                f"conditional z-filtering needs the same label set. Map the labels or choose another seed."
            )
        combined = pd.concat([seed_table[cols], inp.table[cols]], ignore_index=True)
        n_seed = len(seed_table)
    else:
        classes = _classes(inp.table[inp.label])
        combined = inp.table[cols].reset_index(drop=True)
        n_seed = 0
    y = encode_labels(combined[inp.label].to_numpy(), classes, what=inp.label)[0]
    L = len(classes)
    p0 = 1.0 / L
    fit_rows = np.arange(len(combined)) < n_seed if n_seed else None
    fm = _features_for(inp, combined, y, classes, min_count=min_count, options=options, fit_rows=fit_rows,
                       random_state=random_state, progress=span(progress, 0.0, 0.3), cancel=cancel)
    X = fm.X
    counts = np.zeros((X.shape[1], L))
    n = np.zeros(X.shape[1])
    if n_seed:
        counts += _label_counts(X[:n_seed], y[:n_seed], L)
        n += np.bincount(X[:n_seed].indices, minlength=X.shape[1])

    rng = np.random.default_rng(random_state)
    order = n_seed + rng.permutation(len(inp.table))
    n_cand = len(order)
    accepted = np.zeros(n_cand, dtype=bool)
    rejected_by = np.full(n_cand, None, dtype=object)
    rejected_z = np.full(n_cand, np.nan)
    rejected_batch = np.full(n_cand, -1, dtype=np.int64)
    history = []
    n_batches = int(math.ceil(n_cand / bs))
    for b in range(n_batches):
        check_cancel(cancel)
        rows = order[b * bs : (b + 1) * bs]
        Xb = X[rows]
        yb = y[rows]
        if n.max(initial=0) > 0:
            bcols, blabs, bz, z_now = _biased_sets(counts, n, p0, k=k, alpha=alpha, min_count=min_count)
        else:  # Z is empty: nothing is biased yet
            bcols, blabs, bz, z_now = np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0), float("nan")
        ok = np.ones(len(rows), dtype=bool)
        if len(bcols):
            has = Xb[:, bcols].toarray() > 0  # b x |∪B|
            hit = has & (blabs[None, :] == yb[:, None])
            score = np.where(hit, bz[None, :], -np.inf)
            best = score.argmax(axis=1)
            ok = ~hit.any(axis=1)
            bad = np.flatnonzero(~ok)
            pos = rows[bad] - n_seed
            rejected_by[pos] = fm.names[bcols[best[bad]]]
            rejected_z[pos] = bz[best[bad]]
            rejected_batch[pos] = b
        acc_rows = rows[ok]
        accepted[acc_rows - n_seed] = True
        if len(acc_rows):
            counts += _label_counts(X[acc_rows], y[acc_rows], L)
            n += np.bincount(X[acc_rows].indices, minlength=X.shape[1])
        history.append({"batch": b, "size": len(rows), "accepted": int(ok.sum()), "rejected": int((~ok).sum()),
                        "z_max": z_now, "n_biased": int(len(np.unique(bcols)))})
        report(progress, 0.3 + 0.65 * (b + 1) / n_batches, f"batch {b + 1}/{n_batches}: {int(accepted.sum())} accepted")

    check_cancel(cancel)
    # alpha=None filters on the k largest z alone; the before/after tables still mark
    # significance, at compute_z's default level.
    report_alpha = 0.01 if alpha is None else alpha
    label_counts = lambda yy: dict(zip(classes, np.bincount(yy, minlength=L).tolist()))  # noqa: E731
    all_counts = _label_counts(X, y, L)
    before = _zstats_from_counts(fm, all_counts, fm.n.astype(np.float64), classes, label_counts(y), min_count,
                                 report_alpha, len(y))
    after = _zstats_from_counts(fm, counts, n, classes,
                                label_counts(np.concatenate([y[:n_seed], y[n_seed:][accepted]])), min_count,
                                report_alpha, n_seed + int(accepted.sum()))
    table = inp.table
    rej = table[~accepted].copy()
    rej["rejected_by"] = rejected_by[~accepted]
    rej["rejected_z"] = rejected_z[~accepted]
    rej["rejected_in_batch"] = rejected_batch[~accepted]
    params = {
        "label": inp.label, "text": list(inp.text), "pair": list(inp.pair) if inp.pair else None,
        "features": list(inp.features), "batch_size": bs, "k": k, "alpha": alpha, "min_count": min_count,
        "random_state": random_state, "seed_size": n_seed, "conditional": bool(n_seed),
    }
    report(progress, 1.0, f"{int(accepted.sum())} accepted, {int((~accepted).sum())} rejected")
    return ZFilterResult(accepted=table[accepted], rejected=rej, history=pd.DataFrame(history), before=before,
                         after=after, params=params)


def _resolve_seed(seed_data, inp: _Input) -> pd.DataFrame:
    if Dataset is not None and isinstance(seed_data, Dataset):
        table = seed_data.table
    elif isinstance(seed_data, pd.DataFrame):
        table = seed_data
    else:
        raise InputError(
            f"seed_data must be a DataFrame or a core.dataset.Dataset, not {type(seed_data).__name__}."
        )
    need = [inp.label, *inp.text, *inp.features]
    missing = [c for c in need if c not in table.columns]
    if missing:
        raise InputError(
            f"the seed dataset lacks the columns {missing} of the data (label {inp.label!r}, text {inp.text}, "
            f"features {inp.features}); the seed needs the same label and text fields. Its columns are "
            f"{list(map(str, table.columns))}: rename them to match."
        )
    if len(table) == 0:
        raise InputError("the seed dataset has no examples.")
    check_text_columns(table, inp.text)
    if table[inp.label].isna().any():
        raise InputError(f"the seed dataset's label column {inp.label!r} has missing values; drop those rows.")
    return table


# --------------------------------------------------------------------------- consistency filtering


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
        (`core.features`, no partial-input predictions).
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
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold

    _check_threshold(threshold)
    min_count = _check_min_count(min_count)
    if not isinstance(folds, (int, np.integer)) or folds < 2:
        raise InputError(f"folds={folds!r} must be a whole number ≥ 2 (cross-fitting).")
    inp = _resolve(data, label, text, pair, None)
    # A loose tolerance keeps 5 fits on 10k x 30k sparse inputs to seconds; τ needs ranks, not 6 digits.
    model = model if model is not None else LogisticRegression(C=0.5, tol=1e-3, max_iter=300)
    opts = FeatureOptions(partial_input=None, null=False)
    cols = [inp.label, *inp.text]
    if reference is not None:
        if X is not None:
            raise InputError("give either X or reference, not both: with a reference, features come from the text.")
        ref = _resolve_seed(reference, _Input(inp.table, inp.label, inp.text, inp.pair, []))
        classes = _classes(ref[inp.label], what="reference")
        combined = pd.concat([ref[cols], inp.table[cols]], ignore_index=True)
        n_ref = len(ref)
    else:
        classes = _classes(inp.table[inp.label])
        combined = inp.table[cols].reset_index(drop=True)
        n_ref = 0
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
