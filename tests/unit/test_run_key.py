"""A run is named by one key (issue 54): `core.results.runs.run_key` of the data's fingerprint and its
settings names the stored run, the workspace's record and the job that computes it. The job had a
second digest, built from the session's dataset key."""


def test_the_job_that_scores_a_run_is_named_by_the_runs_key(tmp_path, monkeypatch):
    from core.results.runs import run_key
    from dashboard.services import cached_jobs, current, pipelines
    from dashboard.state.session import DEFAULT_PARAMS, Source
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
