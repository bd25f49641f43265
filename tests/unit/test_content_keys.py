"""A result belongs to the data it was computed from (issue 63, items 1, 2 and 5).

The dashboard keyed a dataset, and every result shared through the server's cache and result store,
by the source's path and column roles: a file edited in place kept its old rows, runs and results,
after a restart too. It is now named by the content read (`Dataset.content_key`); the path only
says where to read it again. An items run had two keys (the URL's and the store's), and the family
an items run is scored by leaked into the next dataset's scoring."""
import json

import pandas as pd
import pytest


def _write(path, frame):
    path.write_text("".join(json.dumps(r) + "\n" for r in frame.to_dict("records")))


@pytest.fixture
def nli_file(tmp_path):
    from artifact_lens.data.sources import load_dataset

    frame = load_dataset("demo:nli:n=300").table.reset_index()[["id", "premise", "hypothesis", "label"]]
    path = tmp_path / "train.jsonl"
    _write(path, frame)
    return path, frame


def _zfilter(tab):
    from artifact_lens.dashboard.services import filters

    filters.zfilter_start(tab, (100, 10, 5, 0))
    job = filters.zfilter_job(tab)
    if job is not None:
        assert job.wait().status == "done", job.traceback
    return filters.zfilter_result(tab)


def _open(tab, path):
    from artifact_lens.dashboard.services import current, run_view
    from artifact_lens.dashboard.state.session import Source

    key, ds = current.load(tab, Source(str(path), {}, path.name))
    tab.session.ds_key, tab.session.source = key, Source(str(path), {}, path.name)
    return key, ds


def test_a_file_edited_in_place_is_a_new_dataset_and_never_shows_the_old_results(service_tab, nli_file):
    from artifact_lens.dashboard.services import current, filters, run_view

    path, frame = nli_file
    old_key, old = _open(service_tab, path)
    before = _zfilter(service_tab)
    assert len(old) == 300 and before is not None

    edited = frame.head(150).copy()
    entail = edited["label"] == "entailment"
    edited.loc[entail, "hypothesis"] = "Indeed, " + edited.loc[entail, "hypothesis"]
    _write(path, edited)   # the same path, in place

    new_key, new = _open(service_tab, path)
    assert new_key != old_key and len(new) == 150
    assert new.table["hypothesis"].str.startswith("Indeed, ").sum() == entail.sum()
    assert filters.zfilter_result(service_tab) is None   # the old content's z-filter is not this data's
    after = _zfilter(service_tab)
    assert len(after.accepted) + len(after.rejected) == 150
    # the old content's result stays reachable under its own key (history), not under the path
    service_tab.session.ds_key = old_key
    assert filters.zfilter_result(service_tab) is before
    assert current.dataset_by_key(service_tab, old_key) is old


def test_after_a_restart_the_new_content_gets_no_result_of_the_old(tmp_path, monkeypatch, nli_file):
    from artifact_lens.dashboard.services import filters
    from service_tabs import new_tab

    monkeypatch.setenv("ARTIFACT_LENS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("ARTIFACT_LENS_DB_URL", f"sqlite:///{tmp_path}/team.sqlite")
    path, frame = nli_file
    tab = new_tab()
    try:
        _open(tab, path)
        assert _zfilter(tab) is not None
    finally:
        tab.server.finish_stop()
    _write(path, frame.head(120))
    tab = new_tab()   # a restart: the memory is empty, the result store on disk is not
    try:
        _, ds = _open(tab, path)
        tab.session.zfilter_params = (100, 10, 5, 0)
        assert len(ds) == 120 and filters.zfilter_result(tab) is None
    finally:
        tab.server.finish_stop()


def test_the_same_content_at_another_path_is_the_same_dataset(service_tab, nli_file, tmp_path):
    path, frame = nli_file
    elsewhere = tmp_path / "copy" / "dev.jsonl"
    elsewhere.parent.mkdir()
    _write(elsewhere, frame)
    assert _open(service_tab, path)[0] == _open(service_tab, elsewhere)[0]


def test_a_dataset_reloaded_after_an_eviction_from_a_changed_file_is_refused(service_tab, nli_file):
    from artifact_lens.dashboard.services import current, run_view

    path, frame = nli_file
    key, _ = _open(service_tab, path)
    service_tab.server.cache.discard("dataset", key)   # evicted: the next page reloads it from its source
    assert len(current.dataset(service_tab)) == 300    # unchanged: reloaded under the same key
    service_tab.server.cache.discard("dataset", key)
    _write(path, frame.head(10))
    with pytest.raises(current.SourceChanged, match="has changed since it was loaded"):
        current.dataset(service_tab)


@pytest.mark.parametrize("columns", [["premise"], ["premise", "extra"]])
def test_the_content_key_covers_every_cell_read(tmp_path, nli_file, columns):
    """A column with no role is content too: the export writes it."""
    from artifact_lens.data.sources import load_dataset

    path, frame = nli_file
    changed = frame.assign(extra="a")
    _write(path, changed)
    first = load_dataset(str(path))
    changed.loc[0, columns[-1]] = "something else"
    _write(path, changed)
    second = load_dataset(str(path))
    assert first.content_key != second.content_key
    assert (first.fingerprint == second.fingerprint) == (columns == ["premise", "extra"])


def test_an_items_run_has_one_key_in_the_url_the_workspace_the_store_and_the_job(service_tab, bbq_path, tmp_path):
    """Item 2: the job and the URL named an items run without its family (choice), the store and the
    team's list with it, so a teammate's link to an items run opened another dataset."""
    from artifact_lens.dashboard.services import cached_jobs, current, pipelines, run_view
    from artifact_lens.dashboard.state.session import DEFAULT_PARAMS, Source
    from artifact_lens.representations import default_spec

    small = tmp_path / "bbq.jsonl"
    small.write_text("".join(bbq_path.read_text().splitlines(keepends=True)[:240]))
    source = Source(str(small), {}, "bbq")
    key, ds = current.load(service_tab, source)
    assert ds.choices is not None
    spec = current.check_spec(default_spec(ds), ds)
    params = dict(DEFAULT_PARAMS, n_partitions=4)
    pipelines.start(service_tab, key, spec, params, source=source)
    job = service_tab.server.jobs.get(service_tab.session.watching(cached_jobs.RUN)).wait()
    assert job.status == "done", job.traceback
    pipelines.apply_result(service_tab, job.result, params, source)
    pipelines.keep_in_workspace(service_tab)
    run = run_view.run(service_tab)
    listed = run_view.workspace_runs(service_tab)
    assert run is not None and run.params["model"] == "choice"
    assert service_tab.session.run_key == run.key == job.result["run_key"]
    assert listed["key"].tolist() == [run.key]
    assert run.key in service_tab.server.store


def test_the_family_of_an_items_run_is_no_setting_for_the_next_dataset(service_tab):
    """Item 5: after an items run, scoring another dataset said "choose ridge, logistic, svm or ensemble"."""
    from artifact_lens.dashboard.services import current, pipelines, run_view
    from artifact_lens.dashboard.state.session import DEFAULT_PARAMS, Source
    from artifact_lens.representations import default_spec

    items_key, items = current.load(service_tab, Source("demo:choices:n=120", {}, "items"))
    spec = current.check_spec(default_spec(items), items)
    params = dict(DEFAULT_PARAMS, n_partitions=4)
    pipelines.apply_result(service_tab, pipelines.score(service_tab, None, items_key, items, spec, params),
                           dict(params, model="choice"), Source("demo:choices:n=120", {}, "items"))
    assert service_tab.session.params["model"] == "choice"

    pairs_key, pairs = current.load(service_tab, Source("demo:pairs:n=120", {}, "pairs"))
    wanted = service_tab.session.params_for(pairs_key)
    assert wanted["model"] == "ridge"
    done = pipelines.score(service_tab, None, pairs_key, pairs, current.check_spec(default_spec(pairs), pairs),
                           dict(wanted, n_partitions=4))
    assert service_tab.server.store.get(done["run_key"]).params["model"] == "ridge"
    assert service_tab.session.params_for(items_key)["model"] == "choice"   # kept for its own dataset


def test_cues_across_splits_are_named_by_the_evaluation_splits_content_not_its_time(service_tab, nli_file, tmp_path,
                                                                                   monkeypatch):
    """The second split was named by its path and modification time: an edit that keeps the time (a
    copy with ``cp -p``, a restore) showed the old split's cues."""
    import os

    from artifact_lens.dashboard.services import transfer

    monkeypatch.setenv("ARTIFACT_LENS_DATA_DIRS", str(tmp_path))
    path, frame = nli_file
    _open(service_tab, path)
    other = tmp_path / "eval.jsonl"
    _write(other, frame.tail(200))
    transfer.start(service_tab, str(other))
    first = service_tab.session.transfer_source
    job = transfer.job(service_tab)
    assert job is not None and job.wait().status == "done", job.traceback
    assert transfer.result(service_tab) is not None
    when = os.stat(other)
    _write(other, frame.head(200))
    os.utime(other, ns=(when.st_atime_ns, when.st_mtime_ns))   # edited, its time put back
    transfer.start(service_tab, str(other))
    assert service_tab.session.transfer_source != first and transfer.result(service_tab) is None
