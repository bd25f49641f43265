"""Uploads are stored within a size budget, respect the umask, and local paths stay inside allowed folders."""
import json
import os
import shutil
import time

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from artifact_lens.base.errors import InputError
from artifact_lens.dashboard.services import data_inputs


def test_uploads_are_evicted_past_the_budget_and_respect_the_umask(service_tab, tmp_path, monkeypatch):
    monkeypatch.setenv("ARTIFACT_LENS_CACHE", str(tmp_path))
    monkeypatch.setenv("ARTIFACT_LENS_UPLOADS_MB", "0.25")   # 262,144 bytes
    (tmp_path / "uploads").mkdir()
    (tmp_path / "uploads" / "mine.csv").write_bytes(b"m" * 300_000)   # not an upload: never evicted
    old = os.umask(0o022)
    try:
        first = data_inputs.save_upload(service_tab, "a.csv", b"a" * 100_000)
        time.sleep(0.01)
        second = data_inputs.save_upload(service_tab, "b.csv", b"b" * 100_000)
        time.sleep(0.01)
        assert first.exists() and second.exists()
        third = data_inputs.save_upload(service_tab, "c.csv", b"c" * 100_000)   # 300 kB > budget: the oldest goes
    finally:
        os.umask(old)
    assert not first.exists() and second.exists() and third.exists() and (tmp_path / "uploads" / "mine.csv").exists()
    assert oct(third.stat().st_mode & 0o777) == oct(0o644)


#: files someone else put in the uploads folder: names that look like uploads (16 hex digits) or not
_THEIRS = st.lists(st.tuples(st.one_of(st.text("0123456789abcdef", min_size=16, max_size=16).map(lambda h: h + ".csv"),
                                       st.sampled_from(["notes.txt", "data.csv", "0123456789abcdef", "x.jsonl"])),
                             st.tuples(st.integers(0, 100_000), st.integers(0, 255)).map(lambda t: bytes([t[1]]) * t[0])),
                   max_size=4, unique_by=lambda f: f[0])
#: uploads big enough that a few of them pass the 0.25 MB budget
_UPLOADS = st.lists(st.tuples(st.integers(40_000, 120_000), st.integers(0, 255)).map(lambda t: bytes([t[1]]) * t[0]),
                    min_size=1, max_size=5)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(theirs=_THEIRS, uploads=_UPLOADS)
def test_a_file_the_tool_did_not_write_is_never_read_replaced_or_evicted(service_tab, tmp_path, monkeypatch, theirs,
                                                                       uploads):
    """Whatever else is in the uploads folder, hash-like names included, survives any run of uploads
    past the budget, byte for byte; an upload never reads another's file as its own (a clear error
    names the file instead), and what is kept is within the budget, the tool's own files counted."""
    from artifact_lens.base.keys import digest

    folder = tmp_path / "cache-theirs" / "uploads"
    shutil.rmtree(folder.parent, ignore_errors=True)
    folder.mkdir(parents=True)
    monkeypatch.setenv("ARTIFACT_LENS_CACHE", str(folder.parent))
    monkeypatch.setenv("ARTIFACT_LENS_UPLOADS_MB", "0.25")
    for name, data in theirs:
        (folder / name).write_bytes(data)
        os.utime(folder / name, (1, 1))   # older than every upload: first in line if they were evictable
    for data in uploads:
        squatted = (folder / f"{digest(data)}.csv").exists() and (folder / f"{digest(data)}.csv").read_bytes() != data
        if squatted:
            with pytest.raises(InputError, match="not this upload"):
                data_inputs.save_upload(service_tab, "u.csv", data)
        else:
            saved = data_inputs.save_upload(service_tab, "u.csv", data)
            assert saved.read_bytes() == data
    for name, data in theirs:
        assert (folder / name).read_bytes() == data, name
    mine = [p for p in folder.iterdir() if p.name not in dict(theirs)]
    assert len(mine) <= 1 or sum(p.stat().st_size for p in mine) <= 0.25 * (1 << 20)


def test_local_paths_must_be_inside_the_data_folders(tmp_path, monkeypatch):
    inside, outside = tmp_path / "in", tmp_path / "out"
    inside.mkdir(), outside.mkdir()
    (inside / "d.csv").write_text("x")
    monkeypatch.setenv("ARTIFACT_LENS_DATA_DIRS", str(inside))
    assert data_inputs.check_local_path(str(inside / "d.csv")) == str(inside / "d.csv")
    for bad in (outside / "d.csv", inside / ".." / "out" / "d.csv"):
        with pytest.raises(InputError, match="outside the folders"):
            data_inputs.check_local_path(str(bad))
    monkeypatch.delenv("ARTIFACT_LENS_DATA_DIRS")
    assert str(tmp_path) not in " ".join(map(str, data_inputs.data_folders()))   # default: cwd and cache


def test_vector_files_must_be_inside_the_data_folders(tmp_path, monkeypatch):
    monkeypatch.setenv("ARTIFACT_LENS_DATA_DIRS", str(tmp_path))
    assert data_inputs.check_spec_paths(f"file:path={tmp_path}/v.npy") == f"file:path={tmp_path}/v.npy"
    assert data_inputs.check_spec_paths("tfidf-svd:dim=8") == "tfidf-svd:dim=8"
    with pytest.raises(InputError, match="outside the folders"):
        data_inputs.check_spec_paths("file:path=/etc/passwd")


# ---------------------------------------------------------------- every file a load would read


def _allowed(tmp_path, monkeypatch):
    inside, outside = tmp_path / "in", tmp_path / "out"
    inside.mkdir(), outside.mkdir()
    (outside / "secret.csv").write_text("text,label\na,x\nb,y\n")
    monkeypatch.setenv("ARTIFACT_LENS_DATA_DIRS", str(inside))
    return inside, outside


README = "---\nconfigs:\n- config_name: default\n  data_files:\n  - split: train\n    path: {}\n---\n"


@pytest.mark.parametrize("pointer", ["../../out/secret.csv", "{outside}/secret.csv", "{outside}/*.csv",
                                     "../../**/secret.csv", "hf://datasets/x/y/a.csv"])
def test_a_readme_pointing_outside_is_refused(tmp_path, monkeypatch, pointer):
    inside, outside = _allowed(tmp_path, monkeypatch)
    folder = inside / "ds"
    folder.mkdir()
    (folder / "README.md").write_text(README.format(pointer.format(outside=outside)))
    with pytest.raises(InputError, match="secret.csv|outside the folders|data_files point at"):
        data_inputs.check_local_path(str(folder))


def test_a_readme_pointing_inside_is_accepted(tmp_path, monkeypatch):
    inside, _ = _allowed(tmp_path, monkeypatch)
    folder = inside / "ds"
    (folder / "data").mkdir(parents=True)
    (folder / "data" / "train.csv").write_text("text,label\na,x\nb,y\n")
    (folder / "README.md").write_text(README.format("data/*.csv"))
    assert data_inputs.check_local_path(str(folder)) == str(folder)


def test_links_and_saved_dataset_pointers_outside_are_refused(tmp_path, monkeypatch):
    inside, outside = _allowed(tmp_path, monkeypatch)
    linked = inside / "linked"
    (linked / "deep").mkdir(parents=True)
    (linked / "deep" / "train.csv").symlink_to(outside / "secret.csv")
    with pytest.raises(InputError, match="secret.csv"):
        data_inputs.check_local_path(str(linked))
    via_folder = inside / "via_folder"
    via_folder.mkdir()
    (via_folder / "data").symlink_to(outside, target_is_directory=True)
    with pytest.raises(InputError, match="outside the folders"):
        data_inputs.check_local_path(str(via_folder))
    saved = inside / "saved"
    saved.mkdir()
    (saved / "state.json").write_text(json.dumps({"_data_files": [{"filename": "../../out/secret.csv"}]}))
    with pytest.raises(InputError, match="secret.csv"):
        data_inputs.check_local_path(str(saved))


@pytest.mark.parametrize("text,message", [("a\0b", "NUL byte"), ("x" * 300, "longer than a file name"),
                                          ("/x" * 2100, "longer than a path"), ("~no_such_user_zz/d.csv", "~user")])
def test_paths_no_system_can_take_get_a_clear_error(tmp_path, monkeypatch, text, message):
    _allowed(tmp_path, monkeypatch)
    with pytest.raises(InputError, match=message):
        data_inputs.check_local_path(text)


def test_a_looping_link_gets_a_clear_error(tmp_path, monkeypatch):
    inside, _ = _allowed(tmp_path, monkeypatch)
    (inside / "a").symlink_to(inside / "b")
    (inside / "b").symlink_to(inside / "a")
    for path in (inside / "a", inside):
        with pytest.raises(InputError, match="loops"):
            data_inputs.check_local_path(str(path))
    (inside / "a").unlink(), (inside / "b").unlink()
    (inside / "self").symlink_to(inside, target_is_directory=True)   # a folder linking to itself is walked once
    assert data_inputs.check_local_path(str(inside)) == str(inside)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(links=st.lists(st.tuples(st.sampled_from(["", "a", "a/b", "c"]), st.booleans(), st.booleans()),
                      max_size=6))
def test_a_folder_is_refused_exactly_when_a_load_could_reach_outside(tmp_path_factory, links):
    """Property: whatever links a folder holds (to files or folders, inside or outside the
    allowed area), the check refuses it exactly when one of them leads outside."""
    root = tmp_path_factory.mktemp("tree")
    inside, outside = root / "in", root / "out"
    (inside / "data").mkdir(parents=True), outside.mkdir()
    (outside / "o.csv").write_text("x"), (inside / "i.csv").write_text("x")
    escapes = False
    for n, (where, to_outside, to_folder) in enumerate(links):
        folder = inside / "data" / where
        folder.mkdir(parents=True, exist_ok=True)
        target = (outside if to_outside else inside) if to_folder else (outside / "o.csv" if to_outside
                                                                         else inside / "i.csv")
        (folder / f"link{n}").symlink_to(target, target_is_directory=to_folder)
        escapes |= to_outside
    old = os.environ.get("ARTIFACT_LENS_DATA_DIRS")
    os.environ["ARTIFACT_LENS_DATA_DIRS"] = str(inside)
    try:
        if escapes:
            with pytest.raises(InputError, match="outside the folders"):
                data_inputs.check_local_path(str(inside / "data"))
        else:
            assert data_inputs.check_local_path(str(inside / "data")) == str(inside / "data")
    finally:
        os.environ.pop("ARTIFACT_LENS_DATA_DIRS") if old is None else os.environ.update(ARTIFACT_LENS_DATA_DIRS=old)
