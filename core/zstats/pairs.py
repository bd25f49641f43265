"""Cues of preference pairs (issue 42): which simple features give the chosen side away.

For a feature counted in each response (a style feature of `core.text.style`, or a word or a bigram
by the z-statistics' token rule), a pair *differs* on it when the two sides have different counts.
Among the ``differ`` pairs, ``share`` is the part where the chosen side has more of it. With no
cue, the side with more is the chosen one half the time whatever the feature, so the chance line is
0.5 and z = (share − 0.5) / √(0.25 / differ) (Gardner et al. 2021's z, against 0.5). A feature is
over the line when |z| passes the Bonferroni line over every feature tested, both directions
counted (``alpha`` over 2 × features): the ``favours`` side is the one that has more of it more
often. The table compares chosen with rejected directly, so the order in which the analyses see
the two sides does not enter.

`length_bias` is the number papers quote: the share of pairs whose chosen response has more words
(ties count half), with its standard error, and the accuracy of "pick the longer" on the pairs whose
lengths differ.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..base.errors import InputError
from ..base.words import counted
from .inputs import CUE_MIN_COUNT
from .statistics import CueTable, binomial_se, ranked_cues

__all__ = ["PairCues", "pair_cues", "position_bias", "position_bias_line", "pair_cue_table", "pairs_with_feature", "length_bias", "length_bias_line",
           "PAIR_COLUMNS", "SIDES"]

#: the columns of the pair cue table
PAIR_COLUMNS = ["feature", "kind", "differ", "chosen_more", "share", "favours", "z", "over_line"]


@dataclass
class PairCues(CueTable):
    """The pair cue table (`PAIR_COLUMNS`, strongest first), its Bonferroni ``line``, how many
    features were ``tested``, and the ``pairs`` counted."""

    pairs: int = 0


def _token_counts(chosen, rejected) -> tuple:
    """(C, R, names, kinds): sparse counts of each word and bigram in the chosen and rejected
    responses (rows: pairs), over one shared vocabulary."""
    from ..text.features import token_ngrams

    n = len(chosen)
    M, names, kinds = token_ngrams(np.concatenate([np.asarray(chosen, dtype=object), np.asarray(rejected, dtype=object)]))
    return M[:n], M[n:], names, kinds


def _differences(ds, words: bool = True) -> tuple:
    """(names, kinds, D): each feature's count in the chosen response minus the rejected one's, a
    sparse column per feature (style features first, then words and bigrams), a row per pair."""
    from ..data.pairs import chosen_rejected
    from ..text.style import STYLE_FEATURES, style_counts

    chosen, rejected = chosen_rejected(ds)
    style = style_counts(chosen).to_numpy() - style_counts(rejected).to_numpy()
    names = [f"style:{c}" for c in STYLE_FEATURES]
    kinds = ["style"] * len(names)
    blocks = [sp.csc_matrix(style)]
    if words:
        C, R, wnames, wkinds = _token_counts(chosen, rejected)
        blocks.append((C - R).tocsc())
        names += list(wnames)
        kinds += list(wkinds)
    D = sp.hstack(blocks, format="csc")
    D.eliminate_zeros()
    return np.asarray(names, dtype=object), np.asarray(kinds, dtype=object), D


def _check_pairs(ds) -> None:
    if ds.pairs is None:
        raise InputError("pair cues are measured on preference pairs (prompt, chosen, rejected); this dataset has "
                         "labelled examples: use the z-statistics (`artifact-lens zstats`).")


def pair_cues(ds, *, min_count: int = CUE_MIN_COUNT, alpha: float = 0.01, words: bool = True) -> PairCues:
    """The pair cue table of a pair dataset (`core.data.pairs`): style features and, with
    ``words``, every word and bigram on which at least ``min_count`` pairs differ."""
    _check_pairs(ds)
    if not 0 < alpha < 1:
        raise InputError(f"alpha={alpha!r} must be a significance level in (0, 1), e.g. 0.01.")
    if int(min_count) < 1:
        raise InputError(f"min_count={min_count!r}: give a whole number of pairs of at least 1.")
    names, kinds, D = _differences(ds, words)
    chosen_more = np.asarray((D > 0).sum(axis=0)).ravel().astype(np.int64)
    differ = np.diff(D.indptr).astype(np.int64)   # the non-zero differences of each column
    keep = differ >= int(min_count)
    table = pd.DataFrame({"feature": names[keep], "kind": kinds[keep], "differ": differ[keep],
                          "chosen_more": chosen_more[keep]})
    table["share"] = table["chosen_more"] / table["differ"]
    table["favours"] = np.select([table["share"] > 0.5, table["share"] < 0.5], ["chosen", "rejected"], "neither")
    table["z"] = (table["share"] - 0.5) / np.sqrt(0.25 / table["differ"])
    table, line, tested = ranked_cues(table, alpha, PAIR_COLUMNS)
    return PairCues(table=table, line=line, tested=tested, pairs=len(ds), alpha=float(alpha))


#: the two "labels" of a pair cue (the side that has more of the feature) and their chance share
SIDES = {"chosen": 0.5, "rejected": 0.5}


def pair_cue_table(cues: PairCues, min_count: int) -> dict:
    """The certificate's cue table of pairs (`core.certificate.cues`) from a `pair_cues` table: per
    feature on which at least ``min_count`` pairs differ, its ``support`` (those pairs) and ``counts``
    of the pairs where the chosen / the rejected side has more of it, against ``chance`` 0.5 each."""
    cues = cues.table[cues.table["differ"] >= int(min_count)].sort_values("feature", kind="stable")
    return {"min_count": int(min_count), "features": [str(f) for f in cues["feature"]],
            "support": [int(v) for v in cues["differ"]],
            "counts": {"chosen": [int(v) for v in cues["chosen_more"]],
                       "rejected": [int(v) for v in cues["differ"] - cues["chosen_more"]]},
            "chance": dict(SIDES)}


def pairs_with_feature(ds, cues) -> list:
    """For each (feature, side) of ``cues`` (a feature of the pair cue table, "chosen" or
    "rejected"), the ids of the pairs whose ``side`` has more of it than the other side; the
    features' counts are taken once for all of them."""
    _check_pairs(ds)
    cues = list(cues)
    names, _, D = _differences(ds, words=any(not str(f).startswith("style:") for f, _ in cues))
    at = {name: i for i, name in enumerate(names)}
    ids = np.asarray(ds.table.index.astype(str))
    out = []
    for feature, side in cues:
        if feature not in at:
            out.append(np.asarray([], dtype=object))
            continue
        column = D[:, at[feature]].toarray().ravel()
        out.append(ids[column > 0] if side == "chosen" else ids[column < 0])
    return out


def length_bias(ds) -> dict:
    """``chosen_longer`` (the share of pairs whose chosen response has more words, ties half) and its
    ``stderr``; ``longer_wins_accuracy`` (picking the longer response, on the ``differ`` pairs whose
    lengths differ) and its ``stderr``; ``ties`` (pairs of equal length); the mean words of each side."""
    from ..data.pairs import chosen_rejected
    from ..text.style import word_counts

    chosen, rejected = chosen_rejected(ds)
    wc, wr = word_counts(chosen), word_counts(rejected)
    score = np.where(wc > wr, 1.0, np.where(wc == wr, 0.5, 0.0))
    n = len(score)
    differ = wc != wr
    k = int(differ.sum())
    acc = float((wc[differ] > wr[differ]).mean()) if k else None
    return {"pairs": n, "chosen_longer": float(score.mean()),
            "stderr": max(float(score.std(ddof=1) / math.sqrt(n)), binomial_se(round(score.sum()), n)) if n > 1 else None,
            "longer_wins_accuracy": acc, "differ": k,
            "longer_wins_stderr": None if acc is None or k < 2 else binomial_se(round(acc * k), k),
            "ties": n - k, "chosen_words": float(wc.mean()), "rejected_words": float(wr.mean())}


def length_bias_line(bias: dict) -> str:
    """`length_bias` in one sentence, as every front end says it."""
    if not bias["differ"]:
        return "every pair's two responses have the same length in words"
    # one pair has no spread to state ("± None" was a TypeError)
    spread = "" if bias["stderr"] is None else f" ± {bias['stderr']:.1%}"
    return (f"the chosen response is the longer in {bias['chosen_longer']:.1%}{spread} of "
            f"{counted(bias['pairs'], 'pair')} (ties half); picking the longer is right on "
            f"{bias['longer_wins_accuracy']:.1%} of the {counted(bias['differ'], 'pair')} whose lengths differ; "
            f"{bias['chosen_words']:.1f} words chosen, {bias['rejected_words']:.1f} rejected")


def position_bias(ds):
    """For judged pairs (a winner between a first-shown ``response_a`` and a second ``response_b``),
    how much the judge favours the first shown: ``first_wins`` (the share of decided pairs won by
    the first-shown response: 0.5 without a position bias) with its ``stderr``, the ``ties`` kept
    apart, and, where the same two responses to one prompt were judged in both orders, ``swapped``
    (such pairs of verdicts) and ``flip_rate`` (the share of them whose winner changed with the
    order) with its ``flip_stderr``. None for pairs of another shape (no order was shown)."""
    from ..data.pairs import cell_text, winner_of

    src = getattr(ds, "pairs", None)
    if src is None or src.shape != "judged":
        return None
    rows = src.rows_for(ds.table.index)
    a_won = (rows[src.columns["winner"]].map(winner_of) == "a").to_numpy()
    n = len(a_won)
    ties = int(ds.dropped.get("tie", 0))
    share = float(a_won.mean()) if n else float("nan")
    # as the reader read them (a missing response is "", not a float NaN that no text compares with)
    first = rows[src.columns["response_a"]].map(cell_text).to_numpy()
    second = rows[src.columns["response_b"]].map(cell_text).to_numpy()
    prompts = ds.table["prompt"].map(cell_text).to_numpy()
    by_order = {}
    for i, key in enumerate(zip(prompts, first, second)):
        by_order.setdefault(key, []).append(i)
    swapped = flips = 0
    for (prompt, x, y), mine in by_order.items():
        if (x, y) >= (y, x):   # each unordered pair of orders once (and never a response against itself)
            continue
        for i, j in zip(mine, by_order.get((prompt, y, x), [])):
            swapped += 1
            flips += (first[i] if a_won[i] else second[i]) != (first[j] if a_won[j] else second[j])
    flip = flips / swapped if swapped else None
    return {"decided": n, "first_wins": share, "stderr": binomial_se(int(a_won.sum()), n) if n > 1 else None,
            "ties": ties, "swapped": swapped, "flip_rate": flip,
            "flip_stderr": binomial_se(flips, swapped) if swapped > 1 else None}


def position_bias_line(bias: dict) -> str:
    """`position_bias` in one sentence, as every front end says it."""
    spread = "" if bias["stderr"] is None else f" ± {bias['stderr']:.1%}"
    line = (f"the first-shown response wins {bias['first_wins']:.1%}{spread} of {counted(bias['decided'], 'decided pair')}"
            f" (0.5 without a position bias; {counted(bias['ties'], 'tie')} apart)")
    if bias["swapped"]:
        line += (f"; of {counted(bias['swapped'], 'pair')} judged in both orders, the winner changed with the order in "
                 f"{bias['flip_rate']:.1%}")
    return line
