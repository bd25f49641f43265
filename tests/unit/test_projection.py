"""Projections: PCA preview, UMAP with sample-fit + transform, the disk cache, bad input."""
import os
import threading
from pathlib import Path

# A persistent numba cache makes umap's kernels load instead of compile on later runs.
os.environ.setdefault("NUMBA_CACHE_DIR", str(Path.home() / ".cache" / "artifact-lens" / "numba"))

import numpy as np
import pytest

from artifact_lens.base.errors import Cancelled, InputError  # noqa: E402
from artifact_lens.representations.projection import project  # noqa: E402

# One worker runs every UMAP test (`make test`: --dist loadgroup, tests/conftest.py): numba
# compiles umap's kernels once per process (~20 s), not once per worker.
pytestmark = pytest.mark.xdist_group("umap")


def K(name):
    """A test's key of X (the dashboard and the CLI use `representation_key`)."""
    from artifact_lens.base.keys import data_key

    return data_key(name)


@pytest.fixture
def blobs():
    rng = np.random.default_rng(0)
    centres = rng.normal(scale=8, size=(3, 10))
    y = np.repeat(np.arange(3), 60)
    X = (centres[y] + rng.normal(size=(180, 10))).astype(np.float32)
    return X, y


def test_pca_is_cached_by_key(blobs, tmp_path):
    X, _ = blobs
    calls = []
    p = project(X, key=K("rep-a"), method="pca", cache_dir=tmp_path, progress=lambda f, m: calls.append(f))
    assert p.xy.shape == (180, 2) and p.xy.dtype == np.float32 and not p.info["cache_hit"]
    assert calls[-1] == 1.0
    again = project(X, key=K("rep-a"), method="pca", cache_dir=tmp_path)
    assert again.info["cache_hit"]
    np.testing.assert_array_equal(again.xy, p.xy)
    # another key (another representation) is computed anew
    assert not project(X, key=K("rep-b"), method="pca", cache_dir=tmp_path).info["cache_hit"]
    # no cache when asked
    assert not project(X, key=K("rep-a"), method="pca", cache_dir=tmp_path, use_cache=False).info["cache_hit"]


def test_ids_must_match_the_cache(blobs, tmp_path):
    X, _ = blobs
    ids = np.array([f"i{i}" for i in range(180)])
    project(X, ids, key=K("k"), method="pca", cache_dir=tmp_path)
    other = project(X, ids[::-1], key=K("k"), method="pca", cache_dir=tmp_path)
    assert not other.info["cache_hit"]  # same key but other ids: never a stale hit
    np.testing.assert_array_equal(other.ids, ids[::-1])


def test_bad_input(tmp_path):
    with pytest.raises(InputError, match="method="):
        project(np.zeros((5, 2)), method="tsne", cache_dir=tmp_path)
    with pytest.raises(InputError, match="NaN"):
        project(np.full((5, 2), np.nan), method="pca", cache_dir=tmp_path)
    with pytest.raises(InputError, match="ids has 2"):
        project(np.zeros((5, 2)), ["a", "b"], method="pca", cache_dir=tmp_path)
    with pytest.raises(InputError, match="n_neighbors"):
        project(np.zeros((5, 2)), n_neighbors=1, cache_dir=tmp_path)
    with pytest.raises(InputError, match="at least 3 rows"):
        project(np.zeros((2, 2)), method="pca", cache_dir=tmp_path)


def test_cancel_before_umap(blobs, tmp_path):
    ev = threading.Event()
    ev.set()
    with pytest.raises(Cancelled):
        project(blobs[0], method="umap", cache_dir=tmp_path, cancel=ev)


@pytest.mark.slow
def test_umap_fit_sample_and_transform_rest(blobs, tmp_path):
    """UMAP keeps the three blobs apart, including the rows placed by transform (numba: slow first time)."""
    X, y = blobs
    p = project(X, key=K("blobs"), method="umap", n_neighbors=10, fit_size=120, pca_dims=5, cache_dir=tmp_path)
    assert p.info["fitted_rows"] == 120 and p.info["transformed_rows"] == 60 and p.info["pca_dims"] == 5
    centroids = np.array([p.xy[y == c].mean(axis=0) for c in range(3)])
    nearest = np.argmin(((p.xy[:, None, :] - centroids[None]) ** 2).sum(-1), axis=1)
    assert (nearest == y).mean() > 0.95
    assert project(X, key=K("blobs"), method="umap", n_neighbors=10, fit_size=120, pca_dims=5,
                   cache_dir=tmp_path).info["cache_hit"]


def test_project_in_subprocess_caches_and_reports_progress(tmp_path):
    from artifact_lens.representations.map_process import project_in_subprocess
    from artifact_lens.representations.projection import project

    X = np.random.default_rng(0).normal(size=(60, 5)).astype(np.float32)
    seen = []
    out = project_in_subprocess(X, key=K("sub"), method="pca", cache_dir=tmp_path, progress=lambda f, m="": seen.append(f))
    again = project(X, key=K("sub"), method="pca", cache_dir=tmp_path, only_cached=True)
    assert again is not None and np.array_equal(out.xy, again.xy)
    assert seen and seen[-1] == 1.0


def test_project_in_subprocess_reports_bad_input_and_cancels(tmp_path):
    import threading

    from artifact_lens.base.errors import Cancelled
    from artifact_lens.representations.map_process import project_in_subprocess

    bad = np.ones((10, 3), np.float32)
    bad[0, 0] = np.nan
    with pytest.raises(InputError, match="NaN"):
        project_in_subprocess(bad, key=K("bad"), method="pca", cache_dir=tmp_path)
    stop = threading.Event()
    stop.set()
    with pytest.raises(Cancelled):
        project_in_subprocess(np.ones((10, 3), np.float32), key=K("c"), method="pca", cache_dir=tmp_path, cancel=stop)


def test_bad_display_and_graph_parameters(tmp_path):
    X = np.zeros((5, 2))
    with pytest.raises(InputError, match="spread=0"):
        project(X, spread=0, cache_dir=tmp_path)
    with pytest.raises(InputError, match="at most spread"):
        project(X, min_dist=0.8, spread=0.5, cache_dir=tmp_path)
    with pytest.raises(InputError, match="metric='jaccard' is not supported"):
        project(X, metric="jaccard", cache_dir=tmp_path)


def test_numba_cache_goes_to_the_cache_root_unless_set(tmp_path, monkeypatch):
    """Numba's cache folder is given to numba itself: the environment is never written (a child
    process or a later command would inherit it)."""
    import numba

    from artifact_lens.representations.projection import ensure_numba_cache

    before = numba.config.CACHE_DIR
    try:
        monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
        assert ensure_numba_cache(tmp_path) == str(tmp_path / "numba") and (tmp_path / "numba").is_dir()
        assert numba.config.CACHE_DIR == str(tmp_path / "numba") and "NUMBA_CACHE_DIR" not in os.environ
        monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
        assert ensure_numba_cache(tmp_path / "other") == str(tmp_path / "mine") == numba.config.CACHE_DIR
    finally:
        numba.config.CACHE_DIR = before


@pytest.mark.slow
def test_display_change_reuses_the_knn_graph_also_for_transformed_rows(blobs, tmp_path, monkeypatch):
    """fit_size < N: the fitted rows' graph and the other rows' neighbours are cached; a min_dist/spread
    change searches nothing and still places every row; the PCA step is recorded."""
    import umap.umap_ as umap_

    X, y = blobs
    first = project(X, key=K("b"), n_neighbors=10, fit_size=120, pca_dims=5, cache_dir=tmp_path)
    assert not first.info["knn"]["cached"] and first.info["pca"]["dims"] == 5 and first.info["pca"]["fit_rows"] == 180
    assert set(first.info["stages"]) == {"pca", "import", "knn", "layout", "transform"}

    def no_search(*a, **k):
        raise AssertionError("searched again")

    monkeypatch.setattr(umap_, "nearest_neighbors", no_search)
    again = project(X, key=K("b"), n_neighbors=10, fit_size=120, pca_dims=5, min_dist=0.6, spread=2.0, cache_dir=tmp_path)
    assert again.info["knn"]["cached"] and not again.info["cache_hit"] and again.info["transformed_rows"] == 60
    assert not np.allclose(again.xy, first.xy)   # another layout from the same graph
    centroids = np.array([again.xy[y == c].mean(axis=0) for c in range(3)])
    nearest = np.argmin(((again.xy[:, None, :] - centroids[None]) ** 2).sum(-1), axis=1)
    assert (nearest == y).mean() > 0.95
    with pytest.raises(AssertionError, match="searched again"):   # another graph parameter: a new search
        project(X, key=K("b"), n_neighbors=10, metric="cosine", fit_size=120, pca_dims=5, cache_dir=tmp_path)


@pytest.mark.slow
def test_a_parallel_map_separates_the_blobs_and_is_cached_apart_from_the_seeded_one(blobs, tmp_path):
    """Issue 32: UMAP on every core is a choice the user makes (not reproducible); it never stands in
    for the seeded map, nor the seeded map for it."""
    X, y = blobs
    kw = dict(key=K("blobs"), method="umap", n_neighbors=10, fit_size=None, pca_dims=5, cache_dir=tmp_path)
    p = project(X, parallel=True, **kw)
    assert p.params["parallel"] is True and not p.info["knn"]["cached"]
    centroids = np.array([p.xy[y == c].mean(axis=0) for c in range(3)])
    assert (np.argmin(((p.xy[:, None, :] - centroids[None]) ** 2).sum(-1), axis=1) == y).mean() > 0.95
    assert project(X, only_cached=True, **kw) is None   # the seeded map is not the parallel one
    seeded = project(X, **kw)
    assert "parallel" not in seeded.params and not seeded.info["knn"]["cached"]   # nor its kNN graph
    assert project(X, parallel=True, only_cached=True, **kw).params["parallel"] is True
