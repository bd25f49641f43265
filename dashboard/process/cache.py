"""A memory-bounded cache for the shared server: ``get_or_compute(kind, key, fn)``.

Every large object the dashboard holds (datasets, representations Φ, runs, example
tables, projections, z-statistics, live results) goes through one `BoundedCache`.
Entries are measured in bytes (`sizeof`) when stored; past the budget the least
recently used entries are evicted, so a server that runs for weeks stays flat. Kinds of
many small, cheap entries (the live result of every τ/n a slider passed through) are also
capped in number (`KIND_LIMITS`), so they never push the expensive ones out.
Everything cached can be recomputed (datasets from their source, Φ and
projections from the disk cache, runs from the run store), so an eviction costs
time, never data. The budget is ``$ARTIFACT_LENS_CACHE_MB`` (default 1024 MB).

No streamlit here: the cache is plain Python and unit-tested on its own.
"""
from __future__ import annotations

import logging
import sys
import threading
from collections import OrderedDict
from typing import Any, Callable, Optional

import numpy as np
import pandas as pd

from artifact_lens.base.keys import ResultKey, require_key
from artifact_lens.base.settings import settings

__all__ = ["BoundedCache", "sizeof", "default_budget", "KIND_LIMITS"]

log = logging.getLogger("artifact_lens.cache")

#: entries kept per kind at most, least recently used dropped first: a live result (τ, n) is
#: recomputed from the trajectory in milliseconds, yet at 100k examples each holds 1.3 MB and a
#: slider dragged for ten minutes makes hundreds
KIND_LIMITS = {"live": 32, "reviews": 16}


def default_budget() -> int:
    """Bytes: ``$ARTIFACT_LENS_CACHE_MB`` megabytes, else 1024 MB (`core.base.settings`)."""
    return int(settings().cache_mb * (1 << 20))


def sizeof(value: Any, _seen: Optional[set] = None, _depth: int = 0) -> int:
    """Approximate bytes held by ``value``: arrays, sparse matrices and DataFrames exactly,
    objects through their attributes (three levels deep), shared objects counted once.
    An object with an ``nbytes`` attribute or method is trusted."""
    seen = set() if _seen is None else _seen
    if id(value) in seen:
        return 0
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        return 0 if value.base is not None and id(value.base) in seen else int(value.nbytes)
    if isinstance(value, (pd.DataFrame, pd.Series, pd.Index)):
        usage = value.memory_usage(deep=True, index=True) if not isinstance(value, pd.Index) \
            else value.memory_usage(deep=True)
        return int(np.sum(usage)) + _arrays_in(value, seen)
    if hasattr(value, "data") and hasattr(value, "indices") and hasattr(value, "indptr"):  # scipy sparse
        return int(value.data.nbytes + value.indices.nbytes + value.indptr.nbytes)
    nbytes = getattr(value, "nbytes", None)
    if nbytes is not None and not isinstance(value, (np.generic, bytes)):
        return int(nbytes() if callable(nbytes) else nbytes)
    if isinstance(value, (str, bytes, int, float, bool, type(None), np.generic)) or _depth >= 3:
        return sys.getsizeof(value)
    if isinstance(value, dict):
        items = list(value.values())
    elif isinstance(value, (list, tuple, set, frozenset)):
        items = list(value)
    else:
        items = list(getattr(value, "__dict__", {}).values())
    return sys.getsizeof(value) + sum(sizeof(v, seen, _depth + 1) for v in items)


def _arrays_in(value, seen: set) -> int:
    """Bytes of the buffers behind the arrays an object column holds (an embedding column: one
    vector per row). pandas' deep memory usage counts an array that owns its data, but only the
    header of a view; vectors read from Parquet are views of one buffer, counted here once."""
    columns = [value] if isinstance(value, pd.Series) else \
        [value[c] for c in value.columns] if isinstance(value, pd.DataFrame) else []
    total = 0
    for col in columns:
        if col.dtype != object or not len(col) or not isinstance(col.iloc[0], np.ndarray):
            continue
        for a in col.to_numpy():
            if not isinstance(a, np.ndarray):
                continue
            owner = a
            while isinstance(owner.base, np.ndarray):
                owner = owner.base
            if owner is not a and id(owner) not in seen:   # an array owning its data: pandas counted it
                seen.add(id(owner))
                total += int(owner.nbytes)
    return total


def _entry(kind: str, key) -> tuple:
    return kind, require_key(key, f"a cached {kind}")


class BoundedCache:
    """Least-recently-used cache bounded by bytes, safe across threads and sessions.

    Parameters
    ----------
    budget : int, optional
        Bytes (default `default_budget`). One entry larger than the budget is kept
        alone (it is in use) and everything else is evicted.
    limits : dict, optional
        Kind -> most entries of that kind (default `KIND_LIMITS`).

    Every entry is named by its kind and a `core.base.keys.ResultKey` (the key of the data it was
    computed from, with its settings): a tuple, a path or any other text is refused, so nothing is
    cached under a name that outlives its data.
    """

    def __init__(self, budget: Optional[int] = None, limits: Optional[dict] = None):
        self.budget = default_budget() if budget is None else int(budget)
        self.limits = dict(KIND_LIMITS if limits is None else limits)
        self._entries: "OrderedDict[tuple, tuple]" = OrderedDict()   # (kind, key) -> (value, bytes)
        self._computing: dict = {}                                   # (kind, key) -> Lock
        self._lock = threading.Lock()
        self.nbytes = 0
        self.hits = self.misses = self.evictions = 0

    def __len__(self) -> int:
        return len(self._entries)

    def peek(self, kind: str, key: ResultKey):
        """The cached value or None, without computing (and without refreshing its age)."""
        with self._lock:
            entry = self._entries.get(_entry(kind, key))
            return None if entry is None else entry[0]

    def put(self, kind: str, key: ResultKey, value) -> Any:
        """Store ``value`` (None is not stored) and evict past the budget; returns it."""
        _entry(kind, key)
        if value is None:
            return None
        size = sizeof(value)
        with self._lock:
            old = self._entries.pop((kind, key), None)
            if old is not None:
                self.nbytes -= old[1]
            self._entries[(kind, key)] = (value, size)
            self.nbytes += size
            self._evict(keep=(kind, key))
        return value

    def get_or_compute(self, kind: str, key: ResultKey, fn: Callable[[], Any]):
        """The value for (kind, key), computing it with ``fn()`` on a miss.

        Concurrent callers of the same missing entry wait for one computation. A
        ``None`` result is returned but not stored; an exception propagates and
        stores nothing.
        """
        full = _entry(kind, key)
        with self._lock:
            entry = self._entries.get(full)
            if entry is not None:
                self._entries.move_to_end(full)
                self.hits += 1
                return entry[0]
            gate = self._computing.setdefault(full, threading.Lock())
        with gate:
            with self._lock:
                entry = self._entries.get(full)
                if entry is not None:       # computed by the caller we waited for
                    self._entries.move_to_end(full)
                    self.hits += 1
                    return entry[0]
                self.misses += 1
            try:
                return self.put(kind, key, fn())
            finally:
                with self._lock:
                    self._computing.pop(full, None)

    def discard(self, kind: str, key: ResultKey) -> None:
        with self._lock:
            entry = self._entries.pop(_entry(kind, key), None)
            if entry is not None:
                self.nbytes -= entry[1]

    def stats(self) -> dict:
        with self._lock:
            kinds: dict = {}
            for (kind, _), (_, size) in self._entries.items():
                kinds[kind] = kinds.get(kind, 0) + size
            return {"entries": len(self._entries), "bytes": self.nbytes, "budget": self.budget,
                    "hits": self.hits, "misses": self.misses, "evictions": self.evictions, "by_kind": kinds}

    def _evict(self, keep: tuple) -> None:
        limit = self.limits.get(keep[0])
        if limit is not None:
            same = [k for k in self._entries if k[0] == keep[0]]   # oldest first
            for old in same[:max(len(same) - limit, 0)]:
                if old != keep:
                    self.nbytes -= self._entries.pop(old)[1]
                    self.evictions += 1
        while self.nbytes > self.budget and len(self._entries) > 1:
            oldest = next(iter(self._entries))
            if oldest == keep:
                self._entries.move_to_end(oldest)
                continue
            _, size = self._entries.pop(oldest)
            self.nbytes -= size
            self.evictions += 1
