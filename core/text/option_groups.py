"""Features of a multiple-choice option measured against the other options of its item (issue 64):
what the options-only model missed by reading one option at a time. TruthfulQA's gold is often the
odd one out (the "odd one out" heuristic alone is right on 0.468 of MC1, Evans et al. 2025), MMLU's
and ARC's golds say "all of the above" or hedge where the distractors assert.

Each feature is an amount per option (`GROUP_FEATURES`, in the order tables show them), computed for
the options of every item at once (``texts`` in item order, ``k`` options per item):

- ``unlike_others``: one minus the mean Jaccard overlap of its words with each other option's (the
  odd one out, in words); ``unlike_others_tfidf``: one minus the cosine of its TF-IDF vector (words
  and bigrams) with the mean of the others' (in a bag-of-words embedding);
- ``shared_words``: the share of its words found in at least one other option;
- ``chars``: its length in characters (its length in words is the cue table's ``length``);
- ``negation``, ``hedging``, ``numbers``, ``names``: how many negations, hedges, numbers and
  capitalised words past the first it has (the cue table compares each with the other options');
- ``all_above``, ``none_above``, ``both_and``: whether it says "all of the above", "none of the
  above", or "both A and B".

An item of one option has nothing to be measured against: its amounts are 0. Words follow the
z-statistics' rule (`core.text.tokens`).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

__all__ = ["GROUP_FEATURES", "group_amounts", "PHRASES"]

#: feature → what it measures (the cue table names it by the way it is read, `core.zstats.choices`)
GROUP_FEATURES = {
    "unlike_others": "one minus its mean word overlap (Jaccard) with each other option",
    "unlike_others_tfidf": "one minus the cosine of its TF-IDF vector with the other options' mean",
    "shared_words": "the share of its words found in another option",
    "chars": "its length in characters",
    "negation": "negations (not, no, never, none, cannot, n't …)",
    "hedging": "hedges (may, might, could, possibly, probably, usually, some …)",
    "numbers": "numbers",
    "names": "capitalised words past the first (names, places)",
    "all_above": "it says \"all of the above\" (or \"all of these\")",
    "none_above": "it says \"none of the above\" (or \"none of these\")",
    "both_and": "it says \"both A and B\"",
}

#: the features that are a phrase an option says or not (tested one way: the gold says it)
PHRASES = ("all_above", "none_above", "both_and")

_PATTERNS = {
    "negation": r"(?i)\b(?:not|no|never|none|nothing|nobody|neither|nor|cannot|without)\b|n[’']t\b",
    "hedging": r"(?i)\b(?:may|might|could|possibly|perhaps|probably|likely|usually|often|sometimes|generally|some|"
               r"typically|can be)\b",
    "numbers": r"\d+(?:[.,]\d+)*",
    "all_above": r"(?i)\ball (?:of )?(?:the above|these|of them)\b",
    "none_above": r"(?i)\bnone (?:of )?(?:the above|these|of them)\b",
    "both_and": r"(?i)\bboth\b.{1,40}\band\b",
}


def _pairs_within(k: np.ndarray) -> tuple:
    """(i, j): every ordered pair of distinct options of one item, as rows of the flat option list."""
    starts = np.cumsum(k) - k
    i = np.concatenate([np.repeat(np.arange(s, s + kk), kk) for s, kk in zip(starts, k)]) if len(k) else np.zeros(0, int)
    j = np.concatenate([np.tile(np.arange(s, s + kk), kk) for s, kk in zip(starts, k)]) if len(k) else np.zeros(0, int)
    other = i != j
    return i[other], j[other]


def _unlike(B: sp.csr_matrix, k: np.ndarray) -> tuple:
    """(one minus mean Jaccard with each other option, the share of its words in another option)."""
    i, j = _pairs_within(k)
    R = int(k.sum())
    size = np.asarray(B.sum(axis=1)).ravel()
    shared = np.asarray(B[i].multiply(B[j]).sum(axis=1)).ravel() if len(i) else np.zeros(0)
    union = size[i] + size[j] - shared
    jaccard = np.divide(shared, union, out=np.ones_like(shared, dtype=np.float64), where=union > 0)
    others = np.maximum(np.bincount(i, minlength=R), 1)
    unlike = 1.0 - np.bincount(i, weights=jaccard, minlength=R) / others
    unlike[np.repeat(k, k) < 2] = 0.0
    # a word of option i found in any other option of its item: the pairs' product, summed, above 0
    found = sp.csr_matrix((np.ones(len(i)), (i, j)), shape=(R, R)) @ B if R else B
    in_others = np.asarray((found.multiply(B) > 0).sum(axis=1)).ravel()
    return unlike, np.divide(in_others, size, out=np.zeros(R), where=size > 0)


def _unlike_tfidf(M: sp.csr_matrix, k: np.ndarray) -> np.ndarray:
    """One minus the cosine of each option's TF-IDF vector (``M``: its word and bigram counts) with
    the mean of the other options' (0 for an item of one option)."""
    from sklearn.feature_extraction.text import TfidfTransformer
    from sklearn.preprocessing import normalize

    R = int(k.sum())
    if not M.shape[1]:   # no word in any option
        return np.zeros(R)
    T = normalize(TfidfTransformer(sublinear_tf=True).fit_transform(M))
    item = np.repeat(np.arange(len(k)), k)
    total = sp.csr_matrix((np.ones(R), (item, np.arange(R))), shape=(len(k), R)) @ T   # each item's sum
    others = (total[item] - T).multiply(1.0 / np.maximum(np.repeat(k, k) - 1, 1)[:, None]).tocsr()
    norm = np.sqrt(np.asarray(others.multiply(others).sum(axis=1)).ravel())
    dot = np.asarray(T.multiply(others).sum(axis=1)).ravel()
    out = 1.0 - np.divide(dot, norm, out=np.zeros(R), where=norm > 0)
    out[np.repeat(k, k) < 2] = 0.0
    return out


def group_amounts(texts, k) -> pd.DataFrame:
    """A row per option (``texts`` in item order, ``k`` options per item), a column per
    `GROUP_FEATURES` entry: its amount."""
    from .features import token_ngrams

    k = np.asarray(k, dtype=np.int64)
    series = pd.Series(list(texts), dtype=object).fillna("").astype(str)
    M, _, kinds = token_ngrams(series.to_numpy(dtype=object))
    M = M.tocsr().astype(np.float64)
    words = (M[:, np.flatnonzero(kinds == "word")] > 0).astype(np.float64).tocsr()
    unlike, shared = _unlike(words, k)
    out = {"unlike_others": unlike, "unlike_others_tfidf": _unlike_tfidf(M, k), "shared_words": shared,
           "chars": series.str.len().to_numpy(dtype=np.float64)}
    for name in ("negation", "hedging", "numbers"):
        out[name] = series.str.count(_PATTERNS[name]).to_numpy(dtype=np.float64)
    # capitalised words past an option's first word: names and places ("Paris", "World War II")
    out["names"] = series.str.replace(r"^\W*\w+", "", regex=True).str.count(r"\b[A-Z][a-z]+").to_numpy(dtype=np.float64)
    for name in PHRASES:
        out[name] = series.str.contains(_PATTERNS[name], regex=True).to_numpy(dtype=np.float64)
    # to 9 decimals: two options with the same amount summed in another order (the same item with its
    # options permuted) tie, as the cue table's "the gold has the most" needs them to
    return pd.DataFrame(out, columns=list(GROUP_FEATURES)).round(9)
