"""Test-wide settings: offline, fixed seeds, caches in a temporary folder."""
import os
import tempfile
from pathlib import Path

# Before anything imports datasets / huggingface_hub, which read these at import time.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ.setdefault("ARTIFACT_LENS_CACHE", tempfile.mkdtemp(prefix="artifact-lens-test-cache-"))
os.environ.setdefault("NUMBA_CACHE_DIR", str(Path.home() / ".cache" / "artifact-lens" / "numba"))

import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


def _shared(name):
    path = SHARED_DATA / name
    if not path.exists():
        pytest.skip(f"../shared/data/{name} is not here (a fresh clone has no ../shared)")
    return path


@pytest.fixture
def snli_path():
    return _shared("snli_dev.jsonl")


@pytest.fixture
def mnli_path():
    return _shared("mnli_dev_matched.jsonl")
