"""The job runner owns every background thread of the server: jobs, and housekeeping services."""
import threading

from artifact_lens.base.jobs import JobRunner


def test_services_are_owned_by_the_runner_and_stop_with_it():
    """Housekeeping threads (the server's pruning and heartbeat) belong to the job runner: a
    service that waits on its stop event ends, and is waited for, when the runner shuts down."""
    runner = JobRunner(workers=1)
    beats, started = [], threading.Event()

    def beat(stop):
        started.set()
        while not stop.wait(0.01):
            beats.append(1)

    thread = runner.service("beat", beat)
    assert started.wait(30) and thread.is_alive() and thread.daemon
    assert runner.shutdown(timeout=30) == []
    assert not thread.is_alive()


def test_jobs_are_found_by_their_typed_key_never_by_parsing_it():
    """A `JobKey` names what a job computes (kind, what it is about, the digest of its inputs): its
    string is the runner's key as it always was, and the runner finds jobs by its parts."""
    from artifact_lens.base.jobs import JobKey, JobKind
    from artifact_lens.base.keys import read_key

    runner = JobRunner(workers=2)
    release = threading.Event()
    EVAL, QUALITY = JobKind("eval", "Evaluation"), JobKind("quality", "Quality components")
    d1, d2, d3 = (read_key(k * 16) for k in "abc")
    key = JobKey(EVAL, d1, about="run:with:colons")
    assert str(key) == f"eval:run:with:colons:{d1}" and str(JobKey(JobKind("map", "Map"), d2)) == f"map:{d2}"
    first = runner.submit(key, lambda ctx: release.wait(30))
    again = runner.submit(JobKey(EVAL, d1, about="run:with:colons"), lambda ctx: None)
    other = runner.submit(JobKey(EVAL, d2, about="run2"), lambda ctx: release.wait(30))
    plain = runner.submit(JobKey(QUALITY, d3), lambda ctx: release.wait(30))
    try:
        assert again is first and first.key == str(key) and first.spec == key and plain.name == "Quality components"
        assert runner.running(kind=EVAL, about="run:with:colons") == [first]
        assert {j.spec.digest for j in runner.running(kind=EVAL)} == {d1, d2}
        assert set(runner.running()) == {first, other, plain}
    finally:
        release.set()
        runner.shutdown(timeout=30)


def test_the_runner_takes_typed_keys_only_and_the_dashboards_kinds_are_declared_once():
    """Issue 43, one job API: no job is named by a bare string (the runner, its lookups and a key's
    kind refuse one); every kind the dashboard runs is declared once in `cached_jobs.KINDS`, and
    every job key the dashboard's code makes names one of them, read from the source."""
    import ast
    from pathlib import Path

    import pytest

    from artifact_lens.base.jobs import JobKey, JobKind
    from artifact_lens.dashboard.services import cached_jobs

    runner = JobRunner(workers=1)
    from artifact_lens.base.keys import data_key

    for call in (lambda: runner.submit("run:abc", lambda ctx: None), lambda: runner.get("run:abc"),
                 lambda: runner.forget("run:abc"), lambda: JobKey("eval", data_key("x"))):
        with pytest.raises(TypeError, match="Job"):
            call()
    with pytest.raises(ValueError):
        JobKind("a:b", "colon in a name")
    with pytest.raises(ValueError, match="not declared"):
        cached_jobs.start(None, JobKind("stray", "a kind nobody declared"), data_key("x"), lambda ctx: None)
    names = [k.name for k in cached_jobs.KINDS]
    assert len(names) == len(set(names))
    # every kind the module defines (not only those it exports: DATASET_CERTIFICATE was in neither list)
    declared = {n for n in vars(cached_jobs) if isinstance(getattr(cached_jobs, n), JobKind)}
    assert {getattr(cached_jobs, n) for n in declared} == set(cached_jobs.KINDS) and declared <= set(cached_jobs.__all__)
    root = Path(__file__).resolve().parents[2]
    for path in [*root.glob("dashboard/**/*.py"), *root.glob("pages/*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        # the functions of cached_jobs this module calls by name, and JobKey
        named = {"JobKey"} | {a.asname or a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                              and node.module == "artifact_lens.dashboard.services.cached_jobs" for a in node.names}
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and node.args):
                continue
            func = node.func
            ours = (isinstance(func, ast.Name) and func.id in named) or (
                isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "cached_jobs")
            # a job kind is JobKey's first argument, and the second of a cached_jobs function (after the tab)
            kind_at = 0 if isinstance(func, ast.Name) and func.id == "JobKey" else 1
            first = node.args[kind_at] if len(node.args) > kind_at else None
            assert not (ours and isinstance(first, ast.Constant) and isinstance(first.value, str)), \
                f"{path.name} line {node.lineno}: a job kind named by a string; declare it in cached_jobs.KINDS"


def test_every_service_starts_its_jobs_one_way():
    """Issue 54: `cached_jobs.start` kept results by kind while `submit` left the run's, the
    evaluation's, the map's and the quality page's jobs beside it. Every kind now starts through
    `start`; its `JobKind.kept` says where the result goes, and nothing else submits."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    called = []
    for path in (root / "dashboard").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in ("submit", "_submit") and isinstance(
                    node.value, ast.Name) and node.value.id == "cached_jobs":
                called.append(f"{path.relative_to(root)}:{node.lineno}")
    assert not called, called
    from artifact_lens.dashboard.services import cached_jobs

    assert "submit" not in cached_jobs.__all__ and not hasattr(cached_jobs, "submit")


def test_a_run_is_named_once_per_scoring(monkeypatch, tmp_path):
    """Issue 65, item 6: `score_dataset` given the run's key (the dashboard's job has it from `start`)
    names the run by it and never computes it again; without one it computes it once."""
    from artifact_lens.data.sources import load_dataset
    from artifact_lens.representations import represent
    from artifact_lens.usecases import scoring

    ds = load_dataset("demo:nli:n=300")
    rep = represent(ds, "tfidf-svd:dim=8", cache_dir=tmp_path)
    params = {"n_partitions": 4, "random_state": 0}
    key = scoring.scored_key(ds, rep.spec, params)
    calls = []
    real = scoring.scored_key
    monkeypatch.setattr(scoring, "scored_key", lambda *a, **kw: calls.append(a) or real(*a, **kw))
    assert scoring.score_dataset(ds, rep, params, key=key).key == key and calls == []
    assert scoring.score_dataset(ds, rep, dict(params, random_state=1)).key != key and len(calls) == 1
