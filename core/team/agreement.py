"""How much a team's reviewers agree, with each other and with the filter (issue 22).

Input is a reviews table, ``example_id, reviewer, decision`` (each reviewer's latest decision
per example, in the order they were made: `core.team.store.TeamStore.reviews`). Decisions become
sides by the review rules (`core.team.review.side`): ``keep`` and ``remove`` are their own side,
``agree`` takes the filter's, so ``filter_removed`` (the filter's decision per example) is
needed whenever a decision is ``agree``. Any other nominal decisions (e.g. labels) are rated
as they are.

- **Krippendorff's α** (nominal) over all reviewers, from the coincidence matrix of the
  examples rated at least twice (Krippendorff 2011, "Computing Krippendorff's
  alpha-reliability"), with a bootstrap 95 % interval over those examples. α is 1 for perfect
  agreement, about 0 at chance, and undefined (NaN) when everyone chose the same side
  everywhere (no variation to agree on).
- **Cohen's κ** for each pair of reviewers with at least ``min_shared`` shared examples
  (scikit-learn's ``cohen_kappa_score``), and each reviewer's raw agreement with the rest.
- **The filter as a rater**: each reviewer's and the team's κ with the filter's keep/remove,
  overall, per label and per feature (do the reviewers overrule the filter more on examples
  carrying "nobody"?). The team's word per example is given (the workspace's dispute rule,
  `core.team.review.standing`) or else the majority side, a tie going to the latest decision.
- **The τ/n the team supports** (`supported_tau_n`): on the reviewed examples, the agreement
  of the team's word with the filter at every τ/n the run's trajectory answers (no refit),
  the best one and how sure it is (the share of bootstrap resamples of the reviewed examples
  whose best is the same, and the range of their best n).
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from itertools import combinations
from typing import Optional

import numpy as np
import pandas as pd

from ..base.errors import InputError

__all__ = ["Agreement", "agreement", "alpha_nominal", "kappa", "supported_tau_n", "side", "sides_of", "team_sides"]

#: the smallest number of shared examples for a pair's κ (fewer: too noisy to show)
MIN_SHARED = 5
#: bootstrap resamples of the α interval and of the τ/n stability
BOOTSTRAP = 1000


# ---------------------------------------------------------------------- the statistics
def _counts(units, values) -> tuple:
    """(unit × category count matrix, categories) of the ratings (one row per rating)."""
    units = pd.Index(pd.Series(units).astype(str))
    cats, codes = np.unique(np.asarray(values).astype(str), return_inverse=True)
    u_codes, u_index = pd.factorize(units)
    counts = np.zeros((len(u_index), len(cats)), dtype=float)
    np.add.at(counts, (u_codes, codes), 1.0)
    return counts, cats


def _alpha_from_counts(counts: np.ndarray) -> float:
    """Nominal α of a unit × category count matrix (units rated fewer than twice are ignored)."""
    m = counts.sum(axis=1)
    counts = counts[m >= 2]
    m = m[m >= 2]
    if not len(counts):
        return float("nan")
    w = 1.0 / (m - 1.0)
    # coincidences o_ck = Σ_u n_uc (n_uk − [c = k]) / (m_u − 1)
    o = (counts * w[:, None]).T @ counts - np.diag((counts * w[:, None]).sum(axis=0))
    n_c = o.sum(axis=1)
    n = n_c.sum()
    expected = n * n - (n_c ** 2).sum()          # Σ_{c≠k} n_c n_k
    if n <= 1 or expected <= 0:
        return float("nan")                       # a single category: nothing to agree or disagree on
    observed = o.sum() - np.trace(o)              # Σ_{c≠k} o_ck
    return float(1.0 - (n - 1.0) * observed / expected)


def alpha_nominal(units, values) -> float:
    """Krippendorff's α (nominal) of ratings given as parallel sequences: the unit (example)
    and the value of each rating. NaN when it is undefined (one category, or no unit rated twice)."""
    counts, _ = _counts(units, values)
    return _alpha_from_counts(counts)


def kappa(a, b) -> float:
    """Cohen's κ of two raters' decisions on the same examples (scikit-learn's); NaN when the
    chance agreement is 1 (both gave one and the same decision throughout) or nothing is shared."""
    from sklearn.metrics import cohen_kappa_score

    a, b = np.asarray(a).astype(str), np.asarray(b).astype(str)
    if not len(a) or (len(np.unique(a)) == 1 and np.array_equal(np.unique(a), np.unique(b))):
        return float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(cohen_kappa_score(a, b))


# ---------------------------------------------------------------------- decisions as sides
def side(decision, retained) -> str:
    """``keep`` or ``remove``: what a decision says about an example the filter retained or not
    (the review rule of `core.team.review`: ``agree`` takes the filter's side)."""
    return ("keep" if retained else "remove") if decision == "agree" else decision


def _filter_side(filter_removed) -> pd.Series:
    s = pd.Series(filter_removed)
    s.index = s.index.astype(str)
    return pd.Series([side("agree", not removed) for removed in s.astype(bool)], index=s.index, dtype=object)


def sides_of(reviews: pd.DataFrame, filter_removed=None) -> pd.DataFrame:
    """``example_id, reviewer, side`` (plus the input's other columns): each decision as the side
    it takes (``agree`` → the filter's). Raises InputError when ``agree`` is used without
    ``filter_removed``, or names an example the filter did not score."""
    missing = {"example_id", "reviewer", "decision"} - set(reviews.columns)
    if missing:
        raise InputError(f"the reviews table needs the columns example_id, reviewer and decision; "
                         f"{', '.join(sorted(missing))} missing.")
    frame = reviews.assign(example_id=reviews["example_id"].astype(str), reviewer=reviews["reviewer"].astype(str),
                           decision=reviews["decision"].astype(str))
    sides = frame["decision"].to_numpy(dtype=object).copy()
    agree = sides == "agree"
    if agree.any():
        if filter_removed is None:
            raise InputError("'agree' takes the filter's side: give the filter's decisions (filter_removed) to rate "
                             "reviews that agree with it.")
        filt = _filter_side(filter_removed).reindex(frame["example_id"][agree])
        if filt.isna().any():
            raise InputError(f"example {filt.index[filt.isna()][0]!r} was reviewed but the filter did not score it; "
                             "give the run the reviews were made on.")
        sides[agree] = filt.to_numpy()
    return frame.assign(side=sides)


def team_sides(sided: pd.DataFrame) -> pd.Series:
    """The team's side per example: the majority side, a tie going to the latest decision."""
    counts = sided.groupby(["example_id", "side"]).size().unstack(fill_value=0)
    last = sided.groupby("example_id")["side"].last().reindex(counts.index)
    best = counts.max(axis=1)
    leaders = counts.eq(best, axis=0)
    tied = leaders.sum(axis=1) > 1
    out = counts.idxmax(axis=1)
    out[tied] = last[tied]
    return out.rename("team")


# ---------------------------------------------------------------------- the report
@dataclass
class Agreement:
    """What `agreement` found (`to_dict` is what manifests, reports and ``--json`` hold)."""

    alpha: float
    alpha_interval: tuple
    reviewers: int
    examples_reviewed: int
    examples_multi: int
    decisions: int
    pairs: pd.DataFrame
    per_reviewer: pd.DataFrame
    filter_overall: Optional[dict] = None
    filter_by_label: Optional[pd.DataFrame] = None
    filter_by_feature: Optional[pd.DataFrame] = None
    notes: list = field(default_factory=list)

    def to_dict(self) -> dict:
        def number(x):
            return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else round(float(x), 4)

        def rows(frame):
            if frame is None:
                return None
            return [{k: (number(v) if isinstance(v, (float, np.floating)) else
                         int(v) if isinstance(v, (np.integer,)) else v) for k, v in r.items()}
                    for r in frame.to_dict("records")]

        return {"alpha": number(self.alpha), "alpha_interval": [number(v) for v in self.alpha_interval],
                "reviewers": self.reviewers, "examples_reviewed": self.examples_reviewed,
                "examples_reviewed_twice_or_more": self.examples_multi, "decisions": self.decisions,
                "pairs": rows(self.pairs), "per_reviewer": rows(self.per_reviewer),
                "filter": None if self.filter_overall is None else
                {k: number(v) if isinstance(v, float) else v for k, v in self.filter_overall.items()},
                "filter_by_label": rows(self.filter_by_label), "filter_by_feature": rows(self.filter_by_feature),
                "notes": list(self.notes)}


def _versus_filter(team: pd.Series, filt: pd.Series) -> dict:
    """Agreement of a rater's sides (by example) with the filter's, on the examples both have."""
    both = team.index.intersection(filt.index)
    a, b = team.reindex(both).to_numpy(), filt.reindex(both).to_numpy()
    return {"examples": int(len(both)),
            "agreement": float(np.mean(a == b)) if len(both) else float("nan"),
            "kappa": kappa(a, b) if len(both) else float("nan"),
            "kept_what_the_filter_removed": int(np.sum((a == "keep") & (b == "remove"))),
            "removed_what_the_filter_kept": int(np.sum((a == "remove") & (b == "keep")))}


def _by_group(team: pd.Series, filt: pd.Series, groups: dict, name: str) -> pd.DataFrame:
    rows = []
    for value, ids in groups.items():
        ids = pd.Index([str(i) for i in ids]).intersection(team.index)
        if not len(ids):
            continue
        stats = _versus_filter(team.reindex(ids), filt)
        overruled = stats["kept_what_the_filter_removed"] + stats["removed_what_the_filter_kept"]
        rows.append({name: str(value), "examples": stats["examples"], "agreement": stats["agreement"],
                     "kappa": stats["kappa"], "overruled": overruled,
                     "overruled_share": overruled / stats["examples"] if stats["examples"] else float("nan")})
    cols = [name, "examples", "agreement", "kappa", "overruled", "overruled_share"]
    return pd.DataFrame(rows, columns=cols).sort_values("overruled_share", ascending=False, kind="stable") \
        .reset_index(drop=True)


def _bootstrap_alpha(counts: np.ndarray, resamples: int, seed: int) -> tuple:
    counts = counts[counts.sum(axis=1) >= 2]
    if len(counts) < 2 or resamples <= 0:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    draws = np.array([_alpha_from_counts(counts[rng.integers(0, len(counts), len(counts))])
                      for _ in range(int(resamples))])
    draws = draws[np.isfinite(draws)]
    if not len(draws):
        return (float("nan"), float("nan"))
    low, high = np.percentile(draws, [2.5, 97.5])
    return (float(low), float(high))


def agreement(reviews: pd.DataFrame, filter_removed=None, *, team: Optional[pd.Series] = None,
              labels: Optional[pd.Series] = None, features: Optional[dict] = None, min_shared: int = MIN_SHARED,
              bootstrap: int = BOOTSTRAP, seed: int = 0) -> Agreement:
    """Agreement of the reviewers with each other and (given ``filter_removed``) with the filter.

    Parameters
    ----------
    reviews : DataFrame
        ``example_id, reviewer, decision``: each reviewer's latest decision per example, in
        the order they were made.
    filter_removed : Series of bool, optional
        By example id: whether the filter removed it (at the run's τ and n).
    team : Series, optional
        By example id: the team's side (``keep``/``remove``) under the workspace's dispute rule;
        default the majority side (a tie: the latest decision).
    labels : Series, optional
        By example id: the example's label, for the filter-as-rater table per label.
    features : dict, optional
        Feature name -> ids of the examples carrying it (e.g. the top artifact features), for
        the filter-as-rater table per feature.
    min_shared : int
        Pairs of reviewers sharing fewer examples get no κ (their raw agreement is kept).
    bootstrap, seed : int
        Resamples of the examples rated twice or more for α's 95 % interval, and their seed.
    """
    if not isinstance(min_shared, (int, np.integer)) or min_shared < 1:
        raise InputError(f"min_shared must be a whole number of at least 1, not {min_shared!r}.")
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, (int, np.integer)) or bootstrap < 0:
        raise InputError(f"bootstrap must be a whole number of resamples (0 for none), not {bootstrap!r}.")
    if "kind" in reviews:   # adjudications settle disputes; they are not a reviewer's independent decision
        reviews = reviews[reviews["kind"].astype(str) != "adjudication"]
    sided = sides_of(reviews, filter_removed)
    notes = []
    latest = sided.drop_duplicates(["example_id", "reviewer"], keep="last")
    if len(latest) < len(sided):   # one reviewer is one rater of an example: a repeated row is not a second one
        notes.append(f"{len(sided) - len(latest):,} earlier decisions of a reviewer on an example they decided on again "
                     "were left out: each reviewer's latest decision counts once.")
        sided = latest
    counts, _ = _counts(sided["example_id"], sided["side"])
    per_example = sided.groupby("example_id").size()
    multi = int((per_example >= 2).sum())
    alpha = _alpha_from_counts(counts)
    if multi == 0:
        notes.append("No example has two reviews yet, so the reviewers' agreement cannot be measured: set "
                     "reviews per example to 2 or more (Team page) or review the same examples.")
    elif not math.isfinite(alpha):
        notes.append("Every review of the examples reviewed twice is on the same side, so α is undefined (there is "
                     "no variation to agree on); the raw agreement is 100 %.")
    interval = _bootstrap_alpha(counts, bootstrap, seed) if math.isfinite(alpha) else (float("nan"), float("nan"))

    wide = sided.pivot_table(index="example_id", columns="reviewer", values="side", aggfunc="last")
    reviewers = list(wide.columns)
    pairs = []
    for a, b in combinations(reviewers, 2):
        shared = wide[[a, b]].dropna()
        same = float(np.mean(shared[a].to_numpy() == shared[b].to_numpy())) if len(shared) else float("nan")
        k = kappa(shared[a], shared[b]) if len(shared) >= min_shared else float("nan")
        pairs.append({"reviewer_a": a, "reviewer_b": b, "shared": int(len(shared)), "agreement": same, "kappa": k})
    pairs = pd.DataFrame(pairs, columns=["reviewer_a", "reviewer_b", "shared", "agreement", "kappa"])

    filt = _filter_side(filter_removed) if filter_removed is not None else None
    rows = []
    for r in reviewers:
        mine = wide[r].dropna()
        others = wide.drop(columns=[r]).reindex(mine.index)
        matches = others.eq(mine, axis=0).where(others.notna())
        compared = int(others.notna().to_numpy().sum())
        row = {"reviewer": r, "reviewed": int(len(mine)), "compared": compared,
               "agreement_with_others": float(np.nanmean(matches.to_numpy(dtype=float))) if compared else float("nan")}
        if filt is not None:
            stats = _versus_filter(mine, filt)
            row.update(agreement_with_filter=stats["agreement"], kappa_with_filter=stats["kappa"])
        rows.append(row)
    per_reviewer = pd.DataFrame(rows)

    overall = by_label = by_feature = None
    if filt is not None:
        team = (team_sides(sided) if team is None else
                pd.Series(team, dtype=object).rename(index=str).reindex(per_example.index).dropna())
        overall = _versus_filter(team, filt)
        if labels is not None:
            lab = pd.Series(labels)
            lab.index = lab.index.astype(str)
            lab = lab.reindex(team.index)
            by_label = _by_group(team, filt, {k: v.index for k, v in lab.dropna().groupby(lab.dropna().astype(str))},
                                 "label")
        if features:
            by_feature = _by_group(team, filt, features, "feature")
    return Agreement(alpha=alpha, alpha_interval=interval, reviewers=len(reviewers),
                     examples_reviewed=int(len(per_example)), examples_multi=multi, decisions=int(len(sided)),
                     pairs=pairs, per_reviewer=per_reviewer, filter_overall=overall, filter_by_label=by_label,
                     filter_by_feature=by_feature, notes=notes)


# ---------------------------------------------------------------------- the τ/n the team supports
def _grid(trajectory, taus, ns) -> tuple:
    bounds = trajectory.live_bounds()
    if trajectory.quality is not None:      # a quality-ordered run answers n only, at its τ
        taus = [float(trajectory.tau)]
    elif taus is None:
        taus = np.round(np.linspace(bounds["tau_min"], 1.0, 21), 4)
    if ns is None:
        ns = np.unique(np.linspace(bounds["n_min"], bounds["N"] - 1, 25).round().astype(int))   # n < N
    return [float(t) for t in taus], [int(n) for n in ns]


def supported_tau_n(run, team: pd.Series, *, taus=None, ns=None, bootstrap: int = 200, seed: int = 0) -> tuple:
    """(grid, best): on the reviewed examples, how often the filter at each τ/n the run answers
    agrees with the team's word (``team``: side by example id).

    ``grid`` has ``tau, n, agreement, kappa, examples``; ``best`` is the τ/n of the highest
    agreement (ties: the largest n, then the largest τ: the least removed), with ``stability``
    (the share of bootstrap resamples of the reviewed examples whose best is the same point)
    and ``n_range`` (the 2.5–97.5 % range of the resamples' best n).
    """
    team = pd.Series(team, dtype=object).rename(index=str)
    rows = pd.Index(np.asarray(run.ids).astype(str)).get_indexer(team.index)
    keep = rows >= 0
    if not keep.any():
        raise InputError("none of the reviewed examples is scored by this run; give the run the reviews were made on.")
    rows, wanted = rows[keep], (team.to_numpy()[keep] == "keep")
    taus, ns = _grid(run.trajectory, taus, ns)
    points, kept = [], []
    for t in taus:
        for n in ns:
            retained = np.asarray(run.trajectory.retained_for(t, n), dtype=bool)[rows]
            points.append((t, n))
            kept.append(retained)
    kept = np.array(kept)                                   # points × reviewed examples
    hits = kept == wanted[None, :]
    agree = hits.mean(axis=1)
    kappas = [kappa(np.where(k, "keep", "remove"), np.where(wanted, "keep", "remove")) for k in kept]
    grid = pd.DataFrame({"tau": [p[0] for p in points], "n": [p[1] for p in points], "agreement": agree,
                         "kappa": kappas, "examples": int(len(rows))})

    def best_of(scores):
        order = np.lexsort((-grid["tau"].to_numpy(), -grid["n"].to_numpy(), -scores))
        return int(order[0])

    best = best_of(agree)
    rng = np.random.default_rng(seed)
    picks = [best_of(hits[:, rng.integers(0, hits.shape[1], hits.shape[1])].mean(axis=1)) for _ in range(bootstrap)]
    best_ns = grid["n"].to_numpy()[picks] if picks else np.array([grid["n"][best]])
    return grid, {"tau": float(grid["tau"][best]), "n": int(grid["n"][best]), "agreement": float(agree[best]),
                  "kappa": float(grid["kappa"][best]), "examples": int(len(rows)),
                  "stability": float(np.mean(np.array(picks) == best)) if picks else float("nan"),
                  "n_range": [int(np.percentile(best_ns, 2.5)), int(np.percentile(best_ns, 97.5))]}
