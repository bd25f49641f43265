"""The output policy at its last step, and every cleanup the tool does: what a killed command
leaves is removed by the next one, nothing shaped like the tool's own files is deleted unless
the tool made it, and no cleanup follows a symbolic link."""
from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from artifact_lens.base import paths
from artifact_lens.base.errors import InputError
from artifact_lens.exports.outputs import Ledger, Outputs, OutputsKept


def _tree(folder: Path) -> dict:
    found = {}
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder).as_posix()
        found[rel] = ("link:" + os.readlink(p)) if p.is_symlink() else "dir" if p.is_dir() else \
            hashlib.sha256(p.read_bytes()).hexdigest()
    return found


def _dead_pid() -> int:
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(proc.stdout)


KILLED_WRITER = """
import os, signal, sys
from pathlib import Path
from artifact_lens.exports.outputs import Ledger, Outputs
outs = Outputs(ledger=Ledger(sys.argv[1]))
outs.declare("--out", sys.argv[2], folder_ok=True)
outs.declare("--folder", sys.argv[3], folder_ok=True)
Path(outs.path_for("--out")).write_text("half")
Path(outs.path_for("--folder")).mkdir()
(Path(outs.path_for("--folder")) / "part.csv").write_text("half")
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_killed_commands_temporaries_are_removed_by_the_next_and_lookalikes_are_kept(tmp_path):
    ledger = tmp_path / "cache" / "written.jsonl"
    work = tmp_path / "work"
    work.mkdir()
    proc = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(ledger), str(work / "out.csv"), str(work / "folder")],
                          cwd=Path(__file__).resolve().parents[2])
    assert proc.returncode == -signal.SIGKILL
    left = sorted(p.name for p in work.iterdir())
    assert len(left) == 2 and all(n.endswith(".tmp") for n in left), left
    # the user's own files shaped like the tool's temporaries, of a dead process too
    dead = _dead_pid()
    lookalikes = [work / f".out.csv.{dead}.0123abcd.tmp", work / f".folder.{dead}.0123abcd.old"]
    for p in lookalikes:
        p.write_text("mine")
    outs = Outputs(ledger=Ledger(ledger))
    outs.declare("--out", work / "out.csv")
    outs.declare("--folder", work / "folder", folder_ok=True)
    assert sorted(p.name for p in work.iterdir()) == sorted(p.name for p in lookalikes)
    outs.abort()


@settings(max_examples=60, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(name=st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="/\0"), min_size=1, max_size=90)
       .filter(lambda n: n not in (".", "..") and len(n.encode()) <= 255),
       pad=st.integers(0, 255))
def test_any_name_the_file_system_takes_is_written_and_a_taken_one_kept_beside(tmp_path_factory, name, pad):
    """A name of up to 255 bytes is written as given (the tool's own temporary names fit beside
    it); when the path was taken meanwhile, the result goes to a name that fits too."""
    name = (name + "x" * pad)
    name = name.encode()[:255].decode(errors="ignore") or "x"
    folder = tmp_path_factory.mktemp("names")
    outs = Outputs(ledger=Ledger(folder / ".ledger" / "written.jsonl"))
    outs.declare("--out", folder / name)
    Path(outs.path_for("--out")).write_text("result")
    (folder / name).write_text("the user's, made meanwhile")
    with pytest.raises(OutputsKept) as caught:
        outs.commit()
    kept = caught.value.kept[folder / name]
    assert (folder / name).read_text() == "the user's, made meanwhile"
    assert kept.read_text() == "result" and kept.parent == folder and len(kept.name.encode()) <= 255
    assert str(kept) in str(caught.value)


def test_an_own_output_edited_after_the_check_is_put_back_untouched(tmp_path):
    ledger = Ledger(tmp_path / "cache" / "written.jsonl")
    target = tmp_path / "out.csv"
    first = Outputs(ledger=ledger)
    first.declare("--out", target)
    Path(first.path_for("--out")).write_text("first\n")
    first.commit()
    second = Outputs(ledger=ledger)
    second.declare("--out", target)   # the check: the tool's own, unchanged
    Path(second.path_for("--out")).write_text("second\n")
    with open(target, "a") as fh:
        fh.write("my edit\n")
    with pytest.raises(OutputsKept):
        second.commit()
    assert target.read_text() == "first\nmy edit\n"
    assert (tmp_path / "out.kept-1.csv").read_text() == "second\n"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_rename_noreplace_never_replaces(tmp_path):
    for kind in ("file", "folder"):
        src, dst = tmp_path / f"src-{kind}", tmp_path / f"dst-{kind}"
        (src.mkdir() if kind == "folder" else src.write_text("new"))
        dst.mkdir() if kind == "folder" else dst.write_text("old")
        with pytest.raises(FileExistsError):
            paths.rename_noreplace(src, dst)
        assert src.exists() and dst.exists()
        paths.remove_tree(dst)
        paths.rename_noreplace(src, dst)
        assert dst.exists() and not src.exists()


# ---------------------------------------------------------------- pruning and cleanup
def _results_tree(folder: Path, dead: int) -> None:
    """Files shaped like the tool's results and temporaries, of a dead writer (the user's own)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ("a" * 24 + ".v0.npz")).write_bytes(b"old format?")
    (folder / ("b" * 24 + ".v1.json")).write_text("{}")
    (folder / f".{'c' * 24}.v1.npz.{dead}.abcdef.tmp").write_text("looks like a temporary")
    (folder / f".notes.{dead}.x.tmp").write_text("mine")


@settings(max_examples=25, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(where=st.sampled_from(["runs", "runs/evaluations", "runs/quality", "projections", "representations/ds"]),
       how=st.sampled_from(["a link to the user's folder", "an unmarked folder", "a link to a marked folder's file"]))
def test_pruning_deletes_nothing_it_did_not_mark_and_follows_no_link(tmp_path_factory, where, how):
    from artifact_lens.cli import main
    from artifact_lens.results.stores import Results

    base = tmp_path_factory.mktemp("prune")
    cache, user = base / "cache", base / "user"
    dead = _dead_pid()
    _results_tree(user, dead)
    place = cache / where
    place.parent.mkdir(parents=True, exist_ok=True)
    if how == "a link to the user's folder":
        place.symlink_to(user, target_is_directory=True)
    elif how == "an unmarked folder":
        _results_tree(place, dead)
    else:   # a folder the tool marked, holding links shaped like its results that point at the user's files
        place.mkdir()
        (place / ".artifact-lens-results").write_text("")
        for p in user.iterdir():
            (place / p.name).symlink_to(p)
    before_user, before_cache = _tree(user), _tree(cache)
    Results(cache).prune(0)
    assert main(["-q", "--cache-dir", str(cache), "prune", "--max-mb", "0"]) == 0
    assert _tree(user) == before_user
    assert _tree(cache) == before_cache


def test_a_store_sweeps_only_its_marked_folder(tmp_path):
    from artifact_lens.base.keys import ResultKey
    from artifact_lens.base.result_store import ResultStore

    dead = _dead_pid()
    mine = tmp_path / "unmarked"
    mine.mkdir()
    lookalike = mine / f".k.v1.npz.{dead}.abc.tmp"
    lookalike.write_text("mine")
    ResultStore(mine, suffix=".npz", format=1, what="thing")
    assert lookalike.exists()
    store = ResultStore(tmp_path / "made", suffix=".npz", format=1, what="thing")
    store.save(ResultKey("k"), lambda fh: fh.write(b"x"))
    stale = store.root / f".k.v1.npz.{dead}.abc.tmp"
    stale.write_text("a killed writer's")
    ResultStore(store.root, suffix=".npz", format=1, what="thing")
    assert not stale.exists() and store.path("k").exists()


def test_an_output_declared_twice_is_refused(tmp_path):
    outs = Outputs(ledger=Ledger(tmp_path / "l.jsonl"))
    outs.declare("--out", tmp_path / "a.csv")
    with pytest.raises(InputError, match="same file"):
        outs.declare("--other", tmp_path / "a.csv")
