"""The Export page's file: built only when asked, streamed to a temporary file, at most one per tab.

`prepare` streams the export (`core.exports.writers.write_file`, in chunks) to a hidden file in
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

from core.exports import writers as export
from core.base.keys import key_of
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


#: seconds between the checks of an exporter's role while a prepared file waits (`watch_role`)
ROLE_CHECK_S = 5.0


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
            progress: Optional[Callable[[float, str], None]] = None, card: Optional[str] = None) -> Prepared:
    """Stream the export to a new temporary file (the tab's previous one is deleted first); a
    datasets folder carries ``card`` as its README.md. Raises `core.base.errors.Cancelled` when the
    server starts stopping meanwhile (nothing is left)."""
    discard(sess)
    srv = server()
    srv.exports.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    # ".<name>.<pid>.<random>.tmp": paths.remove_stale_temporaries knows a dead writer's file
    fd, tmp = tempfile.mkstemp(prefix=f".{file_name}.{os.getpid()}.", suffix=".tmp", dir=srv.exports)
    try:
        with os.fdopen(fd, "wb") as fh:
            export.write_file(frame, fh, fmt, manifest=manifest, progress=progress, cancel=srv.stopping, card=card)
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
    after the file was prepared gets `core.team.store.NotAllowed`, and the file is deleted."""
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


def refuse(sess, role: str) -> None:
    """The Export page of a member who may not export: said, with the file they had prepared
    (before a demotion) deleted and said so; the page stops here."""
    import streamlit as st

    had = sess.export_file is not None
    discard(sess)
    st.info(f"Your role here is {role}: exports need a curator or owner."
            + (" The file you had prepared was deleted when your role changed." if had else ""))
    st.stop()


def watch_role(allowed: Callable[[], object]) -> None:
    """While a prepared file waits for its download, ask the store every `ROLE_CHECK_S` seconds
    whether the member may still export, and rerun the page when not (it then says why the file
    went). A download button cannot speak when the store refuses its click: no rerun follows
    it, so that the page's other download buttons keep their files."""
    import streamlit as st

    from core.team.store import NotAllowed

    @st.fragment(run_every=ROLE_CHECK_S)
    def _watch():
        try:
            allowed()
        except NotAllowed:
            st.rerun(scope="app")

    _watch()


def card_for(dataset, manifest: dict, verdict: Optional[str] = None) -> str:
    """The dataset card (README.md, `core.exports.card`) of an export: built when asked (its cue tables
    take a z-statistics pass over the dataset and over the split), kept for the same manifest."""
    from core.exports.card import card_of
    from dashboard import current

    key = key_of([manifest, verdict], 20)
    return current.cached("dataset_card", key, lambda: str(card_of(dataset, manifest, verdict=verdict)))


def manifest_shown(manifest: dict) -> dict:
    """The manifest as the page shows it: the retained ids counted, not listed (the download has them)."""
    return {k: v for k, v in manifest.items() if k != "retained_ids"} | {
        "retained_ids": f"{len(manifest.get('retained_ids', [])):,} ids (in the downloaded manifest)"}
