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

Words as well (`DuplicateIndex.near`): a one-word substitution in a short sentence changes few
characters but many 4-grams (replacing the longest word of a 7-word SNLI hypothesis can leave
under 0.6 of them shared), and writers game a creation task exactly so. So an example is also
a near-duplicate when its fields, as words (`core.text.tokens`), are those of an indexed example but
for one word dropped, inserted or replaced in one field, and, when both have a label, the label
is the same: SNLI's own minimal pairs (same premise, one word changed) change the label, which
is what makes them new examples; the same label with one word changed is a copy.
`benchmarks/duplicates_bench.py` measures both rules.

Dataset-wide (`DuplicateIndex.pairs`): comparing every pair is quadratic, so candidates come from
MinHash signatures of each example's wording over all fields together (fields kept apart),
banded into an LSH table (32 bands of 4 rows: a pair whose overall Jaccard index is 0.6 shares
a band with probability 0.99, one at 0.2 with probability 0.05), and each candidate is then
checked exactly, field by field. The overall index bounds the per-field minimum from above, so
no pair at the threshold is lost by looking at the overall index first; LSH itself may miss a
pair with small probability (said in `pairs`). `drop_one_of_each` keeps the first example of
each group of near-duplicates (connected through pairs) and names the others.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Mapping, Optional, Sequence

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..base.cores import SHARE, threads_now
from ..base.errors import InputError
from ..base.progress import check_cancel, report

__all__ = ["THRESHOLD", "DuplicateIndex", "drop_one_of_each", "near_duplicate_pairs", "drop_near_duplicates"]

THRESHOLD = 0.6
SHINGLE = 4
_BUCKETS = 2 ** 20
#: LSH shape: bands × rows per band of MinHash values
BANDS, ROWS = 32, 4
#: a bucket larger than this links its examples to its first one only (identical texts would
#: otherwise give m² candidate pairs; the groups stay the same)
_STAR_ABOVE = 200
#: the bands' candidate keys held before they are merged (8 bytes each), and the candidate pairs
#: checked at once (each takes its two texts' rows of a field's sparse sets, for a moment)
_MERGE_KEYS = 1 << 25
_CHECK_PAIRS = 1 << 20
#: threads of one search at most (each holds a band's pairs or a block's rows: more threads, more memory)
_THREADS = 4


def _vectoriser():
    from sklearn.feature_extraction.text import HashingVectorizer

    return HashingVectorizer(analyzer="char_wb", ngram_range=(SHINGLE, SHINGLE), binary=True, norm=None,
                             alternate_sign=False, n_features=_BUCKETS, lowercase=True, dtype=np.float32)


class DuplicateIndex:
    """The wording of a table's text fields, to find near-duplicates of a new example in
    milliseconds (one sparse product per field)."""

    def __init__(self, table: pd.DataFrame, fields: Sequence[str], label: Optional[str] = None):
        if not fields:
            raise ValueError("near-duplicates need at least one text field")
        self.fields, self.ids = list(fields), np.asarray(table.index.astype(str))
        self._hv = _vectoriser()
        self._text = {f: table[f].fillna("").astype(str) for f in self.fields}
        # each distinct text of a field is hashed once (SNLI writes three hypotheses per premise);
        # a row's wording is its text's: `_distinct` maps rows to texts
        self._distinct = {f: pd.factorize(self._text[f]) for f in self.fields}
        self._unique_X = {f: self._hv.transform(list(texts)).tocsr() for f, (_, texts) in self._distinct.items()}
        self._X = {f: self._unique_X[f][codes] for f, (codes, _) in self._distinct.items()}
        self._unique_size = {f: np.asarray(self._unique_X[f].sum(axis=1)).ravel() for f in self.fields}
        self._size = {f: self._unique_size[f][codes] for f, (codes, _) in self._distinct.items()}
        self._words = None   # the word sets, made on the first `near` (the word rule's candidates)
        self.label = label
        self._labels = table[label].astype(str).to_numpy() if label is not None and label in table else None

    def overlap(self, example: Mapping) -> np.ndarray:
        """Per indexed example: the smallest, over the text fields, Jaccard index of its wording
        and ``example``'s (0 for a field either side leaves empty)."""
        return _smallest_jaccard(((self._X[f], self._size[f], self._hv.transform([str(example.get(f) or "")]))
                                  for f in self.fields))

    def near(self, example: Mapping, *, k: int = 5, threshold: float = THRESHOLD) -> list:
        """The indexed examples that ``example`` nearly duplicates, most overlapping first (at most
        ``k``): ``id``, ``overlap`` (of the wording) and ``how``: ``"wording"`` (an overlap of at least
        ``threshold``) or ``"one word"`` (one word changed in one field, the label the same; the
        module docstring)."""
        scores = self.overlap(example)
        by_wording = scores >= threshold
        by_words = self._one_word_apart(example, np.flatnonzero(~by_wording & (self._word_overlap(example) >=
                                                                               _WORD_CANDIDATES)))
        hits = np.flatnonzero(by_wording | by_words)
        hits = hits[np.argsort(-scores[hits], kind="stable")][:k]
        return [{"id": str(self.ids[i]), "overlap": round(float(scores[i]), 4),
                 "how": "wording" if by_wording[i] else "one word"} for i in hits]

    def _word_overlap(self, example: Mapping) -> np.ndarray:
        """Per indexed example: the smallest, over the fields, Jaccard index of its set of words and
        ``example``'s (the word rule's candidates: one word changed in n keeps (n-1)/(n+1) of them)."""
        from .tokens import tokenize, tokenize_many

        if self._words is None:
            hv = _word_hasher()
            words = {f: hv.transform(tokenize_many(self._text[f])).tocsr() for f in self.fields}
            self._words = (hv, words, {f: np.asarray(words[f].sum(axis=1)).ravel() for f in self.fields})
        hv, words, sizes = self._words
        return _smallest_jaccard(((words[f], sizes[f], hv.transform([tokenize(str(example.get(f) or ""))]))
                                  for f in self.fields))

    def _one_word_apart(self, example: Mapping, rows: np.ndarray) -> np.ndarray:
        """A mask over the index: the ``rows`` whose fields are ``example``'s but for one word dropped,
        inserted or replaced in one field, with the same label when both have one."""
        from .tokens import tokenize, tokenize_many

        out = np.zeros(len(self.ids), bool)
        if not len(rows):
            return out
        label = example.get(self.label) if self.label is not None else None
        if self._labels is not None and label is not None and str(label).strip():
            rows = rows[self._labels[rows] == str(label)]
        mine = {f: tokenize(str(example.get(f) or "")) for f in self.fields}
        theirs = {f: tokenize_many(self._text[f].iloc[rows]) for f in self.fields}
        for n, row in enumerate(rows):
            edits = 0
            for f in self.fields:
                edits += _word_edits(mine[f], theirs[f][n])
                if edits > 1:
                    break
            # a sentence of a word or two is not copied by changing one of them
            out[row] = edits == 1 and all(len(mine[f]) >= 3 for f in self.fields)
        return out

    def _jaccard(self, f: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Field ``f``'s Jaccard index for pairs of its distinct texts (codes ``a``, ``b``)."""
        return _pair_jaccard(self._unique_X[f], self._unique_size[f], a, b)

    def pairs(self, threshold: float = THRESHOLD, *, seed: int = 0, progress=None, cancel=None) -> pd.DataFrame:
        """Every pair of indexed examples whose overlap (`overlap`'s measure) is at least
        ``threshold``: columns ``a``, ``b`` (ids, ``a`` first in table order) and ``overlap``,
        most overlapping first. Candidates from MinHash LSH (module docstring), each checked
        exactly; a pair at the threshold is missed with probability ≈ 1 %."""
        n = len(self.ids)
        empty = pd.DataFrame({"a": pd.Series(dtype=str), "b": pd.Series(dtype=str), "overlap": pd.Series(dtype=float)})
        if n < 2:
            return empty
        report(progress, 0.0, "near-duplicates: signatures")
        # the signature of a row's wording over all fields (field f's shingles in its own columns,
        # f·2²⁰ on): the minimum over a union is the minimum of the parts' minima, so each field's
        # distinct texts are signed once and a row takes the smaller of its texts' values
        sig, has = None, np.zeros(n, dtype=bool)
        for k, f in enumerate(self.fields):
            codes, _ = self._distinct[f]
            part = _minhash(self._unique_X[f], BANDS * ROWS, seed, cancel, offset=k * _BUCKETS)[codes]
            sig = part if sig is None else np.minimum(sig, part)
            has |= self._size[f] > 0
        keys = _candidate_keys(sig, has, progress, cancel)
        if not len(keys):
            return empty
        report(progress, 0.6, f"near-duplicates: checking {len(keys):,} candidate pairs")

        def check(lo: int):
            check_cancel(cancel)
            i, j = np.divmod(keys[lo:lo + _CHECK_PAIRS], n)
            score = self._smallest_overlap(i, j, threshold)
            keep = score >= threshold
            return i[keep], j[keep], score[keep]

        found = []
        # in key order, a block at a time on each of a few threads (SciPy's sparse products let the
        # GIL go): bounded memory, and the blocks' pairs joined in key order whatever the threads
        with ThreadPoolExecutor(min(threads_now(SHARE), _THREADS), thread_name_prefix="check") as pool:
            for lo, part in zip(range(0, len(keys), _CHECK_PAIRS), pool.map(check, range(0, len(keys), _CHECK_PAIRS))):
                found.append(part)
                report(progress, 0.6 + 0.4 * min(lo + _CHECK_PAIRS, len(keys)) / len(keys),
                       f"near-duplicates: checking {len(keys):,} candidate pairs")
        i, j, score = (np.concatenate(part) for part in zip(*found))
        order = np.argsort(-score, kind="stable")
        report(progress, 1.0, f"near-duplicates: {len(score):,} pairs")
        return pd.DataFrame({"a": self.ids[i][order], "b": self.ids[j][order], "overlap": np.round(score[order], 4)})

    def _smallest_overlap(self, i: np.ndarray, j: np.ndarray, threshold: float) -> np.ndarray:
        """The smallest over the fields of the Jaccard index of rows ``i`` and ``j``, pair by pair;
        field by field, each on the pairs still at the threshold: a pair with one text in common (the
        same premise) needs no sparse product for it, only for the fields where its texts differ."""
        score = np.ones(len(i))
        alive = np.arange(len(i))
        for f in self.fields:
            codes, _ = self._distinct[f]
            score[alive] = np.minimum(score[alive], self._jaccard(f, codes[i[alive]], codes[j[alive]]))
            alive = alive[score[alive] >= threshold]
        return score


def _pair_jaccard(U: sp.csr_matrix, size: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The Jaccard index of the binary rows ``U[a]`` and ``U[b]``, pair by pair (0 when both are empty):
    the same text twice is 1 without a product, and each distinct pair of texts is compared once."""
    out = np.where(size[a] > 0, 1.0, 0.0)
    differ = np.flatnonzero(a != b)
    if len(differ):
        key = a[differ].astype(np.int64) * U.shape[0] + b[differ]
        order = np.argsort(key, kind="stable")
        new = np.r_[True, key[order][1:] != key[order][:-1]]
        back = np.empty(len(key), dtype=np.int64)
        back[order] = np.cumsum(new) - 1                 # each pair's place among the distinct pairs
        first, second = np.divmod(key[order][new], U.shape[0])
        inter = np.asarray(U[first].multiply(U[second]).sum(axis=1)).ravel()
        union = size[first] + size[second] - inter
        out[differ] = np.divide(inter, union, out=np.zeros_like(inter, dtype=float), where=union > 0)[back]
    return out


def _smallest_jaccard(fields) -> np.ndarray:
    """Per indexed example, the smallest over the fields of the Jaccard index of its binary set and the
    query's: ``fields`` yields (the index's sets as rows, their sizes, the query's set as one row)."""
    out = None
    for X, size, q in fields:
        inter = np.asarray((X @ q.T).todense(), dtype=np.float64).ravel()
        union = size + float(q.sum()) - inter
        j = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
        out = j if out is None else np.minimum(out, j)
    return out


#: the share of words below which no example is one word away from another (one word changed in three
#: keeps 2 of 4 distinct words; a repeated word, 1 of 2): only those above are compared word by word
_WORD_CANDIDATES = 0.34


def _word_hasher():
    from sklearn.feature_extraction.text import HashingVectorizer

    return HashingVectorizer(analyzer=_same, binary=True, norm=None, alternate_sign=False, n_features=_BUCKETS,
                             dtype=np.float32)


def _same(tokens):
    """A tokenised document as its own analysis (tokens made in one batch by `core.text.tokens`)."""
    return tokens


def _word_edits(a: list, b: list) -> int:
    """Words dropped, inserted or replaced to turn ``a`` into ``b`` (Levenshtein over words): 0, 1, or
    2 for two or more (all the word rule needs to know)."""
    if abs(len(a) - len(b)) > 1:
        return 2
    if len(a) == len(b):
        return min(2, sum(x != y for x, y in zip(a, b)))
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    i = next((i for i, (x, y) in enumerate(zip(short, long_)) if x != y), len(short))
    return 1 if short[i:] == long_[i + 1:] else 2


def _minhash(X: sp.csr_matrix, k: int, seed: int, cancel=None, offset: int = 0) -> np.ndarray:
    """(N, k) MinHash signature of each row's set of columns (each column read as ``offset`` + its
    index): the min over its columns of k multiply-shift hashes (the top 32 bits of a·x + b mod 2⁶⁴,
    a odd); rows without columns get 2³² (matched by none). Chunked so the hashed block stays near
    32 MB."""
    rng = np.random.default_rng(seed)
    a = (rng.integers(0, 1 << 63, size=k, dtype=np.uint64) * np.uint64(2) + np.uint64(1))[:, None]
    b = rng.integers(0, 1 << 63, size=k, dtype=np.uint64)[:, None]
    out = np.full((X.shape[0], k), 1 << 32, dtype=np.uint64)
    lengths = np.diff(X.indptr)
    budget = max(1, (1 << 22) // k)   # columns hashed per block
    lo = 0
    while lo < X.shape[0]:
        check_cancel(cancel)
        hi = int(np.searchsorted(X.indptr, X.indptr[lo] + budget, side="right")) - 1
        hi = min(max(hi, lo + 1), X.shape[0])
        cols = X.indices[X.indptr[lo]:X.indptr[hi]].astype(np.uint64) + np.uint64(offset)
        if len(cols):
            # (k, columns): each row's columns lie side by side, so the minimum runs over contiguous
            # memory (twice as fast as a reduction down (columns, k); the same values)
            hashed = (a * cols[None, :] + b) >> np.uint64(32)   # wraps mod 2⁶⁴ by design
            rows = np.flatnonzero(lengths[lo:hi])
            out[lo + rows] = np.minimum.reduceat(hashed, X.indptr[lo:hi][rows] - X.indptr[lo], axis=1).T
        lo = hi
    return out


def _distinct_sorted(keys: np.ndarray) -> np.ndarray:
    return keys[np.r_[True, keys[1:] != keys[:-1]]] if len(keys) else keys


def _band_keys(band: np.ndarray, has: np.ndarray, n: int) -> np.ndarray:
    """One band's candidate pairs as sorted distinct keys ``i·n + j`` (i < j)."""
    i, j = _bucket_pairs(band, has)
    keys = np.minimum(i, j).astype(np.int64) * n + np.maximum(i, j)
    keys.sort()
    return _distinct_sorted(keys)


def _candidate_keys(sig: np.ndarray, has: np.ndarray, progress=None, cancel=None) -> np.ndarray:
    """The rows that share a band of the signature, as sorted distinct keys ``i·n + j`` (i < j). The
    bands are keyed on the job's share of the cores, a few at a time (their sorts let the GIL go:
    1M recombined rows' 60 s of keys was one core's), and merged whenever `_MERGE_KEYS` keys wait,
    so memory holds the distinct candidates, one batch and the bands in hand, not each band's copy
    of a pair (1M recombined rows took over 24 GB). A set of keys: the same whatever the threads."""
    n, workers = len(sig), min(threads_now(SHARE), _THREADS)
    merged, batch, held = np.empty(0, np.int64), [], 0
    with ThreadPoolExecutor(workers, thread_name_prefix="bands") as pool:
        for lo in range(0, BANDS, workers):
            check_cancel(cancel)
            report(progress, 0.1 + 0.5 * lo / BANDS, "near-duplicates: candidate pairs")
            bands = [sig[:, b * ROWS:(b + 1) * ROWS] for b in range(lo, min(BANDS, lo + workers))]
            for keys in pool.map(lambda band: _band_keys(band, has, n), bands):
                batch.append(keys)
                held += len(keys)
            if held >= _MERGE_KEYS or lo + workers >= BANDS:
                # sorted runs (the merged keys, each band's): a stable sort (Timsort) merges them in
                # linear time, where sorting all again made the merges most of 1M rows' search
                merged = _distinct_sorted(np.sort(np.concatenate([merged, *batch]), kind="stable"))
                batch, held = [], 0
    return merged


def _bucket_pairs(band: np.ndarray, has: np.ndarray):
    """Pairs of rows whose band of the signature is identical (rows in a bucket larger than
    `_STAR_ABOVE` are paired with its first row only). Every bucket's pairs are made at once, in
    arrays (a Python loop over buckets took 14 s of 100k rows' 32 bands)."""
    rows = np.flatnonzero(has)
    if len(rows) < 2:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    view = np.ascontiguousarray(band[rows]).view(np.dtype((np.void, band.dtype.itemsize * band.shape[1]))).ravel()
    order = np.argsort(view, kind="stable")
    sorted_view = view[order]
    starts = np.flatnonzero(np.r_[True, sorted_view[1:] != sorted_view[:-1]])
    sizes = np.diff(np.r_[starts, len(order)])
    members = rows[order]                           # rows in bucket order
    end = np.repeat(starts + sizes, sizes)          # each position's bucket end
    star = np.repeat(sizes > _STAR_ABOVE, sizes)
    first = np.repeat(starts, sizes)
    pos = np.arange(len(order))
    # a small bucket: each position pairs with every later one; a large one: its first with the rest
    later = np.where(star, 0, end - pos - 1)
    left = np.repeat(pos, later)
    offset = np.arange(len(left)) - np.repeat(np.cumsum(later) - later, later)
    right = left + 1 + offset
    starred = star & (pos != first)
    return (np.concatenate([members[left], members[first[starred]]]),
            np.concatenate([members[right], members[starred]]))


def drop_one_of_each(ids, pairs: pd.DataFrame) -> dict:
    """Near-duplicate groups (examples connected through ``pairs``) → the examples to drop so one
    of each group stays: ``{dropped id: the id kept in its place}``; the kept one is the group's
    first in ``ids`` order."""
    ids = np.asarray(ids).astype(str)
    if not len(pairs):
        return {}
    pos = pd.Series(np.arange(len(ids)), index=ids)
    a, b = pos.reindex(pairs["a"].astype(str)).to_numpy(), pos.reindex(pairs["b"].astype(str)).to_numpy()
    ok = ~(np.isnan(a) | np.isnan(b))
    a, b = a[ok].astype(int), b[ok].astype(int)
    from scipy.sparse.csgraph import connected_components

    graph = sp.coo_matrix((np.ones(len(a)), (a, b)), shape=(len(ids), len(ids)))
    _, label = connected_components(graph, directed=False)
    first = pd.Series(np.arange(len(ids))).groupby(label).transform("min").to_numpy()
    grouped = np.flatnonzero(first != np.arange(len(ids)))
    return {str(ids[r]): str(ids[first[r]]) for r in grouped}


def near_duplicate_pairs(dataset, *, progress=None, cancel=None) -> pd.DataFrame:
    """A `core.data.dataset.Dataset`'s near-duplicate pairs (shared wording in every text field at
    `THRESHOLD` or more): ``a, b, overlap``. Preference pairs are compared by their prompt and their
    two responses whichever side each is on (the same prompt with near-identical responses, in either
    order or with the preference reversed, is a near-duplicate)."""
    if not dataset.text:
        raise InputError("near-duplicates compare the wording of text fields, and this dataset has none; choose "
                         "its text columns (--text / the Data page's column roles).")
    if getattr(dataset, "pairs", None) is not None:
        a, b = (dataset.table[c].astype(str) for c in ("response_a", "response_b"))
        first = a.where(a <= b, b)   # the responses in a fixed order: a pair's sides do not matter
        table = pd.DataFrame({"prompt": dataset.table["prompt"], "response_1": first, "response_2": a.where(a > b, b)})
        return DuplicateIndex(table, ["prompt", "response_1", "response_2"]).pairs(progress=progress, cancel=cancel)
    return DuplicateIndex(dataset.table, list(dataset.text)).pairs(progress=progress, cancel=cancel)


def drop_near_duplicates(frame: pd.DataFrame, pairs: pd.DataFrame) -> tuple:
    """(``frame`` with one example of each group of near-duplicates among its rows kept — the
    first in its order —, the manifest record of what was dropped). Pairs with a member outside
    the frame drop nothing: the filter or the selection already took that one out."""
    ids = frame["id"].astype(str)
    inside = pairs[pairs["a"].isin(ids) & pairs["b"].isin(ids)]
    dropped = drop_one_of_each(ids, inside)
    record = {"measure": "core.text.duplicates: the Jaccard index of character 4-gram sets, the smallest over the text "
                         "fields", "threshold": THRESHOLD, "pairs_in_selection": int(len(inside)),
              "dropped": [{"id": d, "kept": k} for d, k in dropped.items()]}
    return frame[~ids.isin(list(dropped))].reset_index(drop=True), record
