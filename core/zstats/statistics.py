"""z-statistics (paper 004 eq. 2): the Bonferroni threshold, z per feature and label, and the
z-table of a dataset (`compute_z`, `z_table`)."""
from __future__ import annotations

import math

from dataclasses import dataclass, field as dc_field
from typing import Optional, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import scipy.sparse as sp
from scipy.stats import norm

from ..base.errors import InputError
from ..text.features import FeatureMatrix, FeatureOptions
from ..data.labels import encode_labels
from ..base.progress import check_cancel, report, span
from .inputs import check_min_count, classes_of, features_for, resolve_input


def bonferroni_threshold(alpha: float, n_tests: int) -> float:
    """One-sided Bonferroni threshold z* = Φ⁻¹(1 − α / m) for m = `n_tests` features.

    >>> round(bonferroni_threshold(0.01, 28000), 2)
    4.96
    """
    if not 0 < alpha < 1:
        raise InputError(f"alpha={alpha!r} must be a significance level in (0, 1), e.g. 0.01.")
    return float(norm.isf(alpha / max(int(n_tests), 1)))


def binomial_se(hits: int, n: int) -> Optional[float]:
    """The standard error of the share ``hits``/``n``, taken at the share with one hit and one miss
    added, p̃ = (hits + 1) / (n + 2), as √(p̃(1 − p̃)/n): at 0 (or n) hits the plain formula gives 0, and
    a gate that multiplies it would allow no rise at all, so one rare item landing in a random half
    would fail it. At 0 of n it is about 1/n, the order of what sampling alone gives a rare count;
    away from the ends it is the plain formula. None for n = 0.

    >>> binomial_se(0, 100) > 0
    True
    """
    if not n:
        return None
    p = (hits + 1) / (n + 2)
    return math.sqrt(p * (1 - p) / n)


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
        return z_from_share(np.asarray(counts, dtype=np.float64) / n, n, p0)


def z_from_share(p_hat, n, p0: float):
    """Paper 004 eq. 2 from p̂, the share of a feature's n examples that carry the label: the
    one z of the project (the batch above, one new example's words in `core.quality`, a cue on
    another split in `core.dynamics.transfer`). Arrays or numbers; NaN or ±inf where n = 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return (p_hat - p0) / np.sqrt(p0 * (1 - p0) / np.asarray(n, dtype=np.float64))


def counts_per_label(X: sp.csr_matrix, y: np.ndarray, n_classes: int) -> np.ndarray:
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

    def line_at(self, min_count: int) -> float:
        """The one-sided Bonferroni line over the features seen in at least ``min_count`` examples (the
        `z_star` a `compute_z` with that ``min_count`` gives): the table has one row per tested feature
        and label, so the count is its rows with that support over the labels."""
        if int(min_count) < self.min_count:
            raise ValueError(f"features seen fewer than {self.min_count} times were not kept; "
                             f"cannot count those seen {min_count} times")
        features = int((self.table["n"].to_numpy() >= int(min_count)).sum()) // max(len(self.labels), 1)
        return bonferroni_threshold(self.alpha, features)

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


def tested_z(counts: np.ndarray, n: np.ndarray, min_count: int, alpha: Optional[float] = None,
             p0: Optional[float] = None) -> tuple:
    """(tested, z, z_star): the features seen in at least ``min_count`` examples (the tests; never
    fewer than one example), their z for every label (paper 004 eq. 2 against ``p0``, 1/L by
    default; NaN for a feature not tested), and the one-sided Bonferroni line over the tests (None
    without ``alpha``). The one setup of z-statistics, z-filtering and the quality context."""
    counts, n = np.asarray(counts, dtype=np.float64), np.asarray(n, dtype=np.float64)
    tested = n >= max(int(min_count), 1)
    z = np.full(counts.shape, np.nan)
    z[tested] = z_scores(counts[tested], n[tested], 1.0 / counts.shape[1] if p0 is None else p0)
    return tested, z, (None if alpha is None else bonferroni_threshold(alpha, int(tested.sum())))


def zstats_from_counts(fm: FeatureMatrix, counts, n, labels, label_counts, min_count, alpha, n_examples) -> ZStats:
    keep, z_all, z_star = tested_z(counts, n, min_count, alpha)
    idx = np.flatnonzero(keep)
    L = len(labels)
    p0 = 1.0 / L
    z = z_all[idx]
    n_tests = len(idx)
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
    data : DataFrame or core.data.dataset.Dataset
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
    options : core.text.features.FeatureOptions
        Feature set and bins.
    random_state : int
        Seed of the cross-fitted partial-input model.

    Returns
    -------
    ZStats
    """
    min_count = check_min_count(min_count)
    inp = resolve_input(data, label, text, pair, features)
    classes = classes_of(inp.table[inp.label])
    y = encode_labels(inp.table[inp.label].to_numpy(), classes, what=inp.label)[0]
    sub = span(progress, 0.0, 0.9)
    fm = features_for(inp, inp.table, y, classes, min_count=min_count, options=options,
                       random_state=random_state, progress=sub, cancel=cancel)
    check_cancel(cancel)
    report(progress, 0.92, "counting features per label")
    counts = counts_per_label(fm.X, y, len(classes))
    n = fm.n
    zs = zstats_from_counts(fm, counts, n, classes, dict(zip(classes, np.bincount(y, minlength=len(classes)).tolist())),
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


def ranked_cues(table: pd.DataFrame, alpha: float, columns: list) -> tuple:
    """(``table``'s ``columns`` with ``over_line``, strongest |z| first and by feature on a tie; the
    two-sided Bonferroni line over its features; how many were tested): the one rule of the pair
    and the option cue tables."""
    tested = len(table)
    line = bonferroni_threshold(alpha, 2 * max(tested, 1))
    # the strength to 9 decimals: two features of the same |z| computed in another order (a sum over an
    # item's options in another order differs in the last bit) stay in the order of their names
    table = table.assign(over_line=table["z"].abs() > line, _strength=table["z"].abs().round(9))
    table = table.sort_values(["_strength", "feature"], ascending=[False, True], kind="stable")
    return table.reset_index(drop=True)[columns], line, tested


@dataclass
class CueTable:
    """A cue table of rows in a shape of their own (`core.zstats.pairs`, `core.zstats.choices`):
    ``table`` strongest first, the Bonferroni ``line`` over the ``tested`` features at ``alpha``."""

    table: pd.DataFrame
    line: float
    tested: int
    alpha: float

    def top(self, n: int = 10) -> pd.DataFrame:
        return self.table.head(int(n))
