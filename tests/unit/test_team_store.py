"""The team store on SQLite and on a real PostgreSQL: roles, runs with checksums, reviews with history."""
import dataclasses
import threading
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sqlalchemy import MetaData, create_engine, func, inspect, select, text

from scale import scaled
from artifact_lens.base.errors import InputError
from artifact_lens.team.review import disagreements, standing
from artifact_lens.results.runs import CorruptRun
from artifact_lens.team.store import DEFAULT_WORKSPACE, NotAllowed, TeamStore, file_sha256
from artifact_lens.team.store.models import DatasetRecord, Member, Review, Workspace

HEAD_REVISION = "0008"   # the newest migration in core/team/store/migrations/versions


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request, tmp_path):
    url = f"sqlite:///{tmp_path}/team.sqlite" if request.param == "sqlite" else request.getfixturevalue("postgres_url")
    with TeamStore(url, files=tmp_path / "files") as opened:   # closed after: no idle connections left behind
        yield opened


@pytest.fixture
def toy(toy_run):
    return toy_run


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def fresh_url(request, tmp_path):
    """A factory of URLs of fresh, empty databases (a new SQLite file; a new PostgreSQL
    database on the test server): what a first sign-in or a migration needs."""
    created = []

    def make():
        name = f"t{len(created)}_{uuid.uuid4().hex[:10]}"
        if request.param == "sqlite":
            return f"sqlite:///{tmp_path}/{name}.sqlite"
        server = request.getfixturevalue("postgres_url")
        admin = create_engine(server, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        admin.dispose()
        created.append((server, name))
        return f"{server.rsplit('/', 1)[0]}/{name}"

    yield make
    for server, name in created:   # WITH (FORCE): the stores' pools may still hold connections
        admin = create_engine(server, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def _workspace(store):
    return store.workspace(f"ws-{uuid.uuid4().hex[:8]}", owner="Owner@x.org")


def test_roles_are_checked_by_the_actions_themselves(store, toy):
    ws = _workspace(store)
    assert store.role_of(ws, "owner@x.org") == "owner"
    store.set_role(ws, "cur@x.org", "curator", by="owner@x.org")
    store.set_role(ws, "ann@x.org", "annotator", by="owner@x.org")
    ds, run = toy
    with pytest.raises(NotAllowed, match="annotator.*owner or curator"):
        store.save_dataset(ws, ds, source="toy", roles={}, by="ann@x.org")
    with pytest.raises(NotAllowed, match="manage members"):
        store.set_role(ws, "ann@x.org", "owner", by="cur@x.org")
    with pytest.raises(NotAllowed, match="no role"):
        store.review(ws, 1, "e1", "agree", by="stranger@x.org")
    with pytest.raises(InputError, match="last owner"):
        store.set_role(ws, "owner@x.org", "annotator", by="owner@x.org")
    assert store.members(ws, by="owner@x.org")["role"].tolist() == ["annotator", "curator", "owner"]


def test_any_member_opens_a_saved_run_without_recomputing_it(store, toy, tmp_path):
    ds, run = toy
    ws = _workspace(store)
    store.set_role(ws, "ann@x.org", "annotator", by="owner@x.org")
    dataset_id = store.save_dataset(ws, ds, source="toy", roles={"text": ["text"]}, by="owner@x.org")
    store.save_run(ws, dataset_id, run, by="owner@x.org")
    back = store.open_run(ws, run.key, by="ann@x.org")
    np.testing.assert_array_equal(back.retained_for(0.8, 0.5), run.retained_for(0.8, 0.5))
    listed = store.runs(ws, by="ann@x.org")
    assert listed["key"].tolist() == [run.key] and listed["created_by"].tolist() == ["owner@x.org"]
    # a damaged file is refused by its checksum, and says what to do
    path = store.files / f"ws{ws}" / f"{run.key}.npz"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(CorruptRun, match=r"does not match its checksum; restore the team files from a backup "
                                          r"or run the filter again"):
        store.open_run(ws, run.key, by="ann@x.org")


def test_reviews_keep_their_history_and_find_disagreements(store, toy):
    ds, run = toy
    ws = _workspace(store)
    for who, role in (("a@x.org", "annotator"), ("b@x.org", "annotator")):
        store.set_role(ws, who, role, by="owner@x.org")
    run_id = store.save_run(ws, store.save_dataset(ws, ds, source="toy", roles={}, by="owner@x.org"), run,
                            by="owner@x.org")
    with pytest.raises(InputError, match="needs a note"):
        store.review(ws, run_id, "e1", "keep", by="a@x.org")
    store.review(ws, run_id, "e1", "agree", by="a@x.org")
    store.review(ws, run_id, "e1", "keep", "a real neutral, not an artifact", by="a@x.org")   # a change of mind
    store.review(ws, run_id, "e1", "agree", by="b@x.org")
    store.review(ws, run_id, "e2", "agree", by="b@x.org")
    history = store.reviews(ws, run_id, by="owner@x.org", latest=False)
    assert len(history) == 4 and history["decision"].tolist() == ["agree", "keep", "agree", "agree"]
    latest = store.reviews(ws, run_id, by="a@x.org")
    assert sorted(zip(latest["example_id"], latest["reviewer"], latest["decision"])) == [
        ("e1", "a@x.org", "keep"), ("e1", "b@x.org", "agree"), ("e2", "b@x.org", "agree")]
    stand = standing(store.reviews(ws, run_id, by="b@x.org"))
    dis = disagreements(["e1", "e2"], [False, False], stand)   # a's keep against b's agree with a removal
    assert dis["example_id"].tolist() == ["e1"] and stand.loc["e1", "decisions"] == ("agree", "keep")
    assert dict(zip(*store.progress(ws, run_id, by="owner@x.org").to_dict("list").values())) == {"a@x.org": 1, "b@x.org": 2}


def test_concurrent_reviewers_lose_nothing(store, toy):
    ds, run = toy
    ws = _workspace(store)
    reviewers = [f"r{i}@x.org" for i in range(20)]
    for who in reviewers:
        store.set_role(ws, who, "annotator", by="owner@x.org")
    run_id = store.save_run(ws, store.save_dataset(ws, ds, source="toy", roles={}, by="owner@x.org"), run,
                            by="owner@x.org")
    per = 50
    errors = []

    def work(who):
        try:
            for i in range(per):
                store.review(ws, run_id, f"e{i}", "agree" if (i + len(who)) % 3 else "remove", "why" , by=who)
        except Exception as exc:   # collected: a lost write must fail the test, not a thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(who,)) for who in reviewers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]
    history = store.reviews(ws, run_id, by="owner@x.org", latest=False)
    assert len(history) == 20 * per and history["id"].is_unique
    assert (history.groupby("reviewer").size() == per).all()


def test_an_unreachable_database_is_a_clear_error():
    with pytest.raises(InputError, match=r"cannot reach the database at postgresql\+psycopg://u:\*\*\*@127.0.0.1:9/"):
        TeamStore("postgresql+psycopg://u:secret@127.0.0.1:9/none")


def test_opening_the_store_keeps_the_applications_logging(tmp_path):
    import logging

    app_logger = logging.getLogger("artifact_lens.jobs")
    handler = logging.StreamHandler()
    app_logger.addHandler(handler)
    app_logger.setLevel(logging.INFO)
    root_handlers = list(logging.getLogger().handlers)
    try:
        store = TeamStore(f"sqlite:///{tmp_path}/t.sqlite")
        assert store.migrate() == HEAD_REVISION   # a second upgrade is a no-op at the newest revision
        assert handler in app_logger.handlers and app_logger.level == logging.INFO and not app_logger.disabled
        assert logging.getLogger().handlers == root_handlers
    finally:
        app_logger.removeHandler(handler)


def test_a_store_opened_while_another_writes_a_fresh_file_waits_for_the_lock(tmp_path, caplog):
    """SQLite refuses ``journal_mode=WAL`` at once, without its busy timeout, while another
    connection writes a file still in rollback mode (CI saw one of twenty stores opened at once
    fail so). The store waits for the lock instead: the writer lets go only once the store is
    seen waiting, so the store must have waited to open."""
    import logging
    import sqlite3

    path = tmp_path / "t.sqlite"
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("CREATE TABLE earlier (x)")
    waiting, opened = threading.Event(), []

    class Seen(logging.Handler):
        def emit(self, record):
            if "waiting for SQLite's write lock" in record.getMessage():
                waiting.set()

    from artifact_lens.team.store.database import log

    seen = Seen()
    log.addHandler(seen)
    caplog.set_level(logging.DEBUG, logger=log.name)
    try:
        opener = threading.Thread(target=lambda: opened.append(TeamStore(f"sqlite:///{path}").migrate()))
        opener.start()
        while opener.is_alive() and not waiting.wait(0.05):
            pass
        assert waiting.is_set(), "the store gave up at once instead of waiting for the lock"
        holder.execute("COMMIT")
        opener.join()
    finally:
        log.removeHandler(seen)
        holder.close()
    assert opened == [HEAD_REVISION]


# ---------------------------------------------------------------------------- sign-in and workspaces
def _store_at(url, tmp_path):
    return TeamStore(url, files=tmp_path / f"files-{uuid.uuid4().hex[:6]}")


def _owners(store, ws):
    with store.Session() as s:                # any member may read the member list
        reader = s.scalar(select(Member.email).where(Member.workspace_id == ws).limit(1))
    members = store.members(ws, by=reader)
    return sorted(members.loc[members["role"] == "owner", "email"])


@pytest.mark.auth
def test_the_first_sign_in_owns_a_fresh_instance(fresh_url, tmp_path):
    store = _store_at(fresh_url(), tmp_path)
    assert store.workspaces_of("ann@x.org") == []
    store.bootstrap("Ann@X.org")
    [(ws, name, role)] = store.workspaces_of("ann@x.org")
    assert (name, role) == (DEFAULT_WORKSPACE, "owner")
    store.bootstrap("bob@x.org")          # the second person gets nothing by signing in
    store.bootstrap("ann@x.org")          # signing in again changes nothing
    assert store.workspaces_of("bob@x.org") == []
    assert store.members(ws, by="ann@x.org")[["email", "role"]].values.tolist() == [["ann@x.org", "owner"]]
    with pytest.raises(NotAllowed, match="bob@x.org has no role"):
        store.runs(ws, by="bob@x.org")


@pytest.mark.auth
def test_an_owner_setting_makes_only_that_address_owner(fresh_url, tmp_path):
    store = _store_at(fresh_url(), tmp_path)
    store.bootstrap("ann@x.org", owner="Boss@x.org")   # ann signs in first, but the setting names boss
    assert store.workspaces_of("ann@x.org") == []
    [(ws, name, role)] = store.workspaces_of("boss@x.org")
    assert (name, role) == (DEFAULT_WORKSPACE, "owner")
    store.bootstrap("boss@x.org", owner="boss@x.org")
    store.bootstrap("carl@x.org", owner="boss@x.org")
    assert _owners(store, ws) == ["boss@x.org"]
    assert store.workspaces_of("carl@x.org") == []

    # an instance whose first signer owns it, then given an owner setting: that address is promoted
    other = _store_at(fresh_url(), tmp_path)
    other.bootstrap("ann@x.org")
    [(ws2, _, _)] = other.workspaces_of("ann@x.org")
    other.set_role(ws2, "boss@x.org", "annotator", by="ann@x.org")
    other.bootstrap("dan@x.org", owner="boss@x.org")
    assert _owners(other, ws2) == ["ann@x.org", "boss@x.org"]
    assert other.workspaces_of("dan@x.org") == []


@pytest.mark.auth
def test_first_sign_ins_at_once_make_exactly_one_owner(fresh_url, tmp_path, caplog):
    caplog.set_level("INFO", logger="artifact_lens.store")
    for attempt in range(3):               # three fresh instances, eight people signing in at once
        store = _store_at(fresh_url(), tmp_path)
        emails = [f"p{i}@x.org" for i in range(8)]
        gate = threading.Barrier(len(emails))
        errors = []

        def sign_in(email):
            try:
                gate.wait()
                store.bootstrap(email)
            except Exception as exc:   # collected: any exception fails the test
                errors.append(exc)

        threads = [threading.Thread(target=sign_in, args=(e,)) for e in emails]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors[:3]
        owning = [e for e in emails if store.workspaces_of(e)]
        assert len(owning) == 1, owning
        [(ws, name, role)] = store.workspaces_of(owning[0])
        assert (name, role) == (DEFAULT_WORKSPACE, "owner")
        assert store.members(ws, by=owning[0])[["email", "role"]].values.tolist() == [[owning[0], "owner"]]
        with store.Session() as s:
            assert s.scalar(select(func.count()).select_from(Workspace)) == 1
    races = sum("another sign-in created the default workspace first" in r.getMessage() for r in caplog.records)
    print(f"\n{store.engine.dialect.name}: {races} of 21 late sign-ins lost the race on the workspace's unique name")


@pytest.mark.auth
def test_only_owners_create_workspaces(store):
    ws = _workspace(store)
    cur = f"cur-{uuid.uuid4().hex[:8]}@x.org"     # the database is shared by the tests: a new curator
    store.set_role(ws, cur, "curator", by="owner@x.org")
    name = f"second-{uuid.uuid4().hex[:8]}"
    new = store.create_workspace(f"  {name} ", by="owner@x.org")
    assert (new, name, "owner") in store.workspaces_of("owner@x.org")
    assert store.role_of(new, cur) is None            # members are per workspace
    with pytest.raises(NotAllowed, match=f"{cur} owns no workspace; only owners create workspaces"):
        store.create_workspace(f"third-{uuid.uuid4().hex[:8]}", by=cur)
    with pytest.raises(NotAllowed, match="owns no workspace"):
        store.create_workspace(f"third-{uuid.uuid4().hex[:8]}", by=f"stranger-{uuid.uuid4().hex[:8]}@x.org")
    with pytest.raises(InputError, match="exists already; choose another name"):
        store.create_workspace(name, by="owner@x.org")
    with pytest.raises(InputError, match="give the new workspace a name"):
        store.create_workspace("   ", by="owner@x.org")
    long_name = f"{uuid.uuid4().hex}-".ljust(201, "w")
    with pytest.raises(InputError, match=r"a workspace name has at most 200 characters \(201 given\); shorten it"):
        store.create_workspace(long_name, by="owner@x.org")
    assert store.role_of(store.create_workspace(long_name[:200], by="owner@x.org"), "owner@x.org") == "owner"
    assert store.workspaces_of(cur.upper()) == [(ws, n, "curator") for w, n, _ in store.workspaces_of("owner@x.org")
                                                if w == ws]


# ---------------------------------------------------------------------------- datasets and runs
def _second_dataset(ds):
    other = dataclasses.replace(ds, table=ds.table.iloc[:120], name="toy-small")
    assert other.fingerprint != ds.fingerprint
    return other


def test_deleting_a_dataset_hides_it_and_its_runs_but_keeps_the_reviews(store, toy):
    ds, run = toy
    ws = _workspace(store)
    store.set_role(ws, "ann@x.org", "annotator", by="owner@x.org")
    store.set_role(ws, "cur@x.org", "curator", by="owner@x.org")
    first = store.save_dataset(ws, ds, source="toy.csv", roles={"text": ["text"]}, by="owner@x.org")
    assert store.save_dataset(ws, ds, source="again.csv", roles={}, by="cur@x.org") == first   # same data, same row
    second = store.save_dataset(ws, _second_dataset(ds), source="small.csv", roles={}, by="cur@x.org")
    listed = store.datasets(ws, by="ann@x.org")
    assert sorted(listed["id"]) == sorted([first, second])
    row = listed.set_index("id").loc[first]
    assert (row["name"], row["source"], row["roles"], row["fingerprint"], row["created_by"]) == (
        "toy", "toy.csv", {"text": ["text"]}, ds.fingerprint, "owner@x.org")
    run_id = store.save_run(ws, first, run, by="owner@x.org")
    store.review(ws, run_id, "e1", "remove", "an artifact", by="ann@x.org")
    store.review(ws, run_id, "e2", "agree", by="ann@x.org")
    assert store.runs(ws, by="ann@x.org")["key"].tolist() == [run.key]

    with pytest.raises(NotAllowed, match="ann@x.org is annotator.*delete data.*owner or curator"):
        store.delete_dataset(ws, first, by="ann@x.org")
    other_ws = _workspace(store)
    with pytest.raises(InputError, match=f"no dataset {first} in this workspace"):
        store.delete_dataset(other_ws, first, by="owner@x.org")
    store.delete_dataset(ws, first, by="Cur@x.org")
    assert store.datasets(ws, by="ann@x.org")["id"].tolist() == [second]
    assert store.runs(ws, by="ann@x.org").empty
    assert store.run_record(ws, run.key, by="ann@x.org") is None
    with store.Session() as s:      # nothing erased: the reviews are still in the database
        kept = s.execute(select(Review.example_id, Review.decision).where(Review.run_id == run_id)
                         .order_by(Review.id)).all()
        rec = s.get(DatasetRecord, first)
    assert [tuple(r) for r in kept] == [("e1", "remove"), ("e2", "agree")]
    assert rec.deleted_at is not None and rec.deleted_by == "cur@x.org"
    # loading the same data again brings the dataset back, with its runs and their reviews
    assert store.save_dataset(ws, ds, source="toy.csv", roles={}, by="cur@x.org") == first
    assert sorted(store.datasets(ws, by="ann@x.org")["id"]) == sorted([first, second])
    assert store.runs(ws, by="ann@x.org")["key"].tolist() == [run.key]
    assert store.reviews(ws, run_id, by="ann@x.org")["example_id"].tolist() == ["e1", "e2"]


def test_runs_begin_end_recover_and_discard(fresh_url, tmp_path, toy):
    ds, run = toy
    store = _store_at(fresh_url(), tmp_path)   # a fresh instance: recover() counts every workspace
    ws = _workspace(store)
    store.set_role(ws, "ann@x.org", "annotator", by="owner@x.org")
    dataset_id = store.save_dataset(ws, ds, source="toy", roles={}, by="owner@x.org")
    begin = dict(representation="toy", params={"tau": 0.0}, seed=1, versions={"numpy": "x"})
    with pytest.raises(NotAllowed, match="run filters"):
        store.begin_run(ws, dataset_id, "k-a", by="ann@x.org", **begin)
    ids = {key: store.begin_run(ws, dataset_id, key, by="owner@x.org", **begin) for key in ("k-a", "k-b", "k-c")}
    assert store.begin_run(ws, dataset_id, "k-a", by="owner@x.org", **begin) == ids["k-a"]   # a retry: same row
    statuses = lambda: dict(zip(*store.runs(ws, by="ann@x.org")[["key", "status"]].to_dict("list").values()))
    assert statuses() == {"k-a": "running", "k-b": "running", "k-c": "running"}
    with pytest.raises(InputError, match="not finished; reviews attach to finished runs"):
        store.review(ws, ids["k-a"], "e1", "agree", by="ann@x.org")
    with pytest.raises(InputError, match="ends as failed or interrupted, not 'done'"):
        store.end_run(ws, "k-a", "done", by="owner@x.org")
    store.end_run(ws, "k-a", "failed", by="owner@x.org")
    with pytest.raises(InputError, match="run k-b is running; only interrupted or failed runs can be discarded"):
        store.discard_run(ws, "k-b", by="owner@x.org")

    done_id = store.save_run(ws, dataset_id, run, by="owner@x.org")
    store.end_run(ws, run.key, "failed", by="owner@x.org")                                  # a finished run stays finished
    assert store.begin_run(ws, dataset_id, run.key, by="owner@x.org", **begin) == done_id
    assert statuses()[run.key] == "done"

    assert store.recover() == 2                                           # k-b, k-c: their process is gone
    assert statuses() == {"k-a": "failed", "k-b": "interrupted", "k-c": "interrupted", run.key: "done"}
    assert store.recover() == 0
    with pytest.raises(InputError, match=f"run {run.key} is done; only interrupted or failed"):
        store.discard_run(ws, run.key, by="owner@x.org")
    with pytest.raises(NotAllowed, match="ann@x.org is annotator"):
        store.discard_run(ws, "k-b", by="ann@x.org")
    store.discard_run(ws, "k-a", by="owner@x.org")
    store.discard_run(ws, "k-b", by="owner@x.org")
    with pytest.raises(InputError, match="no run k-b in this workspace"):
        store.discard_run(ws, "k-b", by="owner@x.org")
    assert statuses() == {"k-c": "interrupted", run.key: "done"}

    # an interrupted run begun again runs again, and a save finishes it under the same row
    again = store.begin_run(ws, dataset_id, "k-c", by="owner@x.org", **begin)
    assert again == ids["k-c"] and statuses()["k-c"] == "running"
    store.open_run(ws, run.key, by="ann@x.org")


def test_a_run_whose_lease_ran_out_reads_as_interrupted_with_no_server_alive(fresh_url, tmp_path, toy):
    """Issue 31, class 11: a run's process died and no server is left to mark it (or the one
    left was never opened, so its heartbeat never started). Every reader (the pages of another
    process, the CLI) sees it interrupted as soon as its lease ran out, and it can be discarded;
    a run whose lease holds still reads as running."""
    from artifact_lens.team.store.models import RunRecord

    ds, _ = toy
    url = fresh_url()
    writer = _store_at(url, tmp_path)
    ws = _workspace(writer)
    dataset_id = writer.save_dataset(ws, ds, source="toy", roles={}, by="owner@x.org")
    begin = dict(representation="toy", params={}, seed=1, versions={})
    for key in ("dead", "alive"):
        writer.begin_run(ws, dataset_id, key, by="owner@x.org", **begin)
    with writer.Write.begin() as s:   # the dead process's last renewal was a minute ago
        s.execute(RunRecord.__table__.update().where(RunRecord.key == "dead")
                  .values(lease_until=datetime(2000, 1, 1, tzinfo=timezone.utc)))
    reader = TeamStore(url, files=tmp_path / "files")   # no recover(), no heartbeat: a CLI, or an unopened app
    listed = dict(zip(*reader.runs(ws, by="owner@x.org")[["key", "status"]].to_dict("list").values()))
    assert listed == {"dead": "interrupted", "alive": "running"}
    assert reader.run_record(ws, "dead", by="owner@x.org")["status"] == "interrupted"
    assert reader.run_record(ws, "alive", by="owner@x.org")["status"] == "running"
    with pytest.raises(InputError, match="run alive is running; only interrupted or failed"):
        reader.discard_run(ws, "alive", by="owner@x.org")
    reader.discard_run(ws, "dead", by="owner@x.org")
    assert reader.runs(ws, by="owner@x.org")["key"].tolist() == ["alive"]


def test_a_run_record_tells_how_to_reopen_the_run(store, toy):
    ds, run = toy
    ws = _workspace(store)
    store.set_role(ws, "ann@x.org", "annotator", by="owner@x.org")
    dataset_id = store.save_dataset(ws, ds, source="data/toy.csv", roles={"text": ["text"], "label": "label"},
                                    by="owner@x.org")
    run_id = store.save_run(ws, dataset_id, run, by="owner@x.org")
    rec = store.run_record(ws, run.key, by="ann@x.org")
    assert {k: rec[k] for k in ("id", "key", "status", "representation", "created_by", "dataset_id", "dataset",
                                "source", "roles", "fingerprint")} == {
        "id": run_id, "key": run.key, "status": "done", "representation": run.representation,
        "created_by": "owner@x.org", "dataset_id": dataset_id, "dataset": "toy", "source": "data/toy.csv",
        "roles": {"text": ["text"], "label": "label"}, "fingerprint": ds.fingerprint}
    assert rec["params"] == run.params
    assert store.run_record(ws, "no-such-key", by="ann@x.org") is None
    assert store.run_record(_workspace(store), run.key, by="owner@x.org") is None   # keys are per workspace
    with pytest.raises(NotAllowed, match="no role"):
        store.run_record(ws, run.key, by="stranger@x.org")


def test_saved_views_belong_to_a_run(store, toy):
    ds, run = toy
    ws = _workspace(store)
    store.set_role(ws, "ann@x.org", "annotator", by="owner@x.org")
    store.set_role(ws, "cur@x.org", "curator", by="owner@x.org")
    dataset_id = store.save_dataset(ws, ds, source="toy", roles={}, by="owner@x.org")
    run_id = store.save_run(ws, dataset_id, run, by="owner@x.org")
    first = store.save_view(ws, run_id, " strict ", 0.75, 120, by="cur@x.org")
    second = store.save_view(ws, run_id, "loose", np.float64(0.6), np.int64(200), by="owner@x.org")
    with pytest.raises(NotAllowed, match="ann@x.org is annotator.*save views"):
        store.save_view(ws, run_id, "mine", 0.5, 10, by="ann@x.org")
    with pytest.raises(InputError, match="give the view a name"):
        store.save_view(ws, run_id, "  ", 0.5, 10, by="cur@x.org")
    # a name longer than its column: refused with a message on both databases (PostgreSQL raised DataError)
    with pytest.raises(InputError, match=r"a view name has at most 200 characters \(201 given\); shorten it"):
        store.save_view(ws, run_id, "v" * 201, 0.5, 10, by="cur@x.org")
    longest = store.save_view(ws, run_id, "v" * 200, 0.5, 10, by="cur@x.org")
    # a view of an unfinished run is refused (it used to be stored, and then discard_run failed on its key)
    running = store.begin_run(ws, dataset_id, "k-view", representation="x", params={}, seed=None, versions={},
                              by="owner@x.org")
    with pytest.raises(InputError, match=f"run {running} is not finished; views attach to finished runs"):
        store.save_view(ws, running, "early", 0.5, 10, by="cur@x.org")
    store.end_run(ws, "k-view", "failed", by="owner@x.org")
    store.discard_run(ws, "k-view", by="cur@x.org")
    views = store.views(ws, run_id, by="ann@x.org")
    assert views[["id", "name", "tau", "target_size", "created_by"]].values.tolist() == [
        [longest, "v" * 200, 0.5, 10, "cur@x.org"], [second, "loose", 0.6, 200, "owner@x.org"],
        [first, "strict", 0.75, 120, "cur@x.org"]]


def test_a_run_id_from_another_workspace_is_refused(store, toy):
    ds, run = toy
    mine, theirs = _workspace(store), _workspace(store)
    run_id = store.save_run(theirs, store.save_dataset(theirs, ds, source="toy", roles={}, by="owner@x.org"), run,
                            by="owner@x.org")
    store.set_role(mine, "ann@x.org", "annotator", by="owner@x.org")   # ann is a member of `mine` only
    refused = f"no run {run_id} in this workspace; choose one from the list of runs"
    for who in ("owner@x.org", "ann@x.org"):
        with pytest.raises(InputError, match=refused):
            store.review(mine, run_id, "e1", "agree", by=who)
        with pytest.raises(InputError, match=refused):
            store.reviews(mine, run_id, by=who)
        with pytest.raises(InputError, match=refused):
            store.views(mine, run_id, by=who)
        with pytest.raises(InputError, match=refused):
            store.review_stamp(mine, run_id, by=who)
    with pytest.raises(InputError, match=refused):
        store.save_view(mine, run_id, "v", 0.5, 10, by="owner@x.org")
    with pytest.raises(InputError, match="no run 987654321 in this workspace"):
        store.review(theirs, 987654321, "e1", "agree", by="owner@x.org")
    with pytest.raises(NotAllowed, match="ann@x.org has no role"):            # and ann cannot read `theirs`
        store.reviews(theirs, run_id, by="ann@x.org")
    assert store.reviews(theirs, run_id, by="owner@x.org", latest=False).empty   # nothing was written
    assert store.views(theirs, run_id, by="owner@x.org").empty


# ---------------------------------------------------------------------------- bad input
def test_a_missing_run_file_names_the_problem_and_the_fix(store, toy):
    ds, run = toy
    ws = _workspace(store)
    store.save_run(ws, store.save_dataset(ws, ds, source="toy", roles={}, by="owner@x.org"), run, by="owner@x.org")
    (store.files / f"ws{ws}" / f"{run.key}.npz").unlink()
    with pytest.raises(CorruptRun, match=rf"the file of run {run.key} \({run.key}.npz\) is missing.*restore the "
                                         "team files from a backup or run the filter again"):
        store.open_run(ws, run.key, by="owner@x.org")
    with pytest.raises(InputError, match="no finished run nope in this workspace; choose one from the list"):
        store.open_run(ws, "nope", by="owner@x.org")


@pytest.mark.auth
def test_a_user_without_a_role_is_told_so_by_every_action(store, toy):
    ds, run = toy
    ws = _workspace(store)
    dataset_id = store.save_dataset(ws, ds, source="toy", roles={}, by="owner@x.org")
    run_id = store.save_run(ws, dataset_id, run, by="owner@x.org")
    who = "Stranger@x.org"
    actions = {
        "read": [lambda: store.runs(ws, by=who), lambda: store.datasets(ws, by=who),
                 lambda: store.members(ws, by=who), lambda: store.open_run(ws, run.key, by=who),
                 lambda: store.reviews(ws, run_id, by=who), lambda: store.views(ws, run_id, by=who)],
        "review": [lambda: store.review(ws, run_id, "e1", "agree", by=who)],
        "save views": [lambda: store.save_view(ws, run_id, "v", 0.5, 10, by=who)],
        "run filters": [lambda: store.save_run(ws, dataset_id, run, by=who),
                        lambda: store.begin_run(ws, dataset_id, "k", representation="x", params={}, seed=None,
                                                versions={}, by=who)],
        "load data": [lambda: store.save_dataset(ws, ds, source="toy", roles={}, by=who)],
        "delete data": [lambda: store.delete_dataset(ws, dataset_id, by=who)],
        "manage members": [lambda: store.set_role(ws, who, "owner", by=who)],
    }
    for action, calls in actions.items():
        for call in calls:
            with pytest.raises(NotAllowed, match=rf"{who} has no role in this workspace; to {action} one needs to be "
                                                 r".*\(ask an owner\)"):
                call()
    assert store.role_of(ws, who) is None and store.reviews(ws, run_id, by="owner@x.org").empty


# ---------------------------------------------------------------------------- migration
MIGRATIONS = Path(__file__).resolve().parents[2] / "core" / "team" / "store" / "migrations"


def _database_at(url, revision):
    from alembic import command
    from alembic.config import Config

    from artifact_lens.team.store.models import Base

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    engine = create_engine(url)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        cfg.attributes["metadata"] = Base.metadata
        command.upgrade(cfg, revision)
    return engine


def test_a_database_of_the_previous_schema_is_upgraded_with_every_row(fresh_url, tmp_path, toy):
    ds, run = toy
    url = fresh_url()
    engine = _database_at(url, "0001")
    assert "deleted_at" not in {c["name"] for c in inspect(engine).get_columns("datasets")}
    path = run.save(tmp_path / "old-files" / f"{run.key}.npz")
    stamp = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    meta = MetaData()
    meta.reflect(engine)
    t = meta.tables
    with engine.begin() as conn:
        ws = conn.execute(t["workspaces"].insert().values(name="legacy", created_at=stamp)).inserted_primary_key[0]
        conn.execute(t["members"].insert(), [
            dict(workspace_id=ws, email="old@x.org", role="owner", created_at=stamp),
            dict(workspace_id=ws, email="ann@x.org", role="annotator", created_at=stamp)])
        dataset_id = conn.execute(t["datasets"].insert().values(
            workspace_id=ws, fingerprint=ds.fingerprint, name="toy", source="toy.csv", roles={"text": ["text"]},
            created_by="old@x.org", created_at=stamp)).inserted_primary_key[0]
        run_id = conn.execute(t["runs"].insert().values(
            workspace_id=ws, dataset_id=dataset_id, key=run.key, representation=run.representation, params=run.params,
            seed=7, versions={"numpy": "1"}, status="done", file=str(path), sha256=file_sha256(path),
            created_by="old@x.org", created_at=stamp)).inserted_primary_key[0]
        conn.execute(t["views"].insert().values(run_id=run_id, name="old view", tau=0.7, target_size=90,
                                                created_by="old@x.org", created_at=stamp))
        conn.execute(t["reviews"].insert().values(run_id=run_id, example_id="e3", decision="keep", note="a real one",
                                                  reviewer="ann@x.org", created_at=stamp))
    engine.dispose()

    store = TeamStore(url, files=tmp_path / "files")         # opening upgrades
    assert store.migrate() == HEAD_REVISION
    assert "submissions" in inspect(store.engine).get_table_names()
    columns = inspect(store.engine)
    assert {"deleted_at", "deleted_by"} <= {c["name"] for c in columns.get_columns("datasets")}
    assert "updated_at" in {c["name"] for c in columns.get_columns("runs")}
    assert store.workspaces_of("old@x.org") == [(ws, "legacy", "owner")]
    assert store.members(ws, by="ann@x.org")[["email", "role"]].values.tolist() == [
        ["ann@x.org", "annotator"], ["old@x.org", "owner"]]
    datasets = store.datasets(ws, by="ann@x.org")
    assert datasets[["id", "name", "source", "fingerprint"]].values.tolist() == [
        [dataset_id, "toy", "toy.csv", ds.fingerprint]] and datasets["roles"].iloc[0] == {"text": ["text"]}
    runs = store.runs(ws, by="ann@x.org")
    assert runs[["key", "dataset", "status", "created_by"]].values.tolist() == [[run.key, "toy", "done", "old@x.org"]]
    assert runs["created_at"].iloc[0].replace(tzinfo=timezone.utc) == stamp.replace(tzinfo=timezone.utc)
    back = store.open_run(ws, run.key, by="ann@x.org")       # the checksum written before the upgrade still holds
    np.testing.assert_array_equal(back.retained_for(0.8, 0.5), run.retained_for(0.8, 0.5))
    assert store.views(ws, run_id, by="ann@x.org")[["name", "tau", "target_size"]].values.tolist() == [
        ["old view", 0.7, 90]]
    old = store.reviews(ws, run_id, by="ann@x.org")
    assert old[["example_id", "reviewer", "decision", "note", "kind"]].values.tolist() == [
        ["e3", "ann@x.org", "keep", "a real one", "review"]] and old["guidelines_id"].isna().all()
    assert store.review_settings(ws, by="ann@x.org") == {"dispute_rule": "latest", "reviews_per_example": 1,
                                                         "blind": False}
    # and usable: new rows beside the old ones, and the new columns work on old rows
    store.review(ws, run_id, "e3", "agree", by="ann@x.org")
    assert store.reviews(ws, run_id, by="old@x.org", latest=False)["decision"].tolist() == ["keep", "agree"]
    store.set_role(ws, "cur@x.org", "curator", by="old@x.org")
    assert store.begin_run(ws, dataset_id, "new-run", representation="x", params={}, seed=None, versions={},
                           by="cur@x.org") > run_id
    store.delete_dataset(ws, dataset_id, by="old@x.org")
    assert store.datasets(ws, by="ann@x.org").empty and store.runs(ws, by="ann@x.org").empty
    from sqlalchemy import func, select

    from artifact_lens.team.store.models import Review

    with store.Session() as s:   # hidden from the workspace, but kept in the database
        assert s.scalar(select(func.count()).select_from(Review).where(Review.run_id == run_id)) == 2


# ---------------------------------------------------------------------------- load
def _decision(reviewer: int, example: int, visit: int) -> str:
    """Deterministic decisions: most examples are agreed on by everyone; every third one splits
    the reviewers, and the second visit of an example (a change of mind) flips some."""
    if example % 3:
        return "agree" if visit == 0 or (reviewer + example) % 2 else "keep"
    return ("agree", "keep", "remove")[(reviewer * 7 + example * 3 + visit) % 5 % 3]


@pytest.mark.slow
def test_twenty_reviewers_write_thousands_of_reviews_at_once(store, toy):
    """20 threads at once: 20,000 reviews under `make test-stress`, 2,000 in `make test`."""
    from artifact_lens.results.runs import fit_run
    from toy import toy_data

    reviewers, per = 20, scaled(1000, 100)
    ds, rep = toy_data(n=max(300, per))   # a decision names one of the run's examples: e0 … e{per - 1} exist
    run = fit_run(ds, rep, dict(n_partitions=4, train_size=0.1, slice_size=0.05, tau=0.0, target_size=0.5))
    ws = _workspace(store)
    first_visits = per * 4 // 5
    names = [f"load{r}@x.org" for r in range(reviewers)]
    for who in names:
        store.set_role(ws, who, "annotator", by="owner@x.org")
    run_id = store.save_run(ws, store.save_dataset(ws, ds, source="toy", roles={}, by="owner@x.org"), run,
                            by="owner@x.org")
    plans = {}                                # reviewer -> [(example, decision)] in the order written
    for r, who in enumerate(names):
        plan = []
        for k in range(per):                 # 4/5 first visits, then second visits (every fourth example)
            example, visit = (k, 0) if k < first_visits else ((k - first_visits) * 4, 1)
            plan.append((f"e{example}", _decision(r, example, visit)))
        plans[who] = plan
    errors = []

    def work(who):
        try:
            for example, decision in plans[who]:
                store.review(ws, run_id, example, decision, "load", by=who)
        except Exception as exc:   # collected: a lost write must fail the test, not a thread
            errors.append(exc)

    t0 = time.perf_counter()
    threads = [threading.Thread(target=work, args=(who,)) for who in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = time.perf_counter() - t0
    assert not errors, errors[:3]
    history = store.reviews(ws, run_id, by="owner@x.org", latest=False)
    assert len(history) == reviewers * per and history["id"].is_unique
    assert history.groupby("reviewer").size().to_dict() == {who: per for who in names}
    for who, rows in history.groupby("reviewer"):     # each reviewer's rows are exactly the plan, in order
        assert list(zip(rows["example_id"], rows["decision"])) == plans[who]
    latest = {}
    for who, plan in plans.items():
        for example, decision in plan:
            latest[(who, example)] = decision
    by_example = {}
    for (who, example), decision in latest.items():
        by_example.setdefault(example, set()).add(decision)
    expected = {ex: sorted(d) for ex, d in by_example.items() if len(d) > 1}
    t1 = time.perf_counter()
    stand = standing(store.reviews(ws, run_id, by="owner@x.org"))
    read_seconds = time.perf_counter() - t1
    found = stand[stand["decisions"].map(len) > 1]
    assert 0 < len(expected) < len(by_example)           # the plan does split some examples and not others
    assert len(found) == len(expected)
    assert {ex: list(d) for ex, d in found["decisions"].items()} == expected
    print(f"\n{store.engine.dialect.name}: {reviewers * per} reviews by {reviewers} threads in {seconds:.1f} s "
          f"({reviewers * per / seconds:.0f}/s); their standing in {read_seconds:.2f} s; "
          f"{len(expected)} of {len(by_example)} examples disagree")


def test_leftovers_of_a_kill_are_swept_and_names_are_checked(store, toy, tmp_path):
    """What the durability test found: temporaries of killed writes, a workspace-name race,
    over-long ids and e-mails, and removed datasets' runs reachable by id."""
    import os

    ds, run = toy
    ws = _workspace(store)
    dead = store.files / f"ws{ws}" / ".x.npz.999999999.abc.tmp"           # a writer pid that cannot exist
    alive = store.files / f"ws{ws}" / f".y.npz.{os.getpid()}.abc.tmp"    # a writer still running
    dead.parent.mkdir(parents=True, exist_ok=True)
    dead.write_bytes(b"half")
    alive.write_bytes(b"half")
    store.recover()
    assert not dead.exists() and alive.exists()
    alive.unlink()
    name = f"race-{uuid.uuid4().hex[:6]}"
    store.create_workspace(name, by="owner@x.org")
    with pytest.raises(InputError, match="exists already"):
        store.create_workspace(name, by="owner@x.org")
    with pytest.raises(InputError, match="not an e-mail address"):
        store.set_role(ws, "x" * 400 + "@x.org", "annotator", by="owner@x.org")
    dataset_id = store.save_dataset(ws, ds, source="toy", roles={}, by="owner@x.org")
    run_id = store.save_run(ws, dataset_id, run, by="owner@x.org")
    with pytest.raises(InputError, match="longer than 200 characters"):
        store.review(ws, run_id, "e" * 201, "agree", by="owner@x.org")
    store.delete_dataset(ws, dataset_id, by="owner@x.org")
    with pytest.raises(InputError, match="no run"):
        store.review(ws, run_id, "e1", "agree", by="owner@x.org")
    with pytest.raises(InputError, match="no finished run"):
        store.open_run(ws, run.key, by="owner@x.org")


# ---------------------------------------------------------------- creation with feedback (paper 002 §3.2)
def test_creators_submit_validators_decide_and_rejected_examples_are_revised(store, toy):
    ds, _ = toy
    ws = _workspace(store)
    store.set_role(ws, "cre@x.org", "annotator", by="owner@x.org")
    store.set_role(ws, "val@x.org", "curator", by="owner@x.org")
    dataset_id = store.save_dataset(ws, ds, source="toy", roles={}, by="owner@x.org")
    red = {"light": "red", "components": {"label_tied": 0.1}}
    first = store.submit(ws, dataset_id, {"premise": "A man sleeps.", "hypothesis": "Nobody is awake."},
                         "contradiction", red, by="cre@x.org")
    second = store.submit(ws, dataset_id, {"premise": "A man sleeps.", "hypothesis": "A man rests."}, "entailment",
                          {"light": "green"}, by="cre@x.org")
    with pytest.raises(InputError, match="no text"):
        store.submit(ws, dataset_id, {"premise": " ", "hypothesis": ""}, "neutral", {}, by="cre@x.org")
    with pytest.raises(NotAllowed, match="annotator.*validate"):
        store.validate(ws, first, "accept", by="cre@x.org")
    with pytest.raises(InputError, match="needs a note"):
        store.validate(ws, first, "reject", by="val@x.org")
    with pytest.raises(InputError, match="you wrote this example"):
        own = store.submit(ws, dataset_id, {"hypothesis": "x"}, "neutral", {}, by="val@x.org")
        store.validate(ws, own, "accept", by="val@x.org")
    store.validate(ws, first, "reject", "'nobody' gives the label away; describe the man instead", by="val@x.org")
    store.validate(ws, second, "accept", by="val@x.org")
    with pytest.raises(InputError, match="accepted already"):
        store.validate(ws, second, "reject", "changed my mind", by="val@x.org")
    mine = store.submissions(ws, by="cre@x.org", creator="cre@x.org")
    assert mine.set_index("id").loc[first, ["status", "decision", "validator"]].tolist() == [
        "rejected", "reject", "val@x.org"]
    with pytest.raises(InputError, match="not one of yours"):
        store.submit(ws, dataset_id, {"hypothesis": "y"}, "neutral", {}, by="val@x.org", revises=first)
    third = store.submit(ws, dataset_id, {"premise": "A man sleeps.", "hypothesis": "The man's eyes are closed."},
                         "entailment", {"light": "green"}, by="cre@x.org", revises=first)
    with pytest.raises(InputError, match="only a rejected example is revised"):
        store.submit(ws, dataset_id, {"hypothesis": "z"}, "neutral", {}, by="cre@x.org", revises=second)
    store.validate(ws, third, "accept", by="val@x.org")
    everything = store.submissions(ws, by="owner@x.org").set_index("id")
    assert everything.loc[first, "status"] == "revised" and everything.loc[third, "revises"] == first
    accepted = store.accepted_examples(ws, dataset_id, by="owner@x.org")
    assert accepted["id"].tolist() == [f"sub-{second}", f"sub-{third}"]
    assert accepted["hypothesis"].tolist() == ["A man rests.", "The man's eyes are closed."]
    assert accepted["label"].tolist() == ["entailment", "entailment"]
    lights = store.creator_lights(ws, by="owner@x.org").set_index("creator")
    assert lights.loc["cre@x.org", ["red", "yellow", "green"]].tolist() == [1, 0, 2]


def test_a_dataset_version_is_kept_by_the_store_for_curators_only(store, toy):
    """The accepted examples become a version: its rows (`core.team.versions.with_accepted`) kept
    by the store in its own folder, one file per content; the role and the dataset's workspace are
    checked by the store itself."""
    from artifact_lens.team.versions import with_accepted

    ds, _ = toy
    ws, other = _workspace(store), _workspace(store)
    store.set_role(ws, "ann@x.org", "annotator", by="owner@x.org")
    dataset_id = store.save_dataset(ws, ds, source="toy", roles={}, by="owner@x.org")
    elsewhere = store.save_dataset(other, ds, source="toy", roles={}, by="owner@x.org")
    with pytest.raises(InputError, match="no accepted examples"):
        with_accepted(ds, store.accepted_examples(ws, dataset_id, by="owner@x.org"))
    sub = store.submit(ws, dataset_id, {ds.text[0]: "a new example"}, ds.classes[0], {}, by="ann@x.org")
    store.validate(ws, sub, "accept", by="owner@x.org")
    table = with_accepted(ds, store.accepted_examples(ws, dataset_id, by="owner@x.org"))
    assert len(table) == len(ds) + 1 and table["origin"].tolist()[-1] == "accepted"
    assert table["id"].tolist()[-1] == f"sub-{sub}" and table["creator"].tolist()[-1] == "ann@x.org"
    with pytest.raises(NotAllowed, match="annotator"):
        store.save_version(ws, dataset_id, table, by="ann@x.org")
    with pytest.raises(InputError, match="no dataset"):
        store.save_version(ws, elsewhere, table, by="owner@x.org")
    path = Path(store.save_version(ws, dataset_id, table, by="owner@x.org"))
    assert path.parent.parent.parent == store.files and path.name.startswith(f"version-{dataset_id}-")
    assert store.save_version(ws, dataset_id, table.copy(), by="owner@x.org") == str(path)   # same content, one file
    assert pd.read_parquet(path)["id"].tolist() == table["id"].tolist()
    clash = store.accepted_examples(ws, dataset_id, by="owner@x.org").assign(id=str(ds.table.index[0]))
    with pytest.raises(InputError, match="already has ids"):
        with_accepted(ds, clash)


def test_the_dispute_rule_is_a_workspace_setting_only_owners_change(store):
    ws = _workspace(store)
    store.set_role(ws, "cur@x.org", "curator", by="owner@x.org")
    assert store.dispute_rule(ws, by="cur@x.org") == "latest"            # every workspace starts here
    with pytest.raises(NotAllowed, match="cur@x.org is curator.*to change settings one needs to be owner"):
        store.set_dispute_rule(ws, "senior", by="cur@x.org")
    with pytest.raises(InputError, match="dispute rule 'loudest' is unknown; choose one of latest, senior"):
        store.set_dispute_rule(ws, "loudest", by="owner@x.org")
    assert store.dispute_rule(ws, by="owner@x.org") == "latest"          # refused changes changed nothing
    store.set_dispute_rule(ws, "senior", by="owner@x.org")
    other = _workspace(store)
    assert store.dispute_rule(ws, by="cur@x.org") == "senior" and store.dispute_rule(other, by="owner@x.org") == "latest"


def test_the_migrations_build_exactly_the_schema_the_models_declare(fresh_url, tmp_path):
    """A table, column, index or unique constraint added to the models without its migration (or
    the other way round) is a difference here, on each database."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from artifact_lens.team.store.models import Base

    url = fresh_url()
    TeamStore(url, files=tmp_path / "files").close()   # opening migrates to the newest revision
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
    finally:
        engine.dispose()
