"""A map computed in a child Python process (`project_in_subprocess`), so a server stays
responsive while UMAP compiles its kernels and lays out the points; the child reports progress
as JSON lines, is terminated on cancel, and stops with its parent (a server killed hard leaves no
orphan computing on)."""
from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Optional

import numpy as np

from ..base import paths
from ..base.errors import InputError
from ..base.progress import check_cancel, report
from .projection import Projection, project

__all__ = ["project_in_subprocess"]

#: the folder the package was imported from (a checkout, or site-packages under the installed name):
#: the child imports this module by the same name from there
_IMPORT_ROOT = Path(__file__).resolve().parents[len(__name__.split(".")) - 1]


def project_in_subprocess(X, ids=None, *, key: str, method: str = "umap", cache_dir=None, progress=None,
                          cancel=None, **params) -> Projection:
    """`project` in a child Python process, then read back from the disk cache.

    UMAP's first fit in a process spends about a minute compiling numba kernels and
    then runs single-threaded (it is seeded); both hold the GIL, which in a thread
    would stall a server's other requests (a τ redraw, another user's page). A child
    process keeps the server responsive. Progress comes back as JSON lines on the
    child's stdout; cancelling terminates the child. ``params`` are `project`'s.
    """
    check_cancel(cancel)
    cache_root = Path(cache_dir) if cache_dir is not None else paths.cache_dir()
    cache_root.mkdir(parents=True, exist_ok=True)
    ids = None if ids is None else np.asarray(ids).astype(str)
    with tempfile.TemporaryDirectory(prefix="artifact-lens-proj-", dir=cache_root) as tmp:
        np.save(Path(tmp) / "X.npy", np.asarray(X, dtype=np.float32))
        if ids is not None:
            np.save(Path(tmp) / "ids.npy", ids)
        job = {"folder": tmp, "key": key, "method": method, "cache_dir": str(cache_root), "params": params,
               "parent": os.getpid()}
        (Path(tmp) / "job.json").write_text(json.dumps(job))
        # stderr goes to a file (a chatty child never fills a pipe nobody reads); stdout, the progress
        # lines, is read here between cancel checks: no reader thread outside the job backend
        with open(Path(tmp) / "stderr.txt", "wb") as err:
            proc = subprocess.Popen([sys.executable, "-c",
                                     f"from {__name__} import _child_main; _child_main()", tmp],
                                    stdout=subprocess.PIPE, stderr=err, cwd=str(_IMPORT_ROOT))
        error = None
        try:
            for msg in _messages(proc, cancel):
                if "progress" in msg:
                    report(progress, msg["progress"], msg.get("message", ""))
                elif "error" in msg:
                    error = msg
            proc.wait()
        finally:
            if proc.poll() is None:   # cancelled: the child got SIGTERM and removes its temporaries
                try:
                    proc.wait(2.0)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            proc.stdout.close()
        if error is not None:
            raise (InputError if error.get("input") else RuntimeError)(error["error"])
        if proc.returncode != 0:
            tail = (Path(tmp) / "stderr.txt").read_bytes()[-500:].decode("utf-8", "replace")
            raise RuntimeError(f"the projection process failed (exit code {proc.returncode}): {tail}")
    out = project(X, ids, key=key, method=method, cache_dir=cache_root, only_cached=True, **params)
    if out is None:  # pragma: no cover - the child wrote it
        raise RuntimeError("the projection process finished but left no cached projection")
    return out


def _messages(proc, cancel):
    """The child's JSON lines as they come, until its stdout closes; a cancel terminates the child
    and raises `Cancelled` (checked every 0.2 s while the child is quiet)."""
    pending = b""
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        while True:
            if cancel is not None and cancel.is_set():
                proc.terminate()
                check_cancel(cancel)
            if not sel.select(timeout=0.2):
                continue
            chunk = os.read(proc.stdout.fileno(), 1 << 16)
            if not chunk:
                return
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                try:
                    yield json.loads(line)
                except ValueError:   # not one of ours (a library's print): skipped
                    continue


def _stop_with_parent(parent: Optional[int] = None) -> None:
    """In the child: SIGTERM (a cancel, or the parent's death) ends it like an exception, so
    `atomic_write` removes its temporary; on Linux the kernel sends that SIGTERM when the
    parent thread dies (a server killed hard leaves no orphan computing on)."""
    import signal

    def _stop(signum, frame):
        raise SystemExit(143)

    signal.signal(signal.SIGTERM, _stop)
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM))   # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
        if parent is not None and os.getppid() != parent:   # the parent died before prctl
            raise SystemExit(143)


def _child_main() -> None:
    """Entry point of `project_in_subprocess`'s child: compute, cache, report on stdout."""
    folder = Path(sys.argv[1])
    job = json.loads((folder / "job.json").read_text())
    _stop_with_parent(job.get("parent"))
    X = np.load(folder / "X.npy", mmap_mode="r")
    ids = np.load(folder / "ids.npy") if (folder / "ids.npy").exists() else None

    def progress(fraction, message=""):
        print(json.dumps({"progress": float(fraction), "message": message}), flush=True)

    try:
        project(X, ids, key=job["key"], method=job["method"], cache_dir=job["cache_dir"], progress=progress,
                **job["params"])
    except InputError as exc:
        print(json.dumps({"error": str(exc), "input": True}), flush=True)
    except Exception as exc:  # reported to the parent, which raises it
        print(json.dumps({"error": f"{type(exc).__name__}: {exc}", "input": False}), flush=True)
