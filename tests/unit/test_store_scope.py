"""The scoped team store, on SQLite and a real PostgreSQL: found by reflection over every
public method (a new method is covered the day it is written), and invariants the database
holds under 20 threads released at one barrier."""
import inspect
import re
import threading
import uuid

import pandas as pd
import pytest
from sqlalchemy import create_engine, func, select, text

from artifact_lens.base.errors import InputError
from artifact_lens.team.store import NotAllowed, TeamStore
from artifact_lens.team.store.models import Member, Submission, Validation

from test_team_store import fresh_url, store, toy  # noqa: F401  (the SQLite and PostgreSQL fixtures)

# methods that write without a member's identity, and why
UNATTRIBUTED_WRITERS = {
    "workspace": "bootstrap of a fresh instance and single-user mode (called by the server, not by a member)",
    "bootstrap": "sign-in: gives the first signed-in person the default workspace",
    "recover": "server start and heartbeat: marks runs of a dead process interrupted",
    "renew_leases": "the server's heartbeat: extends the leases of the runs this process computes",
    "migrate": "schema upgrade when the store opens",
}
ID_PARAMS = ("dataset_id", "run_id", "submission_id", "key", "revises")


def _public_methods():
    return {name: fn for name, fn in inspect.getmembers(TeamStore, inspect.isfunction) if not name.startswith("_")}


def _writes(fn, seen=()) -> bool:
    """Whether ``fn`` writes, itself or through a private helper of the store it calls."""
    source = inspect.getsource(fn)
    if "Write.begin" in source or "_write_as(" in source or "atomic_write" in source or ".save(" in source:
        return True
    helpers = set(re.findall(r"self\.(_[a-z]\w*)\(", source)) - set(seen)
    return any(_writes(getattr(TeamStore, h), (*seen, *helpers)) for h in helpers if callable(getattr(TeamStore, h, None)))


def test_every_public_method_that_writes_takes_by():
    writers = {name for name, fn in _public_methods().items() if _writes(fn)}
    assert {"set_role", "remove_member", "review", "validate", "submit", "save_run", "end_run"} <= writers
    for name in sorted(writers - set(UNATTRIBUTED_WRITERS)):
        params = inspect.signature(_public_methods()[name]).parameters
        assert "by" in params and params["by"].kind is inspect.Parameter.KEYWORD_ONLY, name


def _world(store, toy):
    """Two workspaces, each with an owner, a curator, an annotator, a dataset, a finished run
    and a rejected submission."""
    ds, run = toy
    found = {}
    for side in ("a", "b"):
        tag = uuid.uuid4().hex[:6]
        owner, cur, ann = f"owner-{side}-{tag}@x.org", f"cur-{side}-{tag}@x.org", f"ann-{side}-{tag}@x.org"
        ws = store.workspace(f"ws-{side}-{tag}", owner=owner)
        store.set_role(ws, cur, "curator", by=owner)
        store.set_role(ws, ann, "annotator", by=owner)
        dataset_id = store.save_dataset(ws, ds, source="toy", roles={}, by=owner)
        run_id = store.save_run(ws, dataset_id, run, by=owner)
        sub = store.submit(ws, dataset_id, {"hypothesis": "x"}, "a", {}, by=ann)
        store.validate(ws, sub, "reject", "no", by=cur)
        key = f"only-{side}-{tag}"   # a key no other workspace has (the finished run's key is in both)
        store.begin_run(ws, dataset_id, key, representation="r", params={}, seed=0, versions={}, by=owner)
        found[side] = dict(ws=ws, owner=owner, cur=cur, ann=ann, dataset_id=dataset_id, run_id=run_id, key=key,
                           submission_id=sub, revises=sub)
    return found


def _args(name, fn, here, ids_from):
    """Arguments for ``fn`` in workspace ``here`` with every id taken from ``ids_from``."""
    values = {"workspace_id": here["ws"], "email": "new@x.org", "role": "annotator", "status": "failed",
              "example_id": str(here["toy"][1].ids[0]) if "toy" in here else "e1", "note": "why", "fields": {"hypothesis": "y"}, "label": "a", "feedback": {},
              "source": "toy", "roles": {}, "name": "v", "tau": 0.5, "target_size": 10, "representation": "r",
              "params": {}, "seed": 0, "versions": {}, "path": __file__, "rule": "senior", "text": "keep real ones",
              "reviews_per_example": 2, "blind": True,
              "table": pd.DataFrame({"id": ["v1"], "hypothesis": ["y"], "label": ["a"]})}
    values["flags"] = pd.DataFrame({"example_id": [values["example_id"]], "reason": ["new cue: x → a"], "score": [3.0]})
    values.update({p: ids_from[p] for p in ID_PARAMS})
    values["decision"] = "accept" if name == "validate" else "agree"
    args, kwargs = [], {}
    for p in list(inspect.signature(fn).parameters.values())[1:]:
        if p.name == "by":
            continue
        if p.name in ("dataset", "run"):
            value = here["toy"][0] if p.name == "dataset" else here["toy"][1]
        elif p.name in values:
            value = values[p.name]
        elif p.default is not inspect.Parameter.empty:
            continue
        else:
            raise AssertionError(f"the reflection test does not know how to fill {name}({p.name})")
        if p.kind is inspect.Parameter.KEYWORD_ONLY:
            kwargs[p.name] = value
        else:
            args.append(value)
    return args, kwargs


def _snapshot(store, side):
    ws, owner = side["ws"], side["owner"]
    return (store.datasets(ws, by=owner).drop(columns=["created_at"]).to_json(),
            store.runs(ws, by=owner)[["key", "status"]].to_json(),
            store.submissions(ws, by=owner)[["id", "status"]].to_json(),
            store.members(ws, by=owner)[["email", "role"]].to_json(),
            store.reviews(ws, side["run_id"], by=owner, latest=False)[["id"]].to_json(),
            store.review_flags(ws, side["run_id"], by=owner)[["example_id", "reason"]].to_json())


def _empty(result) -> bool:
    return result is None or (isinstance(result, pd.DataFrame) and result.empty)


def test_no_method_reaches_another_workspace(store, toy):
    """For every public method that takes a member: with the member's own workspace and the
    other workspace's ids, it refuses or finds nothing; with the other workspace itself, it
    refuses; the other workspace is unchanged either way."""
    world = _world(store, toy)
    a, b = world["a"], world["b"]
    a["toy"] = b["toy"] = toy
    before = _snapshot(store, b)
    checked = []
    for name, fn in sorted(_public_methods().items()):
        params = inspect.signature(fn).parameters
        if "by" not in params or "workspace_id" not in params:
            continue
        checked.append(name)
        if any(p in params for p in ID_PARAMS):   # own workspace, the other's ids
            args, kwargs = _args(name, fn, a, b)
            try:
                result = getattr(store, name)(*args, **kwargs, by=a["owner"])
            except InputError:
                pass
            else:
                assert _empty(result), (name, "returned data of another workspace", result)
        args, kwargs = _args(name, fn, b, b)   # the other workspace itself
        with pytest.raises(NotAllowed):
            getattr(store, name)(*args, **kwargs, by=a["owner"])
    assert _snapshot(store, b) == before
    assert {"begin_run", "save_run", "end_run", "validate", "submit", "review", "open_run"} <= set(checked)


def test_the_scoped_handle_offers_every_workspace_method_bound_to_one_member(store, toy):
    """`TeamStore.scoped`: every workspace method (found by reflection, so a new one is offered
    the day it is written) with the workspace and the member bound; nothing else; and through
    it a member of A reaches none of B's ids."""
    from artifact_lens.team.store.scoped import scoped_methods

    world = _world(store, toy)
    a, b = world["a"], world["b"]
    a["toy"] = b["toy"] = toy
    ws = store.scoped(a["ws"], a["owner"])
    workspace_methods = {name for name, fn in _public_methods().items()
                         if list(inspect.signature(fn).parameters)[1:2] == ["workspace_id"]
                         and inspect.signature(fn).parameters.get("by", inspect.Parameter("x", inspect.Parameter.POSITIONAL_ONLY)).kind
                         is inspect.Parameter.KEYWORD_ONLY}
    assert scoped_methods(TeamStore) == workspace_methods and {"runs", "review", "validate", "remove_member"} <= \
        workspace_methods
    for name in ("workspace", "bootstrap", "migrate", "close", "_owners", "workspaces_of"):
        with pytest.raises(AttributeError, match="not a workspace action"):
            getattr(ws, name)
    assert ws.require("manage members") == "owner" and ws.role() == "owner"
    before = _snapshot(store, b)
    for name in sorted(n for n in workspace_methods if any(p in inspect.signature(getattr(TeamStore, n)).parameters
                                                             for p in ID_PARAMS)):
        args, kwargs = _args(name, getattr(TeamStore, name), a, b)
        try:
            result = getattr(ws, name)(*args[1:], **kwargs)   # args[0] is the workspace: the handle binds it
        except InputError:
            continue
        assert _empty(result), (name, "returned data of another workspace", result)
    assert _snapshot(store, b) == before
    assert store.scoped(b["ws"], a["owner"]).runs is not None   # a handle is only a binding: the store refuses
    with pytest.raises(NotAllowed):
        store.scoped(b["ws"], a["owner"]).runs()


def test_keep_file_copies_only_uploads_for_a_member_who_loads_data(store, toy, tmp_path, monkeypatch):
    monkeypatch.setenv("ARTIFACT_LENS_CACHE", str(tmp_path / "cache"))
    a = _world(store, toy)["a"]
    with pytest.raises(NotAllowed):
        store.keep_file(a["ws"], "/etc/passwd", by=a["owner"])
    upload = tmp_path / "cache" / "uploads" / "data.csv"
    upload.parent.mkdir(parents=True)
    upload.write_text("text,label\na,x\n")
    with pytest.raises(NotAllowed):
        store.keep_file(a["ws"], upload, by=a["ann"])
    kept = store.keep_file(a["ws"], upload, by=a["cur"])
    assert open(kept).read() == "text,label\na,x\n"


def test_a_removed_member_loses_access_and_the_last_owner_stays(store, toy):
    a = _world(store, toy)["a"]
    store.reviews(a["ws"], a["run_id"], by=a["ann"])
    store.remove_member(a["ws"], a["ann"], by=a["owner"])
    with pytest.raises(NotAllowed):
        store.reviews(a["ws"], a["run_id"], by=a["ann"])
    with pytest.raises(NotAllowed):
        store.remove_member(a["ws"], a["owner"], by=a["cur"])
    with pytest.raises(InputError, match="last owner"):
        store.remove_member(a["ws"], a["owner"], by=a["owner"])
    with pytest.raises(InputError, match="not a member"):
        store.remove_member(a["ws"], "nobody@x.org", by=a["owner"])
    assert store.role_of(a["ws"], a["owner"]) == "owner"


@pytest.mark.parametrize("field, value", [
    ("note", "a\x00b"), ("note", "bad \udc80 text"), ("example_id", "e\x00"), ("email", "n\x00@x.org"),
    ("label", "x" * 201), ("name", "v\x00"), ("fields", {"hypothesis": "nul\x00"}), ("email", "\ud800@x.org"),
])
def test_text_the_database_cannot_hold_is_one_clear_error(store, toy, field, value):
    a = _world(store, toy)["a"]
    calls = {
        "note": lambda: store.review(a["ws"], a["run_id"], "e1", "keep", value, by=a["cur"]),
        "example_id": lambda: store.review(a["ws"], a["run_id"], value, "agree", by=a["cur"]),
        "email": lambda: store.set_role(a["ws"], value, "annotator", by=a["owner"]),
        "label": lambda: store.submit(a["ws"], a["dataset_id"], {"h": "x"}, value, {}, by=a["ann"]),
        "name": lambda: store.save_view(a["ws"], a["run_id"], value, 0.5, 10, by=a["cur"]),
        "fields": lambda: store.submit(a["ws"], a["dataset_id"], value, "a", {}, by=a["ann"]),
    }
    with pytest.raises(InputError) as info:
        calls[field]()
    assert any(w in str(info.value) for w in ("NUL", "broken character", "at most")), str(info.value)
    with pytest.raises(InputError, match="NUL"):   # and a bad identity is refused, not a raw database error
        store.reviews(a["ws"], a["run_id"], by="x\x00@x.org")


# ---------------------------------------------------------------- races
def _at_once(n, work):
    """Run ``work(i)`` in n threads released together; (results, errors)."""
    barrier = threading.Barrier(n)
    results, errors = [None] * n, [None] * n

    def run(i):
        barrier.wait()
        try:
            results[i] = work(i)
        except Exception as exc:   # noqa: BLE001 - each outcome is checked below
            errors[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results, errors


def _only_input_errors(errors):
    assert all(e is None or isinstance(e, InputError) for e in errors), [repr(e) for e in errors if e is not None]


def test_twenty_validators_at_once_make_one_decision(store, toy):
    a = _world(store, toy)["a"]
    validators = [f"val{i}-{uuid.uuid4().hex[:4]}@x.org" for i in range(20)]
    for v in validators:
        store.set_role(a["ws"], v, "curator", by=a["owner"])
    sub = store.submit(a["ws"], a["dataset_id"], {"hypothesis": "fresh"}, "a", {}, by=a["ann"])
    results, errors = _at_once(20, lambda i: store.validate(a["ws"], sub, "accept" if i % 2 else "reject", "n",
                                                            by=validators[i]))
    _only_input_errors(errors)
    assert sum(r is not None for r in results) == 1
    with store.Session() as s:
        assert s.scalar(select(func.count()).select_from(Validation).where(Validation.submission_id == sub)) == 1
        assert s.get(Submission, sub).status in ("accepted", "rejected")


def test_twenty_revisions_of_one_rejection_make_one(store, toy):
    a = _world(store, toy)["a"]
    results, errors = _at_once(20, lambda i: store.submit(a["ws"], a["dataset_id"], {"hypothesis": f"v{i}"}, "a", {},
                                                          by=a["ann"], revises=a["submission_id"]))
    _only_input_errors(errors)
    assert sum(r is not None for r in results) == 1
    with store.Session() as s:
        assert s.scalar(select(func.count()).select_from(Submission).where(
            Submission.revises == a["submission_id"])) == 1


def test_twenty_curators_sending_the_same_rows_at_once_add_them_once(store, toy):
    """The unique index decides, not a read before the write: each (example, reason) is one row,
    and the counts of new rows add up to the rows sent."""
    a = _world(store, toy)["a"]
    curators = [f"flag{i}-{uuid.uuid4().hex[:4]}@x.org" for i in range(20)]
    for c in curators:
        store.set_role(a["ws"], c, "curator", by=a["owner"])
    ids = [str(i) for i in toy[1].ids[:30]]
    flags = pd.DataFrame({"example_id": ids, "reason": "new cue: x → a", "score": 1.0})
    results, errors = _at_once(20, lambda i: store.flag_for_review(a["ws"], a["run_id"], flags, by=curators[i]))
    assert errors == [None] * 20, [repr(e) for e in errors if e is not None]
    assert sum(results) == 30
    assert sorted(store.review_flags(a["ws"], a["run_id"], by=a["ann"])["example_id"]) == sorted(ids)


@pytest.mark.parametrize("how", ["demote", "remove"])
def test_twenty_owners_leaving_at_once_leave_one_owner(store, toy, how):
    a = _world(store, toy)["a"]
    owners = [a["owner"]] + [f"own{i}-{uuid.uuid4().hex[:4]}@x.org" for i in range(19)]
    for o in owners[1:]:
        store.set_role(a["ws"], o, "owner", by=a["owner"])
    leave = (lambda i: store.set_role(a["ws"], owners[i], "curator", by=owners[i])) if how == "demote" else \
        (lambda i: store.remove_member(a["ws"], owners[i], by=owners[i]))
    results, errors = _at_once(20, leave)
    _only_input_errors(errors)
    with store.Session() as s:
        left = s.scalar(select(func.count()).where(Member.workspace_id == a["ws"], Member.role == "owner"))
    assert left == 1 and sum(e is not None for e in errors) == 1


def test_twenty_stores_opened_at_once_on_a_fresh_database(fresh_url, tmp_path):
    url = fresh_url()
    def open_and_migrate(i):
        with TeamStore(url, files=tmp_path / "files") as opened:
            return opened.migrate()

    results, errors = _at_once(20, open_and_migrate)
    assert errors == [None] * 20, [repr(e) for e in errors if e]
    assert set(results) == {max(results)}


def test_a_database_of_a_newer_version_is_refused_clearly(fresh_url, tmp_path):
    url = fresh_url()
    TeamStore(url, files=tmp_path / "files")
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    engine.dispose()
    with pytest.raises(InputError, match="newer Artifact Lens"):
        TeamStore(url, files=tmp_path / "files")


def test_a_prepared_export_is_not_served_after_a_demotion(store, toy, tmp_path):
    """The download is read when the button is clicked, without a rerun: the role is asked
    of the store again then, and a demoted curator gets nothing (the file is deleted)."""
    from functools import partial

    from artifact_lens.dashboard.services import exports

    a = _world(store, toy)["a"]
    path = tmp_path / "export.csv"
    path.write_text("id,label\n1,x\n")
    item = exports.Prepared(str(path), "sig", "export.csv", 1, path.stat().st_size, 0.1)
    read = exports.reader(item, partial(store.require, a["ws"], a["cur"], "export"))
    assert read() == b"id,label\n1,x\n"
    store.set_role(a["ws"], a["cur"], "annotator", by=a["owner"])
    with pytest.raises(NotAllowed):
        read()
    assert not path.exists()


def test_a_members_handle_is_sealed_on_every_method(store, toy):
    """Identity override through keyword arguments, on every scoped method (by reflection): an
    annotator's handle refuses ``by=`` and ``workspace_id=`` before reaching the store, and has
    nothing to rebind, so it never reads a blind decision or writes under a curator's name."""
    from artifact_lens.team.store.scoped import IDENTITY, scoped_methods

    world = _world(store, toy)
    a = world["a"]
    a["toy"] = toy
    handle = store.scoped(a["ws"], a["ann"])
    before = _snapshot(store, a)
    for name in sorted(scoped_methods(TeamStore)):
        args, kwargs = _args(name, getattr(TeamStore, name), a, a)
        for keyword, value in (("by", a["cur"]), ("by", a["owner"]), ("workspace_id", world["b"]["ws"])):
            with pytest.raises(NotAllowed, match="takes no"):
                getattr(handle, name)(*args[1:], **kwargs, **{keyword: value})
    for attribute in ("by", "workspace_id", "_by", "_workspace_id", "_store", "anything"):
        with pytest.raises(AttributeError, match="sealed"):
            setattr(handle, attribute, a["cur"])
    assert handle.by == a["ann"] and handle.workspace_id == a["ws"] and set(IDENTITY) == {"by", "workspace_id"}
    assert _snapshot(store, a) == before


# writers whose role is not checked inside a database transaction, and why
FILE_WRITERS = {"keep_file": "copies an upload into the store's folder, no row: the dataset's row is written by "
                              "save_dataset, whose role check is inside its transaction"}


def test_a_removal_racing_any_write_is_held_by_the_write(store, toy, monkeypatch):
    """Role changes racing every write (found by reflection): a member removed after the write's
    first role check and before its transaction is refused, and nothing of the write lands."""
    from artifact_lens.team.store.scoped import scoped_methods

    world = _world(store, toy)
    a = world["a"]
    a["toy"] = toy
    writers = sorted(n for n in scoped_methods(TeamStore) if _writes(getattr(TeamStore, n)) and n not in FILE_WRITERS)
    require = TeamStore.require
    refused = []
    for name in writers:
        actor = f"racer-{name}-{uuid.uuid4().hex[:6]}@x.org".replace("_", "-")
        store.set_role(a["ws"], actor, "owner", by=a["owner"])
        fired = []

        def require_then_removed(self, workspace_id, email, action, actor=actor, fired=fired):
            role = require(self, workspace_id, email, action)
            if email == actor and not fired:   # the member is removed between the check and the write
                fired.append(action)
                monkeypatch.setattr(TeamStore, "require", require)
                self.remove_member(workspace_id, actor, by=a["owner"])
            return role

        before = _snapshot(store, a)
        monkeypatch.setattr(TeamStore, "require", require_then_removed)
        args, kwargs = _args(name, getattr(TeamStore, name), a, a)
        try:
            getattr(store.scoped(a["ws"], actor), name)(*args[1:], **kwargs)
        except NotAllowed:
            refused.append(name)
        except InputError:
            pass   # refused for another reason (the snapshot below shows nothing landed either way)
        finally:
            monkeypatch.setattr(TeamStore, "require", require)
        after = _snapshot(store, a)
        assert fired, (name, "the race never happened")
        assert [x for i, x in enumerate(after) if i != 3] == [x for i, x in enumerate(before) if i != 3], name
        assert actor not in after[3]
    assert {"review", "adjudicate", "set_role", "remove_member", "submit", "validate", "save_view", "set_guidelines",
            "begin_run", "end_run", "set_review_settings"} <= set(refused), refused


@pytest.mark.parametrize("call", ["review an id not in the run", "adjudicate an id not in the run", "a 20 MB note",
                                  "a 20 MB validation note", "a view at τ = inf", "a view at τ = nan",
                                  "a view at τ = 1.5", "a view of n = -1", "a view of n = 1e300", "a view of n = 2.5",
                                  "a view of n = 'ten'"])
def test_the_store_refuses_what_it_cannot_mean_and_counts_stay_true(store, toy, call):
    """One validation for both databases: ids that exist, sizes and numbers in range. Progress
    counts only the run's own examples, so it is never inflated."""
    a = _world(store, toy)["a"]
    big = "x" * (20 << 20)
    sub = store.submit(a["ws"], a["dataset_id"], {"hypothesis": "z"}, "a", {}, by=a["ann"])
    calls = {
        "review an id not in the run": lambda: store.review(a["ws"], a["run_id"], "not-an-example", "agree", by=a["ann"]),
        "adjudicate an id not in the run": lambda: store.adjudicate(a["ws"], a["run_id"], "nope", "keep", "why",
                                                                    by=a["cur"]),
        "a 20 MB note": lambda: store.review(a["ws"], a["run_id"], str(toy[1].ids[0]), "keep", big, by=a["ann"]),
        "a 20 MB validation note": lambda: store.validate(a["ws"], sub, "reject", big, by=a["cur"]),
        "a view at τ = inf": lambda: store.save_view(a["ws"], a["run_id"], "v", float("inf"), 10, by=a["cur"]),
        "a view at τ = nan": lambda: store.save_view(a["ws"], a["run_id"], "v", float("nan"), 10, by=a["cur"]),
        "a view at τ = 1.5": lambda: store.save_view(a["ws"], a["run_id"], "v", 1.5, 10, by=a["cur"]),
        "a view of n = -1": lambda: store.save_view(a["ws"], a["run_id"], "v", 0.5, -1, by=a["cur"]),
        "a view of n = 1e300": lambda: store.save_view(a["ws"], a["run_id"], "v", 0.5, 1e300, by=a["cur"]),
        "a view of n = 2.5": lambda: store.save_view(a["ws"], a["run_id"], "v", 0.5, 2.5, by=a["cur"]),
        "a view of n = 'ten'": lambda: store.save_view(a["ws"], a["run_id"], "v", 0.5, "ten", by=a["cur"]),
    }
    before = _snapshot(store, a), store.progress(a["ws"], a["run_id"], by=a["owner"]).to_json()
    with pytest.raises(InputError) as info:
        calls[call]()
    assert not isinstance(info.value, NotAllowed)
    assert (_snapshot(store, a), store.progress(a["ws"], a["run_id"], by=a["owner"]).to_json()) == before
    assert store.views(a["ws"], a["run_id"], by=a["cur"]).empty


def test_the_writers_are_marked_as_they_are_and_a_reading_handle_refuses_each(tmp_path):
    """Issue 54: pages and widgets held the read-write handle. They now get `Scoped.reading`, which
    offers every workspace method that reads and refuses every one that writes. Which is which is the
    store's own mark (`writes`), checked here against what each method does."""
    from artifact_lens.team.store.scoped import reading_methods, scoped_methods

    marked = {name for name, fn in _public_methods().items() if getattr(fn, "writes", False)}
    assert marked == {name for name, fn in _public_methods().items() if _writes(fn)}
    with TeamStore(f"sqlite:///{tmp_path}/t.sqlite", files=tmp_path / "files") as store:
        ws_id = store.workspace("w", "owner@x.org")
        reader = store.scoped(ws_id, "owner@x.org").reading()
        for name in sorted(scoped_methods(TeamStore)):
            if name in marked:
                with pytest.raises(AttributeError, match="only reads"):
                    getattr(reader, name)
            else:
                assert name in reading_methods(TeamStore) and callable(getattr(reader, name))
        assert reader.review_settings() == store.scoped(ws_id, "owner@x.org").review_settings()
        assert "save_run" not in dir(reader) and "runs" in dir(reader)
