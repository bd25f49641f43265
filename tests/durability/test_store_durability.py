"""The team store loses nothing it acknowledged: a worker (store_worker.py) that begins runs,
saves them and writes reviews is killed with SIGKILL at random moments, 20 times, and
restarted on the same database each time; afterwards every acknowledged write is there,
every finished run opens (its checksum holds), and no run is left "running"."""
import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from sqlalchemy import create_engine, select, text

from artifact_lens.team.store import TeamStore
from artifact_lens.team.store.models import RunRecord
from scale import scaled

pytestmark = pytest.mark.durability

WORKER = Path(__file__).with_name("store_worker.py")
ROOT = Path(__file__).resolve().parents[2]
KILLS = scaled(20, 6)   # `make test-stress`: 20
#: the workers' run lease (seconds): a killed worker's runs are found once it runs out
LEASE = 3
OWNER = "owner@x.org"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def fresh_url(request, tmp_path):
    """A fresh database: a SQLite file, or a new database on the tests' PostgreSQL server
    (so that ``recover`` and the counts see this test's rows only)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/team.sqlite"
        return
    server = request.getfixturevalue("postgres_url")
    name = f"durable_{uuid.uuid4().hex[:10]}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    yield f"{server.rsplit('/', 1)[0]}/{name}"
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


class Worker:
    """One worker process; its complete stdout lines are collected by a thread (a line cut
    by the kill, without its newline, is not an acknowledgement)."""

    def __init__(self, args, log_path):
        self.log_path = log_path
        with open(log_path, "w") as log:
            self.proc = subprocess.Popen([sys.executable, str(WORKER), *map(str, args)], cwd=ROOT,
                                         env=dict(os.environ, ARTIFACT_LENS_RUN_LEASE=str(LEASE)),
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True)
        self.lines = []
        self.ready = threading.Event()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            if line.endswith("\n"):
                self.lines.append(line[:-1])
                if line == "ready\n":
                    self.ready.set()
        self.ready.set()     # EOF: the process is gone (waiters then look at why)

    def go(self):
        """Let it open the store (it has imported everything meanwhile)."""
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()

    def stderr(self):
        return Path(self.log_path).read_text()[-3000:]

    def kill(self):
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        self.reader.join(10)


def test_killed_workers_lose_no_acknowledged_write(fresh_url, tmp_path):
    files = tmp_path / "files"
    store = TeamStore(fresh_url, files=files)
    ws = store.workspace("durable", owner=OWNER)
    for who, role in (("ann@x.org", "annotator"), ("bob@x.org", "annotator"), ("cur@x.org", "curator")):
        store.set_role(ws, who, role, by=OWNER)
    sys.path.insert(0, str(WORKER.parent))
    try:
        from store_worker import toy_data
    finally:
        sys.path.remove(str(WORKER.parent))
    ds, _ = toy_data()
    dataset_id = store.save_dataset(ws, ds, source="durable", roles={}, by=OWNER)
    store.engine.dispose()

    chooser = random.Random(20260)          # where the kills land (seeded)
    begun, failed, runs, reviews = set(), set(), {}, {}
    recovered = 0
    t0 = time.perf_counter()
    start = lambda g: Worker([fresh_url, files, ws, dataset_id, g], tmp_path / f"worker{g}.log")   # noqa: E731
    following = start(0)
    for generation in range(KILLS):
        worker, following = following, None
        try:
            worker.go()                     # the previous worker is dead: this one is the only server
            assert worker.ready.wait(120), "the worker did not start within 2 minutes"
            assert "ready" in worker.lines, f"the worker died while starting:\n{worker.stderr()}"
            if generation + 1 < KILLS:      # the next one imports while this one works
                following = start(generation + 1)
            # the kill lands after this worker has acknowledged work (a slow machine slows the writer,
            # not the test's claim), then at a seeded point of what it does next
            bound = time.monotonic() + 300
            while not any(line.startswith("ack") for line in worker.lines) and worker.proc.poll() is None:
                assert time.monotonic() < bound, f"the worker acknowledged nothing in 5 minutes:\n{worker.stderr()}"
                time.sleep(0.01)
            time.sleep(chooser.uniform(0.0, 0.5))
            assert worker.proc.poll() is None, f"the worker died by itself:\n{worker.stderr()}"
        except BaseException:
            if following is not None:       # it was never told to go: it has not touched the database
                following.kill()
            raise
        finally:
            worker.kill()
        assert worker.proc.returncode == -signal.SIGKILL
        for line in worker.lines:
            word = line.split()
            if word[0] == "recovered":
                recovered += int(word[1])
            elif word[0] == "begin":
                begun.add(word[1])
            elif word[:2] == ["ack", "run"]:
                runs[word[2]] = int(word[3])
            elif word[:2] == ["ack", "failed"]:
                failed.add(word[2])
            elif word[:2] == ["ack", "review"]:
                reviews[int(word[2])] = (int(word[3]), word[4], word[5], word[6])
    chaos_seconds = time.perf_counter() - t0

    # a server start-up on the same database; the last workers' leases run out meanwhile
    store = TeamStore(fresh_url, files=files)
    recovered += store.recover()
    deadline = time.time() + 10 * LEASE
    while time.time() < deadline:
        with store.Session() as s:
            if not s.scalars(select(RunRecord).where(RunRecord.status == "running")).first():
                break
        time.sleep(0.2)
        recovered += store.recover(own=False)   # the heartbeat's sweep
    with store.Session() as s:
        rows = {r.key: r for r in s.scalars(select(RunRecord)).all()}
    statuses = {key: r.status for key, r in rows.items()}
    assert "running" not in statuses.values()
    assert set(statuses.values()) <= {"done", "interrupted", "failed"}
    listed = store.runs(ws, by="ann@x.org")
    assert sorted(listed["key"]) == sorted(rows)

    # every finished run opens: its file is there and matches its checksum
    done = [key for key, status in statuses.items() if status == "done"]
    for key in done:
        back = store.open_run(ws, key, by="ann@x.org")
        assert back.key == key and back.params["random_state"] == rows[key].seed
    # every acknowledged run is finished, every acknowledged failure failed
    assert {key: rows[key].id for key in runs} == runs and all(statuses[key] == "done" for key in runs)
    assert all(statuses[key] == "failed" for key in failed)
    # what was begun and not acknowledged was cut by a kill: at most one call per kill
    unacknowledged = begun - set(runs) - failed
    assert all(statuses[key] in ("interrupted", "done", "failed") for key in unacknowledged)
    assert sum(statuses[key] != "interrupted" for key in unacknowledged) <= KILLS
    unseen = set(rows) - begun              # begun, killed before its "begin" line
    assert len(unseen) <= KILLS and all(statuses[key] == "interrupted" for key in unseen)
    interrupted = sorted(key for key, status in statuses.items() if status == "interrupted")
    assert recovered == len(interrupted)    # each interrupted run was found once, by a start-up
    assert len(interrupted) >= 1 and len(runs) >= KILLS and len(reviews) >= KILLS   # the kills hit work

    # every acknowledged review is there, as written; at most one unacknowledged one per kill
    stored = {}
    for run_id in sorted({rows[key].id for key in done}):
        frame = store.reviews(ws, run_id, by=OWNER, latest=False)
        assert frame["id"].is_unique
        for rid, ex, who, decision in zip(frame["id"], frame["example_id"], frame["reviewer"], frame["decision"]):
            stored[int(rid)] = (run_id, ex, who, decision)
    assert {rid: stored.get(rid) for rid in reviews} == reviews
    assert 0 <= len(stored) - len(reviews) <= KILLS

    # an interrupted run can be discarded; then it is gone
    store.discard_run(ws, interrupted[0], by="cur@x.org")
    assert interrupted[0] not in set(store.runs(ws, by=OWNER)["key"])

    leftovers = [p.name for p in files.rglob("*.tmp")]
    print(f"\n{store.engine.dialect.name}: {KILLS} kills in {chaos_seconds:.1f} s; acknowledged {len(reviews)} reviews "
          f"({len(stored)} stored), {len(runs)} runs done ({len(done)} stored done), {len(failed)} failed; "
          f"{len(interrupted)} interrupted runs recovered; {len(leftovers)} temporary run files left by killed writers")


def test_two_app_processes_share_a_database_and_a_dead_ones_runs_are_marked_interrupted(fresh_url, tmp_path,
                                                                                         monkeypatch):
    """Run leases (issue 24): an app process that starts while another computes leaves that
    run alone (its heartbeat keeps the lease), and marks it interrupted once the other is killed
    and the lease runs out."""
    from artifact_lens.dashboard.process.server import Server

    monkeypatch.setenv("ARTIFACT_LENS_DB_URL", fresh_url)
    monkeypatch.setenv("ARTIFACT_LENS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("ARTIFACT_LENS_RUN_LEASE", str(LEASE))
    store = TeamStore(fresh_url, files=tmp_path / "cache" / "team-files")
    ws = store.workspace("leases", owner=OWNER)
    sys.path.insert(0, str(WORKER.parent))
    try:
        from store_worker import toy_data
    finally:
        sys.path.remove(str(WORKER.parent))
    dataset_id = store.save_dataset(ws, toy_data()[0], source="leases", roles={}, by=OWNER)
    status = lambda: dict(zip(*store.runs(ws, by=OWNER)[["key", "status"]].to_dict("list").values()))  # noqa: E731

    worker = subprocess.Popen([sys.executable, str(WORKER.parent / "lease_worker.py"), str(ws), str(dataset_id), "held"],
                              cwd=ROOT, env=dict(os.environ), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert worker.stdout.readline() == "ready\n", worker.stderr.read()
        second = Server()                     # another app process starting on the same database
        try:
            assert status() == {"held": "running"}          # its start-up left the live process's run alone
            watched_until = time.time() + 3 * LEASE          # three leases long, the heartbeat keeps it
            while time.time() < watched_until:
                assert status() == {"held": "running"}
                time.sleep(0.2)
            worker.kill()
            worker.wait()
            deadline = time.time() + 10 * LEASE              # the second process's heartbeat finds it
            while status() != {"held": "interrupted"} and time.time() < deadline:
                time.sleep(0.2)
            assert status() == {"held": "interrupted"}
        finally:
            second.begin_stop()
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()


def test_the_heartbeat_outlives_a_setting_that_turns_bad(tmp_path, monkeypatch):
    """The beat is read once at start: a setting that turns bad later (here in this process's
    environment) does not kill the thread that renews the leases."""
    from artifact_lens.dashboard.process.server import Server

    monkeypatch.setenv("ARTIFACT_LENS_DB_URL", f"sqlite:///{tmp_path}/team.sqlite")
    monkeypatch.setenv("ARTIFACT_LENS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("ARTIFACT_LENS_RUN_LEASE", "3")      # a beat a second
    server = Server()
    beats = []
    renew = server.team.renew_leases
    server.team.renew_leases = lambda: (beats.append(time.time()), renew())
    try:
        monkeypatch.setenv("ARTIFACT_LENS_CACHE_MB", "0")   # refused by core.base.settings from now on
        deadline = time.time() + 30
        while len(beats) < 3 and time.time() < deadline:
            time.sleep(0.1)
        assert len(beats) >= 3, "the heartbeat stopped"
    finally:
        server.begin_stop()
