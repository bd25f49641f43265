"""2-D projections of a representation Φ for the map: UMAP (umap-learn) and a fast PCA.

A projection is computed once per representation and cached on disk, keyed by the
representation's key (dataset fingerprint + spec), the method and its parameters,
so the dashboard never recomputes it on a knob change or a page switch. The
dashboard's Map page and ``artifact-lens project DATASET -r SPEC`` share that
cache: a map precomputed from the command line opens at once in the app.

UMAP runs in explicit, recorded stages (``info["stages"]`` holds each one's seconds):

1. **PCA** to ``pca_dims`` (default 50) dimensions when Φ is wider: the neighbour
   search scales with the dimension and the map barely changes. Fitted on a seeded
   sample of at most 100,000 rows, applied to all; ``info["pca"]`` records the dims,
   the explained variance and the rows it was fitted on.
2. **numba**: umap-learn and pynndescent compile their kernels with numba. The
   compiled code is cached on disk in ``NUMBA_CACHE_DIR``, which is pointed at the
   ``numba/`` folder of the cache root (below) when unset. The first run on a
   machine compiles for tens of seconds (measured: ``benchmarks/projection_bench.py``);
   later runs, in any process, load the cached kernels instead. Numba reads the
   variable when it is first imported, so it is set before umap is imported, and
   umap is imported lazily, only when a UMAP projection is actually computed.
3. **kNN graph** of the PCA'd rows (``n_neighbors``, ``metric``), built with
   umap-learn's own `nearest_neighbors` (pynndescent) and cached on disk in its own
   file, keyed by the PCA'd input (representation key, shape, ``pca_dims``, seed,
   fitted rows) + ``n_neighbors`` + ``metric``. It is handed to UMAP through
   ``precomputed_knn``, so a change of display parameters only (``min_dist``,
   ``spread``) skips the neighbour search: ``info["knn"]["cached"]`` says so.
4. **Layout**: UMAP fitted on every row up to ``fit_size`` (default 200,000). Above
   it, a seeded sample of ``fit_size`` rows is fitted and the rest are placed with
   ``transform`` in chunks (progress and cancellation points); their neighbours
   among the fitted rows are part of the cached kNN graph too.

Cache location: ``cache_dir`` argument, else ``$ARTIFACT_LENS_CACHE``, else
``~/.cache/artifact-lens``; projections and kNN graphs live in its ``projections/``
folder, numba's kernels in ``numba/``.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import numpy as np

from ..base.result_store import ResultStore
from ..base.errors import InputError
from ..base import paths
from ..base.progress import check_cancel, report
from ..base.pca import FIT_ROWS, fit_pca, pca_transform
from ..base.keys import data_key, result_key

__all__ = ["Projection", "project", "representation_key", "ensure_numba_cache", "METHODS", "METRICS", "DEFAULTS"]

METHODS = ("umap", "pca")
# metrics pynndescent and umap both know by name (the kNN graph is built by the first, used by the second)
METRICS = ("euclidean", "cosine", "manhattan", "correlation", "chebyshev")
# `project`'s UMAP defaults: the dashboard's Map page asks for these, so a map precomputed with them is found there
DEFAULTS = dict(n_neighbors=15, min_dist=0.1, spread=1.0, metric="euclidean", random_state=0, fit_size=200_000,
                pca_dims=50)


def representation_key(ds, rep) -> str:
    """The key of Φ in the projection cache: the dataset's fingerprint and the representation's spec
    (what the dashboard and ``artifact-lens project`` both pass to `project`)."""
    return result_key(ds.fingerprint, rep.spec, length=24)


def ensure_numba_cache(cache_root=None) -> str:
    """Numba's kernel cache folder: ``$NUMBA_CACHE_DIR`` when set, else ``<cache root>/numba``; given
    to numba's own configuration (the environment is left as it is). Call it before umap and
    pynndescent are imported: their kernels find their cache folder when they are defined."""
    import numba

    folder = os.environ.get("NUMBA_CACHE_DIR") or str((Path(cache_root) if cache_root is not None
                                                        else paths.cache_dir()) / "numba")
    Path(folder).mkdir(parents=True, exist_ok=True)
    numba.config.CACHE_DIR = folder
    return folder


@dataclass
class Projection:
    """A 2-D layout of the representation's rows.

    Attributes
    ----------
    xy : numpy.ndarray, float32, shape (N, 2)
    ids : numpy.ndarray of str
        The row ids, aligned with ``xy`` (those of the representation).
    method : str
    params : dict
    info : dict
        Seconds, the stages' seconds (``stages``), the PCA step (``pca``: dims, explained
        variance, fitted rows), the kNN graph (``knn``: cached or built), rows fitted vs
        transformed, cache hit.
    """

    xy: np.ndarray
    ids: np.ndarray
    method: str
    params: dict
    info: dict = field(default_factory=dict)


def _check_params(method, n_neighbors, min_dist, fit_size, pca_dims, spread=1.0, metric="euclidean"):
    if method not in METHODS:
        raise InputError(f"method={method!r} is not supported; use 'umap' or 'pca' (fast, for previews)")
    if isinstance(n_neighbors, bool) or not isinstance(n_neighbors, (int, np.integer)) or n_neighbors < 2:
        raise InputError(f"n_neighbors={n_neighbors!r} must be an integer >= 2; UMAP's usual value is 15")
    if not isinstance(spread, (int, float, np.number)) or not 0.0 < float(spread) <= 10.0:
        raise InputError(f"spread={spread!r} must be a number in (0, 10]; UMAP's usual value is 1.0")
    if not isinstance(min_dist, (int, float, np.number)) or not 0.0 <= float(min_dist) <= min(1.0, float(spread)):
        raise InputError(f"min_dist={min_dist!r} must be in [0, 1] and at most spread ({spread}); UMAP's usual "
                         "value is 0.1")
    if metric not in METRICS:
        raise InputError(f"metric={metric!r} is not supported; use one of {', '.join(METRICS)}")
    if fit_size is not None and (not isinstance(fit_size, (int, np.integer)) or fit_size < 10):
        raise InputError(f"fit_size={fit_size!r} must be an integer >= 10 (or None to fit on every row)")
    if pca_dims is not None and (not isinstance(pca_dims, (int, np.integer)) or pca_dims < 2):
        raise InputError(f"pca_dims={pca_dims!r} must be an integer >= 2 (or None to skip the PCA pre-reduction)")


#: the format of stored maps and kNN graphs (`maps`); bump when their arrays change
MAP_FORMAT = 1


def maps(cache_root) -> ResultStore:
    """The stored maps (``<method>-<digest>``) and UMAP kNN graphs (``knn-<digest>``) under a cache root."""
    return ResultStore(Path(cache_root) / "projections", suffix=".npz", format=MAP_FORMAT, what="map")


def _map_key(key: str, method: str, params: dict, shape) -> str:
    return result_key(key, method, params, list(shape), length=24, kind=method)


def _read_map(path):
    with np.load(path, allow_pickle=False) as npz:
        return npz["xy"], npz["ids"], json.loads(str(npz["info"]))


def _pca(X: np.ndarray, dims: int, random_state: int) -> np.ndarray:
    return pca_transform(fit_pca(X, dims, random_state), X)


def project(X, ids=None, *, key: Optional[str] = None, method: str = "umap", n_neighbors: int = 15,
            min_dist: float = 0.1, spread: float = 1.0, metric: str = "euclidean", random_state: int = 0,
            fit_size: Optional[int] = 200_000, pca_dims: Optional[int] = 50, chunk_size: int = 5000,
            cache_dir=None, use_cache: bool = True, only_cached: bool = False, parallel: bool = False,
            progress=None, cancel=None) -> Optional[Projection]:
    """Project Φ to 2-D, from the disk cache when this exact projection was made before.

    Parameters
    ----------
    X : array, shape (N, d)
        The representation Φ (float32).
    ids : array of str, optional
        Row ids (default: ``"0".."N-1"``).
    key : str, optional
        The key of X: `representation_key` (of the dataset's fingerprint and Φ's spec), as the
        dashboard and the CLI use, or any `core.base.keys.data_key`. Without one, X's bytes are
        hashed (slower for big X, but never a stale hit).
    method : {"umap", "pca"}
        ``"pca"`` is instant and deterministic, for tests and previews.
    n_neighbors, metric : UMAP parameters that define the kNN graph (a change rebuilds it).
    min_dist, spread : UMAP display parameters (a change reuses the cached kNN graph).
    random_state : int
        Seeds UMAP, the PCA and the fit sample.
    parallel : bool
        UMAP's neighbour search and layout on every core instead of one. What it gives up: the
        layout is no longer reproducible (umap-learn runs on one thread whenever it is seeded, and
        its threads race), so two runs give two different, equally valid maps; the PCA step and
        the fit sample stay seeded. Cached apart from the seeded map.
    fit_size : int or None
        Fit UMAP on at most this many rows (a seeded sample) and ``transform`` the rest;
        None fits every row.
    pca_dims : int or None
        Reduce X to this many dimensions by PCA before UMAP when it is wider.
    chunk_size : int
        Rows per ``transform`` call (progress and cancellation between chunks).
    cache_dir : path, optional
        Cache root (see the module docstring); ``use_cache=False`` skips reading and writing it.
    only_cached : bool
        Return the cached projection or None, never compute (a cheap check for the app).
    progress : callable(fraction, message), optional
    cancel : object with ``is_set()``, optional

    Returns
    -------
    Projection (or None with ``only_cached`` on a cache miss)
    """
    _check_params(method, n_neighbors, min_dist, fit_size, pca_dims, spread, metric)
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[0] < 3:
        raise InputError(f"X must be a 2-D array with at least 3 rows to project; got shape {X.shape}")
    if not np.isfinite(X).all():
        raise InputError("X contains NaN or inf values; fix the representation before projecting it")
    X = X.astype(np.float32, copy=False)
    n = X.shape[0]
    ids = np.asarray([str(i) for i in range(n)] if ids is None else ids).astype(str)
    if ids.shape[0] != n:
        raise InputError(f"ids has {ids.shape[0]} entries but X has {n} rows; pass the representation's ids")
    if key is None:
        key = data_key(np.ascontiguousarray(X).tobytes(), 24)
    params = {"random_state": int(random_state)}
    if method == "umap":
        params.update(n_neighbors=int(n_neighbors), min_dist=float(min_dist), spread=float(spread), metric=metric,
                      fit_size=None if fit_size is None else int(fit_size),
                      pca_dims=None if pca_dims is None else int(pca_dims))
        if parallel:   # only when asked: the seeded maps keep the keys they always had
            params["parallel"] = True
    cache_root = Path(cache_dir) if cache_dir is not None else paths.cache_dir()
    store, map_key = maps(cache_root), _map_key(key, method, params, X.shape)
    # a damaged cache file is a logged miss, recomputed and overwritten
    found = store.load_or_none(map_key, _read_map) if use_cache else None
    if found is not None:
        xy, cached_ids, info = found
        if cached_ids.shape == ids.shape and (cached_ids == ids).all():
            info["cache_hit"] = True
            report(progress, 1.0, "projection loaded from cache")
            return Projection(xy=xy, ids=ids, method=method, params=params, info=info)
    if only_cached:
        return None
    t0 = time.perf_counter()
    info: dict = {"rows": int(n), "dims": int(X.shape[1])}
    if method == "pca":
        report(progress, 0.1, "PCA projection")
        xy = _pca(X, 2, random_state) if X.shape[1] > 2 else np.pad(X, ((0, 0), (0, 2 - X.shape[1])))
    else:
        xy = _umap(X, key, params, info, chunk_size, cache_root, use_cache, progress, cancel)
    xy = np.ascontiguousarray(xy, dtype=np.float32)
    info["seconds"] = round(time.perf_counter() - t0, 3)
    info["computed_at"] = time.time()   # a later load from the cache still says when it was made
    info["cache_hit"] = False
    info["cache_file"] = str(store.path(map_key))
    if use_cache:
        store.save(map_key, lambda fh: np.savez(fh, xy=xy, ids=ids, info=np.array(json.dumps(info))))
    report(progress, 1.0, "projection ready")
    return Projection(xy=xy, ids=ids, method=method, params=params, info=info)


def _pca_step(X: np.ndarray, dims: int, random_state: int, progress, cancel):
    """PCA to ``dims`` dimensions (`core.base.pca`), and what it did."""
    pca = fit_pca(X, dims, random_state, FIT_ROWS)
    out = pca_transform(pca, X, progress=progress, cancel=cancel)
    record = {"from_dims": int(X.shape[1]), "dims": int(pca.n_components_), "fit_rows": int(pca.fit_rows_),
              "explained_variance": round(float(pca.explained_variance_ratio_.sum()), 4)}
    return out, record


class _CachedNeighbours:
    """Stands in for umap's search index in `transform`: returns the cached neighbours (among the
    fitted rows) of the rows about to be placed, so a rerun with other display parameters needs no
    search index and no search. umap-learn 0.5's `transform` uses only ``query`` and ``_angular_trees``."""

    def __init__(self, indices, dists, angular):
        self.indices, self.dists, self._angular_trees = indices, dists, bool(angular)
        self.rows = None   # positions (in the transformed rows) of the next `transform` call

    def query(self, X, k, epsilon=None):
        rows, self.rows = self.rows, None
        if rows is None or len(rows) != X.shape[0]:   # pragma: no cover - a misuse, never a silent wrong map
            raise RuntimeError("cached neighbours queried without the rows they belong to")
        return self.indices[rows, :k].copy(), self.dists[rows, :k].copy()


def _knn_key(key: str, shape, params, fitted: Optional[int]) -> str:
    # the PCA'd input is named by what makes it (Φ's key, shape, PCA dims, seed) and the rows fitted
    ident = [key, list(shape), params["pca_dims"], params["random_state"], fitted, params["n_neighbors"],
             params["metric"], "knn-1"] + (["parallel"] if params.get("parallel") else [])
    return result_key(key, *ident[1:], length=24, kind="knn")


def _read_knn(path):
    with np.load(path, allow_pickle=False) as z:
        return z["indices"], z["dists"], z["rest_indices"], z["rest_dists"], bool(z["angular"])


def _knn_graph(Xp, fit_rows, rest, n_neighbors, params, stored: Optional[tuple], progress, cancel):
    """(indices, dists) of the fitted rows among themselves, the rest's among the fitted rows, and
    whether the search was angular; from ``stored`` (a store of `maps` and a key) when it holds
    them, else searched and saved there."""
    # a damaged graph is a logged miss, searched again and overwritten
    out = stored[0].load_or_none(stored[1], _read_knn) if stored is not None else None
    if out is not None and out[0].shape == (len(fit_rows), n_neighbors) and out[2].shape[0] == len(rest):
        report(progress, 1.0, "kNN graph loaded from cache (no neighbour search)")
        return out, True
    import umap.umap_ as umap_
    from sklearn.utils import check_random_state

    report(progress, 0.0, f"kNN graph: {n_neighbors} neighbours of {len(fit_rows):,} rows ({params['metric']})")
    # umap's own neighbour search, with the settings its fit would use: the same graph, kept for reuse
    indices, dists, index = umap_.nearest_neighbors(
        Xp[fit_rows], n_neighbors, params["metric"], {}, False, check_random_state(params["random_state"]),
        low_memory=True, use_pynndescent=True, n_jobs=-1 if params.get("parallel") else 1, verbose=False)
    rest_indices = np.empty((len(rest), n_neighbors), dtype=np.int32)
    rest_dists = np.empty((len(rest), n_neighbors), dtype=np.float32)
    angular = bool(getattr(index, "_angular_trees", False))
    if len(rest):
        index.prepare()
        epsilon = 0.24 if angular else 0.12   # what umap's transform asks of the index
        step = 20_000
        for start in range(0, len(rest), step):
            check_cancel(cancel)
            report(progress, 0.6 + 0.4 * start / len(rest),
                   f"kNN graph: neighbours of the other rows {start:,}–{min(start + step, len(rest)):,} of {len(rest):,}")
            i, d = index.query(Xp[rest[start:start + step]], n_neighbors, epsilon=epsilon)
            rest_indices[start:start + step], rest_dists[start:start + step] = i, d
    out = (np.asarray(indices, dtype=np.int32), np.asarray(dists, dtype=np.float32), rest_indices, rest_dists, angular)
    if stored is not None:
        stored[0].save(stored[1], lambda fh: np.savez(fh, indices=out[0], dists=out[1], rest_indices=rest_indices,
                                                      rest_dists=rest_dists, angular=np.array(angular)))
    return out, False


def _import_umap():
    """umap-learn, imported lazily (the import itself is slow), with two more kernels disk-cached.

    umap 0.5 compiles ``smooth_knn_dist`` and ``compute_membership_strengths`` (parallel
    kernels of every fit) without numba's ``cache=True``: about 5 s per process that
    `Dispatcher.enable_caching` turns into a load. pynndescent's neighbour search
    (``nn_descent``) cannot be cached: it takes the metric as a function argument, so a
    process that searches compiles it (tens of seconds); the cached kNN graph is what
    spares a rerun from it."""
    import umap
    import umap.umap_ as umap_

    for name in ("smooth_knn_dist", "compute_membership_strengths"):
        kernel = getattr(umap_, name, None)
        if kernel is not None and hasattr(kernel, "enable_caching") and not kernel.signatures:
            kernel.enable_caching()
    return umap


def _umap(X, key, params, info, chunk_size, cache_root, use_cache, progress, cancel):
    import warnings

    from ..base.progress import span

    rng = np.random.default_rng(params["random_state"])
    n = X.shape[0]
    stages = info.setdefault("stages", {})
    t = time.perf_counter()
    if params["pca_dims"] is not None and X.shape[1] > params["pca_dims"]:
        report(progress, 0.0, f"PCA {X.shape[1]} → {params['pca_dims']} dimensions")
        X, info["pca"] = _pca_step(X, params["pca_dims"], params["random_state"], span(progress, 0.0, 0.05), cancel)
        info["pca_dims"] = info["pca"]["dims"]
        stages["pca"] = round(time.perf_counter() - t, 3)
    else:
        info["pca"] = None   # Φ is no wider than pca_dims (or the step is off): UMAP sees it as it is
    check_cancel(cancel)

    t = time.perf_counter()
    report(progress, 0.05, "loading umap-learn (numba kernels: compiled on a machine's first run, then cached)")
    info["numba_cache_dir"] = ensure_numba_cache(cache_root)
    umap = _import_umap()

    stages["import"] = round(time.perf_counter() - t, 3)
    check_cancel(cancel)
    fit_size = params["fit_size"]
    sampled = fit_size is not None and n > fit_size
    fit_rows = np.sort(rng.choice(n, size=fit_size, replace=False)) if sampled else np.arange(n)
    rest = np.setdiff1d(np.arange(n), fit_rows, assume_unique=True)
    n_neighbors = min(params["n_neighbors"], len(fit_rows) - 1)

    t = time.perf_counter()
    stored = (maps(cache_root), _knn_key(key, (n, X.shape[1]), params, len(fit_rows) if sampled else None)) \
        if use_cache else None
    (indices, dists, rest_indices, rest_dists, angular), cached = _knn_graph(
        X, fit_rows, rest, n_neighbors, params, stored, span(progress, 0.1, 0.45), cancel)
    stages["knn"] = round(time.perf_counter() - t, 3)
    info["knn"] = {"cached": cached, "n_neighbors": int(n_neighbors), "metric": params["metric"],
                   "rows": int(len(fit_rows)), "file": None if stored is None else str(stored[0].path(stored[1]))}
    check_cancel(cancel)

    t = time.perf_counter()
    neighbours = _CachedNeighbours(rest_indices, rest_dists, angular)
    parallel = bool(params.get("parallel"))   # umap-learn runs one thread whenever it is given a seed
    reducer = umap.UMAP(n_neighbors=n_neighbors, min_dist=params["min_dist"], spread=params["spread"],
                        metric=params["metric"], random_state=None if parallel else params["random_state"],
                        n_components=2, low_memory=True, transform_seed=params["random_state"],
                        n_jobs=-1 if parallel else 1,
                        # copies: umap marks disconnected neighbours in these arrays in place
                        precomputed_knn=(indices.copy(), dists.copy(), neighbours))
    report(progress, 0.45, f"UMAP layout of {len(fit_rows):,} rows (min_dist {params['min_dist']}, "
                           f"spread {params['spread']})")
    xy = np.empty((n, 2), dtype=np.float32)
    with warnings.catch_warnings():
        # umap warns that transform needs an NNDescent index; the cached neighbours answer its queries
        warnings.filterwarnings("ignore", message=".*knn_search_index.*")
        warnings.filterwarnings("ignore", message=".*n_jobs value.*")
        xy[fit_rows] = reducer.fit_transform(X[fit_rows])
        stages["layout"] = round(time.perf_counter() - t, 3)
        info["fitted_rows"] = int(len(fit_rows))
        info["transformed_rows"] = int(len(rest))
        t = time.perf_counter()
        for start in range(0, len(rest), chunk_size):
            check_cancel(cancel)
            rows = rest[start:start + chunk_size]
            report(progress, 0.8 + 0.2 * start / len(rest),
                   f"placing rows {start:,}–{start + len(rows):,} of {len(rest):,}")
            neighbours.rows = np.arange(start, start + len(rows))
            xy[rows] = reducer.transform(X[rows])
    if len(rest):
        stages["transform"] = round(time.perf_counter() - t, 3)
    return xy
