"""The engine's package API: the one τ/k/n rule, resolve_size, the Trajectory object, parameter types."""
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest

from artifact_lens.aflite import AFLite, ParameterError, RefitNeeded, Trajectory, resolve_size
from artifact_lens.aflite.selection import passing, phase_step
from artifact_lens.base.errors import InputError

CORE = Path(__file__).resolve().parents[2] / "core"


def _problem(seed=0, n=160, d=4, n_classes=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    X = rng.standard_normal((n, d)) + rng.standard_normal((n_classes, d))[y] * (rng.random(n) < 0.5)[:, None]
    return X.astype(np.float32), y


@pytest.fixture(scope="module")
def fitted():
    X, y = _problem()
    return AFLite(n_partitions=5, train_size=20, slice_size=10, tau=0.0, target_size=60).fit(X, y)


# --------------------------------------------------------------------------- the rule

def test_resolve_size_counts_and_fractions():
    assert resolve_size("target_size", "n", 37, 100) == 37
    assert resolve_size("target_size", "n", np.int64(37), 100) == 37
    assert resolve_size("target_size", "n", 0.3, 10) == 3
    assert resolve_size("target_size", "n", 0.29, 100) == 29      # 0.29 * 100 = 28.999…: not 28
    assert resolve_size("train_size", "t", 0.999, 10) == 9         # rounded down
    assert resolve_size("slice_size", "k", np.float32(0.5), 9) == 4
    for bad in (True, 1.0, 0.0, -0.2, "0.5", None):
        with pytest.raises(InputError, match="slice_size"):
            resolve_size("slice_size", "k", bad, 100)


def test_phase_step_truncates_at_n_and_stops_when_fewer_than_k_pass():
    assert phase_step(n_pass=50, size=100, k=10, n=40) == (10, None)
    assert phase_step(n_pass=50, size=45, k=10, n=40) == (5, "target_size")   # last slice truncated
    assert phase_step(n_pass=50, size=50, k=10, n=40) == (10, "target_size")  # |S| − r = n exactly
    assert phase_step(n_pass=7, size=100, k=10, n=40) == (7, "tau")           # the partial slice goes too
    assert phase_step(n_pass=0, size=100, k=10, n=40) == (0, "tau")


def test_never_held_out_members_never_pass_tau():
    scores = np.array([0.0, 0.5, np.nan, 1.0], dtype=np.float32)
    np.testing.assert_array_equal(passing(scores, 0.0), [True, True, False, True])
    np.testing.assert_array_equal(passing(scores, 0.5), [False, True, False, True])


def test_tau_is_compared_in_one_place_only():
    hits = [f"{p.relative_to(CORE)}:{i}" for p in CORE.rglob("*.py")
            for i, line in enumerate(p.read_text().splitlines(), 1) if re.search(r">=\s*tau\b", line)]
    assert len(hits) == 1 and hits[0].startswith("aflite/selection.py:"), hits


# --------------------------------------------------------------------------- the trajectory

def test_fitted_attributes_are_the_trajectory(fitted):
    traj = fitted.trajectory_
    assert isinstance(traj, Trajectory)
    assert fitted.retained_ is traj.retained and fitted.removed_at_ is traj.removed_at
    assert (fitted.n_, fitted.t_, fitted.k_, fitted.m_, fitted.tau_) == (traj.n, traj.t, traj.k, traj.m, traj.tau) \
        == (60, 20, 10, 5, 0.0)
    assert traj.n_samples == 160 and traj.n_phases == len(traj.history) == 10
    assert traj.retained.dtype == bool and traj.removed_at.dtype == np.int64
    assert traj.predictability.dtype == np.float32 and traj.retained.sum() == 60
    assert list(traj.classes) == [0, 1, 2] and traj.strategy == "greedy-slice" and traj.seed == 0
    assert all("R" in h and "mean_score" not in h for h in traj.history)
    assert fitted.to_record() is traj.record


def test_members_and_phase_scores_are_aligned(fitted):
    traj = fitted.trajectory_
    np.testing.assert_array_equal(traj.members(0), np.arange(160))
    for j in range(traj.n_phases):
        members, scores = traj.members(j), traj.phase_scores(j)
        assert len(members) == len(scores) == traj.history[j]["size"] == 160 - 10 * j
        assert np.all(np.diff(members) > 0)
        np.testing.assert_array_equal(traj.scores_at(j)[members], scores)
        assert np.isnan(np.delete(traj.scores_at(j), members)).all()
        # the rows removed in phase j are members of j but not of j + 1
        gone = np.flatnonzero(traj.removed_at == j)
        assert np.isin(gone, members).all()
        if j + 1 < traj.n_phases:
            assert not np.isin(gone, traj.members(j + 1)).any()
    with pytest.raises(InputError, match="phase"):
        traj.scores_at(traj.n_phases)


def test_arrays_round_trip_to_the_same_answers(fitted):
    traj = fitted.trajectory_
    arrays = traj.to_arrays()
    assert "record" not in arrays and set(arrays) >= {"removed_at", "removal_rank", "predictability",
                                                       "phase_scores", "phase_offsets"}
    assert all(isinstance(a, np.ndarray) and a.dtype.kind in "biuf" for a in arrays.values())
    back = Trajectory.from_arrays(json.loads(json.dumps(traj.record)), arrays)
    for tau, n in ((None, None), (0.6, None), (0.8, 100), (0.0, 0.75)):
        np.testing.assert_array_equal(back.retained_for(tau, n), traj.retained_for(tau, n))
        got, want = back.result_for(tau, n), traj.result_for(tau, n)
        np.testing.assert_array_equal(got["removed_at"], want["removed_at"])
        assert got["n_phases"] == want["n_phases"]
    damaged = dict(arrays)
    del damaged["phase_offsets"]
    with pytest.raises(InputError, match="damaged"):
        Trajectory.from_arrays(traj.record, damaged)


def test_live_answers_are_fresh_arrays(fitted):
    traj = fitted.trajectory_
    answer = traj.retained_for()
    np.testing.assert_array_equal(answer, traj.retained)
    answer[:] = False
    assert traj.retained.sum() == 60


def test_live_bounds_and_clamp(fitted):
    traj = fitted.trajectory_
    assert traj.live_bounds() == {"tau_min": 0.0, "n_min": 60, "N": 160}
    assert traj.clamp(0.4, 0.5) == (0.4, 80)
    assert traj.clamp(0.4, 90) == (0.4, 90)
    assert traj.clamp(0.4, 10) == (0.4, 60)          # below the fitted n
    assert traj.clamp(0.4, 500) == (0.4, 159)        # at most N − 1
    high = AFLite(n_partitions=5, train_size=20, slice_size=10, tau=0.5, target_size=60).fit(*_problem())
    assert high.trajectory_.clamp(0.2, 0.1) == (0.5, 60)
    tau, n = high.trajectory_.clamp(0.2, 0.1)
    np.testing.assert_array_equal(high.trajectory_.retained_for(tau, n), high.retained_)
    with pytest.raises(RefitNeeded):
        high.trajectory_.retained_for(0.2, 0.1)


def test_save_load_file_objects_and_older_files(fitted):
    buf = io.BytesIO()
    fitted.trajectory_.save(buf)
    buf.seek(0)
    back = Trajectory.load(buf)
    np.testing.assert_array_equal(back.retained_for(0.7, 90), fitted.retained_for(0.7, 90))
    assert len(back.training_sets(2)) == 5
    # A file from before: history with mean_score (= R), no block size recorded.
    buf.seek(0)
    with np.load(buf) as z:
        arrays = {k: z[k] for k in z.files}
    record = json.loads(str(arrays.pop("record")))
    for h in record["history"]:
        h["mean_score"] = h["R"]
    del record["resolved"]["block_size"]
    old = io.BytesIO()
    np.savez_compressed(old, record=np.array(json.dumps(record)), **arrays)
    old.seek(0)
    est = AFLite.load_trajectory(old)
    np.testing.assert_array_equal(est.retained_for(0.7, 90), fitted.retained_for(0.7, 90))
    assert est.get_params() == fitted.get_params()
    with pytest.raises(InputError, match="block size"):
        est.training_sets(0)
    with pytest.raises(InputError, match="damaged"):
        Trajectory.load(io.BytesIO(b"not an npz"))


# --------------------------------------------------------------------------- parameter types

@pytest.mark.parametrize("name", ["n_partitions", "train_size", "slice_size", "target_size", "tau",
                                  "max_dim", "alpha", "random_state"])
def test_bools_are_not_numbers(name):
    with pytest.raises(ParameterError, match=name):
        AFLite(**{name: True}).fit(*_problem())


def test_numpy_fractions_give_the_same_run_as_python_floats():
    X, y = _problem(1)
    kw = dict(n_partitions=4, train_size=20, tau=0.0, target_size=60)
    a = AFLite(slice_size=0.0625, **kw).fit(X, y)
    b = AFLite(slice_size=np.float32(0.0625), **kw).fit(X, y)
    assert a.k_ == b.k_ == 10
    np.testing.assert_array_equal(a.removed_at_, b.removed_at_)


def test_a_fraction_that_rounds_to_no_examples_names_target_size():
    with pytest.raises(InputError, match="target_size=0.001 gives n=0"):
        AFLite(train_size=10, slice_size=10, tau=0.0, target_size=0.001).fit(*_problem())


def test_an_examples_way_through_the_run():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    X = (rng.normal(size=(200, 3)) + y[:, None]).astype(np.float32)
    traj = AFLite(n_partitions=4, train_size=40, slice_size=10, tau=0.0, target_size=100).fit(X, y).trajectory_
    gone = int(np.flatnonzero(traj.removed_at >= 2)[0])
    h = traj.history_of(gone)
    assert h["phase"].tolist() == list(range(1, traj.removed_at[gone] + 2)) and h["removed"].tolist()[-1]
    assert h["removed"].sum() == 1
    np.testing.assert_allclose(h["p̃"], [traj.scores_at(j)[gone] for j in range(len(h))])
    kept = int(np.flatnonzero(traj.removed_at == -1)[0])
    assert len(traj.history_of(kept)) == traj.n_phases and not traj.history_of(kept)["removed"].any()


def test_nearest_neighbours_by_cosine():
    from artifact_lens.representations.neighbours import nearest

    X = np.array([[1, 0], [0.9, 0.1], [0, 1], [-1, 0], [0, 0]], dtype=np.float32)
    rows, sims = nearest(X, 0, 3)
    assert rows.tolist() == [1, 2, 4] and sims[0] > 0.99 and sims[1] == 0.0
    assert nearest(X, 4, 10)[0].tolist() == [0, 1, 2, 3]        # a zero row: similarity 0 to all, k capped
    with pytest.raises(InputError, match="row=9 is invalid"):
        nearest(X, 9)


def test_search_hits_are_marked_as_text():
    import pandas as pd

    from artifact_lens.results.tables import mark_hits

    frame = pd.DataFrame({"premise": ["A man sleeps.", "x" * 100 + "Nobody" + "y" * 100],
                          "hypothesis": ["<b>nobody</b> is awake", "none"]})
    got = mark_hits(frame, "nobody", ["premise", "hypothesis"], width=10)
    assert got.tolist() == ["<b>⟦nobody⟧</b> …", "…xxxxx⟦Nobody⟧yyyyy…"]
    assert mark_hits(frame, "", ["premise"]).tolist() == ["", ""]
