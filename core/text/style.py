"""Style features of a response (issue 42): the simple, countable things known to sway preference
labels and LLM judges: length, markdown (list items, headers, bold spans, code blocks, links),
questions, apologies and refusals, hedges, exclamation marks and emoji.

Each feature is a count per text (`STYLE_FEATURES`, in the order tables show them); `style_counts`
counts them all over a column of texts, vectorised with pandas' string methods (one regular
expression per feature, no per-text Python loop). Words are counted by the z-statistics' own rule
(`core.text.tokens`), so "length in words" here and a word's count in the pair table agree.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["STYLE_FEATURES", "style_counts", "word_counts"]

#: feature → (what it counts, the regular expression whose matches it counts); ``words`` is counted by
#: `word_counts` instead
STYLE_FEATURES = {
    "words": ("length in words", None),
    "list_items": ("lines that start a list item (-, *, •, 1. or 1))", r"(?m)^[ \t]*(?:[-*•]|\d{1,3}[.)])[ \t]+\S"),
    "headers": ("markdown headers (# …)", r"(?m)^[ \t]*#{1,6}[ \t]+\S"),
    "bold": ("bold spans (**…** or __…__)", r"\*\*[^*\n]+\*\*|__[^_\n]+__"),
    "code_blocks": ("code blocks (``` fences, counted in pairs)", r"```"),
    "links": ("links (http(s):// or [text](url))", r"https?://|\[[^\]\n]+\]\([^)\s]+\)"),
    "questions": ("question marks", r"\?"),
    "apologies": ("apologies (I'm sorry, I apologise …)",
                  r"(?i)\b(?:i[’']?m sorry|i am sorry|i apologi[sz]e|my apologies|sorry,)"),
    "refusals": ("refusals (I can't, I cannot, I won't, I'm not able …)",
                 r"(?i)\b(?:i can[’']?t\b|i cannot\b|i won[’']?t\b|i will not\b|i[’']?m not able|i am not able|"
                 r"i[’']?m unable|i am unable|as an ai\b|i[’']?m not comfortable|i don[’']?t feel comfortable)"),
    "hedges": ("hedges (might, maybe, perhaps, I think, it depends …)",
               r"(?i)\b(?:might|maybe|perhaps|possibly|probably|it depends|i think|i believe|i[’']?m not sure|"
               r"i am not sure|not sure)\b"),
    "exclamations": ("exclamation marks", r"!"),
    "emoji": ("emoji", "[\U0001F000-\U0001FAFF\u2600-\u27BF\uFE0F]"),
}


def word_counts(texts) -> np.ndarray:
    """Each text's number of words by the z-statistics' rule (`core.text.tokens`)."""
    from .tokens import tokenise_column

    texts = np.asarray(list(texts), dtype=object)
    codes, doc, _ = tokenise_column(texts)
    return np.bincount(np.asarray(doc, dtype=np.int64), minlength=len(texts)).astype(np.int64)


def style_counts(texts) -> pd.DataFrame:
    """A row per text, a column per `STYLE_FEATURES` entry: how often each occurs (code blocks: fences
    halved, rounded down)."""
    series = pd.Series(list(texts), dtype=object).fillna("").astype(str)
    out = {}
    for name, (_, pattern) in STYLE_FEATURES.items():
        if pattern is None:
            out[name] = word_counts(series.to_numpy(dtype=object))
        else:
            counts = series.str.count(pattern).to_numpy(dtype=np.int64)
            out[name] = counts // 2 if name == "code_blocks" else counts
    return pd.DataFrame(out)
