"""The one artifact store (`core.base.result_store`, issue 24): keys that cannot name a path, formats in the
name (outdated = absent), corruption told apart from absence, pruning that deletes only what the
store named; and every store of computed results in the project goes through it."""
import ast
import json
import logging
import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from artifact_lens.base.result_store import KEY, ResultStore, CorruptResult, prune
from artifact_lens.base.errors import InputError
from artifact_lens.base.keys import ResultKey

ROOT = Path(__file__).resolve().parents[2]


def _json(store, key, value):
    # the store's mechanics, under names a test picks: `core.base.keys` makes the real ones
    return store.save(ResultKey(key), lambda fh: fh.write(json.dumps(value).encode()))


def _read(path):
    return json.loads(path.read_text())


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=140))
def test_a_key_is_a_file_stem_inside_the_folder_or_refused(tmp_path, key):
    store = ResultStore(tmp_path / "r", suffix=".json", format=2, what="thing")
    try:
        path = store.path(key)
    except InputError as exc:
        assert "key" in str(exc) and not KEY.fullmatch(key)
        return
    assert path.parent == tmp_path / "r" and path.name == f"{key}.v2.json"


def test_absent_outdated_and_corrupt_are_three_different_answers(tmp_path, caplog):
    old = ResultStore(tmp_path, suffix=".json", format=1, what="thing")
    new = ResultStore(tmp_path, suffix=".json", format=2, what="thing")
    assert new.load("k", _read) is None                       # absent
    _json(old, "k", {"a": 1})
    with caplog.at_level(logging.INFO, logger="artifact_lens.artifacts"):
        assert new.load("k", _read) is None                   # another format: absent, and said
    assert "another format" in caplog.text
    assert old.load("k", _read) == {"a": 1} and new.outdated() == [old.path("k")]
    path = _json(new, "k", {"a": 2})
    path.write_bytes(b"{not json")
    with pytest.raises(CorruptResult, match=re.escape(str(path))) as exc:
        new.load("k", _read)
    assert exc.value.path == path and "delete it" in str(exc.value)
    with caplog.at_level(logging.WARNING, logger="artifact_lens.artifacts"):
        assert new.load_or_none("k", _read) is None           # a cache's miss, logged
    assert str(path) in caplog.text
    _json(new, "k", {"a": 3})                                 # the next save replaces it
    assert new.load("k", _read) == {"a": 3} and new.keys() == ["k"]


def test_a_failed_write_keeps_the_old_file_and_no_temporary(tmp_path):
    store = ResultStore(tmp_path, suffix=".json", format=1, what="thing")
    _json(store, "k", [1])

    def broken(fh):
        fh.write(b"[2")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError):
        store.save(ResultKey("k"), broken)
    assert store.load("k", _read) == [1]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".artifact-lens-results", "k.v1.json"]


names = st.from_regex(r"[A-Za-z0-9._-]{1,30}", fullmatch=True).filter(lambda n: n not in (".", ".."))


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(st.lists(names, max_size=8, unique=True), st.integers(0, 3))
def test_prune_deletes_only_names_the_stores_make(tmp_path_factory, foreign, budget_files):
    """Whatever else is in the folder (a user's file, another tool's, a name that looks close),
    pruning to any budget leaves it byte for byte."""
    root = tmp_path_factory.mktemp("prune")
    a = ResultStore(root, suffix=".json", format=2, what="a")
    b = ResultStore(root, suffix=".npz", format=1, what="b")
    old = ResultStore(root, suffix=".json", format=1, what="a")
    ours = set()
    for i in range(4):
        ours.add(_json(a, f"a{i}", list(range(50))).name)
        ours.add(b.save(ResultKey(f"b{i}"), lambda fh: fh.write(b"x" * 200)).name)
    ours.add(_json(old, "a0", [0]).name)
    theirs = {}
    for name in foreign:
        if name in ours:
            continue
        (root / name).write_bytes(f"user {name}".encode())
        theirs[name] = f"user {name}".encode()
    sizes = sorted(p.stat().st_size for p in root.iterdir() if p.name in ours and ".v1.json" not in p.name)
    prune([a, b], max_bytes=sum(sizes[:budget_files]))
    for name, data in theirs.items():
        assert (root / name).read_bytes() == data
    assert not old.path("a0").exists()                        # the outdated one goes first
    left = a.nbytes() + b.nbytes()
    assert left <= sum(sizes[:budget_files])


def test_a_folder_the_tool_did_not_mark_is_never_pruned(tmp_path):
    """Files named exactly as a store names them, in a folder the tool never saved to (a cache
    folder pointed at someone else's files), stay."""
    store = ResultStore(tmp_path, suffix=".json", format=2, what="thing")
    theirs = [tmp_path / "a.v1.json", tmp_path / "b.v2.json"]
    for p in theirs:
        p.write_text("[]")
    assert store.keys() == ["b"] and not store.owned()
    assert prune([store], max_bytes=0) == {"outdated": 0, "least_recent": 0, "bytes_freed": 0}
    assert all(p.read_text() == "[]" for p in theirs)
    _json(store, "c", [1])                                    # the tool's first save marks the folder
    assert store.owned()
    prune([store], max_bytes=0)
    assert not any(p.exists() for p in theirs) and not store.path("c").exists()   # now it is the tool's folder


def test_prune_removes_the_least_recently_used_first(tmp_path):
    store = ResultStore(tmp_path, suffix=".json", format=1, what="thing")
    for i, key in enumerate(["old", "mid", "new"]):
        path = _json(store, key, [0] * 100)
        os.utime(path, (1000 + i, 1000 + i))
    store.load("old", _read)                                  # read now: the most recent
    size = store.path("old").stat().st_size
    out = prune([store], max_bytes=2 * size)
    assert out["least_recent"] == 1 and store.keys() == ["new", "old"]


def test_stores_of_computed_results_are_result_stores():
    """Reflection: outside `core/base/paths.py` and `core/base/result_store.py`, an atomic write is either an
    artifact store's or one of the named writers of files that are not recomputable results
    (user outputs, uploads, saved team files)."""
    allowed = {
        "core/results/runs.py": "Run.save: a run file a user names (CLI --run, team files)",
        "core/team/store/team_store.py": "saved team files (not recomputable)",
        "core/team/store/submissions.py": "a dataset version in the team files (not recomputable)",
        "core/certificate/schema.py": "a certificate a user names (a command's output, through its output policy)",
        "dashboard/services/data_inputs.py": "an upload (user data)",
        "core/evaluation/suite.py": "the evaluation store's 'started' records",
    }
    found = {}
    for path in [*ROOT.glob("core/**/*.py"), *ROOT.glob("dashboard/**/*.py"), *ROOT.glob("pages/*.py")]:
        rel = path.relative_to(ROOT).as_posix()
        if rel in ("core/base/paths.py", "core/base/result_store.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "atomic_write":
                found.setdefault(rel, 0)
                found[rel] += 1
    assert set(found) <= set(allowed), {k: v for k, v in found.items() if k not in allowed}


def test_the_prune_command_keeps_the_cache_within_the_budget(tmp_path, capsys):
    """`artifact-lens prune`: the same pruning as a starting server, on the cache folder given."""
    from artifact_lens.cli import main
    from artifact_lens.results.stores import Results

    found = Results(tmp_path)
    for i in range(3):
        path = found.runs.files.save(ResultKey(f"r{i}"), lambda fh: fh.write(b"x" * 400_000))
        os.utime(path, (1000 + i, 1000 + i))
    table = found.quality_tables.save(ResultKey("q"), lambda fh: fh.write(b"y" * 100_000))
    mine = tmp_path / "runs" / "keep.txt"
    mine.write_text("mine")
    assert main(["--cache-dir", str(tmp_path), "prune", "--max-mb", "0.9", "--json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["least_recent"] == 1 and said["bytes_left"] == 900_000
    assert found.runs.keys() == ["r1", "r2"] and table.exists() and mine.read_text() == "mine"
    assert main(["--cache-dir", str(tmp_path / "nope"), "prune"]) == 2
    assert "does not exist" in capsys.readouterr().err
