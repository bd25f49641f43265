"""Runs: the plain record, its files, the store, and the thread job runner."""
import json
import threading
import time
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from artifact_lens.data.dataset import Dataset
from artifact_lens.base.errors import Cancelled, InputError
from artifact_lens.base.jobs import Job, JobRunner
from artifact_lens.base.result_store import MARK
from artifact_lens.results.runs import STORE_FORMAT, CorruptRun, Run, RunStore, fit_run, package_versions, run_key
from jobkeys import job_key

PARAMS = dict(n_partitions=8, train_size=0.2, slice_size=0.05, tau=0.0, target_size=0.4, random_state=1)


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(0)
    n = 300
    y = rng.integers(0, 3, n)
    X = rng.normal(size=(n, 6)).astype(np.float32)
    X[: n // 2, 0] += y[: n // 2] * 2.0  # half the examples carry an easy signal
    ids = np.array([f"e{i}" for i in range(n + 10)])
    table = pd.DataFrame({"text": [f"t{i}" for i in range(n + 10)],
                          "label": np.r_[np.array(["a", "b", "c"])[y], ["a", "b"] * 5]},
                         index=pd.Index(ids, name="id"))
    ds = Dataset(table=table, label="label", text=["text"], name="toy")
    # the last 10 examples play the warm-up set: not in X
    rep = SimpleNamespace(X=X, ids=ids[:n], excluded_ids=ids[n:], spec="toy:dim=6", info={"dim": 6})
    return ds, rep


@pytest.fixture(scope="module")
def run(problem):
    ds, rep = problem
    phases = []
    r = fit_run(ds, rep, PARAMS, on_phase=phases.append)
    r.test_phases = phases
    return r


def test_fit_run_records_everything(run, problem):
    ds, rep = problem
    assert len(run.ids) == 300 and list(run.excluded_ids) == [f"e{i}" for i in range(300, 310)]
    assert run.retained.sum() == 120  # n = 40 % of 300
    assert run.n_phases == len(run.history) == len(run.test_phases) > 1
    assert run.history[0]["size"] == 300
    assert run.dataset_fingerprint == ds.fingerprint and run.representation == "toy:dim=6"
    assert run.params["n_partitions"] == 8 and run.record["seed"] == 1
    assert run.versions["numpy"] == np.__version__
    # the signal half is removed more often than the noise half
    assert (~run.retained[:150]).mean() > (~run.retained[150:]).mean()


def test_save_load_roundtrip_answers_tau_and_n_identically(run, tmp_path):
    path = run.save(tmp_path / "r.npz")
    back = Run.load(path)
    assert back.key == run.key
    np.testing.assert_array_equal(back.ids, run.ids)
    np.testing.assert_array_equal(back.retained, run.retained)
    np.testing.assert_array_equal(back.predictability, run.predictability)
    for tau, n in [(0.5, None), (None, 0.6), (0.7, 0.5), (0.95, None)]:
        np.testing.assert_array_equal(back.retained_for(tau, n), run.retained_for(tau, n))
    np.testing.assert_array_equal(back.scores_at(1), run.scores_at(1))
    # a larger τ never keeps fewer examples
    assert run.retained_for(0.9).sum() >= run.retained_for(0.5).sum() >= run.retained.sum()
    # JSON is plain
    with np.load(path, allow_pickle=False) as npz:
        meta = json.loads(str(npz["meta"]))
    assert meta["record"]["history"][0]["phase"] == 0


def test_retained_for_below_fitted_needs_refit(run):
    from artifact_lens.aflite import RefitNeeded

    with pytest.raises(RefitNeeded, match="refit"):
        run.retained_for(target_size=0.2)


def test_manifest(run):
    m = run.manifest(note="x")
    json.dumps(m)
    assert m["dataset"]["warmup_excluded"] == 10 and len(m["warmup_excluded_ids"]) == 10
    assert m["aflite"]["seed"] == 1 and m["aflite"]["n_phases"] == run.n_phases
    assert m["note"] == "x" and m["run_key"] == run.key


def test_run_key_depends_on_params_data_and_spec():
    f1, f2 = "f1" * 8, "f2" * 8   # fingerprints are data keys: hex digits
    base = run_key(f1, "spec", PARAMS)
    assert base == run_key(f1, "spec", dict(reversed(list(PARAMS.items()))))
    assert base != run_key(f2, "spec", PARAMS)
    assert base != run_key(f1, "spec2", PARAMS)
    assert base != run_key(f1, "spec", dict(PARAMS, n_partitions=16))
    with pytest.raises(TypeError, match="data it was computed from"):
        run_key("data/snli.csv", "spec", PARAMS)   # a path never names a run


def test_store(run, tmp_path):
    store = RunStore(tmp_path / "runs")
    assert store.get(run.key) is None
    store.put(run)
    assert run.key in store
    fresh = RunStore(tmp_path / "runs")  # a new process: from disk
    loaded = fresh.get(run.key)
    np.testing.assert_array_equal(loaded.retained_for(0.8), run.retained_for(0.8))
    assert fresh.keys() == [run.key]


def _rewrite_meta(path, **changes):
    with np.load(path, allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    meta = json.loads(str(arrays["meta"]))
    arrays["meta"] = np.array(json.dumps({**meta, **changes}))
    np.savez(path, **arrays)


def test_store_tells_outdated_from_corrupt(run, tmp_path, caplog):
    store = RunStore(tmp_path / "runs")
    path = store.path(store.put(run))
    assert Run.load(path, expect_format=STORE_FORMAT) is not None
    # saved by an older version of the store: a miss, recomputed on demand
    _rewrite_meta(path, format=STORE_FORMAT - 1)
    assert store.get(run.key) is None
    # damaged files: an error that names the file, logged, never a silent miss
    path.write_bytes(path.read_bytes()[:200])
    with caplog.at_level("WARNING", logger="artifact_lens.runs"):
        with pytest.raises(CorruptRun, match="damaged"):
            store.get(run.key)
    assert any(str(path) in r.getMessage() for r in caplog.records)
    # an old-layout folder (format 1) is an outdated miss too
    (tmp_path / "runs" / "abc").mkdir()
    (tmp_path / "runs" / "abc" / "run.json").write_text("{}")
    assert store.get("abc") is None and "abc" not in store.keys()


def test_a_failed_save_keeps_the_run_and_leaves_no_temporary(run, tmp_path, monkeypatch, caplog):
    store = RunStore(tmp_path / "runs")
    store.put(run)
    before = store.path(run.key).read_bytes()

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez", full_disk)
    with caplog.at_level("WARNING", logger="artifact_lens.runs"):
        assert store.put(run) is None          # logged, not raised: the job that made the run goes on
    assert "No space left" in caplog.text
    assert store.path(run.key).read_bytes() == before   # the old copy is untouched
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == [MARK, store.path(run.key).name]


def test_bad_run_file(tmp_path):
    (tmp_path / "r.npz").write_text("{}")
    with pytest.raises(CorruptRun, match="cannot read the run"):
        Run.load(tmp_path / "r.npz")


def test_fit_run_refuses_foreign_representation(problem):
    ds, rep = problem
    bad = SimpleNamespace(X=rep.X, ids=np.array([f"x{i}" for i in range(len(rep.ids))]), spec="s")
    with pytest.raises(InputError, match="does not match the dataset"):
        fit_run(ds, bad, PARAMS)


def test_job_progress_records_result():
    gate = threading.Event()

    def work(ctx):
        ctx.progress(0.25, "a quarter")
        ctx.emit({"phase": 0})
        gate.wait(5)
        ctx.emit({"phase": 1})
        return 42

    job = Job(work, name="w").start()
    for _ in range(100):
        if job.records:
            break
        time.sleep(0.01)
    snap = job.snapshot()
    assert snap["status"] == "running" and snap["fraction"] == 0.25 and snap["message"] == "a quarter"
    assert snap["records"] == [{"phase": 0}]
    gate.set()
    job.wait(5)
    assert job.status == "done" and job.result == 42 and job.fraction == 1.0
    assert [r["phase"] for r in job.records] == [0, 1]


def test_job_cancel_and_error():
    def slow(ctx):
        for i in range(1000):
            ctx.progress(i / 1000, "step")
            time.sleep(0.005)
        return "finished"

    job = Job(slow).start()
    time.sleep(0.05)
    job.cancel()
    job.wait(5)
    assert job.status == "cancelled" and isinstance(job.error, Cancelled) and job.result is None

    def broken(ctx):
        raise InputError("bad column 'x'; use 'y'")

    job = Job(broken).start().wait(5)
    assert job.status == "error" and "bad column" in str(job.error) and job.done


def test_job_traceback_is_logged(caplog):
    def crash(ctx):
        return {}["missing"]

    with caplog.at_level("ERROR", logger="artifact_lens.jobs"):
        job = Job(crash, name="crash").start().wait(5)
    assert job.status == "error" and "KeyError" in job.traceback and "crash" in job.traceback
    assert any("Traceback" in r.getMessage() and "KeyError" in r.getMessage() for r in caplog.records)


def test_job_runner_forgets_old_finished_jobs():
    runner = JobRunner(keep_finished=3)
    for i in range(8):
        runner.submit(job_key(f"k{i}"), lambda ctx: "done").wait(5)
    runner.submit(job_key("last"), lambda ctx: "done").wait(5)
    kept = [k for k in [f"k{i}" for i in range(8)] + ["last"] if runner.get(job_key(k)) is not None]
    assert len(kept) <= 4 and "last" in kept and runner.get(job_key("k0")) is None


def test_job_runner_dedupes_running_keys():
    gate = threading.Event()
    runner = JobRunner()
    a = runner.submit(job_key("k"), lambda ctx: gate.wait(5) and "x")
    b = runner.submit(job_key("k"), lambda ctx: "other")
    assert a is b and runner.running() == [a]
    gate.set()
    a.wait(5)
    c = runner.submit(job_key("k"), lambda ctx: "again").wait(5)
    assert c is not a and c.result == "again" and runner.get(job_key("k")) is c


def test_cancel_reaches_aflite(problem):
    ds, rep = problem
    ev = threading.Event()
    ev.set()
    with pytest.raises(Cancelled):
        fit_run(ds, rep, PARAMS, cancel=ev)


def test_package_versions():
    v = package_versions()
    assert v["pandas"] == pd.__version__ and "python" in v


def test_live_columns_show_what_a_fresh_fit_at_that_tau_reports(run, problem):
    from artifact_lens.aflite import AFLite
    from artifact_lens.results.tables import ExampleTable

    ds, rep = problem
    tau, n = 0.7, int(0.5 * len(rep.ids))
    live = ExampleTable(ds, run).browse(run.result_for(tau=tau, target_size=n)).set_index("id")
    y = ds.table.loc[rep.ids, "label"].to_numpy()
    fresh = AFLite(**{**PARAMS, "tau": tau, "target_size": n}).fit(rep.X, y)
    scored = live.loc[rep.ids]
    assert scored["retained"].tolist() == fresh.retained_.tolist()
    assert scored["removed_at"].tolist() == fresh.removed_at_.tolist()
    np.testing.assert_allclose(scored["predictability"].to_numpy(), fresh.predictability_)
    # the fitted run went deeper, so at least one example shows an earlier phase's score
    assert not np.allclose(scored["predictability"].to_numpy(), run.predictability)
    assert live.loc[rep.excluded_ids, "predictability"].isna().all()


def test_below_chance_flags_over_filtering():
    from artifact_lens.aflite.summaries import below_chance

    history = [{"phase": 0, "heldout_accuracy": 0.61}, {"phase": 1, "heldout_accuracy": 0.40},
               {"phase": 2, "heldout_accuracy": 0.25}]
    run = SimpleNamespace(classes=["x", "y", "z"], history=history)  # all below_chance reads of a run
    assert below_chance(run, {"n_phases": 2}) is None  # 0.40 > 1/3
    flagged = below_chance(run, {"n_phases": 3})
    assert flagged == {"phase": 2, "accuracy": 0.25, "chance": pytest.approx(1 / 3)}


# ---------------------------------------------------------------- quality-ordered runs (paper 002)
def test_a_quality_ordered_run_has_its_own_key_and_records_its_quality(run, problem, tmp_path):
    ds, rep = problem
    q = np.linspace(0, 1, len(rep.ids))[::-1].copy()   # the signal half has the lowest quality
    info = {"source": "core.quality", "name": "dqi", "weights": {"label_tied": 2.0}}
    params = dict(PARAMS, tau=0.5)
    plain = fit_run(ds, rep, params)
    ordered = fit_run(ds, rep, params, quality=q, quality_info=info)
    assert plain.quality == {} and ordered.quality == info
    assert ordered.key != plain.key and ordered.key == run_key(ds.fingerprint, rep.spec, params, info)
    assert plain.key == run_key(ds.fingerprint, rep.spec, params) == run_key(ds.fingerprint, rep.spec, params, {})
    # another component (or other weights) is another run
    assert run_key(ds.fingerprint, rep.spec, params, dict(info, name="label_tied")) != ordered.key
    assert run_key(ds.fingerprint, rep.spec, params, dict(info, weights={"label_tied": 1.0})) != ordered.key
    assert not np.array_equal(plain.retained, ordered.retained)
    man = ordered.manifest()
    assert man["quality"] == info and man["aflite"]["removal_order"].startswith("quality")
    assert plain.manifest()["quality"] is None and plain.manifest()["aflite"]["removal_order"].startswith("predictab")
    store = RunStore(tmp_path / "runs")
    store.put(plain), store.put(ordered)
    assert sorted(store.keys()) == sorted([plain.key, ordered.key])
    back = store.get(ordered.key)
    assert back.quality == info and back.key == ordered.key
    assert np.array_equal(back.retained, ordered.retained) and store.get(plain.key).quality == {}


def test_a_quality_column_without_a_description_is_keyed_by_its_values(problem):
    ds, rep = problem
    q = np.linspace(0, 1, len(rep.ids))
    a = fit_run(ds, rep, dict(PARAMS, tau=0.5), quality=q)
    b = fit_run(ds, rep, dict(PARAMS, tau=0.5), quality=q[::-1].copy())
    assert a.quality["source"] == "values" and a.quality["digest"] != b.quality["digest"]
    assert a.key != b.key


def test_a_run_file_whose_arrays_or_ids_disagree_is_refused(tmp_path):
    """A run .npz edited by hand (fewer ids than scores, or ids of other rows) is one clear
    error, never an IndexError or a silent mismatch."""
    from artifact_lens.representations import represent
    from artifact_lens.results.run_arguments import read_run_argument
    from artifact_lens.data.sources import load_dataset

    ds = load_dataset("demo:nli:n=300")
    run = fit_run(ds, represent(ds, "tfidf-svd:fields=hypothesis,dim=8", cache_dir=tmp_path),
                  dict(n_partitions=4, train_size=0.1, slice_size=0.1, tau=0.0, target_size=0.5, random_state=0))
    whole = dict(np.load(run.save(tmp_path / "r.npz"), allow_pickle=False))
    np.savez(tmp_path / "fewer_ids.npz", **{**whole, "ids": whole["ids"][:200]})
    with pytest.raises(InputError, match="damaged .*200 ids"):
        read_run_argument(tmp_path / "fewer_ids.npz", ds)
    renamed = whole["ids"].copy()
    renamed[0] = "someone-else"
    np.savez(tmp_path / "renamed.npz", **{**whole, "ids": renamed})
    with pytest.raises(InputError, match="covers 300 ids .* they differ"):
        read_run_argument(tmp_path / "renamed.npz", ds)
    short = {k: (v[:-1] if k == "a:removal_rank" else v) for k, v in whole.items()}
    np.savez(tmp_path / "short.npz", **short)
    with pytest.raises(InputError, match="damaged .*disagree in length"):
        read_run_argument(tmp_path / "short.npz", ds)


def test_a_bounded_runner_computes_at_most_its_workers_at_once_and_cancels_a_waiting_job():
    """workers=2: of four jobs, two compute and two wait (pending, cancellable); every one that
    is not cancelled finishes; the bound is never passed."""
    runner = JobRunner(workers=2)
    gate, lock = threading.Event(), threading.Lock()
    running, most = [0], [0]

    def work(ctx):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        gate.wait(30)
        with lock:
            running[0] -= 1
        return "ok"

    jobs = [runner.submit(job_key(f"j{i}"), work) for i in range(4)]
    deadline = time.time() + 30
    while sum(j.status == "running" for j in jobs) < 2 and time.time() < deadline:
        time.sleep(0.01)
    waiting = [j for j in jobs if j.status == "pending"]
    assert len(waiting) == 2
    while not all("waiting for a free worker" in j.snapshot()["message"] for j in waiting) and time.time() < deadline:
        time.sleep(0.01)   # they say why they wait
    assert all("waiting for a free worker" in j.snapshot()["message"] for j in waiting)
    waiting[0].cancel()
    gate.set()
    for j in jobs:
        j.wait(30)
    assert waiting[0].status == "cancelled" and waiting[0].result is None
    assert sorted(j.status for j in jobs) == ["cancelled", "done", "done", "done"] and most[0] == 2


def test_run_keys_are_the_keys_earlier_versions_made():
    """A run store written before core had packages opens unchanged: plain, quality-ordered and
    joint runs keep the keys the earlier version gave the same parameters (these were computed
    with it), so moving a module never turns finished runs into misses."""
    from artifact_lens.dynamics.joint import descriptor
    from artifact_lens.quality.pruning import quality_descriptor
    from artifact_lens.results.runs import run_key

    fingerprint, spec = "0123456789abcdef", "tfidf-svd:dim=8"
    assert run_key(fingerprint, spec, {"n_partitions": 8, "tau": 0.5}) == "98e1a42e33b27baded8d"
    assert run_key(fingerprint, spec, {"n_partitions": 8}, quality=quality_descriptor("dqi")) == "7fbaaf8f9988f8dd51a4"
    assert run_key(fingerprint, spec, {}, joint=descriptor()) == "6e1e26bd6538be6911e2"
