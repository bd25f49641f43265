"""Fixtures shared by the AppTests."""
from pathlib import Path

import pytest
from streamlit.runtime import media_file_manager as mgr
from streamlit.runtime import memory_media_file_storage as mem


@pytest.fixture
def downloads(monkeypatch):
    """Capture the bytes behind every download button: url file name -> bytes (a deferred button's
    callable is run, as a click in the browser runs it)."""
    seen = {}
    original = mem.MemoryMediaFileStorage.load_and_get_id

    def capture(self, path_or_data, mimetype, kind, filename=None):
        file_id = original(self, path_or_data, mimetype, kind, filename)
        seen[file_id] = path_or_data if isinstance(path_or_data, bytes) else Path(path_or_data).read_bytes()
        return file_id

    monkeypatch.setattr(mem.MemoryMediaFileStorage, "load_and_get_id", capture)
    deferred = {}
    add_deferred = mgr.MediaFileManager.add_deferred

    def remember(self, data_callable, *args, **kwargs):
        file_id = add_deferred(self, data_callable, *args, **kwargs)
        deferred[file_id] = data_callable
        return file_id

    monkeypatch.setattr(mgr.MediaFileManager, "add_deferred", remember)

    def get(button):
        if button.proto.deferred_file_id:   # data=callable: built when clicked, as the browser's click does
            data = deferred[button.proto.deferred_file_id]()
            return data if isinstance(data, bytes) else data.encode() if isinstance(data, str) else data.read()
        file_id = Path(button.proto.url).stem
        return seen[file_id]

    return get


@pytest.fixture
def fresh_server(tmp_path, monkeypatch):
    """A new server for this test: its own cache folder (runs, evaluations, quality tables) and
    team database; ``$ARTIFACT_LENS_OWNER`` names the default workspace's owner. Yields the cache."""
    import os

    from apptest_helpers import OWNER, ROOT
    from artifact_lens.dashboard.process.shared import server

    monkeypatch.setenv("ARTIFACT_LENS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("ARTIFACT_LENS_DB_URL", f"sqlite:///{tmp_path}/team.sqlite")
    monkeypatch.setenv("ARTIFACT_LENS_MAP", "pca")
    monkeypatch.setenv("ARTIFACT_LENS_OWNER", OWNER)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    os.chdir(ROOT)
    server.clear()
    yield tmp_path / "cache"
    server.clear()
