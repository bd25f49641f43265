"""Cue by cue (issue 44): the certificate's table of simple features against labels, and the
cues a candidate has that its baseline had not, or had weaker, beyond their uncertainty.

A certificate stores, for every simple feature `core.zstats.compute_z` counts at least
`CUE_SUPPORT` times (n-grams, length bins, lexical overlap, ratios, the user's feature columns;
not the partial-input model's predictions, whose strength is the partial input's measures), how
many examples carry it (its support) and how many of those have each label. That is the effect
size a curator reads: the share of a feature's examples that have a label, against the label's
share of the data.

`cue_changes` compares two such tables. For each feature and label of the candidate, the share
p_after = count / support must pass both the baseline's share p_before (pooled two-proportion z,
both supports' sampling error) and the label's share in the baseline (Gardner et al.'s chance
line, by the exact binomial tail as a z: the normal approximation fails where many labels make
chance small); the smaller z counts, so a feature that leaned away from a label and stopped
leaning is not a cue that grew (AFLite's cleaned SNLI splits failed on such features). A feature
the baseline never had (or once) is compared with the chance line alone. Only the candidate's
features with a support of at least the certificate's ``min_count`` are tested.

A share alone misses a phrase that an old, rare feature already was: MNLI dev has 27 examples
saying "indeed", so "Indeed," put before 50 entailment hypotheses moves a share measured on the
baseline's dozen by less than its uncertainty. So each feature and label is also tested for the
rows it gives away *beyond chance*, e = count − (the label's share) × support, per example of the
data: the cue's mass, which does not grow with n. Each side is measured against its own label
shares (a label more common in the candidate is not by itself more rows beyond chance), the
baseline's mass is counted from zero (a feature that leaned away from the label gave none away:
"is sleeping" losing its lean away from neutral in a filtered split is not a neutral cue), and the
standard error is that of the mean of 1[feature]·(1[label] − share), measured on each side.

For preference pairs (`core.zstats.pairs`), a feature's support is the pairs that differ on it
and its two "labels" are the side with more of it, chosen or rejected, against the chance share 0.5
that the table states (``chance``) instead of the data's label shares. For multiple-choice items
(`core.zstats.choices`), a feature's support is the items whose options differ on it (or that have
a position), its one "label" ``gold`` counts the items whose gold has the most of it, and the table
states each feature's ``expected`` count for a gold placed at random (Σ m/k, ties counted): the
chance line is that feature's own, measured on the candidate.

A cue is *new or stronger* when it leans towards its label (p_after above the label's share) and
one of its two z's passes the Bonferroni line over both tests of every feature × label: under no
change, the chance that any cue is flagged is at most the family's α, however many features the
data has."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..zstats.statistics import bonferroni_threshold

__all__ = ["cue_table", "cue_changes", "SKIPPED_KINDS", "CUE_SUPPORT"]

#: the least support of a feature the cue table keeps
CUE_SUPPORT = 2

#: the z of a cue whose label the baseline never had (no spread to measure it by)
Z_BEYOND = 1e9

#: kinds of `compute_z` rows a cue table leaves out: model predictions (the partial input's measures
#: gate them) and the null feature (every example)
SKIPPED_KINDS = ("pred", "null")


def cue_table(zs, min_count: int) -> dict:
    """The certificate's ``cues``: ``min_count``, ``features`` (names), ``support`` (examples with
    the feature) and ``counts`` (label → examples with the feature and that label), in feature order."""
    table = zs.table[~zs.table["kind"].isin(SKIPPED_KINDS) & (zs.table["n"] >= int(min_count))]
    counts = table.pivot_table(index="feature", columns=table["label"].astype(str), values="count", aggfunc="first",
                               fill_value=0).sort_index()
    support = table.groupby("feature")["n"].first().reindex(counts.index)
    return {"min_count": int(min_count), "features": [str(f) for f in counts.index],
            "support": [int(v) for v in support], "counts": {str(lab): [int(v) for v in counts[lab]]
                                                             for lab in counts.columns}}


def _frame(cert: dict):
    """(the cue table: a row per feature, a column per label and ``_support``, the labels' shares of
    the data), or None without a cue table."""
    cues = cert.get("cues")
    if not cues:
        return None
    labels = sorted(cues["counts"])
    counts = pd.DataFrame({lab: cues["counts"][lab] for lab in labels}, index=cues["features"], dtype=float)
    total = sum(int(v) for v in cert["dataset"]["labels"].values())
    if cues.get("expected"):   # multiple-choice items: each feature's own chance line (ties counted)
        support = np.maximum(np.asarray(cues["support"], dtype=float), 1.0)
        prior = pd.DataFrame({lab: np.asarray(cues["expected"].get(lab, np.zeros(len(support))), dtype=float) / support
                              for lab in labels}, index=cues["features"])
    elif cues.get("chance"):   # preference pairs: the side with more of a feature, against 0.5
        prior = pd.Series({lab: float(cues["chance"].get(lab, 0.0)) for lab in labels})
    else:
        prior = pd.Series({lab: int(cert["dataset"]["labels"].get(lab, 0)) / max(total, 1) for lab in labels})
    return counts.assign(_support=np.asarray(cues["support"], dtype=float)), prior


def _labels_of(prior) -> list:
    return list(prior.columns if isinstance(prior, pd.DataFrame) else prior.index)


def _chance(prior: pd.DataFrame, lab: str, features) -> np.ndarray:
    """A per-feature chance line for ``features`` (NaN where the table has no such feature)."""
    return prior[lab].reindex(features).to_numpy(dtype=float)


def _excess(k, n, prior, total: float):
    """Rows beyond chance per example, e/N with e = k − prior·n, and its variance per example: the
    mean and variance of 1[feature]·(1[label] − prior) over the ``total`` examples."""
    mean = (k - prior * n) / total
    square = (k * (1 - prior) ** 2 + (n - k) * prior ** 2) / total
    return mean, np.maximum(square - mean ** 2, 0.0)


def _z_over_chance(k, n, chance: float) -> np.ndarray:
    """How far ``k`` of ``n`` examples with a label lie above the label's share ``chance``, as the z
    of the exact binomial upper tail P(K ≥ k). The normal approximation fails exactly where many
    labels make chance small: one of 5 examples at chance 1/250 read as z = 6.9 (a false alarm on
    two random halves), where its tail, P = 0.02, is z = 2.05."""
    from scipy.special import ndtri_exp
    from scipy.stats import binom

    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    # P(K ≥ k) in logs: a thousand rows of one label at chance 1/3 is a tail of 1e-500, which a float
    # cannot hold; its z (about 50) can. Where even the log of the tail underflows, its first term
    # P(K = k), a lower bound of the same order, stands in (a z a little smaller, never infinite)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_tail = binom.logsf(k - 1, n, chance)
        log_tail = np.where(np.isneginf(log_tail) & (chance > 0), binom.logpmf(k, n, chance), log_tail)
        z = -ndtri_exp(log_tail)
    # a label the baseline never had (chance 0): any example with it is beyond chance
    return np.clip(np.nan_to_num(z, nan=0.0, posinf=Z_BEYOND, neginf=-Z_BEYOND), -Z_BEYOND, Z_BEYOND)


def cue_changes(baseline: dict, candidate: dict, alpha: float) -> pd.DataFrame:
    """The candidate's new or stronger cues (module docstring), strongest first: ``feature``,
    ``label``, ``support_before``, ``share_before`` (None: fewer than `CUE_SUPPORT` in the baseline,
    compared with the label's share ``chance``), ``support_after``, ``share_after``,
    ``excess_before`` and ``excess_after`` (rows beyond chance per example), ``test`` (``share`` or
    ``rows``: which comparison passed its line; the stronger when both did), ``z`` and ``line``
    (the Bonferroni z over both tests of every feature × label). Empty when either certificate has
    no cue table."""
    columns = ["feature", "label", "support_before", "share_before", "chance", "support_after", "share_after",
               "excess_before", "excess_after", "test", "z", "line"]
    b, a = _frame(baseline), _frame(candidate)
    if b is None or a is None:
        return pd.DataFrame(columns=columns)
    (b_counts, b_prior), (a_counts, a_prior) = b, a
    b_total = max(sum(int(v) for v in baseline["dataset"]["labels"].values()), 1)
    a_total = max(sum(int(v) for v in candidate["dataset"]["labels"].values()), 1)
    least = int(candidate.get("settings", {}).get("min_count") or CUE_SUPPORT)
    a_counts = a_counts[a_counts["_support"] >= least]
    labels = [lab for lab in a_counts.columns if lab != "_support" and lab in _labels_of(b_prior)]
    tests = 2 * len(a_counts) * len(labels)
    line = bonferroni_threshold(alpha, tests)
    rows = []
    known = b_counts.reindex(a_counts.index)
    for lab in labels:
        k_a, n_a = a_counts[lab].to_numpy(), a_counts["_support"].to_numpy()
        k_b, n_b = known[lab].to_numpy(), known["_support"].to_numpy()
        p_a = k_a / n_a
        # the chance line: the baseline's label share, or (items) the candidate's own per feature
        chance = _chance(a_prior, lab, a_counts.index) if isinstance(a_prior, pd.DataFrame) else \
            np.full(len(k_a), float(b_prior[lab]))
        chance_b = _chance(b_prior, lab, a_counts.index) if isinstance(b_prior, pd.DataFrame) else chance
        seen = np.isfinite(n_b) & (n_b > 0)
        p_b = np.where(seen, np.divide(k_b, n_b, out=np.zeros_like(k_a), where=seen), np.nan)
        pooled = np.where(seen, (k_a + np.nan_to_num(k_b)) / (n_a + np.nan_to_num(n_b)), chance)
        spread = np.sqrt(pooled * (1 - pooled) * (1 / n_a + 1 / np.where(seen, n_b, 1)))
        e_a, v_a = _excess(k_a, n_a, chance if isinstance(a_prior, pd.DataFrame) else float(a_prior.get(lab, 0.0)),
                           a_total)
        e_b, v_b = _excess(np.nan_to_num(k_b), np.nan_to_num(n_b), np.nan_to_num(chance_b), b_total)
        mass_spread = np.sqrt(v_a / a_total + v_b / b_total)
        # a feature that leaned away from the label gave none of its rows away: its rise is counted
        # from zero (a lean that faded is not a cue that grew)
        e_from = np.maximum(e_b, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            # no spread (a label the baseline never had): any lean towards it is beyond chance; a finite
            # stand-in keeps the outputs valid JSON
            z_chance = _z_over_chance(k_a, n_a, chance)
            z_before = np.where(spread > 0, (p_a - p_b) / spread, np.where(p_a > p_b, Z_BEYOND, 0.0))
            # stronger only when it leans towards the label more than before *and* more than chance:
            # a lean away from the label that faded (p_b below chance) is measured from chance
            z_share = np.where(seen, np.minimum(z_before, z_chance), z_chance)
            z_rows = np.where(mass_spread > 0, (e_a - e_from) / mass_spread, 0.0)
        z = np.maximum(z_share, z_rows)
        hit = (z > line) & (p_a > chance) & (e_a > 0)
        for i in np.flatnonzero(hit):
            rows.append([a_counts.index[i], lab, None if not seen[i] else int(n_b[i]),
                         None if not seen[i] else float(p_b[i]), float(chance[i]), int(n_a[i]), float(p_a[i]), float(e_b[i]),
                         float(e_a[i]), "share" if z_share[i] >= z_rows[i] else "rows", float(z[i]), line])
    out = pd.DataFrame(rows, columns=columns).sort_values("z", ascending=False, kind="stable").reset_index(drop=True)
    for column in ("support_before", "share_before"):   # None (absent from the baseline), never NaN
        out[column] = out[column].astype(object).where(out[column].notna(), None)
    out.attrs["line"], out.attrs["tests"] = line, tests
    return out
