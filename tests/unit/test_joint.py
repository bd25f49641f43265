"""The joint filter (`core.dynamics.joint`, issue 23): AFLite removes only easy-to-learn examples, protects
ambiguous ones and keeps possibly mislabelled ones for review; the run's key, file, manifest,
tables, card and review queue carry it; live τ/n stays exact (the engine's property test covers
the protected order: tests/unit/test_aflite.py)."""
import json
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from artifact_lens.aflite import AFLite
from artifact_lens.data.dataset import Dataset
from artifact_lens.base.errors import InputError
from artifact_lens.dynamics.joint import descriptor, joint_inputs, key_part
from artifact_lens.team.review import queue
from artifact_lens.results.runs import Run, fit_run, run_key
from test_cartography import blobs

PARAMS = dict(n_partitions=8, train_size=0.2, slice_size=0.02, tau=0.0, target_size=0.5, random_state=3)


@pytest.fixture(scope="module")
def problem():
    """Blobs with 10 % flipped labels and 10 % between classes, as a dataset and its Φ."""
    X, y, flipped, between = blobs(n=1500, d=16, seed=1)
    ids = np.array([f"x{i}" for i in range(len(y))])
    table = pd.DataFrame({"text": [f"t{i}" for i in range(len(y))], "label": np.array(["a", "b", "c"])[y]},
                         index=pd.Index(ids, name="id"))
    ds = Dataset(table=table, label="label", text=["text"], name="blobs")
    rep = SimpleNamespace(X=X, ids=ids, excluded_ids=np.array([], dtype=str), spec="blobs:dim=16", info={})
    return ds, rep, flipped, between


@pytest.fixture(scope="module")
def joint(problem):
    from artifact_lens.dynamics.joint import joint_for

    ds, rep, _, _ = problem
    return joint_for(ds, rep, descriptor(epochs=6))


@pytest.fixture(scope="module")
def run(problem, joint):
    ds, rep, _, _ = problem
    return fit_run(ds, rep, PARAMS, joint=joint)


def test_the_masks_follow_the_rule(joint, problem):
    _, _, flipped, _ = problem
    assert (joint.mislabelled <= joint.protected).all()          # a possibly mislabelled example is never removed
    f = joint.found
    assert f["protected"] == int(joint.protected.sum()) and f["possibly_mislabelled"] == int(joint.mislabelled.sum())
    assert f["removable"] + f["protected"] == f["examples"] == len(flipped)
    assert f["regions"]["ambiguous"] + f["regions"]["hard-to-learn"] <= f["protected"]
    # the flipped labels are what it sends to review: most of them, and mostly them
    caught = (joint.mislabelled & flipped).sum()
    assert caught / flipped.sum() > 0.7 and caught / joint.mislabelled.sum() > 0.5


def test_a_joint_run_never_removes_a_protected_example_and_records_both_inputs(run, joint, problem):
    ds, rep, flipped, _ = problem
    assert not (joint.protected & ~run.retained).any()
    assert (~run.retained).sum() > 0
    assert set(run.review_first) == set(np.asarray(rep.ids)[joint.mislabelled])
    # the same AFLite without the joint filter removes some of what the joint one protects
    plain = fit_run(ds, rep, PARAMS)
    assert (joint.protected & ~plain.retained).sum() > 0
    assert (~run.retained).sum() == (~plain.retained).sum()     # both reach n
    m = run.manifest()
    assert m["aflite"]["params"]["slice_size"] == PARAMS["slice_size"]
    assert m["joint"]["model"] == "linear" and m["joint"]["epochs"] == 6 and m["joint"]["found"] == joint.found
    assert m["joint"]["possibly_mislabelled_ids"] == [str(i) for i in run.review_first]
    assert "joint filter" in m["aflite"]["removal_order"]
    assert m["aflite"]["resolved"]["protected"] == int(joint.protected.sum())
    json.dumps(m)


def test_the_key_names_the_joint_filter_and_not_what_it_found(run, problem):
    ds, rep, _, _ = problem
    info = descriptor(epochs=6)
    assert run.key == run_key(ds.fingerprint, rep.spec, PARAMS, None, info)
    assert run.key != run_key(ds.fingerprint, rep.spec, PARAMS)
    assert run.key != run_key(ds.fingerprint, rep.spec, PARAMS, None, descriptor(epochs=7))
    assert key_part(run.joint) == info


def test_live_tau_and_n_of_a_joint_run_equal_a_fresh_joint_fit(run, problem, joint):
    ds, rep, _, _ = problem
    fresh = fit_run(ds, rep, dict(PARAMS, tau=0.6, target_size=0.7), joint=joint)
    assert np.array_equal(run.retained_for(tau=0.6, target_size=0.7), fresh.retained)


def test_the_run_file_keeps_the_joint_record(run, tmp_path):
    run.save(tmp_path / "r.npz")
    back = Run.load(tmp_path / "r.npz")
    assert back.key == run.key and back.joint == run.joint
    assert back.review_first.tolist() == run.review_first.tolist()
    assert np.array_equal(back.trajectory.protected, run.trajectory.protected)
    assert np.array_equal(back.retained_for(tau=0.7), run.retained_for(tau=0.7))


def test_tables_show_possibly_mislabelled_for_joint_runs_only(run, problem):
    from artifact_lens.results.tables import ExampleTable

    ds, rep, _, _ = problem
    frame = ExampleTable(ds, run).browse()
    assert frame.set_index("id")["possibly_mislabelled"][list(run.review_first)].all()
    assert frame["possibly_mislabelled"].sum() == len(run.review_first)
    assert ExampleTable(ds, run).export(which="all")["possibly_mislabelled"].sum() == len(run.review_first)
    plain = fit_run(ds, rep, PARAMS)
    assert "possibly_mislabelled" not in ExampleTable(ds, plain).browse()


def test_the_card_says_what_the_joint_filter_kept(run, problem):
    from huggingface_hub import DatasetCard

    from artifact_lens.exports.card import dataset_card
    from artifact_lens.exports.manifest import manifest_for

    ds, _, _, _ = problem
    manifest = manifest_for(run, which="retained", fmt="datasets", rows=int(run.retained.sum()), dataset=ds)
    text = str(dataset_card(manifest))
    f = run.joint["found"]
    assert "Joint filter" in text and f"{f['possibly_mislabelled']:,}" in text
    assert DatasetCard(text).data.to_dict()["tags"]


@pytest.mark.parametrize("bad, match", [
    (dict(model="forest"), "model"), (dict(epochs=1), "epochs"), (dict(folds=1), "folds"),
    (dict(epochs=True), "epochs"), (dict(folds=2.5), "folds")])
def test_bad_joint_options_are_one_clear_error(bad, match):
    with pytest.raises(InputError, match=match):
        descriptor(**bad)


def test_the_engine_refuses_a_bad_protected_mask():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 3)).astype(np.float32), rng.integers(0, 2, 60)
    for bad in (np.ones(59, bool), np.zeros(60, int), np.ones(60, bool)):
        with pytest.raises(InputError, match="protect"):
            AFLite(n_partitions=2, train_size=10, slice_size=5, target_size=30).fit(X, y, protected=bad)


def test_a_cartography_that_protects_everything_is_refused():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(300, 4)).astype(np.float32), rng.integers(0, 3, 300)   # nothing to learn: p(gold) ≈ 1/3
    with pytest.raises(InputError, match="protects every example"):
        joint_inputs(X, y, np.arange(300).astype(str), None, descriptor())


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=1, max_size=30, unique=True), st.sets(st.integers(0, 40)),
       st.sets(st.integers(0, 30)), st.sampled_from(["predictability", "random"]), st.integers(1, 3))
def test_the_queue_serves_possibly_mislabelled_first_and_nothing_else_changes(rows, first, mine, order, per):
    ids = np.array([f"e{i}" for i in rows])
    scores = np.linspace(0, 1, len(ids))[::-1]
    counts = {f"e{i}": (i % 3) for i in rows}
    first_ids = [f"e{i}" for i in first]
    mine_ids = {f"e{i}" for i in mine}
    plain = queue(ids, scores, mine_ids, order=order, counts=counts, per_example=per)
    served = queue(ids, scores, mine_ids, order=order, counts=counts, per_example=per, first=first_ids)
    assert sorted(served) == sorted(plain)                    # the same examples
    flag = np.isin(served, first_ids)
    assert not (np.diff(flag.astype(int)) > 0).any()          # every flagged one before every other
    # within each group, the plain order
    assert [i for i in served if i in first_ids] == [i for i in plain if i in first_ids]
    assert [i for i in served if i not in first_ids] == [i for i in plain if i not in first_ids]
