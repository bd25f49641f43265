"""The dataset in view and what is computed from it alone, fetched through the server's bounded cache.

Each function names one object (the dataset, Φ, z-statistics, the feature matrix) and how to
recompute it on a miss, so an eviction costs time, never state: datasets reload from their
`Source`, Φ comes back from the disk cache. `named` is the key every service names a result about
the dataset by. The run in view is `run_view`'s, the Map's settings `map_settings`', one example's
neighbours `nearby`'s.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from artifact_lens.base.errors import InputError
from artifact_lens.base.keys import ResultKey, read_key, result_key
from artifact_lens.dashboard.state.session import Source


# ---------------------------------------------------------------------- datasets
def _roles(source: Source) -> dict:
    return {k: v for k, v in source.roles.items() if v not in (None, "", [])}


def load(tab, source: Source):
    """(key, Dataset) for a source. The key is the content read (`core.data.dataset.Dataset.content_key`),
    never the path: the source is read again whenever it may have changed since the server last read
    it (`core.data.source_files.source_stamp`), so a file edited in place is a new dataset with results of
    its own, and the old content's stay reachable under their own key. Raises InputError."""
    from artifact_lens.data.source_files import source_stamp
    from artifact_lens.data.sources import load_dataset

    cache = tab.server.cache
    stamp = source_stamp(source.source)
    # what the file held when last read, by its state (path, size, times): a pointer to content, not a result
    read_as = None if stamp is None else result_key(stamp, _roles(source))
    key = cache.peek("read", read_as) if read_as else None
    ds = cache.peek("dataset", key) if key else None
    if ds is None:
        fresh = load_dataset(source.source, **_roles(source))
        key = fresh.content_key
        ds = cache.get_or_compute("dataset", key, lambda: fresh)   # one object per content, however often read
        if read_as:
            cache.put("read", read_as, key)
    cache.put("source", key, source)   # tiny; lets a shared link reload an evicted dataset
    return key, ds


class SourceChanged(InputError):
    """A dataset's source no longer holds the content a page, a link or a result was computed from."""


def dataset_by_key(tab, key: str, source: Optional[Source] = None):
    """The dataset whose content has this key, reloaded from ``source`` (or the remembered one) on a
    miss; None when the server does not know how to load it. Raises `SourceChanged` when the source
    now holds other content (an edited file): no result of the old content is ever shown for it."""
    from artifact_lens.data.sources import load_dataset

    cache, key = tab.server.cache, read_key(key)

    def reload():
        src = source or cache.peek("source", key)
        if src is None:
            return None
        found = load_dataset(src.source, **_roles(src))
        if found.content_key != key:
            raise SourceChanged(f"{src.label or src.source} has changed since it was loaded: what is shown was "
                                "computed from its earlier content. Load it again on the Data page to work on "
                                "what it holds now.")
        return found

    return cache.get_or_compute("dataset", key, reload)


def dataset(tab):
    sess = tab.session
    return dataset_by_key(tab, sess.ds_key, sess.source)


def representation(tab):
    """Φ of the current dataset (the disk cache makes a reload after eviction cheap)."""
    from artifact_lens.representations import represent

    sess = tab.session
    ds = dataset(tab)
    return tab.server.cache.get_or_compute("representation", named(tab, sess.spec),
                                           lambda: represent(ds, sess.spec))


def named(tab, *settings) -> ResultKey:
    """The key of a result about the current dataset with these settings (`core.base.keys.result_key`
    of its content key): what every service names its cached results and jobs by."""
    return result_key(tab.session.ds_key, *settings)


# ---------------------------------------------------------------------- z-statistics
def cached(tab, kind: str, key, compute):
    """A result about the current dataset (z-statistics, z-filtering, ...), cached by ``key`` (its settings)."""
    return tab.server.cache.get_or_compute(kind, named(tab, key), compute)


def zstats(tab, min_count: int = 5, alpha: float = 0.01):
    from artifact_lens.zstats import compute_z

    ds = dataset(tab)
    return cached(tab, "zstats", (int(min_count), float(alpha)),
                  lambda: compute_z(ds, min_count=int(min_count), alpha=float(alpha)))


def feature_matrix(tab):
    """The binary example × feature matrix (`core.text.features.feature_matrix`) of the current dataset."""
    from artifact_lens.text.features import feature_matrix as of_dataset

    ds = dataset(tab)
    return cached(tab, "features", None, lambda: of_dataset(ds))


def ids_with_feature(tab, name: str) -> np.ndarray:
    """Ids of the examples that carry feature ``name``."""
    from artifact_lens.text.features import ids_with_feature as carriers

    return carriers(feature_matrix(tab), name)


def check_spec(spec: str, ds) -> str:
    """The canonical spec of ``spec`` for ``ds`` (raises InputError naming the problem)."""
    from artifact_lens.representations import resolve_spec

    if not spec:
        raise InputError("no representation spec given; choose a kind or type a spec such as "
                         "tfidf-svd:fields=hypothesis")
    return resolve_spec(ds, spec)


