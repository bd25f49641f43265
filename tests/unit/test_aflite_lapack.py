"""The ridge family's LAPACK calls without the GIL (`core.aflite.lapack`, issue 32): the same bits as
scipy's wrappers, whichever path and however many threads."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.linalg import lapack as scipy_lapack

from artifact_lens.aflite import AFLite, lapack


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 40), k=st.integers(0, 60), seed=st.integers(0, 2 ** 32 - 1),
       alpha=st.sampled_from([1.0, -1.0]), beta=st.sampled_from([0.0, 1.0]))
def test_each_routine_gives_scipys_bits(n, k, seed, alpha, beta):
    rng = np.random.default_rng(seed)
    at = np.asfortranarray(rng.normal(size=(n, k)).astype(np.float32))
    c = rng.normal(size=n * (n + 1) // 2).astype(np.float32)
    want = scipy_lapack.ssfrk(n, k, alpha, at, beta, c.copy())
    got = lapack.sfrk(n, k, alpha, at, beta, c.copy())
    assert np.array_equal(want, got)
    full = rng.normal(size=(n, n + 3))
    a = scipy_lapack.dtrttf(np.asfortranarray(full @ full.T + n * np.eye(n)))[0]
    want_a, want_info = scipy_lapack.dpftrf(n, a.copy())
    got_a, got_info = lapack.pftrf(n, a.copy())
    assert want_info == got_info == 0 and np.array_equal(want_a, got_a)
    b = np.asfortranarray(rng.normal(size=(n, 3)))
    assert np.array_equal(scipy_lapack.dpftrs(n, want_a, b.copy())[0], lapack.pftrs(n, got_a, b.copy(order="F"))[0])
    singular = np.zeros_like(a)
    assert scipy_lapack.dpftrf(n, singular.copy())[1] == lapack.pftrf(n, singular.copy())[1] > 0


def test_this_machine_takes_the_path_without_the_gil():
    """CI's wheels of scipy bundle the OpenBLAS this path opens; elsewhere the fallback is tested below."""
    assert lapack.native() is not None


def test_a_run_is_the_same_on_either_path_and_any_thread_count(monkeypatch):
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 1500)
    X = rng.normal(size=(1500, 40)).astype(np.float32)
    X[:, :4] += y[:, None] * 0.4
    params = dict(n_partitions=8, train_size=0.2, slice_size=0.05, tau=0.0, target_size=0.5, random_state=0)
    runs = [AFLite(n_jobs=jobs, **params).fit(X, y) for jobs in (1, 3)]
    monkeypatch.setattr(lapack, "native", lambda: None)          # scipy's wrappers
    runs.append(AFLite(n_jobs=2, **params).fit(X, y))
    first = runs[0]
    for other in runs[1:]:
        assert np.array_equal(first.retained_, other.retained_)
        assert np.array_equal(first.phase_scores_, other.phase_scores_, equal_nan=True)


@pytest.mark.parametrize("bad", ["order", "dtype"])
def test_arrays_the_native_path_cannot_take_go_to_scipy(bad):
    rng = np.random.default_rng(0)
    n = 6
    full = rng.normal(size=(n, n))
    a = scipy_lapack.dtrttf(np.asfortranarray(full @ full.T + n * np.eye(n)))[0]
    fac = scipy_lapack.dpftrf(n, a.copy())[0]
    b = rng.normal(size=(n, 2))
    b = np.ascontiguousarray(b) if bad == "order" else np.asfortranarray(b.astype(np.float32))
    x, info = lapack.pftrs(n, fac, b.copy() if bad == "dtype" else b.copy(order="C"))
    assert info == 0
    assert np.allclose(x, scipy_lapack.dpftrs(n, fac, np.asfortranarray(b, dtype=np.float64))[0], atol=1e-5)
