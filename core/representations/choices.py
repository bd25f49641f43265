"""The representation of multiple-choice items (issue 55): ``choice-diff``, each option's TF-IDF
word n-grams (one vocabulary over every option) reduced by a truncated SVD (``dim``), with its
length in words (log), differenced against the mean of its item's options. The TF-IDF and the SVD
are fitted on the distinct options in sorted order, so permuting an item's options permutes its
blocks and nothing else, and the same option in two items gets the same vector before the
differencing: all a linear model over an item's options can tell them apart by is what
they say, relative to the others (as ``pair-diff`` is for the two sides of a pair).

An item's row is ``[k_max, present_1 … present_k_max, v_1 … v_k_max]``: the widest item's number of
options (so the layout can be read back, `core.aflite.items.item_layout`), whether the item has each
position, and each option's vector (zeros past the item's last). The ``choice`` family of AFLite
reads it (`core.aflite.items`).
"""
from __future__ import annotations

import numpy as np

from ..base.errors import InputError
from ..base.progress import report

__all__ = ["build_choice_diff"]


def build_choice_diff(dataset, opts, *, messages, info, progress, cancel, cache_dir):
    from ..data.choices import options_of
    from .text import _svd, fit_tfidf

    if getattr(dataset, "choices", None) is None:
        raise InputError("'choice-diff' represents multiple-choice items (a stem and its options); this dataset has "
                         "labelled examples: use tfidf-svd or another kind, or load a file of items.")
    padded, k, _ = options_of(dataset)
    n, K = padded.shape
    item = np.repeat(np.arange(n), k)
    position = np.arange(len(item)) - np.repeat(np.cumsum(k) - k, k)
    texts = [str(t) for t in padded[item, position]]
    # each distinct option once, in sorted order: the same options in any order of items or of their
    # options give the same space, to the bit (a randomized SVD depends on the order of its rows)
    distinct, which = np.unique(np.asarray(texts, dtype=object), return_inverse=True)
    report(progress, 0.05, "TF-IDF of the options")
    vec, T = fit_tfidf(list(distinct), opts["ngram"], opts["min_df"], "the options")
    info["vocabulary"] = {"options": len(vec.vocabulary_)}
    report(progress, 0.4, "truncated SVD of the options")
    Z, _ = _svd(T, opts["dim"], opts["seed"], messages, info, what="the options' TF-IDF")
    Z = Z[which]
    words = np.asarray([len(t.split()) for t in texts], dtype=np.float32)
    V = np.hstack([Z, np.log1p(words)[:, None]]).astype(np.float64)
    starts = np.cumsum(k) - k
    # against the item's mean, summed in float64, where a few float32 values add up exactly: the
    # same options in any order give the same vectors, to the bit
    V = (V - np.repeat(np.add.reduceat(V, starts, axis=0) / k[:, None], k, axis=0)).astype(np.float32)
    d = V.shape[1]
    out = np.zeros((n, 1 + K + K * d), dtype=np.float32)
    out[:, 0] = K
    out[item, 1 + position] = 1.0
    cols = 1 + K + position[:, None] * d + np.arange(d)[None, :]
    out[item[:, None], cols] = V
    info["layout"] = {"k_max": int(K), "d": int(d)}
    return out, []
