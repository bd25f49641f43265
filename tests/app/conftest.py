"""Fixtures shared by the AppTests."""
from pathlib import Path

import pytest
from streamlit.runtime import memory_media_file_storage as mem


@pytest.fixture
def downloads(monkeypatch):
    """Capture the bytes behind every download button: url file name -> bytes."""
    seen = {}
    original = mem.MemoryMediaFileStorage.load_and_get_id

    def capture(self, path_or_data, mimetype, kind, filename=None):
        file_id = original(self, path_or_data, mimetype, kind, filename)
        seen[file_id] = path_or_data if isinstance(path_or_data, bytes) else Path(path_or_data).read_bytes()
        return file_id

    monkeypatch.setattr(mem.MemoryMediaFileStorage, "load_and_get_id", capture)

    def get(button):
        file_id = Path(button.proto.url).stem
        return seen[file_id]

    return get
