"""Checks beside the family table: phases, the coarse action (where to stop), an external difficulty
column, and the synthetic report at known separations (see `core.evaluation`)."""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np
import pandas as pd

from ..base.errors import InputError
from ..base.progress import check_cancel, report
from .measures import heldout_split
from .models import SEPARATIONS, Fit, fit_many, with_notes
from ..models import check_families
from ..models import make_model


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


def coarse_action(X, y, *, step: float = 0.1, tolerance: Optional[float] = None, family: str = "logistic",
                  eval_share: float = 0.2, random_state: int = 0, family_params: Optional[dict] = None,
                  n_jobs: int = 1, device: Optional[str] = None, progress=None, cancel=None) -> pd.DataFrame:
    """The coarse action of paper 002, Algorithm 1 lines 2–9 (its fits on ``n_jobs`` threads, a
    linear family's on ``device`` when one is set).

    An i.i.d. held-out split (``eval_share``, stratified) is set aside; a model of
    ``family`` is trained on the first a % of a fixed random order of the rest, for
    a = b, 2b, …, 100 % (b = ``step``), and its held-out ("IID") accuracy recorded.
    Algorithm 1 grows a by b while the accuracy improves; the suggested fraction is
    the first a whose next step does not improve the accuracy by more than
    ``tolerance`` (0: any improvement counts, as in the paper), or 100 % when it
    never stops improving. ``tolerance=None`` (the default) asks a step to beat the
    noise of the held-out accuracy: one standard error, √(acc (1 − acc) / m) for m
    held-out examples (column ``noise``), so a dip of 0.001 on 2,000 examples does not
    stop the growth. The whole curve is computed (for the figure).

    Returns
    -------
    Table ``fraction, train_size, accuracy, gain, noise, note``; ``attrs``: ``fraction``
    (the suggested share), ``size`` (round(fraction · N), the suggested target size
    n), ``step``, ``tolerance`` (None: the noise rule), ``family``, ``notes``.
    """
    if isinstance(step, bool) or not isinstance(step, (int, float)) or not 0 < step <= 0.5:
        raise InputError(f"step={step!r} must be a fraction in (0, 0.5], e.g. 0.1 (10 %).")
    check_tolerance(tolerance)
    check_families([family])
    X = np.asarray(X, dtype=np.float32)
    y = np.asarray(y)
    split = heldout_split(y, eval_share, random_state)
    pool = np.random.default_rng(random_state).permutation(np.flatnonzero(split.train))
    n_steps = int(np.floor(1.0 / step + 1e-9))
    fractions = [round(step * (i + 1), 6) for i in range(n_steps)]
    if fractions[-1] < 1.0:
        fractions.append(1.0)
    rows, notes = [], [split.note]
    parts = [pool[: max(int(round(a * len(pool))), 1)] for a in fractions]
    test = np.flatnonzero(split.test)
    finished = [0]

    def on_done(i, _):
        finished[0] += 1
        report(progress, finished[0] / len(fractions), f"coarse action: {finished[0]} of {len(fractions)} fits done")

    report(progress, 0.0, f"coarse action: {len(fractions)} fits")
    results = fit_many(X, y, [Fit(family, part, test, random_state, (family_params or {}).get(family)) for part in parts],
                       n_jobs=n_jobs, device=device, on_done=on_done, cancel=cancel)
    for a, part, (pred, note) in zip(fractions, parts, results):
        acc = float(np.mean(pred == y[test])) if pred is not None else np.nan
        notes.append(note)
        rows.append({"fraction": a, "train_size": int(len(part)), "accuracy": acc, "note": note})
    frame = pd.DataFrame(rows)
    frame["gain"] = frame["accuracy"].diff()
    acc = frame["accuracy"].to_numpy()
    frame["noise"] = np.sqrt(acc * (1 - acc) / max(int(split.test.sum()), 1))
    chosen = coarse_stop(fractions, acc, frame["noise"].to_numpy() if tolerance is None else tolerance)
    frame = frame[["fraction", "train_size", "accuracy", "gain", "noise", "note"]]
    frame.attrs.update(fraction=float(chosen), size=int(round(chosen * len(y))), step=float(step),
                       tolerance=None if tolerance is None else float(tolerance), family=family)
    report(progress, 1.0, "coarse action done")
    return with_notes(frame, notes)


def check_tolerance(tolerance) -> None:
    """None (the noise rule) or an accuracy gain in [0, 1)."""
    if tolerance is None:
        return
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not 0 <= tolerance < 1:
        raise InputError(f"tolerance={tolerance!r} must be an accuracy gain in [0, 1), e.g. 0.005, or None "
                         "(one standard error of the held-out accuracy).")


def coarse_stop(fractions, accuracy, tolerance=0.0) -> float:
    """Algorithm 1's stopping rule: grow a while acc(a + b) > acc(a) + tolerance; the first a
    where it does not (or the last fraction). ``tolerance`` is one number or one per fraction
    (the noise of that fraction's accuracy). Fractions whose accuracy is missing are skipped."""
    acc = np.asarray(accuracy, dtype=float)
    tol = np.broadcast_to(np.asarray(tolerance, dtype=float), acc.shape)
    for i in range(len(fractions) - 1):
        if np.isnan(acc[i]):
            continue
        if not (acc[i + 1] > acc[i] + tol[i]):
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
        difficulty rating, a yes/no "hard" flag (true = 1, false = 0; booleans or the
        words). Missing and non-numeric entries are left out (a note
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
    # a yes/no column (SNLI's ``hard``) counts as 1/0, whether read as booleans or as words
    raw = raw.map(lambda v: {"true": 1, "false": 0}.get(v.strip().lower(), v) if isinstance(v, str) else v)
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
    return with_notes(summary, notes), hist


# ---------------------------------------------------------------------- synthetic report
SYNTHETIC_PARAMS = dict(n_partitions=64, train_size=0.1, slice_size=0.05, tau=0.0, target_size=0.3, model="ridge")


def synthetic_report(*, separations: Sequence[float] = SEPARATIONS, n: int = 2000, flip_share: float = 0.05,
                     params: Optional[dict] = None, folds: int = 5, max_points: int = 800, random_state: int = 0,
                     progress=None, cancel=None) -> tuple:
    """Paper 000 §3 / Fig. 2: the circles demo at four separations, before and after AFLite.

    At each separation (inner/outer radius ratio; the largest separation, the
    smallest ratio, gets ``flip_share`` of its biased points' labels flipped, as in
    the paper) `core.data.demos.make_circles` builds ``n`` points, AFLite (``params``;
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
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    from ..aflite import AFLite
    from ..data.demos import make_circles

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
                     "linear_before": cv_acc(make_model("logistic", 0), X, y),
                     "linear_after": cv_acc(make_model("logistic", 0), X[kept], y[kept]),
                     "rbf_before": cv_acc(make_model("rbf-svm", 0), X[:, :2], y),
                     "rbf_after": cv_acc(make_model("rbf-svm", 0), X[kept][:, :2], y[kept])})
        show = np.random.default_rng(random_state).permutation(n)[:max_points]
        points.append(pd.DataFrame({"separation": float(sep), "x0": X[show, 0], "x1": X[show, 1],
                                    "label": np.asarray(ds.table["label"])[show], "biased": biased[show],
                                    "retained": kept[show]}))
    report(progress, 1.0, "synthetic report done")
    return pd.DataFrame(rows), pd.concat(points, ignore_index=True)
