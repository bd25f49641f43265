"""Uploads are stored within a size budget, respect the umask, and local paths stay inside allowed folders."""
import os
import time

import pytest

from core.errors import InputError
from dashboard import data_inputs


def test_uploads_are_evicted_past_the_budget_and_respect_the_umask(tmp_path, monkeypatch):
    monkeypatch.setenv("ARTIFACT_LENS_CACHE", str(tmp_path))
    monkeypatch.setenv("ARTIFACT_LENS_UPLOADS_MB", "0.25")   # 262,144 bytes
    old = os.umask(0o022)
    try:
        first = data_inputs.save_upload("a.csv", b"a" * 100_000)
        time.sleep(0.01)
        second = data_inputs.save_upload("b.csv", b"b" * 100_000)
        time.sleep(0.01)
        assert first.exists() and second.exists()
        third = data_inputs.save_upload("c.csv", b"c" * 100_000)   # 300 kB > budget: the oldest goes
    finally:
        os.umask(old)
    assert not first.exists() and second.exists() and third.exists()
    assert oct(third.stat().st_mode & 0o777) == oct(0o644)


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
