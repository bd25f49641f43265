"""Dataset strings in plotly figures are text, never markup (the one helper every figure uses).

plotly.js renders every string it draws (trace names in legends, axis categories and tick
text, hover labels and the values a ``hovertemplate`` inserts, annotations, titles, colour-bar
titles) through its own HTML subset: ``<br>``, ``<b>``, ``<i>``, ``<em>``, ``<sup>``,
``<sub>``, ``<s>``, ``<u>``, ``<span style=...>`` and ``<a href=...>`` (a clickable link)
become formatting, and a string with two ``$`` is typeset as LaTeX where MathJax is loaded.
It also decodes HTML entities (``&lt;``, ``&amp;``, ``&#36;``, ...) before drawing. So a
value from a dataset (a label, a column or field name, a feature, an example's text) is made
inert by writing its ``&``, ``<``, ``>`` and ``$`` as entities: plotly draws the characters
themselves (``<b>contra</b>`` reads as written, not in bold).

Escape exactly once, where a dataset value becomes part of a figure; the figure functions of
`core.plots.aflite`, `core.plots.zstats` and `core.evaluation.plots` do it themselves, so callers
pass raw values. Strings the code writes (hover templates with their own ``<br>``, fixed
titles) are not escaped.
"""
from __future__ import annotations

import re
from typing import Iterable

import numpy as np
import pandas as pd

__all__ = ["escape", "escape_all", "escape_texts", "snippet", "snippets"]

_ENTITIES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "$": "&#36;"})
_SPACE = re.compile(r"\s+")


def escape(value) -> str:
    """``str(value)`` with ``& < > $`` written as entities, for any text plotly draws.

    >>> escape('<a href="http://x.example/">entail</a>')
    '&lt;a href="http://x.example/"&gt;entail&lt;/a&gt;'
    """
    return str(value).translate(_ENTITIES)


def escape_all(values: Iterable) -> np.ndarray:
    """`escape` of every value, as an object array (for ``x``, ``y``, ``customdata`` columns)."""
    return np.array([escape(v) for v in values], dtype=object)


def snippet(value, length: int = 80) -> str:
    """The first ``length`` characters of a text (whitespace runs as one space, ``…`` when cut),
    escaped: for hover labels. Cut before escaping, so an entity is never cut in half."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    text = _SPACE.sub(" ", str(value)).strip()
    if len(text) > length:
        text = text[: max(length - 1, 0)].rstrip() + "…"
    return escape(text)


def escape_texts(values) -> pd.Series:
    """`escape` of every value as a Series of str (missing values as ""), vectorised for 100k-point figures."""
    return pd.Series(_escape_arrow(_arrow_strings(values)).to_numpy(zero_copy_only=False), dtype=object)


def snippets(values, length: int = 80) -> pd.Series:
    """`snippet` of every value as a Series of str, vectorised (100k texts in a few tens of ms)."""
    import pyarrow.compute as pc

    text = pc.utf8_trim_whitespace(pc.replace_substring_regex(_arrow_strings(values), r"\s+", " "))
    long = pc.greater(pc.utf8_length(text), length)
    cut = pc.binary_join_element_wise(pc.utf8_rtrim_whitespace(pc.utf8_slice_codeunits(text, 0, max(length - 1, 0))),
                                      "…", "")
    return pd.Series(_escape_arrow(pc.if_else(long, cut, text)).to_numpy(zero_copy_only=False), dtype=object)


def _arrow_strings(values):
    """Values as a pyarrow string array: missing values (None, NaN) as "", anything else by ``str``."""
    import pyarrow as pa

    raw = pd.Series(np.asarray(values, dtype=object), dtype=object)
    return pa.array(raw.where(raw.notna(), "").astype(str).tolist(), type=pa.string())


def _escape_arrow(arr):
    import pyarrow.compute as pc

    for char, entity in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("$", "&#36;")):   # & first
        arr = pc.replace_substring(arr, char, entity)
    return arr
