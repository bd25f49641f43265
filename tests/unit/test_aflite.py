"""AFLite engine: the trajectory property, bookkeeping, strategies, families, bad input."""
import json
import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.linear_model import LogisticRegression

from artifact_lens.aflite import AFLite, RefitNeeded, random_subset, single_model_filter
from artifact_lens.base.errors import Cancelled, InputError


def _problem(seed, n=120, d=4, n_classes=3, signal=1.0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    centers = rng.standard_normal((n_classes, d)) * signal
    # Half the rows carry the class signal, half are noise: scores spread out.
    X = rng.standard_normal((n, d)) + centers[y] * (rng.random(n) < 0.5)[:, None]
    return X.astype(np.float32), y


def _circles(n=600, seed=0):
    from artifact_lens.data.demos import make_circles

    ds = make_circles(n=n, random_state=seed)
    X = np.stack(ds.table["features"].to_numpy()).astype(np.float32)
    return X, ds.y, ds.table["biased"].to_numpy()


# --------------------------------------------------------------------------- trajectory

@st.composite
def _runs(draw):
    n = draw(st.integers(20, 90))
    n_classes = draw(st.integers(2, 3))
    t = draw(st.integers(n_classes, max(n_classes, n // 3)))
    n_target = draw(st.integers(t + 1, n - 1))
    return dict(
        seed=draw(st.integers(0, 10_000)), n=n, d=draw(st.integers(1, 5)), n_classes=n_classes,
        m=draw(st.integers(1, 6)), t=t, k=draw(st.integers(1, 12)),
        tau=draw(st.sampled_from([0.0, 0.3, 0.5])), n_target=n_target,
        tau2=draw(st.floats(0.0, 1.0)), n2=draw(st.integers(n_target, n - 1)),
        random_state=draw(st.integers(0, 50)),
    )


def _protected(run, share):
    """The joint filter's protected rows (`core.dynamics.joint`): a random share, never every row."""
    if share == 0:
        return None
    mask = np.random.default_rng(run["seed"] + 1).random(run["n"]) < share
    mask[0] = False
    return mask


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_runs(), st.sampled_from([0, 0, 0.3, 0.8]))
def test_retained_for_equals_a_fresh_fit(run, share):
    """The live τ/n answers are exact, for plain AFLite and for the joint filter's order (some
    rows protected)."""
    X, y = _problem(run["seed"], run["n"], run["d"], run["n_classes"])
    kw = dict(n_partitions=run["m"], train_size=run["t"], slice_size=run["k"],
              random_state=run["random_state"])
    protected = _protected(run, share)
    low = AFLite(tau=run["tau"], target_size=run["n_target"], **kw).fit(X, y, protected=protected)
    tau2 = max(run["tau"], run["tau2"])
    fresh = AFLite(tau=tau2, target_size=run["n2"], **kw).fit(X, y, protected=protected)
    if protected is not None:
        assert not (protected & ~fresh.retained_).any()   # a protected row is never removed
    assert np.array_equal(low.retained_for(tau=tau2, target_size=run["n2"]), fresh.retained_)
    res = low.result_for(tau=tau2, target_size=run["n2"])
    assert np.array_equal(res["removed_at"], fresh.removed_at_)
    np.testing.assert_array_equal(res["predictability"], fresh.predictability_)
    assert res["n_phases"] == fresh.n_phases_


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_runs(), st.sampled_from(["slice-sample", "quality"]), st.sampled_from([0, 0.3]))
def test_sampled_and_quality_orders_are_exact_or_say_refit(run, variant, share):
    X, y = _problem(run["seed"], run["n"], run["d"], run["n_classes"])
    quality = np.random.default_rng(run["seed"]).random(run["n"]) if variant == "quality" else None
    strategy = "slice-sample" if variant == "slice-sample" else "greedy-slice"
    kw = dict(n_partitions=run["m"], train_size=run["t"], slice_size=run["k"],
              strategy=strategy, random_state=run["random_state"])
    fit = dict(quality=quality, protected=_protected(run, share))
    low = AFLite(tau=run["tau"], target_size=run["n_target"], **kw).fit(X, y, **fit)
    # A larger n alone never needs a refit: the removal order of a phase does not change.
    same_tau = AFLite(tau=run["tau"], target_size=run["n2"], **kw).fit(X, y, **fit)
    assert np.array_equal(low.retained_for(target_size=run["n2"]), same_tau.retained_)
    tau2 = max(run["tau"], run["tau2"])
    fresh = AFLite(tau=tau2, target_size=run["n2"], **kw).fit(X, y, **fit)
    try:
        answer = low.retained_for(tau=tau2, target_size=run["n2"])
    except RefitNeeded as exc:
        assert "refit" in str(exc)
        return
    assert np.array_equal(answer, fresh.retained_)


def test_refit_needed_below_the_fitted_tau_or_n():
    X, y = _problem(0)
    af = AFLite(n_partitions=4, train_size=20, slice_size=5, tau=0.5, target_size=60).fit(X, y)
    with pytest.raises(RefitNeeded, match="refit"):
        af.retained_for(tau=0.4)
    with pytest.raises(RefitNeeded, match="refit"):
        af.retained_for(target_size=50)
    with pytest.raises(InputError, match="tau"):
        af.retained_for(tau=1.5)
    assert np.array_equal(af.retained_for(), af.retained_)


def test_stopping_rule_truncates_the_last_slice_and_stops_on_tau():
    X, y = _problem(3, n=200)
    af = AFLite(n_partitions=8, train_size=30, slice_size=15, tau=0.0, target_size=101).fit(X, y)
    assert af.retained_.sum() == 101                      # exact n: last slice truncated
    sizes = [h["size"] for h in af.history_]
    removed = [h["removed"] for h in af.history_]
    assert removed[:-1] == [15] * (len(removed) - 1) and removed[-1] == sizes[-1] - 101
    assert af.history_[-1]["stop_reason"] == "target_size"
    hi = AFLite(n_partitions=8, train_size=30, slice_size=15, tau=0.95, target_size=101).fit(X, y)
    last = hi.history_[-1]
    assert last["stop_reason"] == "tau" and last["n_passing_tau"] < 15
    assert last["removed"] == last["n_passing_tau"]      # the partial slice is still removed
    assert hi.retained_.sum() > 101


# --------------------------------------------------------------------------- bookkeeping

def test_scores_count_only_held_out_partitions():
    """Rebuild a phase's m training sets, fit the paper's LogisticRegression on each by
    hand, and check every recorded p̃ is (correct held-out predictions) / (held-out ones)."""
    X, y = _problem(5, n=150, d=3)
    af = AFLite(n_partitions=5, train_size=40, slice_size=10, tau=0.0, target_size=100,
                model="logistic", random_state=7).fit(X, y)
    for phase in (0, af.n_phases_ - 1):
        members = np.flatnonzero((af.removed_at_ == -1) | (af.removed_at_ >= phase))
        correct = np.zeros(len(y))
        held = np.zeros(len(y))
        train_sets = af.training_sets(phase)
        assert len(train_sets) == 5
        for tr in train_sets:
            assert len(tr) == 40 and np.isin(tr, members).all()
            te = np.setdiff1d(members, tr)
            model = LogisticRegression(C=1.0, max_iter=1000).fit(X[tr], y[tr])
            correct[te] += model.predict(X[te]) == y[te]
            held[te] += 1
        expected = np.full(len(y), np.nan, dtype=np.float32)
        ok = held > 0
        expected[ok] = (correct[ok] / held[ok]).astype(np.float32)
        got = af.scores_at(phase)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
        np.testing.assert_allclose(got[ok], expected[ok], rtol=0, atol=1e-6)


def test_ridge_scores_match_a_plain_per_partition_ridge():
    X, y = _problem(11, n=300, d=6, signal=0.7)
    af = AFLite(n_partitions=6, train_size=60, slice_size=20, tau=0.0, target_size=200,
                random_state=3).fit(X, y)
    Xc = X.astype(np.float64) - X.mean(axis=0)
    Xt = np.hstack([Xc, np.ones((len(X), 1))])
    Y = np.eye(3)[y]
    phase = 1
    members = np.flatnonzero((af.removed_at_ == -1) | (af.removed_at_ >= phase))
    correct = np.zeros(len(y))
    held = np.zeros(len(y))
    for tr in af.training_sets(phase):
        A = Xt[tr].T @ Xt[tr]
        lam = af.alpha * np.trace(A[:-1, :-1]) / (A.shape[0] - 1)
        A[np.arange(6), np.arange(6)] += lam
        W = np.linalg.solve(A, Xt[tr].T @ Y[tr])
        te = np.setdiff1d(members, tr)
        correct[te] += (Xt[te] @ W).argmax(axis=1) == y[te]
        held[te] += 1
    got = af.scores_at(phase)[members]
    expected = correct[members] / held[members]
    assert np.mean(np.abs(got - expected) < 1e-6) > 0.99   # float32 vs float64 near-ties only


def test_examples_never_held_out_get_nan_and_are_not_removed():
    # m = 1: the t training examples of a phase are never held out in that phase.
    X, y = _problem(2, n=100)
    af = AFLite(n_partitions=1, train_size=30, slice_size=10, tau=0.0, target_size=50).fit(X, y)
    s0 = af.scores_at(0)
    train0 = af.training_sets(0)[0]
    assert np.isnan(s0[train0]).all() and not np.isnan(np.delete(s0, train0)).any()
    assert af.history_[0]["n_never_held_out"] == 30
    assert not (af.removed_at_[train0] == 0).any()
    # predictability_ falls back to the last phase that did score the example.
    last = af.n_phases_ - 1
    for i in np.flatnonzero(af.retained_):
        scored = [j for j in range(af.n_phases_) if not np.isnan(af.scores_at(j)[i])]
        want = af.scores_at(scored[-1])[i] if scored else np.nan
        np.testing.assert_array_equal(af.predictability_[i], want)
    assert last >= 1


def test_predictability_and_history_are_consistent():
    X, y = _problem(4, n=200)
    af = AFLite(n_partitions=6, train_size=30, slice_size=10, tau=0.0, target_size=100).fit(X, y)
    assert af.retained_.sum() == 100
    assert sum(h["removed"] for h in af.history_) == 100
    assert [h["size"] for h in af.history_] == [200 - 10 * j for j in range(10)]
    for j, h in enumerate(af.history_):
        s = af.scores_at(j)
        gone = af.removed_at_ == j
        np.testing.assert_array_equal(af.predictability_[gone], s[gone])
        assert h["R"] == pytest.approx(np.nanmean(s), abs=1e-6)
        # greedy slicing: everything removed scores at least as high as everything kept
        kept = (af.removed_at_ == -1) | (af.removed_at_ > j)
        assert s[gone].min() >= np.nanmax(s[kept])
    assert ((af.predictability_ >= 0) & (af.predictability_ <= 1)).all()


def test_reproducible_and_seed_dependent():
    X, y = _problem(8, n=150)
    kw = dict(n_partitions=6, train_size=30, slice_size=10, tau=0.0, target_size=80)
    a = AFLite(random_state=1, **kw).fit(X, y)
    b = AFLite(random_state=1, **kw).fit(X, y)
    c = AFLite(random_state=2, **kw).fit(X, y)
    np.testing.assert_array_equal(a.removed_at_, b.removed_at_)
    np.testing.assert_array_equal(a.phase_scores_, b.phase_scores_)
    assert not np.array_equal(a.phase_scores_, c.phase_scores_)


def test_labels_of_any_hashable_type_give_the_same_run():
    X, y = _problem(9, n=120)
    names = np.array(["ant", "bee", "cat"], dtype=object)[y]
    kw = dict(n_partitions=5, train_size=20, slice_size=8, tau=0.0, target_size=60)
    a = AFLite(**kw).fit(X, y)
    b = AFLite(**kw).fit(X, list(names))
    np.testing.assert_array_equal(a.removed_at_, b.removed_at_)
    assert list(b.classes_) == ["ant", "bee", "cat"]


# --------------------------------------------------------------------------- strategies

def test_greedy_removes_one_per_phase():
    X, y = _problem(1, n=60)
    af = AFLite(n_partitions=4, train_size=10, slice_size=0.5, tau=0.0, target_size=50,
                strategy="greedy").fit(X, y)
    assert af.k_ == 1 and af.n_phases_ == 10
    assert all(h["removed"] == 1 for h in af.history_)


def test_slice_sampling_prefers_predictable_examples_but_is_random():
    X, y = _problem(6, n=400, signal=1.5)
    kw = dict(n_partitions=8, train_size=60, slice_size=40, tau=0.0, target_size=200)
    greedy = AFLite(**kw).fit(X, y)
    sampled = AFLite(strategy="slice-sample", **kw).fit(X, y)
    s0 = sampled.scores_at(0)
    gone = sampled.removed_at_ == 0
    assert gone.sum() == 40
    assert s0[gone].mean() > np.nanmean(s0) + 0.05           # ∝ p̃: biased towards high scores
    assert not np.array_equal(gone, greedy.removed_at_ == 0)  # not the greedy top-k
    assert sampled.phase_noise_ is not None and len(sampled.phase_noise_) == len(sampled.phase_scores_)


def test_quality_order_removes_lowest_quality_among_passing_tau():
    X, y = _problem(7, n=200, signal=1.5)
    quality = np.random.default_rng(0).random(200)
    af = AFLite(n_partitions=6, train_size=30, slice_size=10, tau=0.5, target_size=100).fit(
        X, y, quality=quality)
    for j in range(af.n_phases_):
        s = af.scores_at(j)
        gone = np.flatnonzero(af.removed_at_ == j)
        passing = np.flatnonzero(s >= 0.5)
        want = passing[np.argsort(quality[passing], kind="stable")[:len(gone)]]
        assert set(gone) == set(want)


@pytest.mark.parametrize("model", ["ridge", "logistic", "svm", "ensemble"])
def test_every_family_removes_the_planted_bias(model):
    X, y, biased = _circles(600)
    af = AFLite(n_partitions=8, train_size=0.1, slice_size=0.1, tau=0.0, target_size=0.3,
                model=model).fit(X, y)
    assert af.retained_.sum() == 180
    assert biased[af.retained_].mean() < 0.45                 # from 0.75 in the full set
    if model == "ensemble":
        assert af.families_ == ("logistic", "svm")


def test_high_dimensional_input_is_reduced_and_recorded():
    X, y = _problem(12, n=200, d=40)
    af = AFLite(n_partitions=4, train_size=30, slice_size=20, tau=0.0, target_size=100,
                max_dim=8).fit(X, y)
    assert af.reduction_["method"] == "pca" and af.reduction_["d_out"] == 8
    assert 0 < af.reduction_["explained_variance_ratio"] <= 1
    full = AFLite(n_partitions=4, train_size=30, slice_size=20, tau=0.0, target_size=100,
                  max_dim=None).fit(X, y)
    assert full.reduction_ is None


# --------------------------------------------------------------------------- callbacks, persistence

def test_progress_on_phase_and_cancel():
    X, y = _problem(3, n=150)
    seen, phases = [], []
    af = AFLite(n_partitions=4, train_size=20, slice_size=10, tau=0.0, target_size=100)
    af.fit(X, y, progress=lambda f, msg: seen.append(f), on_phase=phases.append)
    assert seen and all(0 <= f <= 1 for f in seen) and seen == sorted(seen) and seen[-1] == 1.0
    assert [p["phase"] for p in phases] == list(range(af.n_phases_))
    assert len(phases[0]["scores"]) == len(phases[0]["indices"]) == 150
    assert len(phases[0]["removed_indices"]) == 10
    stop = threading.Event()
    stop.set()
    with pytest.raises(Cancelled):
        AFLite(n_partitions=4, train_size=20, slice_size=10).fit(X, y, cancel=stop)


def test_record_is_json_and_trajectory_round_trips(tmp_path):
    X, y = _problem(10, n=160)
    names = np.array(["a", "b", "c"])[y]
    af = AFLite(n_partitions=5, train_size=20, slice_size=10, tau=0.0, target_size=60,
                strategy="slice-sample").fit(X, names)
    rec = json.loads(json.dumps(af.to_record()))
    assert rec["params"]["n_partitions"] == 5 and rec["resolved"]["n"] == 60
    assert len(rec["history"]) == af.n_phases_ and rec["classes"] == ["a", "b", "c"]
    path = tmp_path / "run.npz"
    af.save_trajectory(path)
    back = AFLite.load_trajectory(path)
    np.testing.assert_array_equal(back.retained_, af.retained_)
    for n2 in (60, 90, 130):
        np.testing.assert_array_equal(back.retained_for(target_size=n2), af.retained_for(target_size=n2))
    np.testing.assert_array_equal(back.scores_at(1), af.scores_at(1))


# --------------------------------------------------------------------------- baselines

def test_baselines_have_the_requested_size():
    X, y, biased = _circles(600)
    mask = random_subset(600, 180, random_state=0)
    assert mask.sum() == 180
    single = single_model_filter(X, y, 180)
    assert single.sum() == 180
    assert biased[single].mean() < biased[mask].mean()


# --------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("params, match", [
    (dict(tau=1.5), "tau"),
    (dict(tau=-0.1), "tau"),
    (dict(slice_size=0), "slice_size"),
    (dict(target_size=100), "target_size"),          # n ≥ N
    (dict(target_size=1.0), "target_size"),
    (dict(train_size=60, target_size=50), "train_size"),   # t ≥ n, so t ≥ |S| late on
    (dict(train_size=2), "train_size"),              # fewer rows than classes
    (dict(n_partitions=0), "n_partitions"),
    (dict(model="forest"), "model"),
    (dict(strategy="beam"), "strategy"),
    (dict(random_state=-3), "random_state"),
])
def test_bad_parameters_name_the_parameter(params, match):
    X, y = _problem(0, n=100)
    with pytest.raises(InputError, match=match):
        AFLite(**params).fit(X, y)


def test_a_fraction_too_small_for_one_example_still_removes_one_a_phase():
    """0.001 of 100 rows rounds down to 0 examples; a phase removes at least one (and a model sees
    every class once), so the defaults work on small files."""
    X, y = _problem(0, n=100)
    fitted = AFLite(slice_size=0.001, train_size=0.001, tau=0.0, target_size=90, random_state=0).fit(X, y)
    assert fitted.trajectory_.k == 1 and fitted.trajectory_.t == len(np.unique(y))


def test_bad_data():
    X, y = _problem(0, n=100)
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(InputError, match="NaN"):
        AFLite().fit(bad, y)
    bad[3, 1] = np.inf
    with pytest.raises(InputError, match="row 3"):
        AFLite().fit(bad, y)
    with pytest.raises(InputError, match="len"):
        AFLite().fit(X, y[:-1])
    with pytest.raises(InputError, match="single class"):
        AFLite().fit(X, np.zeros(100))
    with pytest.raises(InputError, match="rows"):
        AFLite(train_size=1, target_size=2, slice_size=1).fit(X[:3], y[:3])
    with pytest.raises(InputError, match="quality"):
        AFLite().fit(X, y, quality=np.ones(5))
    with pytest.raises(InputError, match="not fitted"):
        AFLite().retained_for(0.9)
