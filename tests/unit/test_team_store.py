"""The team store on SQLite and on a real PostgreSQL: roles, runs with checksums, reviews with history."""
import threading
import uuid

import numpy as np
import pytest

from core.errors import InputError
from core.runs import CorruptRun
from core.store import NotAllowed, TeamStore


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request, tmp_path):
    if request.param == "sqlite":
        return TeamStore(f"sqlite:///{tmp_path}/team.sqlite", files=tmp_path / "files")
    url = request.getfixturevalue("postgres_url")
    schema_free = TeamStore(url, files=tmp_path / "files")
    return schema_free


@pytest.fixture
def toy(toy_run):
    return toy_run


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
    assert store.members(ws)["role"].tolist() == ["annotator", "curator", "owner"]


def test_any_member_opens_a_saved_run_without_recomputing_it(store, toy, tmp_path):
    ds, run = toy
    ws = _workspace(store)
    store.set_role(ws, "ann@x.org", "annotator", by="owner@x.org")
    dataset_id = store.save_dataset(ws, ds, source="toy", roles={"text": ["text"]}, by="owner@x.org")
    store.save_run(ws, dataset_id, run, by="owner@x.org")
    back = store.open_run(ws, run.key, by="ann@x.org")
    np.testing.assert_array_equal(back.retained_for(0.8, 0.5), run.retained_for(0.8, 0.5))
    listed = store.runs(ws)
    assert listed["key"].tolist() == [run.key] and listed["created_by"].tolist() == ["owner@x.org"]
    # a damaged file is refused by its checksum, and says what to do
    path = store.files / f"ws{ws}" / f"{run.key}.npz"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(CorruptRun, match="checksum"):
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
    history = store.reviews(run_id, latest=False)
    assert len(history) == 4 and history["decision"].tolist() == ["agree", "keep", "agree", "agree"]
    latest = store.reviews(run_id)
    assert sorted(zip(latest["example_id"], latest["reviewer"], latest["decision"])) == [
        ("e1", "a@x.org", "keep"), ("e1", "b@x.org", "agree"), ("e2", "b@x.org", "agree")]
    dis = store.disagreements(run_id)
    assert dis["example_id"].tolist() == ["e1"] and dis["decisions"].iloc[0] == ["agree", "keep"]
    assert dict(zip(*store.progress(run_id).to_dict("list").values())) == {"a@x.org": 1, "b@x.org": 2}


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
    history = store.reviews(run_id, latest=False)
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
        assert store.migrate() == "0001"   # a second upgrade is a no-op at the newest revision
        assert handler in app_logger.handlers and app_logger.level == logging.INFO and not app_logger.disabled
        assert logging.getLogger().handlers == root_handlers
    finally:
        app_logger.removeHandler(handler)
