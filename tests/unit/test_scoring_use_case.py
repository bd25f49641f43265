"""Scoring a dataset into a run is one use case (issue 43, `core.usecases.scoring.score_dataset`),
run here under plain pytest with a real run store and a real team store (SQLite): a stored run
answers without a fit; the run's life in a workspace is running → done with its file, or
interrupted when cancelled, or failed on an error; and the CLI's `aflite` gives the run the use
case gives."""
import json

import numpy as np
import pytest

from artifact_lens.base.errors import Cancelled
import threading
from artifact_lens.data.demos import make_nli
from artifact_lens.representations import represent
from artifact_lens.results.runs import RunStore, run_key
from artifact_lens.team.store import TeamStore
from artifact_lens.usecases.scoring import RunLife, score_dataset

OWNER = "owner@team.org"
PARAMS = dict(n_partitions=4, train_size=0.3, slice_size=0.05, target_size=0.6, tau=0.75, random_state=0)
SPEC = "tfidf-svd:fields=hypothesis,dim=16"


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("scoring")
    ds = make_nli(n=300, random_state=1)
    return root, ds, represent(ds, SPEC, cache_dir=root / "cache")


@pytest.fixture()
def workspace(tmp_path, data):
    _, ds, _ = data
    with TeamStore(f"sqlite:///{tmp_path}/team.sqlite", files=tmp_path / "files") as store:
        ws = store.workspace("nli", OWNER)
        handle = store.scoped(ws, OWNER)
        yield store, handle, handle.save_dataset(ds, source="demo:nli", roles={})


class _Counting:
    """Where the fit runs (``run_in``), counting the fits."""

    def __init__(self):
        self.fits = 0

    def __call__(self, fn, *args, **kwargs):
        self.fits += 1
        return fn(*args, **kwargs)


def test_a_stored_run_answers_without_a_fit_and_the_workspace_records_it_once_done(tmp_path, data, workspace):
    _, ds, rep = data
    store, handle, dataset_id = workspace
    runs, counting = RunStore(tmp_path / "runs"), _Counting()
    life = RunLife(handle, dataset_id)
    first = score_dataset(ds, rep, PARAMS, store=runs, life=life, run_in=counting)
    assert counting.fits == 1 and first.key == run_key(ds.fingerprint, rep.spec, PARAMS)
    assert first.key in runs and handle.run_record(first.key)["status"] == "done"
    again = score_dataset(ds, rep, PARAMS, store=runs, life=life, run_in=counting)
    assert counting.fits == 1 and np.array_equal(again.retained, first.retained)
    # n_jobs changes neither the result nor the name: the stored run answers
    score_dataset(ds, rep, PARAMS, store=runs, how={"n_jobs": 2}, run_in=counting)
    assert counting.fits == 1


def test_a_cancelled_fit_is_interrupted_and_a_failed_one_failed_in_the_workspace(tmp_path, data, workspace):
    _, ds, rep = data
    store, handle, dataset_id = workspace
    life = RunLife(handle, dataset_id)
    token = threading.Event()
    token.set()
    with pytest.raises(Cancelled):
        score_dataset(ds, rep, PARAMS, life=life, cancel=token)
    assert handle.run_record(run_key(ds.fingerprint, rep.spec, PARAMS))["status"] == "interrupted"

    other = dict(PARAMS, random_state=1)

    def broken(progress):
        raise ValueError("the quality column could not be read")

    with pytest.raises(ValueError):
        score_dataset(ds, rep, other, quality_info={"source": "column", "name": "q"}, inputs=broken, life=life)
    key = run_key(ds.fingerprint, rep.spec, other, {"source": "column", "name": "q"})
    assert handle.run_record(key)["status"] == "failed"


def test_the_cli_aflite_gives_the_run_the_use_case_gives(tmp_path, data):
    from artifact_lens.cli import main

    _, ds, rep = data
    source = tmp_path / "nli.jsonl"
    ds.table.reset_index().to_json(source, orient="records", lines=True)
    out, manifest = tmp_path / "scores.csv", tmp_path / "run.json"
    code = main(["--cache-dir", str(tmp_path / "cache"), "-q", "aflite", str(source), "--text", ",".join(ds.text),
                 "--label", ds.label, "--id", "id", "-r", SPEC, "--m", "4", "--train-size", "0.3", "--k", "0.05",
                 "--target-size", "0.6", "--tau", "0.75", "--seed", "0", "--out", str(out), "--manifest", str(manifest)])
    assert code == 0
    from artifact_lens.data.sources import load_dataset

    loaded = load_dataset(str(source), text=list(ds.text), label=ds.label, id="id")
    run = score_dataset(loaded, represent(loaded, SPEC, cache_dir=tmp_path / "cache"), PARAMS)
    kept = json.loads(manifest.read_text())["retained_ids"]
    assert sorted(kept) == sorted(str(i) for i in np.asarray(run.ids)[run.retained])
