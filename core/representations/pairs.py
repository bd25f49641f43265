"""Antisymmetric representations of preference pairs (issue 42): Φ(pair) = f(A) − f(B), so a pair
whose two sides are swapped has exactly −Φ, and a linear model that reads it predicts the mirrored
preference. Nothing in them can tell side "a" from side "b" but what the two responses say.

* ``pair-diff``: TF-IDF word n-grams of the two responses over one shared vocabulary (fitted on both
  sides' texts), their difference, and a truncated SVD of the differences (``dim``). Swapping a
  pair's sides flips the sign of its row, which leaves DᵀD and so the SVD's components unchanged:
  the whole Φ is antisymmetric, not only each row. The prompt is the same for both sides, so on its
  own it says nothing about which was preferred; with ``prompt=1`` Φ gains (D·V) ⊙ (P·V), P the
  prompt's TF-IDF in the same vocabulary: how the difference lines up with what was asked, still
  antisymmetric (the full input, beside the response-only one without it).
* ``pair-style``: the style features of `core.text.style` (length in words, list items, headers,
  bold spans, code blocks, links, questions, apologies, refusals, hedges, exclamations, emoji), as
  sign(d)·log(1 + |d|) of each count's difference: the style-only partial input.
* ``pair-length``: the same of the length in words alone: the length-only partial input.
"""
from __future__ import annotations

import numpy as np

from ..base.errors import InputError
from ..base.progress import report
from .common import field_texts

__all__ = ["build_pair_diff", "build_pair_style", "build_pair_length"]


def _sides(dataset, messages, kind: str) -> tuple:
    if dataset.pairs is None:
        raise InputError(f"'{kind}' represents preference pairs (chosen vs rejected); this dataset has labelled "
                         "examples: use tfidf-svd or another kind, or load a pair file.")
    return tuple(field_texts(dataset, f, messages, allow_empty=True, kind=kind) for f in ("response_a", "response_b"))


def _signed_log(d: np.ndarray) -> np.ndarray:
    return (np.sign(d) * np.log1p(np.abs(d))).astype(np.float32)


def build_pair_diff(dataset, opts, *, messages, info, progress, cancel, cache_dir):
    from .text import _svd, fit_tfidf

    a, b = _sides(dataset, messages, "pair-diff")
    report(progress, 0.05, "TF-IDF of both responses")
    vec, both = fit_tfidf(a + b, opts["ngram"], opts["min_df"], "response_a+response_b")
    D = (both[: len(a)] - both[len(a):]).tocsr()
    info["vocabulary"] = {"responses": len(vec.vocabulary_)}
    report(progress, 0.4, "truncated SVD of the differences")
    Z, svd = _svd(D, opts["dim"], opts["seed"], messages, info, what="the responses' TF-IDF difference")
    if opts["prompt"]:
        prompts = field_texts(dataset, "prompt", messages, allow_empty=True, kind="pair-diff")
        asked = Z * np.asarray(vec.transform(prompts) @ svd.components_.T, dtype=np.float32)
        # one scale for the whole block (sign flips leave it unchanged): a product of two small
        # coordinates would otherwise be regularised away by any model that reads it
        scale = float(np.sqrt(np.mean(Z ** 2)) / max(np.sqrt(np.mean(asked ** 2)), 1e-12))
        Z = np.hstack([Z, asked * np.float32(scale)])
    return Z, []


def build_pair_style(dataset, opts, *, messages, info, progress, cancel, cache_dir):
    from ..text.style import style_counts

    a, b = _sides(dataset, messages, "pair-style")
    counts_a, counts_b = style_counts(a), style_counts(b)
    info["features"] = list(counts_a.columns)
    return _signed_log(counts_a.to_numpy(dtype=np.float64) - counts_b.to_numpy(dtype=np.float64)), []


def build_pair_length(dataset, opts, *, messages, info, progress, cancel, cache_dir):
    from ..text.style import word_counts

    a, b = _sides(dataset, messages, "pair-length")
    return _signed_log((word_counts(a) - word_counts(b)).astype(np.float64))[:, None], []
