"""Tokens as the z-statistics read them (Gardner et al. 2021): the one place the rule is defined.

Text is lowercased; every character that is not a letter, a digit, a combining
mark or whitespace is deleted (so ``don't`` -> ``dont``, ``t-shirt`` ->
``tshirt``, ``.`` -> nothing); the rest is split on whitespace. Missing text is
the empty string. `tokenize` applies the rule to one string (`tokenize_many` to a
list); `tokenise_column` applies it, vectorised with pyarrow, to a whole column
(tokens dictionary-encoded, no per-token Python loop). Binary sparse helpers for
the feature matrices built from the codes are here too.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import scipy.sparse as sp

# Characters to delete: anything but letters (L), digits (N), marks (M), whitespace.
_STRIP_PATTERN = r"[^\p{L}\p{N}\p{M}\s\p{Z}]+"


def _arrow_strings(values) -> pa.Array:
    """A pyarrow large_string array of the values (zero-copy for pandas' arrow-backed strings)."""
    arr = None
    if isinstance(values, pd.Series) and not pd.api.types.is_object_dtype(values):
        try:
            arr = pa.array(values, from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
            arr = None
    if arr is None:
        arr = pa.array(np.asarray(values, dtype=object), type=pa.large_string(), from_pandas=True)
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    return arr.cast(pa.large_string())


def _normalise(values) -> pa.Array:
    """Lowercase and strip punctuation (the module docstring's rule), as pyarrow strings."""
    arr = pc.fill_null(_arrow_strings(values), "")
    arr = pc.utf8_lower(arr)
    return pc.replace_substring_regex(arr, pattern=_STRIP_PATTERN, replacement="")


def tokenize(text: Optional[str]) -> list:
    """Tokens of one string by this module's rule (lowercase, punctuation deleted, whitespace split).

    >>> tokenize("A man isn't sleeping .")
    ['a', 'man', 'isnt', 'sleeping']
    """
    return tokenize_many([text])[0]


def tokenize_many(texts) -> list:
    """`tokenize` for many strings at once (one vectorised pass)."""
    texts = list(texts)
    codes, doc, vocab = tokenise_column(np.asarray(texts, dtype=object))
    words = vocab[codes]
    cuts = np.searchsorted(doc, np.arange(1, len(texts)))
    return [part.tolist() for part in np.split(words, cuts)] if texts else []


def tokenise_column(values):
    """Token codes, their example positions and the vocabulary of one text column.

    Returns
    -------
    codes : int64 array (T,)
        Token ids into `vocab`, in reading order.
    doc : int64 array (T,)
        Position of the example each token belongs to (non-decreasing).
    vocab : object array of str (V,)
    """
    # trimmed first: pyarrow 26's utf8_split_whitespace sometimes keeps the whitespace that ends the
    # last text of a buffer in its last token ("i cant " → "cant "), run to run (tests/unit/test_pairs.py
    # found it); the pieces trimming removes are empty ones, dropped below anyway
    norm = pc.utf8_trim_whitespace(_normalise(values))
    lists = pc.utf8_split_whitespace(norm)
    lens = pc.fill_null(pc.list_value_length(lists), 0).to_numpy(zero_copy_only=False).astype(np.int64)
    flat = pc.list_flatten(lists)
    if isinstance(flat, pa.ChunkedArray):
        flat = flat.combine_chunks()
    enc = pc.dictionary_encode(flat)
    codes = enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    vocab = np.asarray(enc.dictionary.to_numpy(zero_copy_only=False), dtype=object)
    doc = np.repeat(np.arange(len(lens), dtype=np.int64), lens)
    # Leading/trailing whitespace and empty texts yield "" pieces: drop them.
    empty = np.flatnonzero(vocab == "")
    if len(empty):
        keep = codes != empty[0]
        codes, doc = codes[keep], doc[keep]
        # Re-number so the vocabulary has no "" entry.
        remap = np.arange(len(vocab), dtype=np.int64)
        remap[empty[0] + 1 :] -= 1
        codes = remap[codes]
        vocab = np.delete(vocab, empty[0])
    return codes, doc, vocab


# --------------------------------------------------------------------------- sparse helpers


def binary_csr(rows: np.ndarray, cols: np.ndarray, shape) -> sp.csr_matrix:
    """A float32 0/1 CSR matrix with ones at (rows, cols); repeated pairs count once."""
    m = sp.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=shape)
    m.sum_duplicates()
    m.data[:] = 1.0
    return m


def keep_columns(X: sp.csr_matrix, keep: np.ndarray) -> sp.csr_matrix:
    """X[:, keep] for a boolean mask, by re-indexing (faster than fancy indexing)."""
    keep = np.asarray(keep, dtype=bool)
    if keep.all():
        return X
    new_index = np.cumsum(keep) - 1
    mask = keep[X.indices]
    row_of = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    indptr = np.zeros(X.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(row_of[mask], minlength=X.shape[0]), out=indptr[1:])
    return sp.csr_matrix(
        (X.data[mask], new_index[X.indices[mask]].astype(X.indices.dtype), indptr), shape=(X.shape[0], int(keep.sum()))
    )
