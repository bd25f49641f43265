"""Cues of multiple-choice items (issue 55): which simple features of the options give the gold one
away, and where the gold sits.

**The option cue table.** A feature is measured on each option: a word or a bigram of its text
(present or not), its length in words, and the share of its words that occur in the stem. An item
*differs* on a feature when its options do not all have the same amount of it. On such an item the
gold option "has the most" when it is among the ``m`` options with the largest amount; if the gold
sat at random among the item's ``k`` options, that would happen with probability ``m / k``, not 1/k
(ties are counted as they are). Over the ``n`` items that differ, ``share`` is how often the gold has
the most and ``chance`` the mean of ``m / k``; z = (observed − expected) / √Σ p(1 − p), the items
being independent Bernoulli trials under the null (a Poisson-binomial sum). A feature is over the line
when |z| passes the Bonferroni line over every feature tested, both directions counted. The effect
size a curator reads is ``share`` against ``chance`` (``lift`` = share − chance, with its standard
error, shrunk towards one half so that a share of 100 % is not read as exact); z grows with n,
the lift does not. Numeric features are tested both ways (``[longest option]``
and ``[shortest option]``), since "the gold is the shortest" is a cue too; for a word, a negative z says the gold
lacks it.

**The gold position.** The share of items whose gold is at each position, against what a gold placed
at random gives (Σ 1/k over the items that have that position, over n), each with its z; and
Cohen's w over the positions, the effect size of the whole distribution, with a bootstrap interval
over items (seeded). Under no position bias w is not 0 but about √((k − 1) / n): that figure is given
beside it (``w_chance``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..base.errors import InputError
from .inputs import CUE_MIN_COUNT
from .statistics import CueTable, ranked_cues

__all__ = ["OPTION_COLUMNS", "OptionCues", "option_cues", "GoldPosition", "gold_position", "option_amounts",
           "choice_cue_table", "items_with_cue", "choice_summary", "choice_lines", "cue_phrase", "longest_share",
           "strict_lengths"]

#: the columns of the option cue table
OPTION_COLUMNS = ["feature", "kind", "items", "gold_most", "share", "chance", "lift", "lift_se", "z", "over_line"]

#: numeric features of an option (the amount each option has), each tested both ways (a phrase an
#: option says or not, one way: the gold says it); the group features (`core.text.option_groups`)
#: measure an option against the other options of its item
#: (named in brackets: no word or bigram of an option has one, so a name never stands for two features)
_WAYS = {"length": ("[longest option]", "[shortest option]"),
         "stem_overlap": ("[option most like the stem]", "[option least like the stem]"),
         "unlike_others": ("[odd one out in words]", "[most typical option in words]"),
         "unlike_others_tfidf": ("[odd one out in TF-IDF]", "[most typical option in TF-IDF]"),
         "shared_words": ("[option sharing most words]", "[option sharing fewest words]"),
         "chars": ("[longest option in characters]", "[shortest option in characters]"),
         "negation": ("[option with most negation]", "[option with least negation]"),
         "hedging": ("[option with most hedging]", "[option with least hedging]"),
         "numbers": ("[option with most numbers]", "[option with fewest numbers]"),
         "names": ("[option with most names]", "[option with fewest names]"),
         "all_above": ("[option saying all of the above]", None),
         "none_above": ("[option saying none of the above]", None),
         "both_and": ("[option saying both A and B]", None)}
NUMERIC = tuple(_WAYS)


def _check_choices(ds) -> None:
    if getattr(ds, "choices", None) is None:
        raise InputError("option cues are measured on multiple-choice items (a stem, options and the gold one); this "
                         "dataset has labelled examples: use the z-statistics (`artifact-lens zstats`).")


@dataclass
class OptionCues(CueTable):
    """The option cue table (`OPTION_COLUMNS`, strongest first), its Bonferroni ``line``, how many
    features were ``tested`` and the ``items`` counted."""

    items: int = 0


def _tokens(ds):
    """(texts, item, k, gold, codes, doc, stem_keys, V): every option of every item as one text (item
    order, then position), the tokens of options and stems over one vocabulary, and each stem's
    tokens as keys ``item * V + code``."""
    from ..data.choices import options_of
    from ..text.tokens import tokenise_column

    padded, k, gold = options_of(ds)
    n = len(k)
    item = np.repeat(np.arange(n), k)
    position = np.concatenate([np.arange(kk) for kk in k]) if n else np.array([], dtype=np.int64)
    texts = padded[item, position]
    stems = [" ".join(str(v) for v in row) for row in zip(*[ds.table[f] for f in ds.choices.stem])] \
        if ds.choices.stem else [""] * n
    codes, doc, vocab = tokenise_column(np.concatenate([np.asarray(texts, dtype=object),
                                                        np.asarray(stems, dtype=object)]))
    V = max(len(vocab), 1)
    of_stem = doc >= len(texts)
    stem_keys = np.unique((doc[of_stem] - len(texts)) * V + codes[of_stem])
    return texts, item, k, gold, codes[~of_stem], doc[~of_stem], stem_keys, V


def option_amounts(ds) -> dict:
    """Each numeric feature's amount per option, as an (n, k_max) array (NaN past an item's last
    option): ``length`` in words, ``stem_overlap`` the share of the option's words in the stem, and
    the group features of `core.text.option_groups` (against the item's other options)."""
    from ..text.option_groups import group_amounts

    texts, item, k, _, codes, doc, stem_keys, V = _tokens(ds)
    R = len(texts)
    length = np.bincount(doc, minlength=R).astype(np.float64)
    in_stem = np.isin(item[doc] * V + codes, stem_keys)
    shared = np.bincount(doc, weights=in_stem.astype(np.float64), minlength=R)
    overlap = np.divide(shared, length, out=np.zeros(R), where=length > 0)
    groups = group_amounts(texts, k)
    return {name: _padded(values, item, k) for name, values in (("length", length), ("stem_overlap", overlap),
                                                              *((g, groups[g].to_numpy()) for g in groups.columns))}


def _padded(values: np.ndarray, item: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Per-option ``values`` (item order) as an (n, k_max) array, NaN past an item's last option."""
    out = np.full((len(k), int(k.max()) if len(k) else 0), np.nan)
    position = np.arange(len(item)) - np.repeat(np.cumsum(k) - k, k)
    out[item, position] = values
    return out


def _most(amounts: np.ndarray, k: np.ndarray, gold: np.ndarray) -> tuple:
    """(differ, gold_most, p): for each item, whether its options differ in ``amounts``, whether the
    gold is among those with the most, and the chance ``m / k`` of that for a gold placed at random."""
    filled = np.where(np.isnan(amounts), -np.inf, amounts)
    top = filled.max(axis=1, keepdims=True)
    at_top = (filled == top) & ~np.isnan(amounts)
    m = at_top.sum(axis=1)
    differ = m < k
    gold_most = at_top[np.arange(len(k)), gold]
    return differ, gold_most, m / k


def _share_se(observed, n):
    """The standard error of a share of ``observed`` in ``n``, with one success and one failure
    added (Agresti and Coull's shrinkage): a share of 100 % of 300 items is not known to ± 0."""
    smoothed = (np.asarray(observed, dtype=np.float64) + 1) / (np.asarray(n, dtype=np.float64) + 2)
    return np.sqrt(smoothed * (1 - smoothed) / (np.asarray(n, dtype=np.float64) + 2))


def _row(feature, kind, differ, gold_most, p) -> dict:
    n = int(differ.sum())
    observed, expected = float(gold_most[differ].sum()), float(p[differ].sum())
    variance = float((p[differ] * (1 - p[differ])).sum())
    share = observed / n if n else float("nan")
    chance = expected / n if n else float("nan")
    return {"feature": feature, "kind": kind, "items": n, "gold_most": int(observed), "share": share,
            "chance": chance, "lift": share - chance, "lift_se": _share_se(observed, n) if n else float("nan"),
            "z": (observed - expected) / math.sqrt(variance) if variance > 0 else 0.0}


def _word_rows(ds, min_count: int) -> pd.DataFrame:
    """The option cue rows of every word and bigram on which at least ``min_count`` items differ."""
    from ..text.features import token_ngrams

    texts, item, k, gold, *_ = _tokens(ds)
    M, names, kinds = token_ngrams(texts)
    B = (M > 0).astype(np.int64).tocsr()
    n = len(k)
    A = sp.csr_matrix((np.ones(len(item), dtype=np.int64), (item, np.arange(len(item)))), shape=(n, len(item)))
    gold_row = (np.cumsum(k) - k) + gold
    G = sp.csr_matrix((np.ones(n, dtype=np.int64), (np.arange(n), gold_row)), shape=(n, len(item)))
    # one matrix holds both at each (item, feature): options that have it (< 1000: k ≤ 26) and gold has it
    both = (A @ B + 1000 * (G @ B)).tocoo()
    has, gold_has = both.data % 1000, both.data // 1000
    p = has / k[both.row]
    differ = has < k[both.row]
    col = both.col[differ]
    count = np.bincount(col, minlength=B.shape[1])
    keep = np.flatnonzero(count >= int(min_count))
    if not len(keep):
        return pd.DataFrame(columns=OPTION_COLUMNS[:-1])
    p, gold_has = p[differ], gold_has[differ]
    observed = np.bincount(col, weights=gold_has, minlength=B.shape[1])[keep]
    expected = np.bincount(col, weights=p, minlength=B.shape[1])[keep]
    variance = np.bincount(col, weights=p * (1 - p), minlength=B.shape[1])[keep]
    items = count[keep]
    share, chance = observed / items, expected / items
    return pd.DataFrame({"feature": names[keep], "kind": kinds[keep], "items": items,
                         "gold_most": observed.astype(np.int64), "share": share, "chance": chance,
                         "lift": share - chance, "lift_se": _share_se(observed, items),
                         "z": np.where(variance > 0, (observed - expected) / np.sqrt(np.maximum(variance, 1e-300)), 0.0)})


def option_cues(ds, *, min_count: int = CUE_MIN_COUNT, alpha: float = 0.01, words: bool = True) -> OptionCues:
    """The option cue table of a multiple-choice dataset (`core.data.choices`): the numeric features
    both ways and, with ``words``, every word and bigram on which at least ``min_count`` items differ."""
    _check_choices(ds)
    if not 0 < alpha < 1:
        raise InputError(f"alpha={alpha!r} must be a significance level in (0, 1), e.g. 0.01.")
    if int(min_count) < 1:
        raise InputError(f"min_count={min_count!r}: give a whole number of items of at least 1.")
    from ..data.choices import options_of

    _, k, gold = options_of(ds)
    rows = []
    for name, amounts in option_amounts(ds).items():
        for way, sign in zip(_WAYS[name], (1.0, -1.0)):
            if way is not None:
                rows.append(_row(way, "numeric", *_most(sign * amounts, k, gold)))
    table = pd.DataFrame(rows)
    table = table[table["items"] >= int(min_count)]
    if words:
        table = pd.concat([table, _word_rows(ds, min_count)], ignore_index=True)
    table, line, tested = ranked_cues(table, alpha, OPTION_COLUMNS)
    return OptionCues(table=table, line=line, tested=tested, items=len(ds), alpha=float(alpha))


@dataclass
class GoldPosition:
    """Where the gold sits: ``table`` (``position``, ``items`` having it, ``gold``, ``share``,
    ``chance``, ``z``), Cohen's ``w`` over the positions with its bootstrap interval ``w_low``,
    ``w_high``, and ``w_chance``, about what w is under no position bias."""

    table: pd.DataFrame
    w: float
    w_low: float
    w_high: float
    w_chance: float
    items: int

    @property
    def max_share(self) -> float:
        return float(self.table["share"].max())


def _cohens_w(gold: np.ndarray, expected: np.ndarray) -> float:
    observed = np.bincount(gold, minlength=len(expected)) / len(gold)
    has = expected > 0   # (a resample may hold no item with a fifth option)
    return float(np.sqrt(np.sum((observed[has] - expected[has]) ** 2 / expected[has])))


def gold_position(ds, *, resamples: int = 200, seed: int = 0) -> GoldPosition:
    """The gold's position against a gold placed at random (`GoldPosition`)."""
    from ..data.choices import LETTERS, options_of

    _check_choices(ds)
    _, k, gold = options_of(ds)
    n, K = len(k), int(k.max())
    has = np.arange(K)[None, :] < k[:, None]               # (n, K): the item has that position
    p = np.where(has, 1.0 / k[:, None], 0.0)
    counts = np.bincount(gold, minlength=K)
    expected = p.sum(axis=0)
    variance = (p * (1 - p)).sum(axis=0)
    table = pd.DataFrame({"position": list(LETTERS[:K]), "items": has.sum(axis=0), "gold": counts,
                          "share": counts / n, "chance": expected / n,
                          "z": (counts - expected) / np.sqrt(np.maximum(variance, 1e-300))})
    w = _cohens_w(gold, expected / n)
    rng = np.random.default_rng(seed)
    boot = []
    for _ in range(int(resamples)):
        at = rng.integers(0, n, n)
        boot.append(_cohens_w(gold[at], p[at].sum(axis=0) / n))
    low, high = (np.quantile(boot, [0.025, 0.975]) if boot else (float("nan"), float("nan")))
    return GoldPosition(table=table, w=w, w_low=float(low), w_high=float(high),
                        w_chance=math.sqrt(max(float(np.median(k)) - 1, 0) / n), items=n)


def longest_share(ds) -> dict:
    """How often the gold is the longest option (in words), against a gold placed at random, over
    the items whose options differ in length: the figure papers quote for answer-length cues."""
    from ..data.choices import options_of

    _check_choices(ds)
    _, k, gold = options_of(ds)
    row = _row("[longest option]", "numeric", *_most(option_amounts(ds)["length"], k, gold))
    return {key: row[key] for key in ("items", "share", "chance", "lift", "lift_se", "z")}


def strict_lengths(ds) -> dict:
    """The figures papers quote for answer-length cues: over all items, how often the gold is strictly
    the longest option in characters, and strictly the shortest, each against a gold placed at random
    (1/k where one option alone is longest (shortest), 0 where the top is shared): ``longest`` and
    ``shortest``, each ``share``, ``chance``, ``lift`` and ``lift_se``, with ``items``."""
    from ..data.choices import options_of

    _check_choices(ds)
    padded, k, gold = options_of(ds)
    n = len(k)
    chars = np.array([[len(str(t)) if j < kk else np.nan for j, t in enumerate(row)] for row, kk in zip(padded, k)],
                     dtype=np.float64).reshape(n, -1)
    out = {"items": n}
    for name, sign in (("longest", 1.0), ("shortest", -1.0)):
        signed = np.where(np.isnan(chars), -np.inf, sign * np.nan_to_num(chars, nan=0.0))
        top = signed.max(axis=1, keepdims=True) if n else signed
        alone = (signed == top).sum(axis=1) == 1
        gold_alone = alone & (signed[np.arange(n), gold] == top[:, 0])
        share, chance = float(gold_alone.mean()) if n else float("nan"), float((alone / k).mean()) if n else float("nan")
        out[name] = {"share": share, "chance": chance, "lift": share - chance,
                     "lift_se": float(_share_se(gold_alone.sum(), n)) if n else float("nan")}
    return out


def choice_summary(ds) -> dict:
    """What `info` and the Data page say of multiple-choice items: the shape and its columns, the
    options per item, where the gold sits (with Cohen's w), how often it is the longest option, and
    the degenerate items by reason."""
    from ..data.choices import degenerate_items

    _check_choices(ds)
    src = ds.choices
    position = gold_position(ds)
    flagged = degenerate_items(ds.table, src)
    return {"shape": src.shape, "columns": src.columns,
            "options": {int(k): int(v) for k, v in src.n_options.reindex(ds.table.index).value_counts().sort_index().items()},
            "gold_position": {r.position: {"share": float(r.share), "chance": float(r.chance), "z": float(r.z)}
                              for r in position.table.itertuples(index=False)},
            "cohens_w": {"w": position.w, "low": position.w_low, "high": position.w_high, "chance": position.w_chance},
            "gold_longest": longest_share(ds), "gold_strictly": strict_lengths(ds),
            "degenerate": {reason: group["id"].tolist() for reason, group in flagged.groupby("reason")}}


def choice_lines(summary: dict) -> list:
    """`choice_summary` as (heading, text) lines: a terminal prints them in two columns, a page as
    "Heading: text"."""
    cols = summary["columns"]
    options = cols["options"] if isinstance(cols["options"], str) else ", ".join(cols["options"])
    stem = ", ".join(cols["stem"]) or "none"
    if summary["shape"] == "nested":   # as the file holds them: the question object's stem and choices
        stem, options = f"{options}.stem", f"{options}.choices"
    k = ", ".join(f"{n:,} items with {kk}" for kk, n in summary["options"].items())
    w = summary["cohens_w"]
    positions = ", ".join(f"{p} {v['share']:.1%}" for p, v in summary["gold_position"].items())
    chance = ", ".join(f"{v['chance']:.1%}" for v in summary["gold_position"].values())
    long = summary["gold_longest"]
    lines = [("items", f"{summary['shape']} shape (stem: {stem}; options: {options}; "
                       f"answer: {cols['answer']}); label: the gold option's letter"),
             ("options", k),
             ("gold at", f"{positions} (chance {chance}); Cohen's w {w['w']:.3f} [{w['low']:.3f}, {w['high']:.3f}], "
                         f"about {w['chance']:.3f} with no position bias"),
             ("longest", f"the gold is the longest option in {long['share']:.1%} of the {long['items']:,} items whose "
                         f"options differ in length (chance {long['chance']:.1%}, z {long['z']:+.1f})")]
    strict = summary.get("gold_strictly")
    if strict:
        lines.append(("strictly", "in characters, over all " + f"{strict['items']:,} items: the gold is the one longest "
                      + "option in {:.1%} (chance {:.1%}), the one shortest in {:.1%} (chance {:.1%})".format(
                          strict["longest"]["share"], strict["longest"]["chance"], strict["shortest"]["share"],
                          strict["shortest"]["chance"])))
    for reason, ids in summary["degenerate"].items():
        shown = ", ".join(ids[:8]) + (f" … ({len(ids):,} in all; --json lists them)" if len(ids) > 8 else "")
        lines.append(("degenerate", f"{reason}: {shown}"))
    return lines


def cue_phrase(feature: str, kind: str) -> str:
    """How a terminal or a page says what an option cue counts: "the gold is the longest option",
    "the gold contains 'not'"."""
    if kind in ("numeric", "position"):
        return f"the gold is the {feature.strip('[]')}" if kind == "numeric" else f"the gold is at {feature.strip('[]')}"
    return f"the gold contains '{feature}'"


def choice_cue_table(cues: OptionCues, position: GoldPosition, min_count: int) -> dict:
    """The certificate's cue table of items (`core.certificate.cues`): per option feature on which
    at least ``min_count`` items differ, and per position (``[position A]``…), its ``support`` (those
    items), the ``counts`` of items whose gold has the most of it and the ``expected`` count of a
    gold placed at random (Σ m/k: the chance line, per feature, ties counted)."""
    table = cues.table[cues.table["items"] >= int(min_count)]
    positions = pd.DataFrame({"feature": [f"[position {p}]" for p in position.table["position"]],
                              "items": position.table["items"].to_numpy(), "gold_most": position.table["gold"].to_numpy(),
                              "chance": position.table["chance"].to_numpy() * position.items
                              / np.maximum(position.table["items"].to_numpy(), 1)})
    both = pd.concat([table[["feature", "items", "gold_most", "chance"]], positions], ignore_index=True)
    both = both.sort_values("feature", kind="stable")
    return {"min_count": int(min_count), "features": [str(f) for f in both["feature"]],
            "support": [int(v) for v in both["items"]], "counts": {"gold": [int(v) for v in both["gold_most"]]},
            "expected": {"gold": [round(float(c * n), 6) for c, n in zip(both["chance"], both["items"])]}}


def items_with_cue(ds, features) -> list:
    """For each feature of the certificate's cue table of items (a word or bigram, a bracketed numeric
    feature, ``[position A]``…), the ids of the items whose gold carries it: the gold has the most of
    it among options that differ on it, or sits at that position."""
    from ..data.choices import LETTERS
    from ..text.features import token_ngrams

    _check_choices(ds)
    texts, item, k, gold, *_ = _tokens(ds)
    ids = np.asarray(ds.table.index.astype(str))
    amounts = option_amounts(ds)
    numeric = {}
    for name, ways in _WAYS.items():
        numeric.update({way: sign * amounts[name] for way, sign in zip(ways, (1.0, -1.0)) if way is not None})
    features = list(features)
    M, names, _ = token_ngrams(texts) if any(not f.startswith("[") for f in features) else (None, np.array([]), None)
    at = {name: j for j, name in enumerate(names)}
    gold_row = (np.cumsum(k) - k) + gold
    out = []
    for feature in features:
        if feature in numeric:
            differ, gold_most, _ = _most(numeric[feature], k, gold)
            out.append(ids[differ & gold_most])
        elif feature.startswith("[position ") and feature[10:-1] in LETTERS:
            out.append(ids[gold == LETTERS.index(feature[10:-1])])
        elif feature in at:
            has = np.asarray(M[:, at[feature]].todense()).ravel() > 0
            count = np.bincount(item, weights=has, minlength=len(k))
            out.append(ids[has[gold_row] & (count < k)])
        else:
            out.append(np.asarray([], dtype=object))
    return out


def stem_cues(ds, feature: str, *, min_count: int = 20, alpha: float = 0.01):
    """Which features of the stem tell whether an item's gold carries the option cue ``feature``
    (`items_with_cue`): the z-statistics (`core.zstats.compute_z`) of the stem's n-grams, lengths and
    overlaps against the label ``carries`` / ``lacks``. In BBQ, the length of the context tells
    whether the 'unknown' option is right: a stem feature that, with the option cue, answers the
    item without understanding it. Each z is against the items' own share of that label (a feature
    that leaves the share where it is tells nothing); the null feature is left out."""
    from ..data.dataset import Dataset
    from . import compute_z
    from .statistics import z_from_share

    _check_choices(ds)
    if not ds.choices.stem:
        raise InputError("these items have no stem (no context or question column) to read cues in.")
    carriers = set(map(str, items_with_cue(ds, [feature])[0]))
    table = ds.table[list(ds.choices.stem)].copy()
    table["gold"] = np.where(table.index.astype(str).isin(carriers), "carries", "lacks")
    stems = Dataset(table=table, label="gold", text=list(ds.choices.stem), name=f"{ds.name}: the stems")
    found = compute_z(stems, min_count=int(min_count), alpha=float(alpha))
    # against the items' own share of carriers, not 1/2: a word in nearly every stem ("the", the
    # null feature) sits at that share and tells nothing, where against 1/2 it read z ≈ 100
    base = table["gold"].value_counts(normalize=True)
    z = found.table
    z = z[z["kind"] != "null"].copy()
    z["z"] = z_from_share(z["p_hat"].to_numpy(), z["n"].to_numpy(), z["label"].astype(str).map(base).to_numpy(dtype=float))
    z["significant"] = z["z"] > found.z_star
    found.table = z.sort_values("z", ascending=False, kind="stable").reset_index(drop=True)
    found.table.attrs.update(found.table.attrs, base={str(k): float(v) for k, v in base.items()})
    return found
