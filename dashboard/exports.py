"""The Export page's file: built only when asked, streamed to a temporary file, at most one per tab.

`prepare` streams the export (`core.export.write_file`, in chunks) to a hidden file in
``$ARTIFACT_LENS_CACHE/exports`` named with the server's process id. A tab keeps at most
one prepared file: it is deleted when the tab prepares another, when the options it was
made with change (selection, format, embeddings, τ/n, review overrides, dataset or run),
when the tab's session ends (a finaliser on the session), when the server stops, and by
the next server's start if this one was killed. The download reads it only when clicked
(a deferred download button), so a rerun of the page never touches it.
"""
from __future__ import annotations

import os
import tempfile
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from core import export
from dashboard.server import server

__all__ = ["Prepared", "prepared", "prepare", "discard", "reader"]


@dataclass
class Prepared:
    """One prepared export file of one tab."""

    path: str
    signature: str           # what it was made from; another signature means the file is stale
    file_name: str           # what the browser saves it as
    rows: int
    size: int                # bytes
    seconds: float
    _finalizer: Any = field(default=None, repr=False, compare=False)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def discard(sess) -> None:
    """Delete the tab's prepared file, if any."""
    old: Optional[Prepared] = sess.export_file
    sess.export_file = None
    if old is not None:
        if old._finalizer is not None:
            old._finalizer()   # runs once: unlinks
        else:
            _unlink(old.path)


def prepared(sess, signature: str) -> Optional[Prepared]:
    """The tab's prepared file when it was made from ``signature`` and still exists; a stale one is deleted."""
    have: Optional[Prepared] = sess.export_file
    if have is None:
        return None
    if have.signature != signature or not Path(have.path).exists():
        discard(sess)
        return None
    return have


def prepare(sess, frame, fmt: str, manifest: dict, file_name: str, signature: str,
            progress: Optional[Callable[[float, str], None]] = None) -> Prepared:
    """Stream the export to a new temporary file (the tab's previous one is deleted first).
    Raises `core.errors.Cancelled` when the server starts stopping meanwhile (nothing is left)."""
    discard(sess)
    srv = server()
    srv.exports.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    # ".<name>.<pid>.<random>.tmp": paths.remove_stale_temporaries knows a dead writer's file
    fd, tmp = tempfile.mkstemp(prefix=f".{file_name}.{os.getpid()}.", suffix=".tmp", dir=srv.exports)
    try:
        with os.fdopen(fd, "wb") as fh:
            export.write_file(frame, fh, fmt, manifest=manifest, progress=progress, cancel=srv.stopping)
    except BaseException:
        _unlink(tmp)
        raise
    done = Prepared(path=tmp, signature=signature, file_name=file_name, rows=len(frame),
                    size=os.path.getsize(tmp), seconds=time.perf_counter() - t0)
    done._finalizer = weakref.finalize(sess, _unlink, tmp)   # the session ends: the file goes
    sess.export_file = done
    return done


def reader(item: Prepared, allowed: Callable[[], object]) -> Callable[[], bytes]:
    """The download button's data: the file's bytes, read when the user clicks, and only if
    ``allowed()`` (which asks the team store) still passes then: a member demoted or removed
    after the file was prepared gets `core.store.NotAllowed`, and the file is deleted."""
    path = item.path

    def read() -> bytes:
        try:
            allowed()
        except Exception:
            _unlink(path)
            raise
        with open(path, "rb") as fh:
            return fh.read()

    return read
