"""Stable keys: one way to name a computed thing by what it was computed from.

A key is a hex prefix of the SHA-256 of a description. Descriptions are JSON (keys sorted,
anything else as its ``str``), so the same inputs give the same key in every process, on
every machine and after a restart: run files, evaluations, maps and background jobs are all
found again by their keys. Changing how a description is written changes every key made
from it, so existing stores would miss; each caller keeps the description it always had.

Two functions name things, and nothing else does:
- `data_key` names data by its bytes (a dataset's `fingerprint` and `content_key`);
- `result_key` names everything computed from data: its first argument is the key of the data
  read (a content key, or the key of a result it builds on, as an evaluation builds on its run),
  the rest are the settings. It refuses a path or any other text in that place.

Both return a `ResultKey`. The stores on disk (`core.base.result_store.ResultStore.save`), the
dashboard's cache and its background jobs accept only a `ResultKey`, so a result cannot be kept
under a name that does not come from its data; a key read back from a link, a record or a file name
becomes one again through `read_key`, which checks its form.
"""
from __future__ import annotations

import hashlib
import json
import re

import numpy as np

from .errors import InputError

__all__ = ["digest", "digest_of", "key_of", "jsonable", "ResultKey", "data_key", "result_key", "read_key", "require_key",
           "KEY_FORM"]

#: the form of every key: hex digits, after a lower-case kind where a store keeps several (``umap-…``)
KEY_FORM = re.compile(r"(?:[a-z][a-z0-9_]*-)?[0-9a-f]{12,64}")


class ResultKey(str):
    """The name of data or of a result computed from it, made by `data_key` or `result_key` (or read
    back by `read_key`). It is a ``str``; what makes it one is where it came from."""

    __slots__ = ()


def require_key(key, what: str) -> ResultKey:
    """``key`` itself, once checked to be a `ResultKey`: the one guard of every place that keeps a
    result (a store, the dashboard's cache, a job, the fit memo). TypeError naming ``what`` otherwise."""
    if not isinstance(key, ResultKey):
        raise TypeError(f"{what} is named by core.base.keys.result_key of the data it came from, "
                        f"not {type(key).__name__} {str(key)[:40]!r}")
    return key


def read_key(text) -> ResultKey:
    """``text`` (a key read back from a link, a record or a file name) as a `ResultKey`, after checking
    it has the form the key functions give. Raises InputError otherwise (a hand-edited link)."""
    if isinstance(text, ResultKey):
        return text
    if not isinstance(text, str) or not KEY_FORM.fullmatch(text):
        raise InputError(f"{str(text)[:60]!r} is not a key this tool made (hex digits, as in a link the "
                         "dashboard gives); copy the link again, or load the dataset again on the Data page.")
    return ResultKey(text)


def data_key(content, length: int = 16) -> ResultKey:
    """The key of data: `digest` of its bytes (``content``: bytes, text or an iterable of them)."""
    return ResultKey(digest(content, length))


def result_key(data, *settings, length: int = 16, kind: str = "") -> ResultKey:
    """The one key of a computed result: ``data`` is the key of what it was computed from (a
    `data_key` or another `result_key`: never a path), ``settings`` everything else that shapes it
    (JSON-able values, in a fixed order), ``kind`` an optional prefix for a store holding several
    kinds. The hex part is `key_of` ``[data, *settings]``, so the keys of runs and evaluations are
    the ones they always had."""
    if not isinstance(data, str) or not KEY_FORM.fullmatch(data):
        raise TypeError(f"a result is named by the key of the data it was computed from (`data_key`, "
                        f"`result_key`), not by {str(data)[:60]!r}")
    if kind and not re.fullmatch(r"[a-z][a-z0-9_]*", kind):
        raise ValueError(f"a key's kind is lower-case letters, digits and _, not {kind!r}")
    hexed = key_of([str(data), *settings], length)
    return ResultKey(f"{kind}-{hexed}" if kind else hexed)


def digest(data, length: int = 16) -> str:
    """The first ``length`` hex digits of the SHA-256 of ``data``: bytes, text (as UTF-8), or an
    iterable of either, hashed in order as one stream (a large table, chunk by chunk)."""
    h = hashlib.sha256()
    for part in ((data,) if isinstance(data, (str, bytes, bytearray, memoryview)) else data):
        h.update(part.encode() if isinstance(part, str) else part)   # any contiguous buffer, uncopied
    return h.hexdigest()[:length]


def digest_of(*parts, length: int = 32) -> ResultKey:
    """`data_key` of values of several kinds at once, each written so it cannot run into the next: a
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
    return data_key(stream(), length)


def key_of(description, length: int = 16) -> str:
    """`digest` of ``description`` written as JSON with sorted keys (``str`` for what JSON lacks)."""
    return digest(json.dumps(description, sort_keys=True, default=str), length)


def jsonable(value):
    """``value`` with numpy scalars and arrays, tuples, text types (a `ResultKey`) and non-finite floats
    turned into JSON types (NaN → None, ±inf → ±1e308), so records and keys never depend on how a
    number was held."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, str) and type(value) is not str:   # a ResultKey: a YAML or Parquet writer sees text
        return str(value)
    if isinstance(value, float) and not np.isfinite(value):
        return None if np.isnan(value) else (1e308 if value > 0 else -1e308)
    return value
