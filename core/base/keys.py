"""Stable keys: one way to name a computed thing by what it was computed from.

A key is a hex prefix of the SHA-256 of a description. Descriptions are JSON (keys sorted,
anything else as its ``str``), so the same inputs give the same key in every process, on
every machine and after a restart: run files, evaluations, maps and background jobs are all
found again by their keys. Changing how a description is written changes every key made
from it, so existing stores would miss; each caller keeps the description it always had.
"""
from __future__ import annotations

import hashlib
import json

import numpy as np

__all__ = ["digest", "digest_of", "key_of", "jsonable"]


def digest(data, length: int = 16) -> str:
    """The first ``length`` hex digits of the SHA-256 of ``data``: bytes, text (as UTF-8), or an
    iterable of either, hashed in order as one stream (a large table, chunk by chunk)."""
    h = hashlib.sha256()
    for part in ((data,) if isinstance(data, (str, bytes, bytearray, memoryview)) else data):
        h.update(part.encode() if isinstance(part, str) else part)   # any contiguous buffer, uncopied
    return h.hexdigest()[:length]


def digest_of(*parts, length: int = 32) -> str:
    """`digest` of values of several kinds at once, each written so it cannot run into the next: a
    string with its length, an array with its dtype and shape (then its bytes; an object array as
    JSON text), bytes with their length. For content keys of in-memory work (a fit's memo, a figure)."""
    def stream():
        for part in parts:
            if isinstance(part, str):
                yield f"s{len(part)}:{part}"
            elif isinstance(part, (bytes, bytearray, memoryview)):
                yield f"b{memoryview(part).nbytes}:"
                yield part
            else:
                a = np.ascontiguousarray(part)
                if a.dtype == object:   # labels as Python objects: their text
                    text = json.dumps(a.tolist(), default=str)
                    yield f"o{len(text)}:{text}"
                else:
                    yield f"a{a.dtype.str}{a.shape}:"
                    yield a.view(np.uint8).reshape(-1) if a.size else b""
    return digest(stream(), length)


def key_of(description, length: int = 16) -> str:
    """`digest` of ``description`` written as JSON with sorted keys (``str`` for what JSON lacks)."""
    return digest(json.dumps(description, sort_keys=True, default=str), length)


def jsonable(value):
    """``value`` with numpy scalars and arrays, tuples and non-finite floats turned into JSON types
    (NaN → None, ±inf → ±1e308), so records and keys never depend on how a number was held."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and not np.isfinite(value):
        return None if np.isnan(value) else (1e308 if value > 0 else -1e308)
    return value
