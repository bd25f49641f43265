"""Where artifact-lens keeps files it can recompute (the one cache-directory function), and
the one way it writes a file atomically.

Representations (``representations/``), projections (``projections/``), finished
runs (``runs/``) and uploaded files (``uploads/``) all live under `cache_dir`.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Optional

__all__ = ["cache_dir", "atomic_write", "fsync_folder", "umask"]


def cache_dir() -> Path:
    """``$ARTIFACT_LENS_CACHE`` if set, else ``~/.cache/artifact-lens`` (`core.settings`: read
    again when the environment changes, so tests and servers can point it elsewhere)."""
    from core.settings import settings

    return settings().cache


def umask() -> int:
    """The process umask (read without changing it for longer than the call)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write(path, write, *, tag: Optional[str] = None) -> Path:
    """Write a file so readers see the old content or the new, never a part.

    ``write(fh)`` fills a temporary file beside ``path`` (a hidden name that ends in
    ``.tmp``; ``tag`` goes into it, by default the writer's process id, so
    `remove_stale_temporaries` can tell a dead writer's leftovers); it is flushed to
    disk, given the permissions the umask allows (``mkstemp`` would leave 0600), and
    renamed over ``path``. On any error the temporary is removed and the old file
    is untouched.
    """
    path = Path(path)
    tag = str(os.getpid()) if tag is None else tag
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{tag}{'.' if tag else ''}", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~umask())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def fsync_folder(folder) -> None:
    """Make a rename in ``folder`` durable (POSIX: the folder entry is flushed with the folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_stale_temporaries(folder, *, recursive: bool = False) -> int:
    """Delete the temporaries of `atomic_write` calls whose writer process is gone (a crash
    or a kill mid-write); how many. Only names this tool makes (``.<name>.<pid>.<random>.tmp``)
    with a dead process id are deleted: a live writer's are kept, and so is any other file."""
    folder = Path(folder)
    if not folder.exists():
        return 0
    removed = 0
    for tmp in (folder.rglob if recursive else folder.glob)(".*.tmp"):
        parts = tmp.name.split(".")
        pid = int(parts[-3]) if len(parts) >= 4 and parts[-3].isdigit() else None
        if pid is None or _alive(pid):
            continue  # not one of ours, or another process is writing it now
        try:
            tmp.unlink()
            removed += 1
        except OSError:
            pass
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
