"""The ridge engine's fast path changes no result, and max_dim's default follows its rule.

`_FullGramRidge` is the plain form of the same model: full d1 × (d1 + C) block
matrices from matmul, downdated by matmul, each partition's normal equations (whole
blocks plus its partial rows, all C classes) converted to float64 and solved by
LAPACK's full-matrix Cholesky, every class scored. The engine (triangle-only RFP
block Grams, a block minus its other members where that is fewer rows, an RFP
Cholesky, C − 1 predicted columns) computes the same model with different rounding;
phase scores are counts of correct predictions, so they must agree bit for bit,
hence the same retained sets.
"""
import numpy as np
import pytest
from scipy.linalg import lapack

from artifact_lens.aflite import AFLite, estimator
from artifact_lens.aflite.estimator import DEFAULT_MAX_DIM
from artifact_lens.base.errors import InputError
from artifact_lens.aflite.scorers import CHUNK_ROWS, RidgeScorer, rows_of, solve_partition
from artifact_lens.base.progress import check_cancel


class _FullGramRidge(RidgeScorer):
    """The previous RidgeScorer (full block Grams, one matmul each), kept as the reference."""

    def __init__(self, rows, mean, codes, n_classes, blocks, alpha, cancel):
        Z = rows.X
        self.Z, self.mean, self.codes, self.alpha = Z, mean, codes, float(alpha)
        self.block_of = blocks.block_of
        B, d1, C = blocks.n_blocks, Z.shape[1] + 1, n_classes
        self.eye = np.eye(C, dtype=np.float32)
        self.GH = np.zeros((B, d1, d1 + C), dtype=np.float32)
        for b in range(B):
            ZY = self._zy_full(np.flatnonzero(self.block_of == b))
            np.matmul(ZY[:, :d1].T, ZY, out=self.GH[b])

    def _zy_full(self, idx):
        d = self.Z.shape[1]
        out = np.empty((len(idx), d + 1 + self.eye.shape[0]), dtype=np.float32)
        out[:, :d] = rows_of(self.Z, self.mean, idx)
        out[:, d] = 1.0
        out[:, d + 1:] = self.eye[self.codes[idx]]
        return out

    def remove(self, removed_rows):
        d1 = self.Z.shape[1] + 1
        removed_rows = np.sort(removed_rows)
        for b in np.unique(self.block_of[removed_rows]):
            ZY = self._zy_full(removed_rows[self.block_of[removed_rows] == b])
            self.GH[b] -= ZY[:, :d1].T @ ZY

    def score(self, S, plan, sub, cancel, phase):
        n_s, m, C = len(S), plan.full.shape[1], self.eye.shape[0]
        d1 = self.Z.shape[1] + 1
        B = self.GH.shape[0]
        F = np.ascontiguousarray(plan.full.T, dtype=np.float32)
        AH = (F @ self.GH.reshape(B, -1)).reshape(m, d1, d1 + C)
        W = np.empty((d1, C, m), dtype=np.float32)
        diag = np.arange(d1 - 1)
        for p in range(m):
            ah = AH[p].astype(np.float64)
            pos = plan.partial[p]
            if len(pos):
                ZY = self._zy_full(S[pos])
                ah += ZY[:, :d1].T @ ZY
            a, h = np.ascontiguousarray(ah[:, :d1]), np.ascontiguousarray(ah[:, d1:])
            a[diag, diag] += self.alpha * max(np.trace(a[:-1, :-1]) / (d1 - 1), 1e-12)
            _, x, info = lapack.dposv(a, h, lower=0)
            assert info == 0
            W[:, :, p] = x
        Wz = np.ascontiguousarray(W[:-1].reshape(d1 - 1, C * m))
        w0 = W[-1].reshape(C * m)
        y_s = self.codes[S]
        c, h = np.zeros(n_s), np.zeros(n_s)
        for lo in range(0, n_s, CHUNK_ROWS):
            check_cancel(cancel)
            hi = min(n_s, lo + CHUNK_ROWS)
            out = (rows_of(self.Z, self.mean, S[lo:hi]) @ Wz + w0).reshape(hi - lo, C, m)
            yc = y_s[lo:hi]
            own = np.where((yc == 0)[:, None], out[:, 0, :], 0.0)
            best = out[:, 0, :].copy()
            for cl in range(1, C):
                np.maximum(best, out[:, cl, :], out=best)
                own += np.where((yc == cl)[:, None], out[:, cl, :], 0.0)
            held = ~plan.in_train(lo, hi)
            c[lo:hi] = ((own >= best) & held).sum(axis=1)
            h[lo:hi] = held.sum(axis=1)
        return c, h


def _embedding_like(seed, n, d, n_classes):
    """Correlated, anisotropic features (a low-rank mix) with a class signal on 60 % of rows."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    mix = rng.standard_normal((16, d)) / 4
    lat = rng.standard_normal((n, 16)) + rng.standard_normal((n_classes, 16))[y] * 0.4 * (rng.random(n) < 0.6)[:, None]
    X = lat @ mix + 0.3 * rng.standard_normal((n, d)) + 1.5   # off-centre: exercises the mean
    return X.astype(np.float32), y


@pytest.mark.parametrize("seed,n,d,n_classes,m,k,tau", [
    (0, 1500, 96, 3, 8, 0.1, 0.0),
    (1, 1200, 130, 2, 6, 0.05, 0.0),
    (2, 1000, 64, 4, 5, 30, 0.5),
    (3, 900, 200, 3, 4, 0.1, 0.0),
    (4, 1200, 64, 3, 40, 0.1, 0.0),     # many partitions
])
def test_full_dimension_engine_matches_the_full_gram_reference(monkeypatch, seed, n, d, n_classes, m, k, tau):
    X, y = _embedding_like(seed, n, d, n_classes)
    kw = dict(n_partitions=m, train_size=0.1, slice_size=k, tau=tau, target_size=0.5, max_dim=None,
              random_state=seed)
    signs = []
    import artifact_lens.aflite.scorers as scorers

    extra_rows = scorers.extra_rows

    def spy(plan, p):
        out = extra_rows(plan, p)
        signs.append(out[2])
        return out

    monkeypatch.setattr(scorers, "extra_rows", spy)
    fast = AFLite(**kw).fit(X, y)
    assert set(signs) == {1.0, -1.0}      # both ways of adding the partial rows were taken
    monkeypatch.setattr(estimator, "RidgeScorer", _FullGramRidge)
    ref = AFLite(**kw).fit(X, y)
    assert fast.n_phases_ == ref.n_phases_ > 1
    np.testing.assert_array_equal(fast.phase_scores_, ref.phase_scores_)   # bit for bit
    np.testing.assert_array_equal(fast.retained_, ref.retained_)
    np.testing.assert_array_equal(fast.removed_at_, ref.removed_at_)


def _rfp_gram(Zt):
    return lapack.ssfrk(Zt.shape[1], len(Zt), 1.0, Zt.T, 0.0, np.zeros(Zt.shape[1] * (Zt.shape[1] + 1) // 2, np.float32))


def test_a_block_minus_its_other_rows_solves_the_same_system_and_class_weights_sum_to_the_intercept():
    rng = np.random.default_rng(3)
    d1, C = 41, 3
    Z = np.hstack([rng.standard_normal((300, d1 - 1)), np.ones((300, 1))]).astype(np.float32)
    Y = np.eye(C, dtype=np.float32)[rng.integers(0, C, 300)]
    whole, block = slice(0, 200), slice(200, 300)      # the partition takes 70 of the block's 100
    take, rest = slice(200, 270), slice(270, 300)
    ag, ah = _rfp_gram(Z[whole]), Z[whole].T @ Y[whole]
    direct = solve_partition(ag, ah, Z[take], Y[take], alpha=0.5)
    via_block = solve_partition(ag + _rfp_gram(Z[block]), ah + Z[block].T @ Y[block], Z[rest], Y[rest],
                                alpha=0.5, sign=-1.0)
    ref = np.linalg.solve(*_dense_normal_equations(Z[:270], Y[:270], 0.5))
    np.testing.assert_allclose(direct, ref, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(via_block, ref, rtol=1e-3, atol=1e-5)
    # Why the engine predicts only C − 1 columns: the classes' weights sum to (0, …, 0, 1).
    np.testing.assert_allclose(direct.sum(axis=1), np.eye(d1)[-1], atol=1e-6)


def _dense_normal_equations(Zt, Y, alpha):
    a = Zt.T.astype(np.float64) @ Zt
    d = np.arange(a.shape[0] - 1)
    a[d, d] += alpha * np.trace(a[:-1, :-1]) / len(d)
    return a, Zt.T.astype(np.float64) @ Y


def test_a_singular_system_falls_back_to_least_squares(monkeypatch):
    X, y = _embedding_like(5, 800, 40, 3)
    kw = dict(n_partitions=6, train_size=0.1, slice_size=0.1, tau=0.0, target_size=0.5, random_state=1)
    ref = AFLite(**kw).fit(X, y)
    import artifact_lens.aflite.lapack as engine_lapack

    factor = engine_lapack.pftrf
    calls = []

    def failing(n, a):                    # LAPACK reports "not positive definite"
        calls.append(n)
        c, _ = factor(n, a)
        return c, 1

    monkeypatch.setattr(engine_lapack, "pftrf", failing)
    got = AFLite(**kw).fit(X, y)
    assert len(calls) >= 6                # every solve took the fallback
    same = np.isclose(got.phase_scores_, ref.phase_scores_, rtol=0, atol=1e-6)
    assert same.mean() > 0.99             # the same solution up to float32 near-ties


def test_max_dim_default_is_full_dimension_up_to_768_columns():
    assert DEFAULT_MAX_DIM == 768 and AFLite().max_dim == 768 == AFLite().get_params()["max_dim"]
    kw = dict(n_partitions=2, train_size=0.2, slice_size=0.2, tau=0.0, target_size=0.5)
    for d, reduced in ((768, False), (769, True)):
        X, y = _embedding_like(7, 60, d, 2)
        af = AFLite(**kw).fit(X, y)
        if reduced:
            assert af.reduction_["method"] == "pca" and (af.reduction_["d_in"], af.reduction_["d_out"]) == (769, 768)
        else:
            assert af.reduction_ is None and af.to_record()["reduction"] is None
    assert AFLite(max_dim=None, **kw).fit(*_embedding_like(7, 60, 1000, 2)).reduction_ is None


def test_many_classes_keep_memory_bounded_and_a_run_too_big_names_the_flags(monkeypatch):
    """Thousands of classes: one-hot targets per block and prediction chunks shrink with K·m
    (same result); a run that would still not fit is refused before any work, naming --label."""
    import artifact_lens.base.memory as S
    from artifact_lens.aflite.scorers import CHUNK_BYTES, CHUNK_ROWS, chunk_rows, one_hot, ridge_bytes

    assert chunk_rows(2, 64) == CHUNK_ROWS                    # the usual case is unchanged
    assert 16 <= chunk_rows(9_999, 64) < CHUNK_ROWS and chunk_rows(9_999, 64) * 4 * 9_999 * 64 <= CHUNK_BYTES
    assert one_hot(np.array([2, 0]), 3).tolist() == [[0, 0, 1], [1, 0, 0]]
    assert ridge_bytes(20_000, 64, 10_000, 64, 53) < 2e9
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(400, 8)).astype(np.float32), np.arange(400) % 200   # 2 examples per class
    monkeypatch.setattr(S, "available_memory", lambda: 1_000_000)
    with pytest.raises(InputError, match=r"200 classes for 400 examples .* check --label; or lower --m"):
        AFLite(n_partitions=8, train_size=0.6, slice_size=0.1, target_size=0.8, random_state=0).fit(X, y)


def test_how_a_phase_is_cut_into_tasks_changes_no_number(monkeypatch):
    """Issue 57, item 4: the tasks were made finer so 16 threads stay busy (the predictions in about
    64 tasks, the assembly in column groups of 4,096, the downdates in 64). A task's numbers are its
    own rows' or columns', so any cut gives the same run, bit for bit: generated cuts, on one thread
    and on two."""
    from hypothesis import given, settings, strategies as st

    import artifact_lens.aflite.scorers as scorers

    X, y = _embedding_like(11, 3000, 24, 3)
    kw = dict(n_partitions=12, train_size=0.2, slice_size=0.02, tau=0.0, target_size=0.6, random_state=4,
              max_dim=None)
    reference = AFLite(**kw).fit(X, y)

    @settings(max_examples=8, deadline=None)
    @given(tasks=st.integers(1, 300), least=st.integers(1, 4096), cols=st.sampled_from([64, 512, 1 << 12, 1 << 14]),
           downdates=st.integers(1, 200), jobs=st.sampled_from([1, 2]))
    def check(tasks, least, cols, downdates, jobs):
        monkeypatch.setattr(scorers, "PREDICT_TASKS", tasks)
        monkeypatch.setattr(scorers, "PREDICT_MIN_ROWS", least)
        monkeypatch.setattr(scorers, "ASSEMBLY_COLS", cols)
        monkeypatch.setattr(scorers, "DOWNDATE_TASKS", downdates)
        cut = AFLite(**kw, n_jobs=jobs).fit(X, y)
        assert np.array_equal(cut.phase_scores_, reference.phase_scores_, equal_nan=True)
        assert np.array_equal(cut.retained_, reference.retained_)

    check()
