"""2-D projections of a representation Φ for the map: UMAP (umap-learn) and a fast PCA.

A projection is computed once per representation and cached on disk, keyed by the
representation's key (dataset fingerprint + spec), the method and its parameters,
so the dashboard never recomputes it on a knob change or a page switch.

UMAP cost, and what is done about it (2 cores, no GPU):

- umap-learn compiles its kernels with numba on first import (about 26 s cold).
  `NUMBA_CACHE_DIR` is pointed at a persistent cache folder when unset, and umap is
  imported lazily, only when a UMAP projection is actually computed.
- Inputs wider than ``pca_dims`` (default 50) are first reduced by PCA to
  ``pca_dims`` dimensions: neighbour search is the bulk of UMAP's time and scales
  with the dimension, and the map barely changes. The reduction is recorded in `info`.
- For large N, UMAP is fitted on a seeded sample of ``fit_size`` rows (default
  20,000) and the remaining rows are placed with ``transform`` in chunks (which
  also gives progress and cancellation points). Which rows were fitted is recorded.

Cache location: ``cache_dir`` argument, else ``$ARTIFACT_LENS_CACHE``, else
``~/.cache/artifact-lens``; projections live in its ``projections/`` folder.
"""
from __future__ import annotations

import hashlib
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import numpy as np

from core.errors import InputError
from core import paths
from core.progress import check_cancel, report

__all__ = ["Projection", "project", "project_in_subprocess", "METHODS"]

METHODS = ("umap", "pca")


def _ensure_numba_cache(cache_root: Path) -> None:
    # Numba reads NUMBA_CACHE_DIR when it is first imported; setting it later has no effect.
    if not os.environ.get("NUMBA_CACHE_DIR"):
        folder = cache_root / "numba"
        folder.mkdir(parents=True, exist_ok=True)
        os.environ["NUMBA_CACHE_DIR"] = str(folder)


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
        Seconds, PCA pre-reduction, number of rows fitted vs transformed, cache hit.
    """

    xy: np.ndarray
    ids: np.ndarray
    method: str
    params: dict
    info: dict = field(default_factory=dict)


def _check_params(method, n_neighbors, min_dist, fit_size, pca_dims):
    if method not in METHODS:
        raise InputError(f"method={method!r} is not supported; use 'umap' or 'pca' (fast, for previews)")
    if not isinstance(n_neighbors, (int, np.integer)) or n_neighbors < 2:
        raise InputError(f"n_neighbors={n_neighbors!r} must be an integer >= 2; UMAP's usual value is 15")
    if not 0.0 <= float(min_dist) <= 1.0:
        raise InputError(f"min_dist={min_dist!r} must be in [0, 1]; UMAP's usual value is 0.1")
    if fit_size is not None and (not isinstance(fit_size, (int, np.integer)) or fit_size < 10):
        raise InputError(f"fit_size={fit_size!r} must be an integer >= 10 (or None to fit on every row)")
    if pca_dims is not None and (not isinstance(pca_dims, (int, np.integer)) or pca_dims < 2):
        raise InputError(f"pca_dims={pca_dims!r} must be an integer >= 2 (or None to skip the PCA pre-reduction)")


def _cache_file(cache_dir: Path, key: str, method: str, params: dict, shape) -> Path:
    blob = json.dumps([key, method, params, list(shape)], sort_keys=True, default=str)
    digest = hashlib.sha256(blob.encode()).hexdigest()[:24]
    return cache_dir / "projections" / f"{method}-{digest}.npz"


def _pca(X: np.ndarray, dims: int, random_state: int) -> np.ndarray:
    from sklearn.decomposition import PCA

    dims = min(dims, X.shape[1], X.shape[0])
    return PCA(n_components=dims, random_state=random_state, svd_solver="auto").fit_transform(X).astype(np.float32)


def project(X, ids=None, *, key: Optional[str] = None, method: str = "umap", n_neighbors: int = 15,
            min_dist: float = 0.1, metric: str = "euclidean", random_state: int = 0,
            fit_size: Optional[int] = 20000, pca_dims: Optional[int] = 50, chunk_size: int = 5000,
            cache_dir=None, use_cache: bool = True, only_cached: bool = False, progress=None,
            cancel=None) -> Optional[Projection]:
    """Project Φ to 2-D, from the disk cache when this exact projection was made before.

    Parameters
    ----------
    X : array, shape (N, d)
        The representation Φ (float32).
    ids : array of str, optional
        Row ids (default: ``"0".."N-1"``).
    key : str, optional
        A key naming X, e.g. ``f"{dataset.fingerprint}:{rep.spec}"``. Without one, a
        hash of X's bytes is used (slower for big X, but never a stale hit).
    method : {"umap", "pca"}
        ``"pca"`` is instant and deterministic, for tests and previews.
    n_neighbors, min_dist, metric : UMAP parameters.
    random_state : int
        Seeds UMAP, the PCA and the fit sample.
    fit_size : int or None
        Fit UMAP on at most this many rows (a seeded sample) and ``transform`` the rest.
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
    _check_params(method, n_neighbors, min_dist, fit_size, pca_dims)
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
        key = "x:" + hashlib.sha256(np.ascontiguousarray(X).tobytes()).hexdigest()[:24]
    params = {"random_state": int(random_state)}
    if method == "umap":
        params.update(n_neighbors=int(n_neighbors), min_dist=float(min_dist), metric=metric,
                      fit_size=None if fit_size is None else int(fit_size),
                      pca_dims=None if pca_dims is None else int(pca_dims))
    cache_root = Path(cache_dir) if cache_dir is not None else paths.cache_dir()
    path = _cache_file(cache_root, key, method, params, X.shape)
    if use_cache and path.exists():
        try:
            with np.load(path, allow_pickle=False) as npz:
                xy, cached_ids = npz["xy"], npz["ids"]
                info = json.loads(str(npz["info"]))
            if cached_ids.shape == ids.shape and (cached_ids == ids).all():
                info["cache_hit"] = True
                report(progress, 1.0, "projection loaded from cache")
                return Projection(xy=xy, ids=ids, method=method, params=params, info=info)
        except (OSError, ValueError, KeyError):
            pass  # a damaged cache file is recomputed and overwritten
    if only_cached:
        return None
    t0 = time.perf_counter()
    info: dict = {"rows": int(n), "dims": int(X.shape[1])}
    if method == "pca":
        report(progress, 0.1, "PCA projection")
        xy = _pca(X, 2, random_state) if X.shape[1] > 2 else np.pad(X, ((0, 0), (0, 2 - X.shape[1])))
    else:
        xy = _umap(X, params, info, chunk_size, cache_root, progress, cancel)
    xy = np.ascontiguousarray(xy, dtype=np.float32)
    info["seconds"] = round(time.perf_counter() - t0, 3)
    info["computed_at"] = time.time()   # a later load from the cache still says when it was made
    info["cache_hit"] = False
    if use_cache:
        _save(path, xy, ids, info)
    report(progress, 1.0, "projection ready")
    return Projection(xy=xy, ids=ids, method=method, params=params, info=info)


def _umap(X, params, info, chunk_size, cache_root, progress, cancel):
    rng = np.random.default_rng(params["random_state"])
    n = X.shape[0]
    if params["pca_dims"] is not None and X.shape[1] > params["pca_dims"]:
        report(progress, 0.02, f"PCA {X.shape[1]} → {params['pca_dims']} dimensions")
        X = _pca(X, params["pca_dims"], params["random_state"])
        info["pca_dims"] = params["pca_dims"]
    check_cancel(cancel)
    report(progress, 0.05, "loading umap-learn (first time compiles with numba)")
    _ensure_numba_cache(cache_root)
    import umap  # lazy: the import itself is slow

    check_cancel(cancel)
    fit_size = params["fit_size"]
    if fit_size is not None and n > fit_size:
        fit_rows = np.sort(rng.choice(n, size=fit_size, replace=False))
    else:
        fit_rows = np.arange(n)
    n_neighbors = min(params["n_neighbors"], len(fit_rows) - 1)
    reducer = umap.UMAP(n_neighbors=n_neighbors, min_dist=params["min_dist"], metric=params["metric"],
                        random_state=params["random_state"], n_components=2,  # a seed means 1 thread
                        low_memory=True, transform_seed=params["random_state"], n_jobs=1)
    report(progress, 0.1, f"fitting UMAP on {len(fit_rows):,} rows")
    xy = np.empty((n, 2), dtype=np.float32)
    xy[fit_rows] = reducer.fit_transform(X[fit_rows])
    info["fitted_rows"] = int(len(fit_rows))
    rest = np.setdiff1d(np.arange(n), fit_rows, assume_unique=True)
    info["transformed_rows"] = int(len(rest))
    for start in range(0, len(rest), chunk_size):
        check_cancel(cancel)
        rows = rest[start:start + chunk_size]
        report(progress, 0.6 + 0.4 * start / max(len(rest), 1), f"placing rows {start:,}–{start + len(rows):,} of {len(rest):,}")
        xy[rows] = reducer.transform(X[rows])
    return xy


def _save(path: Path, xy, ids, info) -> None:
    # tagged with the writer's process id: a temporary of a killed writer is recognised as stale
    paths.atomic_write(path, lambda fh: np.savez(fh, xy=xy, ids=ids, info=np.array(json.dumps(info))),
                       tag=str(os.getpid()))


def project_in_subprocess(X, ids=None, *, key: str, method: str = "umap", cache_dir=None, progress=None,
                          cancel=None, **params) -> Projection:
    """`project` in a child Python process, then read back from the disk cache.

    UMAP's first fit in a process spends about a minute compiling numba kernels and
    then runs single-threaded (it is seeded); both hold the GIL, which in a thread
    would stall a server's other requests (a τ redraw, another user's page). A child
    process keeps the server responsive. Progress comes back as JSON lines on the
    child's stdout; cancelling terminates the child. ``params`` are `project`'s.
    """
    check_cancel(cancel)
    cache_root = Path(cache_dir) if cache_dir is not None else paths.cache_dir()
    cache_root.mkdir(parents=True, exist_ok=True)
    ids = None if ids is None else np.asarray(ids).astype(str)
    with tempfile.TemporaryDirectory(prefix="artifact-lens-proj-", dir=cache_root) as tmp:
        np.save(Path(tmp) / "X.npy", np.asarray(X, dtype=np.float32))
        if ids is not None:
            np.save(Path(tmp) / "ids.npy", ids)
        job = {"folder": tmp, "key": key, "method": method, "cache_dir": str(cache_root), "params": params,
               "parent": os.getpid()}
        (Path(tmp) / "job.json").write_text(json.dumps(job))
        proc = subprocess.Popen([sys.executable, "-c", "from core.projection import _child_main; _child_main()", tmp],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                cwd=str(Path(__file__).resolve().parents[1]))
        lines: "queue.Queue[str]" = queue.Queue()
        reader = threading.Thread(target=lambda: [lines.put(l) for l in proc.stdout], daemon=True)
        reader.start()
        error = None
        try:
            while reader.is_alive() or not lines.empty():
                if cancel is not None and cancel.is_set():
                    proc.terminate()
                    check_cancel(cancel)
                try:
                    msg = json.loads(lines.get(timeout=0.2))
                except (queue.Empty, ValueError):
                    continue
                if "progress" in msg:
                    report(progress, msg["progress"], msg.get("message", ""))
                elif "error" in msg:
                    error = msg
            proc.wait()
        finally:
            if proc.poll() is None:   # cancelled: the child got SIGTERM and removes its temporaries
                try:
                    proc.wait(2.0)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        if error is not None:
            raise (InputError if error.get("input") else RuntimeError)(error["error"])
        if proc.returncode != 0:
            raise RuntimeError(f"the projection process failed (exit code {proc.returncode}): "
                               f"{proc.stderr.read()[-500:]}")
    out = project(X, ids, key=key, method=method, cache_dir=cache_root, only_cached=True, **params)
    if out is None:  # pragma: no cover - the child wrote it
        raise RuntimeError("the projection process finished but left no cached projection")
    return out


def _stop_with_parent(parent: Optional[int] = None) -> None:
    """In the child: SIGTERM (a cancel, or the parent's death) ends it like an exception, so
    `atomic_write` removes its temporary; on Linux the kernel sends that SIGTERM when the
    parent thread dies (a server killed hard leaves no orphan computing on)."""
    import signal

    def _stop(signum, frame):
        raise SystemExit(143)

    signal.signal(signal.SIGTERM, _stop)
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM))   # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
        if parent is not None and os.getppid() != parent:   # the parent died before prctl
            raise SystemExit(143)


def _child_main() -> None:
    """Entry point of `project_in_subprocess`'s child: compute, cache, report on stdout."""
    folder = Path(sys.argv[1])
    job = json.loads((folder / "job.json").read_text())
    _stop_with_parent(job.get("parent"))
    X = np.load(folder / "X.npy", mmap_mode="r")
    ids = np.load(folder / "ids.npy") if (folder / "ids.npy").exists() else None

    def progress(fraction, message=""):
        print(json.dumps({"progress": float(fraction), "message": message}), flush=True)

    try:
        project(X, ids, key=job["key"], method=job["method"], cache_dir=job["cache_dir"], progress=progress,
                **job["params"])
    except InputError as exc:
        print(json.dumps({"error": str(exc), "input": True}), flush=True)
    except Exception as exc:  # reported to the parent, which raises it
        print(json.dumps({"error": f"{type(exc).__name__}: {exc}", "input": False}), flush=True)
