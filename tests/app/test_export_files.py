"""The Export page's prepared files (`dashboard.services.exports`) and the server's stop (`dashboard.process.server`):
at most one file per tab, deleted when stale, at session end and at stop; jobs cancelled and joined."""
import gc
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from artifact_lens.base.errors import Cancelled
from artifact_lens.base.jobs import JobRunner
from artifact_lens.dashboard.services import exports
from artifact_lens.dashboard.process.server import Server
from artifact_lens.dashboard.state.session import Session
from artifact_lens.dashboard.state.tab import Tab
from jobkeys import job_key


@pytest.fixture
def srv(monkeypatch, tmp_path):
    monkeypatch.setenv("ARTIFACT_LENS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("ARTIFACT_LENS_DB_URL", f"sqlite:///{tmp_path}/team.sqlite")
    s = Server()
    yield s
    s.finish_stop(timeout=5)


FRAME = pd.DataFrame({"id": [f"r{i}" for i in range(30)], "text": ["=x"] * 30})


def test_one_prepared_file_per_tab_deleted_when_stale_or_the_session_ends(srv):
    sess = Session()
    tab = Tab(sess, srv)
    first = exports.prepare(tab, FRAME, "csv", {}, "a-retained.csv", "sig-1")
    assert Path(first.path).read_bytes().startswith(b'"id","text"') and first.rows == 30
    assert exports.prepared(tab, "sig-1") is first
    second = exports.prepare(tab, FRAME.iloc[:5], "jsonl", {}, "a-retained.jsonl", "sig-2")
    assert not Path(first.path).exists() and [p.name for p in srv.exports.iterdir()] == [Path(second.path).name]
    assert exports.prepared(tab, "sig-1") is None                    # other options: the file goes
    assert not Path(second.path).exists() and sess.export_file is None
    third = exports.prepare(tab, FRAME, "parquet", {}, "a-all.parquet", "sig-3")
    del sess, tab
    gc.collect()                                                      # the tab's session ended
    assert not Path(third.path).exists()


def test_a_stopping_server_cancels_a_prepare_and_leaves_nothing(srv):
    sess = Session()
    srv.stopping.set()
    with pytest.raises(Cancelled):
        exports.prepare(Tab(sess, srv), FRAME, "csv", {}, "b.csv", "sig")
    assert list(srv.exports.iterdir()) == [] and sess.export_file is None


def test_stop_cancels_and_waits_for_jobs_and_removes_prepared_files(srv):
    ended = []

    def work(ctx):
        try:
            while True:
                ctx.progress(0.5, "working")
                time.sleep(0.01)
        finally:
            ended.append(threading.current_thread().name)

    job = srv.jobs.submit(job_key("k"), work, name="slow")
    exports.prepare(Tab(Session(), srv), FRAME, "csv", {}, "c.csv", "sig")   # a tab's file (its session still alive here)
    time.sleep(0.05)
    assert srv.finish_stop(timeout=5) == []
    assert job.status == "cancelled" and ended == ["job:slow"] and srv.stopping.is_set()
    assert not srv.exports.exists()


def test_shutdown_reports_a_job_that_does_not_stop():
    runner = JobRunner()
    release = threading.Event()
    job = runner.submit(job_key("stuck"), lambda ctx: release.wait(5), name="stuck")   # never checks its token
    try:
        assert runner.shutdown(timeout=0.2) == [job] and job.cancelled
    finally:
        release.set()
        job.wait(5)
    assert runner.running() == []


def test_stop_removes_only_the_files_it_prepared(srv):
    """A cache pointed at a folder of the user's: their files in ``exports/`` survive the stop;
    the tab's prepared file goes."""
    srv.exports.mkdir(parents=True, exist_ok=True)
    (srv.exports / "mine.csv").write_text("keep")
    (srv.exports / ".draft.tmp").write_text("keep too")   # a temporary-looking name that is not this process's
    made = exports.prepare(Tab(Session(), srv), FRAME, "csv", {}, "d.csv", "sig")
    srv.finish_stop(timeout=5)
    assert not Path(made.path).exists()
    assert sorted(p.name for p in srv.exports.iterdir()) == [".draft.tmp", "mine.csv"]



def test_an_exports_folder_the_server_did_not_make_survives_the_stop(monkeypatch, tmp_path):
    """The stop removes the exports folder only when this server made it: an empty one that was
    there before stays (a cache pointed at a folder of the user's)."""
    monkeypatch.setenv("ARTIFACT_LENS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("ARTIFACT_LENS_DB_URL", f"sqlite:///{tmp_path}/team.sqlite")
    theirs = tmp_path / "cache" / "exports"
    theirs.mkdir(parents=True)
    srv = Server()
    made = exports.prepare(Tab(Session(), srv), FRAME, "csv", {}, "e.csv", "sig")
    srv.finish_stop(timeout=5)
    assert theirs.is_dir() and list(theirs.iterdir()) == [] and not Path(made.path).exists()
