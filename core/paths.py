"""Where artifact-lens keeps files it can recompute: the one cache-directory function.

Representations (``representations/``), projections (``projections/``), finished
runs (``runs/``) and uploaded files (``uploads/``) all live under `cache_dir`.
"""
from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cache_dir"]


def cache_dir() -> Path:
    """``$ARTIFACT_LENS_CACHE`` if set, else ``~/.cache/artifact-lens`` (read on every call,
    so tests and servers can point it elsewhere through the environment)."""
    env = os.environ.get("ARTIFACT_LENS_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "artifact-lens"
