"""z-filtering (paper 004 §3.2, Algorithm 1), optionally conditional on a seed dataset."""
from __future__ import annotations

import math
from dataclasses import dataclass, field as dc_field
from typing import Optional, Sequence

import numpy as np
import pandas as pd

from ..base.errors import InputError
from ..text.features import FeatureOptions
from ..data.labels import encode_labels
from ..base.progress import check_cancel, report, span
from .inputs import check_min_count, classes_of, features_for, resolve_input, resolve_seed
from .statistics import ZStats, counts_per_label, tested_z, zstats_from_counts


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
    tested, z, z_star = tested_z(counts, n, min_count, alpha, p0)
    z = np.nan_to_num(z, nan=-np.inf)   # a feature not tested is never a candidate
    floor = 0.0 if z_star is None else max(0.0, z_star)
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
    data : DataFrame or core.data.dataset.Dataset
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
    options : core.text.features.FeatureOptions
    random_state : int
        Seed of the batch shuffle (and of the partial-input model's folds).
    progress, cancel
        See `core.base.progress`; reported once per batch.

    Returns
    -------
    ZFilterResult
    """
    min_count = _check_knobs(k, alpha, min_count)
    inp = resolve_input(data, label, text, pair, features, what="data")
    bs = _size(batch_size, len(inp.table), "batch_size")
    pool = _Pool.of(inp, seed_data)
    fm = features_for(inp, pool.table, pool.y, pool.classes, min_count=min_count, options=options,
                      fit_rows=pool.seed_rows(), random_state=random_state, progress=span(progress, 0.0, 0.3),
                      cancel=cancel)
    z_set = _Z(fm.X, pool.y, len(pool.classes))
    z_set.add(np.arange(pool.n_seed))   # conditional: Z starts as the seed

    # the candidates in a seeded random order, judged a batch at a time against Z as it grows
    order = pool.n_seed + np.random.default_rng(random_state).permutation(len(inp.table))
    verdicts = _Verdicts(len(order))
    history = []
    n_batches = int(math.ceil(len(order) / bs))
    for b in range(n_batches):
        check_cancel(cancel)
        rows = order[b * bs : (b + 1) * bs]
        ok, z_now, n_biased = _judge_batch(z_set, fm, rows, pool, verdicts, b, k=k, alpha=alpha, min_count=min_count)
        z_set.add(rows[ok])
        history.append({"batch": b, "size": len(rows), "accepted": int(ok.sum()), "rejected": int((~ok).sum()),
                        "z_max": z_now, "n_biased": n_biased})
        report(progress, 0.3 + 0.65 * (b + 1) / n_batches,
               f"batch {b + 1}/{n_batches}: {int(verdicts.accepted.sum())} accepted")

    check_cancel(cancel)
    result = _result(inp, pool, fm, z_set, verdicts, history, min_count=min_count, alpha=alpha, params={
        "label": inp.label, "text": list(inp.text), "pair": list(inp.pair) if inp.pair else None,
        "features": list(inp.features), "batch_size": bs, "k": k, "alpha": alpha, "min_count": min_count,
        "random_state": random_state, "seed_size": pool.n_seed, "conditional": bool(pool.n_seed),
    })
    kept = int(verdicts.accepted.sum())
    report(progress, 1.0, f"{kept} accepted, {len(order) - kept} rejected")
    return result


def _check_knobs(k, alpha, min_count) -> int:
    """``min_count`` checked, and k and alpha, at least one given (InputError naming the fix)."""
    min_count = check_min_count(min_count)
    if k is None and alpha is None:
        raise InputError("give k (biased features per label, e.g. 20) or alpha (e.g. 0.01), or both.")
    if k is not None and (not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 1):
        raise InputError(f"k={k!r} must be a whole number ≥ 1 of biased features per label (paper: 20).")
    if alpha is not None and not 0 < alpha < 1:
        raise InputError(f"alpha={alpha!r} must be in (0, 1), e.g. 0.01.")
    return min_count


@dataclass
class _Pool:
    """The seed (conditional z-filtering: paper 004's D0) and then the candidates, in one table
    with its label codes; the seed's labels are the label set."""

    table: pd.DataFrame
    y: np.ndarray
    classes: list
    n_seed: int

    @classmethod
    def of(cls, inp, seed_data) -> "_Pool":
        cols = [inp.label, *inp.text, *inp.features]
        if seed_data is None:
            classes = classes_of(inp.table[inp.label])
            table, n_seed = inp.table[cols].reset_index(drop=True), 0
        else:
            seed_table = resolve_seed(seed_data, inp)
            classes = classes_of(seed_table[inp.label], what="seed_data")
            extra = sorted(set(pd.unique(inp.table[inp.label]).tolist()) - set(classes), key=str)
            if extra:
                raise InputError(
                    f"data has labels {extra} that the seed dataset does not have (seed labels: {classes}); "
                    f"conditional z-filtering needs the same label set. Map the labels or choose another seed."
                )
            table, n_seed = pd.concat([seed_table[cols], inp.table[cols]], ignore_index=True), len(seed_table)
        y = encode_labels(table[inp.label].to_numpy(), classes, what=inp.label)[0]
        return cls(table, y, classes, n_seed)

    def seed_rows(self):
        """Rows the partial-input features may learn from: the seed's (None: every row)."""
        return np.arange(len(self.table)) < self.n_seed if self.n_seed else None

    def label_counts(self, y) -> dict:
        return dict(zip(self.classes, np.bincount(y, minlength=len(self.classes)).tolist()))


class _Z:
    """Z, the accepted set: per feature, its examples per label and in all."""

    def __init__(self, X, y, L: int):
        self.X, self.y, self.L = X, y, L
        self.counts = np.zeros((X.shape[1], L))
        self.n = np.zeros(X.shape[1])

    def add(self, rows) -> None:
        if len(rows):
            self.counts += counts_per_label(self.X[rows], self.y[rows], self.L)
            self.n += np.bincount(self.X[rows].indices, minlength=self.X.shape[1])


class _Verdicts:
    """Each candidate's fate: accepted, or rejected by which feature, its z and in which batch."""

    def __init__(self, n: int):
        self.accepted = np.zeros(n, dtype=bool)
        self.rejected_by = np.full(n, None, dtype=object)
        self.rejected_z = np.full(n, np.nan)
        self.rejected_batch = np.full(n, -1, dtype=np.int64)


def _judge_batch(z_set: _Z, fm, rows, pool: _Pool, verdicts: _Verdicts, b: int, *, k, alpha, min_count) -> tuple:
    """(accepted mask of ``rows``, Z's largest z, features in the biased sets): a candidate is
    rejected when it has a feature of its own label's biased set B_Z(l), by the one of largest z."""
    if z_set.n.max(initial=0) > 0:
        bcols, blabs, bz, z_now = _biased_sets(z_set.counts, z_set.n, 1.0 / len(pool.classes), k=k, alpha=alpha,
                                               min_count=min_count)
    else:  # Z is empty: nothing is biased yet
        bcols, blabs, bz, z_now = np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0), float("nan")
    ok = np.ones(len(rows), dtype=bool)
    if len(bcols):
        has = z_set.X[rows][:, bcols].toarray() > 0  # b x |∪B|
        hit = has & (blabs[None, :] == pool.y[rows][:, None])
        best = np.where(hit, bz[None, :], -np.inf).argmax(axis=1)
        ok = ~hit.any(axis=1)
        bad = np.flatnonzero(~ok)
        pos = rows[bad] - pool.n_seed
        verdicts.rejected_by[pos] = fm.names[bcols[best[bad]]]
        verdicts.rejected_z[pos] = bz[best[bad]]
        verdicts.rejected_batch[pos] = b
    verdicts.accepted[rows[ok] - pool.n_seed] = True
    return ok, z_now, int(len(np.unique(bcols)))


def _result(inp, pool: _Pool, fm, z_set: _Z, verdicts: _Verdicts, history: list, *, min_count, alpha,
            params: dict) -> ZFilterResult:
    """The accepted and rejected examples, the history, and the z-statistics before and after."""
    # alpha=None filters on the k largest z alone; the before/after tables still mark
    # significance, at compute_z's default level.
    report_alpha = 0.01 if alpha is None else alpha
    y, n_seed, accepted = pool.y, pool.n_seed, verdicts.accepted
    before = zstats_from_counts(fm, counts_per_label(fm.X, y, len(pool.classes)), fm.n.astype(np.float64),
                                pool.classes, pool.label_counts(y), min_count, report_alpha, len(y))
    after = zstats_from_counts(fm, z_set.counts, z_set.n, pool.classes,
                               pool.label_counts(np.concatenate([y[:n_seed], y[n_seed:][accepted]])), min_count,
                               report_alpha, n_seed + int(accepted.sum()))
    rej = inp.table[~accepted].copy()
    rej["rejected_by"] = verdicts.rejected_by[~accepted]
    rej["rejected_z"] = verdicts.rejected_z[~accepted]
    rej["rejected_in_batch"] = verdicts.rejected_batch[~accepted]
    return ZFilterResult(accepted=inp.table[accepted], rejected=rej, history=pd.DataFrame(history), before=before,
                         after=after, params=params)
