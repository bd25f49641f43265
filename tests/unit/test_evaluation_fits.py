"""The evaluation's fits (issue 35, item 4): each fit made once per content, on every core the
job is granted, with results that depend on neither."""
import threading

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import artifact_lens.evaluation.models as models
from artifact_lens.evaluation import EvaluationOptions, evaluate
from artifact_lens.evaluation.models import Fit, FitMemo, fit_many
from artifact_lens.base.cores import usable_cores
from artifact_lens.base.jobs import JobRunner
from jobkeys import job_key


def _data(seed, n=120, d=5, classes=3):
    rng = np.random.default_rng(seed)
    y = np.array(["a", "b", "c"])[np.arange(n) % classes]
    X = rng.normal(size=(n, d)).astype(np.float32)
    X[:, 0] += 2.0 * (np.arange(n) % classes)
    return X, y


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10 ** 6), n_jobs=st.integers(2, 4),
       families=st.lists(st.sampled_from(["logistic", "svm", "knn", "ridge"]), min_size=1, max_size=4))
def test_fits_do_not_depend_on_threads_or_the_memo(seed, n_jobs, families):
    X, y = _data(seed)
    rng = np.random.default_rng(seed)
    test = np.flatnonzero(rng.random(len(y)) < 0.3)
    pool = np.setdiff1d(np.arange(len(y)), test)
    fits = [Fit(f, rng.permutation(pool)[: int(rng.integers(30, len(pool)))], test, seed % 7) for f in families]
    fits.append(Fit(families[0], pool[:1], test))   # one label only: a note, no predictions
    alone = fit_many(X, y, fits, n_jobs=1, memo=None)
    memo = FitMemo()
    threaded = fit_many(X, y, fits, n_jobs=n_jobs, memo=memo)
    again = fit_many(X, y, fits, n_jobs=n_jobs, memo=memo)
    for a, b, c in zip(alone, threaded, again):
        assert a[1] == b[1] == c[1]
        assert (a[0] is None) == (b[0] is None) == (c[0] is None)
        if a[0] is not None:
            assert (a[0] == b[0]).all() and (a[0] == c[0]).all()
    assert alone[-1][0] is None and "needs two labels" in alone[-1][1]


def test_a_fit_made_once_is_not_made_again_and_other_rows_or_orders_are(monkeypatch):
    X, y = _data(0)
    calls = []
    real = models.fit_predict
    monkeypatch.setattr(models, "fit_predict", lambda *a, **k: (calls.append(a[0]), real(*a, **k))[1])
    memo, test, rows = FitMemo(), np.arange(90, 120), np.arange(90)
    fit_many(X, y, [Fit("logistic", rows, test)], memo=memo)
    fit_many(X, y, [Fit("logistic", rows, test)], memo=memo)
    assert calls == ["logistic"]
    fit_many(X, y, [Fit("logistic", rows[::-1], test), Fit("logistic", rows, test, random_state=1),
                    Fit("logistic", rows, test, params={"C": 0.5}), Fit("svm", rows, test)], memo=memo)
    Y = y.copy()
    Y[0] = "c"
    fit_many(X, Y, [Fit("logistic", rows, test)], memo=memo)          # other labels: another fit
    fit_many(X + 1, y, [Fit("logistic", rows, test)], memo=memo)      # other vectors: another fit
    assert len(calls) == 7


def test_the_memo_keeps_to_its_bound():
    memo = FitMemo(max_bytes=10_000)
    from artifact_lens.base.keys import data_key

    for i in range(50):
        memo.put(data_key(str(i)), (np.zeros(300, np.int64), ""))     # 2,400 bytes each
    assert len(memo) == 4 and memo.get(data_key("49")) is not None and memo.get(data_key("0")) is None
    memo.put(data_key("huge"), (np.zeros(5_000, np.int64), ""))      # larger than the bound: not kept
    assert memo.get(data_key("huge")) is None
    with pytest.raises(TypeError, match="result_key"):
        memo.put("49", (np.zeros(3, np.int64), ""))                   # a name not made from the data


def test_a_second_evaluation_of_the_run_reuses_the_fits_that_do_not_depend_on_tau_and_n(tmp_path, monkeypatch):
    from artifact_lens.representations import represent
    from artifact_lens.results.runs import fit_run
    from artifact_lens.data.sources import load_dataset

    ds = load_dataset("demo:nli:n=450")
    rep = represent(ds, "tfidf-svd:fields=premise+hypothesis,dim=16", cache_dir=tmp_path)
    represent(ds, "tfidf-svd:fields=hypothesis", cache_dir=tmp_path)
    monkeypatch.setenv("ARTIFACT_LENS_CACHE", str(tmp_path))
    run = fit_run(ds, rep, dict(n_partitions=8, slice_size=0.05, tau=0.0, target_size=0.4, random_state=0))
    opts = EvaluationOptions(families=("logistic", "knn"), knn_ks=(1, 5), coarse_step=0.25)
    fewer = np.asarray(run.retained).copy()
    fewer[np.flatnonzero(fewer)[::3]] = False          # another τ/n: fewer retained
    calls = []
    real = models.fit_predict
    monkeypatch.setattr(models, "fit_predict", lambda *a, **k: (calls.append(a[0]), real(*a, **k))[1])
    monkeypatch.setattr(models, "FITS", FitMemo())   # this test's process memo
    first = evaluate(ds, rep, run.retained, options=opts, n_jobs=2)
    made_first = len(calls)
    second = evaluate(ds, rep, fewer, options=opts, n_jobs=2)
    made_second = len(calls) - made_first
    # the full training set's fits (2 families × 2 inputs) and the coarse action's 4 are not made again
    assert made_first == 2 * 2 * 4 + 4 and made_second == made_first - 2 * 2 - 4
    # and each evaluation is what a fresh process computes, alone and on one thread
    monkeypatch.setattr(models, "FITS", None)        # no memo at all
    for ev, retained in ((first, run.retained), (second, fewer)):
        fresh = evaluate(ds, rep, retained, options=opts, n_jobs=1)
        for name in ("families", "partial_input", "coarse", "knn"):
            pd.testing.assert_frame_equal(ev.tables[name], fresh.tables[name])


def test_a_job_alone_gets_every_core_and_jobs_at_once_share_them():
    runner = JobRunner()
    release, seen = threading.Event(), {}
    started = [threading.Event(), threading.Event()]

    def work(i):
        def fn(ctx):
            started[i].set()
            if i == 1:
                seen["shared"] = ctx.cores
            release.wait()
            return ctx.cores
        return fn

    alone = runner.submit(job_key("alone"), lambda ctx: ctx.cores).wait().result
    assert alone == usable_cores()
    first = runner.submit(job_key("a"), work(0))
    assert started[0].wait(60)
    second = runner.submit(job_key("b"), work(1))
    assert started[1].wait(60)
    release.set()
    first.wait(), second.wait()
    assert seen["shared"] == max(usable_cores() // 2, 1)


def test_a_job_on_its_share_takes_the_cores_a_job_beside_it_gives_back(monkeypatch):
    """Issue 53, item 13: an evaluation that started beside a certificate ran on one thread to its
    end, long after the certificate had finished (57 s beside it, against 40 s alone). On `SHARE`
    it reads its share again before each fit."""
    import artifact_lens.base.cores as cores
    from scale import patience

    monkeypatch.setattr(cores, "usable_cores", lambda: 2)
    X, y = _data(0)
    lock, now, most = threading.Lock(), [0], []
    first_started, other_ended = threading.Event(), threading.Event()
    pairs = threading.Barrier(2, timeout=patience(60))   # the fits after the first meet two at a time

    def fake_fit(family, Xtr, ytr, Xte, seed, params, device=None):
        with lock:
            now[0] += 1
            most.append(now[0])
        try:
            if seed == 0:
                first_started.set()
                assert other_ended.wait(patience(60))
            else:
                pairs.wait()   # BrokenBarrierError when the fits run one at a time
            return np.zeros(len(Xte)), ""
        finally:
            with lock:
                now[0] -= 1

    monkeypatch.setattr(models, "fit_predict", fake_fit)
    fits = [Fit("logistic", np.arange(60), np.arange(60, 90), random_state=i) for i in range(5)]
    result = {}
    other = cores.computing()
    other.__enter__()   # a job beside this one: each gets one of the two cores

    def job():
        with cores.computing():
            result["out"] = fit_many(X, y, fits, n_jobs=cores.SHARE, memo=None)

    thread = threading.Thread(target=job)
    thread.start()
    assert first_started.wait(patience(60))
    assert cores.share() == 1 and most == [1]   # one fit at a time while the other job computes
    other.__exit__(None, None, None)
    other_ended.set()
    thread.join(patience(120))
    assert len(result["out"]) == 5 and max(most) == 2


@pytest.mark.parametrize("n_jobs", [1, 3])
def test_cancelling_stops_the_fits_not_yet_started(n_jobs):
    from artifact_lens.base.errors import Cancelled

    X, y = _data(1)
    cancel, done = threading.Event(), []

    def on_done(i, fit):
        done.append(i)
        cancel.set()

    fits = [Fit("logistic", np.arange(90), np.arange(90, 120), random_state=i) for i in range(12)]
    with pytest.raises(Cancelled):
        fit_many(X, y, fits, n_jobs=n_jobs, memo=None, on_done=on_done, cancel=cancel)
    assert 1 <= len(done) < len(fits)


def test_overlapping_blocks_keep_blas_on_one_thread_until_the_last_leaves():
    """Two jobs' blocks that overlap: the first to leave must not lift the limit under the other
    (a fit's result depends on BLAS's thread count)."""
    from threadpoolctl import threadpool_info, threadpool_limits

    from artifact_lens.base.cores import one_blas_thread

    def blas_threads():
        return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}

    with threadpool_limits(2, user_api="blas"):      # so that "restored" differs from "limited"
        first, second = one_blas_thread(), one_blas_thread()
        first.__enter__()
        second.__enter__()
        assert blas_threads() == {1}
        first.__exit__(None, None, None)
        assert blas_threads() == {1}
        second.__exit__(None, None, None)
        assert blas_threads() == {2}
