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

from artifact_lens.base.keys import result_key
from artifact_lens.exports import manifest as manifests, writers as export
from artifact_lens.usecases.exports import FolderFiles, SplitExport, export_split, folder_files as folder_files_of
from artifact_lens.dashboard.services import agreement, current, run_view, team

__all__ = ["Split", "split", "Prepared", "prepared", "prepare", "discard", "reader", "folder_files", "card_only",
           "FORMATS"]

FORMATS = export.FORMATS


@dataclass
class Split:
    """What the Export page shows and writes for the options chosen: the use case's export
    (`core.usecases.exports.SplitExport`: rows, manifest, τ/n, summary, the review's overrides) and
    how the browser gets it."""

    export: SplitExport
    file_name: str             # what the browser saves it as
    mime: str
    signature: str             # the options it was made from: a prepared file of others is stale

    frame = property(lambda self: self.export.frame)           # the rows (row references: written when asked)
    manifest = property(lambda self: self.export.manifest)
    tau = property(lambda self: self.export.tau)
    n = property(lambda self: self.export.n)
    summary = property(lambda self: self.export.summary)       # "τ = …, n = …: kept … of …" ("" without a run)
    overrides = property(lambda self: self.export.overrides)   # the review's overrides (None: not a workspace run)


def split(tab, sess, run, ds, *, which: str, fmt: str, include_arrays: bool, quality=None, quality_note=None,
          duplicate_pairs=None) -> Split:
    """The split at the live τ/n with the team's review overrides applied (blind review: every
    decision counts; curators and owners export), its manifest (the run's record, the team's
    agreement) and the export's options: `core.usecases.exports.export_split`, as the CLI's export.
    InputError when the quality table does not fit the dataset."""
    label = manifests.dataset_label(sess.source.label if sess.source and sess.source.label else ds.name)
    options = dict(which=which, fmt=fmt, include_arrays=include_arrays, dataset_name=label, quality=quality,
                   quality_note=quality_note, duplicate_pairs=duplicate_pairs)
    standing = extra = live = tau = n = None
    if run is not None:
        tau, n = run_view.live_values(tab, run)
        live = run_view.live_result(tab, run)
        run_id = run_view.team_run_id(tab, run)
        if run_id is not None:   # team review: "keep anyway" / "remove anyway" change the split
            standing = run_view.review_standing(tab, run_id, unblinded=team.member(tab).can("adjudicate"))
            extra = agreement.manifest_record(tab, run, run_id)
    out = export_split(ds, run, tau=tau, target_size=n, live=live, standing=standing, extra=extra, **options)
    signature = result_key(sess.ds_key, run.key if run else None, which, fmt, include_arrays, out.tau, out.n,
                           out.overrides or [], quality_note, out.manifest["export"].get("near_duplicates"))
    return Split(export=out, file_name=manifests.file_name(label, which, fmt) + (".zip" if export.FORMATS[fmt].folder
                                                                                  else ""),
                 mime=export.mime(fmt), signature=signature)


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


def discard(tab) -> None:
    """Delete the tab's prepared file, if any."""
    sess = tab.session
    old: Optional[Prepared] = sess.export_file
    sess.export_file = None
    if old is not None:
        if old._finalizer is not None:
            old._finalizer()   # runs once: unlinks
        else:
            _unlink(old.path)



def prepared(tab, signature: str) -> Optional[Prepared]:
    """The tab's prepared file when it was made from ``signature`` and still exists; a stale one is deleted."""
    have: Optional[Prepared] = tab.session.export_file
    if have is None:
        return None
    if have.signature != signature or not Path(have.path).exists():
        discard(tab)
        return None
    return have


def prepare(tab, frame, fmt: str, manifest: dict, file_name: str, signature: str,
            progress: Optional[Callable[[float, str], None]] = None, card: Optional[str] = None,
            files: Optional[dict] = None) -> Prepared:
    """Stream the export to a new temporary file (the tab's previous one is deleted first); a
    datasets folder carries ``card`` as its README.md. Raises `core.base.errors.Cancelled` when the
    server starts stopping meanwhile (nothing is left)."""
    discard(tab)
    srv, sess = tab.server, tab.session
    t0 = time.perf_counter()
    # ".<name>.<pid>.<random>.tmp": paths.remove_stale_temporaries knows a dead writer's file
    fd, tmp = tempfile.mkstemp(prefix=f".{file_name}.{os.getpid()}.", suffix=".tmp", dir=srv.export_folder())
    try:
        with os.fdopen(fd, "wb") as fh:
            export.write_file(frame, fh, fmt, manifest=manifest, progress=progress, cancel=srv.stopping, card=card,
                              files=files)
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


def folder_files(tab, dataset, split: Split) -> tuple:
    """(the card's text, the files beside the rows: ``certificate.json``, ``croissant.json``) a
    datasets folder carries (`core.usecases.exports.folder_files`, as the CLI's): built when asked
    (the certificate measures the split; the card's cue tables take a z-statistics pass), kept for
    the same options."""
    found: FolderFiles = current.cached(tab, "folder_files", split.signature, lambda: folder_files_of(dataset, split.export))
    return str(found.card), found.files()


def card_only(tab, dataset, split: Split) -> str:
    """The card alone (the page's card download), without the certificate's measures."""
    return current.cached(tab, "dataset_card", split.signature,
                          lambda: str(folder_files_of(dataset, split.export, certificate=False).card))


def manifest_shown(manifest: dict) -> dict:
    """The manifest as the page shows it: the retained ids counted, not listed (the download has them)."""
    return {k: v for k, v in manifest.items() if k != "retained_ids"} | {
        "retained_ids": f"{len(manifest.get('retained_ids', [])):,} ids (in the downloaded manifest)"}
