"""The one way computed results are kept on disk (issue 24): runs, evaluations, quality tables and
comparisons, maps and their kNN graphs each go through a `ResultStore`.

- **Keys** are file stems this tool makes (`KEY`: letters, digits, ``-`` and ``_``), never paths:
  a key read back from a record cannot name ``../x``.
- **Format versions** are in the file name, ``<key>.v<format><suffix>``: a file of another format
  is *outdated*, read as absent (and logged), recomputed, and removed by `prune`.
- **Atomic writes** (`core.base.paths.atomic_write`, tagged with the writer's process id, so a killed
  writer's temporary is removed when a store opens).
- **Corruption is told apart from absence**: `load` returns None for a missing or outdated file and
  raises `CorruptResult` (naming the file and the fix) for one that cannot be read;
  `load_or_none` turns corruption into a logged miss for results that are always recomputable.
- **Pruning** (`prune`): outdated files first, then the least recently used (a read touches its
  file) until the stores fit a byte budget. Only folders the tool marked as its own (`MARK`,
  written with the first save) are pruned, and in them only names `ResultStore` makes; any
  other file is left alone.
"""
from __future__ import annotations

import logging
import os
import re
import stat
from pathlib import Path
from typing import Callable, Iterable, Optional

from . import paths
from .errors import InputError
from .keys import ResultKey, require_key

__all__ = ["ResultStore", "CorruptResult", "KEY", "prune"]

log = logging.getLogger("artifact_lens.artifacts")

KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")
#: the file that marks a folder as one the tool keeps results in (only such folders are pruned)
MARK = ".artifact-lens-results"


class CorruptResult(InputError):
    """A stored result exists but cannot be read (the message names the file)."""

    def __init__(self, message: str, path: Optional[Path] = None):
        super().__init__(message)
        self.path = path


class ResultStore:
    """Results of one kind in one folder, ``<root>/<key>.v<format><suffix>``.

    Parameters
    ----------
    root : path
        The folder (made on the first save).
    suffix : str
        The file type, e.g. ``".npz"``.
    format : int
        The format version this code writes and reads; bump it when the content changes shape.
    what : str
        What one artifact is, for messages ("run", "evaluation", ...).
    """

    def __init__(self, root, *, suffix: str, format: int, what: str):
        if not re.fullmatch(r"\.[a-z0-9]+", suffix) or not isinstance(format, int) or format < 1:
            raise ValueError(f"an artifact store needs a suffix like '.npz' and a format >= 1, not {suffix!r}, {format!r}")
        self.root, self.suffix, self.format, self.what = Path(root), suffix, int(format), what
        self._name = re.compile(rf"({KEY.pattern})\.v(\d+){re.escape(suffix)}")
        self.remove_stale_temporaries()

    def __repr__(self) -> str:
        return f"ResultStore({str(self.root)!r}, {self.what}, v{self.format}{self.suffix})"

    # ------------------------------------------------------------------ names
    def path(self, key: str) -> Path:
        """The file of ``key`` in this format. Raises InputError for a key this tool never makes."""
        if not isinstance(key, str) or not KEY.fullmatch(key):
            raise InputError(f"{self.what} key {str(key)[:40]!r} is not one this tool makes (letters, digits, - and _, "
                             "at most 128).")
        return self.root / f"{key}.v{self.format}{self.suffix}"

    def _files(self):
        """(path, key, format) of every file in the folder named as this store names them."""
        if not self.root.is_dir():
            return
        for p in self.root.iterdir():
            m = self._name.fullmatch(p.name)
            if m and _regular(p):   # a symbolic link shaped like a result is not one: never followed
                yield p, m.group(1), int(m.group(2))

    def keys(self) -> list:
        """Keys stored in this format, sorted."""
        return sorted(k for _, k, f in self._files() if f == self.format)

    def __contains__(self, key: str) -> bool:
        return self.path(key).exists()

    def outdated(self) -> list:
        """Files of this kind in another format (what `prune` removes first)."""
        return sorted(p for p, _, f in self._files() if f != self.format)

    def nbytes(self) -> int:
        return sum(_size(p) for p, _, _ in self._files())

    # ------------------------------------------------------------------ reading and writing
    def load(self, key: str, read: Callable[[Path], object]):
        """``read(path)`` of the stored ``key``; None when it is absent or of another format.

        Raises
        ------
        CorruptResult
            The file exists but ``read`` failed on it: it was damaged (a disk error, a copy cut
            short, an edit by hand). Deleting it makes the tool recompute it.
        """
        path = self.path(key)
        if not path.exists():
            older = [p.name for p, k, f in self._files() if k == key]
            if older:
                log.info("%s %s is stored in another format (%s; now v%s): recomputing it", self.what, key,
                         ", ".join(older), self.format)
            return None
        try:
            value = read(path)
        except FileNotFoundError:
            return None          # pruned or replaced between the check and the read
        except CorruptResult:
            raise                # the reader named the damage itself
        except Exception as exc:  # noqa: BLE001 - any failure to read a file this tool wrote is damage
            raise CorruptResult(f"cannot read the {self.what} in {path}: the file is damaged ({type(exc).__name__}: "
                                  f"{str(exc)[:200]}); delete it and the tool computes it again.", path) from exc
        try:
            os.utime(path)       # recently used: pruned last
        except OSError:
            pass
        return value

    def load_or_none(self, key: str, read: Callable[[Path], object]):
        """`load`, with a damaged file logged and read as absent (the next `save` replaces it)."""
        try:
            return self.load(key, read)
        except CorruptResult as exc:
            log.warning("%s", exc)
            return None

    def save(self, key: ResultKey, write: Callable) -> Path:
        """Write ``key`` atomically with ``write(fh)`` (a binary file object); its path. ``key`` is a
        `core.base.keys.ResultKey`: a result is kept only under the name of the data it came from."""
        path = self.path(require_key(key, f"a stored {self.what}"))
        if not self.root.exists():   # a folder the tool makes is marked first, so a killed first save is swept too
            self.root.mkdir(parents=True, exist_ok=True)
            self._mark()
        paths.atomic_write(path, write, tag=str(os.getpid()))
        paths.fsync_folder(path.parent)
        if not self.owned():
            self._mark()
        return path

    def _mark(self) -> None:
        (self.root / MARK).write_text("Artifact Lens keeps computed results here; it may delete files it named.\n")

    def owned(self) -> bool:
        """Whether the folder is a real folder (no symbolic link) carrying the tool's mark (`MARK`, a
        regular file): only then does the tool delete in it (`prune`, stale temporaries)."""
        try:
            if stat.S_ISLNK(self.root.lstat().st_mode):
                return False
        except OSError:
            return False
        return _regular(self.root / MARK)

    def remove_stale_temporaries(self) -> int:
        """Delete temporaries of writers that are no longer running, in a folder the tool marked; how many."""
        return paths.remove_stale_temporaries(self.root) if self.owned() else 0


def prune(stores: Iterable[ResultStore], max_bytes: Optional[float] = None) -> dict:
    """Delete outdated files of ``stores``, then their least recently used files until all of them
    together hold at most ``max_bytes`` (None: outdated files only). Returns counts and bytes."""
    stores = [s for s in stores if s.owned()]
    out = {"outdated": 0, "least_recent": 0, "bytes_freed": 0}
    for store in stores:
        for p in store.outdated():
            out["bytes_freed"] += _unlink(p)
            out["outdated"] += 1
    if max_bytes is None:
        return out
    current = [(p, _mtime(p), _size(p)) for s in stores for p, _, f in s._files() if f == s.format]
    total = sum(size for _, _, size in current)
    for p, _, size in sorted(current, key=lambda t: t[1]):
        if total <= max_bytes:
            break
        out["bytes_freed"] += _unlink(p)
        out["least_recent"] += 1
        total -= size
    if out["outdated"] or out["least_recent"]:
        log.info("pruned the result caches: %s", out)
    return out


def _regular(p: Path) -> bool:
    try:
        return stat.S_ISREG(p.lstat().st_mode)
    except OSError:
        return False


def _size(p: Path) -> int:
    try:
        return p.stat().st_size
    except OSError:
        return 0


def _mtime(p: Path) -> float:
    try:
        return p.stat().st_mtime
    except OSError:
        return 0.0


def _unlink(p: Path) -> int:
    size = _size(p)
    try:
        p.unlink()
    except OSError:
        return 0
    return size
