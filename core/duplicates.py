"""Near-duplicates by what duplication means: shared wording, field by field.

Two examples are near-duplicates when every text field of one shares most of its wording with
the same field of the other. Wording is the set of character 4-grams inside words
(lower-cased), hashed into 2²⁰ buckets; the overlap of a field is the Jaccard index of two
such sets, computed exactly (up to hash collisions) as one sparse product per field; the
example's overlap is the smallest over its fields. So a premise shared by three SNLI
hypotheses does not make them duplicates, and a one-word edit of a pair does.

`THRESHOLD` = 0.6: on SNLI dev, one-word edits (a word dropped, replaced or inserted in the
hypothesis) of 400 pairs reach it 91 % of the time, random pairs of examples never do, and 58
of the 400 pairs have one of SNLI's own minimal pairs above it (same premise, one word
changed): `benchmarks/duplicates_bench.py`. Cosine similarity in Φ measures something else:
in a hypothesis-only TF-IDF/SVD space a short sentence is its commonest word's direction.
Φ's nearest examples are "similar examples", never called duplicates.
"""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd

__all__ = ["THRESHOLD", "DuplicateIndex"]

THRESHOLD = 0.6
SHINGLE = 4
_BUCKETS = 2 ** 20


def _vectoriser():
    from sklearn.feature_extraction.text import HashingVectorizer

    return HashingVectorizer(analyzer="char_wb", ngram_range=(SHINGLE, SHINGLE), binary=True, norm=None,
                             alternate_sign=False, n_features=_BUCKETS, lowercase=True, dtype=np.float32)


class DuplicateIndex:
    """The wording of a table's text fields, to find near-duplicates of a new example in
    milliseconds (one sparse product per field)."""

    def __init__(self, table: pd.DataFrame, fields: Sequence[str]):
        if not fields:
            raise ValueError("near-duplicates need at least one text field")
        self.fields, self.ids = list(fields), np.asarray(table.index.astype(str))
        self._hv = _vectoriser()
        self._X = {f: self._hv.transform(table[f].fillna("").astype(str)).tocsr() for f in self.fields}
        self._size = {f: np.asarray(self._X[f].sum(axis=1)).ravel() for f in self.fields}

    def overlap(self, example: Mapping) -> np.ndarray:
        """Per indexed example: the smallest, over the text fields, Jaccard index of its wording
        and ``example``'s (0 for a field either side leaves empty)."""
        out = None
        for f in self.fields:
            q = self._hv.transform([str(example.get(f) or "")])
            inter = np.asarray((self._X[f] @ q.T).todense(), dtype=np.float64).ravel()
            union = self._size[f] + float(q.sum()) - inter
            j = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
            out = j if out is None else np.minimum(out, j)
        return out

    def near(self, example: Mapping, *, k: int = 5, threshold: float = THRESHOLD) -> list:
        """The indexed examples whose overlap with ``example`` is at least ``threshold``, most
        overlapping first (at most ``k``): ``id`` and ``overlap``."""
        scores = self.overlap(example)
        hits = np.flatnonzero(scores >= threshold)
        hits = hits[np.argsort(-scores[hits], kind="stable")][:k]
        return [{"id": str(self.ids[i]), "overlap": round(float(scores[i]), 4)} for i in hits]
