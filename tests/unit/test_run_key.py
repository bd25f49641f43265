"""A run is named by one key (issue 54): `core.results.runs.run_key` of the data's fingerprint and its
settings names the stored run, the workspace's record and the job that computes it. The job had a
second digest, built from the session's dataset key."""


def test_the_job_that_scores_a_run_is_named_by_the_runs_key(tmp_path, monkeypatch):
    from artifact_lens.results.runs import run_key
    from artifact_lens.dashboard.services import cached_jobs, current, pipelines
    from artifact_lens.dashboard.state.session import DEFAULT_PARAMS, Source
    from service_tabs import new_tab

    monkeypatch.setenv("ARTIFACT_LENS_CACHE", str(tmp_path / "cache"))
    tab = new_tab()
    try:
        source = Source("demo:nli:n=200", {}, "demo")
        key, ds = current.load(tab, source)
        spec = current.check_spec("tfidf-svd:fields=hypothesis,dim=8", ds)
        params = dict(DEFAULT_PARAMS, n_partitions=4)
        pipelines.start(tab, key, spec, params, source=source)
        job = tab.server.jobs.get(tab.session.watching(cached_jobs.RUN)).wait()
        assert job.status == "done", job.traceback
        assert tab.session.watching(cached_jobs.RUN).digest == run_key(ds.fingerprint, spec, params) == job.result["run_key"]
        assert job.result["run_key"] in tab.server.store
    finally:
        tab.server.finish_stop()


def test_a_joint_run_from_the_cli_has_the_dashboards_key(tmp_path):
    """Issue 54: the CLI computed the joint filter's inputs itself and named the run without them, so
    a joint run from ``aflite --joint`` had a plain run's key; it now names it as `score_dataset` does
    (and computes the inputs only when there is a fit)."""
    import json

    from artifact_lens.cli import main
    from artifact_lens.data.sources import load_dataset
    from artifact_lens.dynamics.joint import EPOCHS, descriptor
    from artifact_lens.representations import resolve_spec
    from artifact_lens.results.runs import run_key

    spec = "tfidf-svd:fields=hypothesis,dim=8"
    assert main(["-q", "aflite", "demo:nli:n=300", "-r", spec, "--m", "4", "--k", "0.05", "--tau", "0",
                 "--target-size", "0.5", "--joint", "--out", str(tmp_path / "s.csv"), "--manifest",
                 str(tmp_path / "m.json")]) == 0
    manifest = json.loads((tmp_path / "m.json").read_text())
    ds = load_dataset("demo:nli:n=300")
    params = dict(n_partitions=4, train_size=0.1, slice_size=0.05, tau=0.0, target_size=0.5, model="ridge",
                  strategy="greedy-slice", random_state=0)
    joint = descriptor(model="linear", epochs=EPOCHS, random_state=0)
    assert manifest["run_key"] == run_key(ds.fingerprint, resolve_spec(ds, spec), params, None, joint)
    assert manifest["run_key"] != run_key(ds.fingerprint, resolve_spec(ds, spec), params)
