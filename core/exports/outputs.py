"""The output policy: what a command may write, and the one way it writes it.

Every CLI command declares what it reads (`Outputs(inputs=...)`, `add_input`) and what it
writes (`declare`). Before any work starts an output is refused when

- it equals an input, lies inside an input folder, or contains an input;
- it equals, contains or lies inside another output of the same command;
- its folder does not exist or is not writable, or it has the wrong ending;
- **it exists and is not this tool's own unchanged output.** Artifact Lens remembers every
  file and folder it writes (`Ledger`, in the cache folder: path, size, modification time
  of each file). An existing output is replaced only when the ledger says Artifact Lens
  wrote it and nothing in it changed since; an empty folder may be written into. Anything
  else, a file or folder of the user's, is never deleted or overwritten: the command stops
  with one ``error:`` line that names the path and the fix.

Each output is written to a hidden temporary beside its target and moved into place only
when every output of the command was written. A failure or an interrupt before that leaves
no file at all, hidden temporaries included (a killed command's are removed by the next
command that writes beside them: the ledger names every temporary the tool made); an
interrupt during the moves is reported with the exact list of what was written. Files get
the permissions the umask allows (0644 under the usual 022).

**The check is held at the end, too.** The move into place never replaces what appeared
meanwhile (`core.base.paths.rename_noreplace`): an output that was absent at the check is created
only if it is still absent; one that was this tool's own is first moved aside and compared
with what the check saw, and put back untouched if it changed. Where the path is no longer
what the check saw, the result is kept under a new name beside it and the command ends
with `OutputsKept`, whose message says where.
"""
from __future__ import annotations

import fcntl
import json
import os
import re
import stat
import uuid
from pathlib import Path
from typing import Optional

from ..base import paths
from ..base.errors import InputError
from ..data.source_files import local_path, resolved

__all__ = ["Outputs", "OutputsKept", "Ledger", "check_input_file", "POLICY"]

#: What `--help` and the README say about existing outputs.
POLICY = ("An existing output is replaced only if Artifact Lens wrote it and it is unchanged since; "
          "any other existing file or folder is refused, never overwritten. Whatever appears at an output's path "
          "while the command runs is kept, and the result saved beside it (NAME.kept-1.EXT).")


class OutputsKept(InputError):
    """Something appeared at (or changed in) an output's path while the command ran: the user's
    file was left alone and the result kept under another name (``kept``: target -> where)."""

    def __init__(self, kept: dict):
        self.kept = dict(kept)
        where = "; ".join(f"{t} appeared or changed while the command ran, so the result is saved as {k}"
                          for t, k in self.kept.items())
        super().__init__(f"{where}. Nothing of yours was touched; rename or move the files as you wish.")


#: the longest name a file system takes (bytes); the tool's hidden names stay within it
NAME_MAX = 255
_HIDDEN = re.compile(r"\.(?P<name>.+)\.(?P<pid>\d+)\.[0-9a-f]{8}\.(?:tmp|old)")


def _short(name: str, room: int) -> str:
    """``name`` cut to at most ``room`` bytes of UTF-8 (whole characters)."""
    return name.encode()[:room].decode(errors="ignore")


def _hidden(target: Path, kind: str) -> Path:
    """A hidden name beside ``target`` for a temporary (``tmp``) or an old output moved aside
    (``old``): ``.<name>.<pid>.<random>.<kind>``, the name shortened so it fits NAME_MAX."""
    return target.with_name(f".{_short(target.name, NAME_MAX - 32)}.{os.getpid()}.{uuid.uuid4().hex[:8]}.{kind}")


def _free_name(target: Path, n: int) -> Path:
    """The n-th name a result is kept under when its path was taken meanwhile: ``out.kept-n.csv``."""
    suffix = target.suffix if len(target.suffix) < 16 else ""
    stem = target.name[: len(target.name) - len(suffix)] if suffix else target.name
    tail = f".kept-{n}{suffix}"
    return target.with_name(_short(stem, NAME_MAX - len(tail.encode())) + tail)


def _stamp(path: Path):
    """What identifies a file's or folder's content cheaply: size and modification time of
    each file (a folder: of every file under it, by relative path). None if nothing is there."""
    try:
        st = path.lstat()
    except OSError:
        return None
    if stat.S_ISREG(st.st_mode):
        return {"file": [st.st_size, st.st_mtime_ns]}
    if stat.S_ISDIR(st.st_mode):
        tree = {}
        for p in sorted(path.rglob("*")):
            s = p.lstat()
            tree[p.relative_to(path).as_posix()] = [s.st_size, s.st_mtime_ns] if stat.S_ISREG(s.st_mode) else (
                "dir" if stat.S_ISDIR(s.st_mode) else "other")
        return {"folder": tree}
    return {"other": stat.S_IFMT(st.st_mode)}


class Ledger:
    """The record of what Artifact Lens wrote: one JSON line per output (its resolved path
    and `_stamp`), appended under a file lock in ``<cache>/written.jsonl``."""

    def __init__(self, path=None):
        self._path = Path(path) if path is not None else None

    @property
    def path(self) -> Path:
        """``<cache>/written.jsonl`` unless given: read when first needed, so making a ledger never
        fails on a bad setting (the command's own error handling reports that)."""
        if self._path is None:
            self._path = paths.cache_dir() / "written.jsonl"
        return self._path

    def _entries(self) -> dict:
        found = {}
        try:
            with open(self.path, encoding="utf-8") as fh:
                for line in fh:
                    try:
                        entry = json.loads(line)
                        found[entry["path"]] = entry["stamp"]
                    except (ValueError, KeyError, TypeError):
                        continue   # a torn line of a crashed writer says nothing
        except OSError:
            pass
        return found

    def temporaries(self) -> set:
        """Every hidden temporary the tool recorded before making it (what cleanup may delete)."""
        found = set()
        try:
            with open(self.path, encoding="utf-8") as fh:
                for line in fh:
                    if '"temporary"' in line:
                        try:
                            found.add(json.loads(line)["temporary"])
                        except (ValueError, KeyError, TypeError):
                            continue
        except OSError:
            pass
        return found

    def owns(self, path: Path) -> bool:
        """True when the ledger's last record of ``path`` matches what is there now."""
        now = _stamp(path)
        return now is not None and self._entries().get(str(path.resolve())) == now

    def record(self, path: Path) -> None:
        stamp = _stamp(path)
        if stamp is None:
            return
        self._append({"path": str(path.resolve()), "stamp": stamp})

    def reserve(self, temporary: Path) -> None:
        """Record a hidden temporary before it is made, so a later command may remove it once its
        writer is dead (and nothing else shaped like one)."""
        self._append({"temporary": str(temporary.parent.resolve() / temporary.name)})

    def _append(self, entry: dict) -> None:
        line = json.dumps(entry) + "\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            fh.write(line)
            fh.flush()


def check_input_file(path, what: str) -> None:
    """An input that exists must be a regular file or a folder: reading a FIFO would hang
    and a device never ends."""
    try:
        st = Path(path).expanduser().stat()
    except (OSError, ValueError):
        return   # missing: the reader says so in its own words
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
        raise InputError(f"{what} {path} is not a regular file or folder (a pipe, socket or device); "
                         "give a file saved on disk.")


def _related(a: Path, b: Path) -> Optional[str]:
    """How path ``a`` relates to ``b``: 'is', 'lies inside', 'contains' or None."""
    if a == b:
        return "is"
    if b in a.parents:
        return "lies inside"
    if a in b.parents:
        return "contains"
    return None


def _resolve(path) -> Path:
    """``path`` after ``~`` and every symlink; a path no system can take, or a looping link, is
    one clear InputError (`core.data.source_files`, the same checks as for inputs)."""
    return resolved(local_path(os.fspath(path)))


class Outputs:
    """Declare the outputs, write each to `path_for(flag)`, then `commit`.

    Parameters
    ----------
    inputs : iterable of (flag, path)
        What the command reads; no output may equal, contain or lie inside one.
    ledger : Ledger, optional
        Where this tool's own outputs are recorded (default: the cache folder's).
    stop : threading.Event, optional
        Set when the user asked to stop (Ctrl-C, SIGTERM): `commit` then moves nothing into
        place, even when the interrupt itself was lost (Python drops an exception raised while
        a finaliser runs), so a stop request never ends in outputs.
    """

    def __init__(self, inputs=(), ledger: Optional[Ledger] = None, stop=None, note=None):
        self._stop = stop
        #: says, once and before any work, that the ledger cannot be written (``note(text)``)
        self._note = note
        self._ledger_failed = False
        self._inputs: dict = {}      # resolved path -> (flag, as given)
        for flag, path in inputs:
            self.add_input(flag, path)
        self.ledger = ledger or Ledger()
        self._targets: dict = {}     # flag -> (target, temporary)
        self.written: list = []      # targets renamed into place so far

    def add_input(self, flag: str, path) -> None:
        if not path:
            return
        check_input_file(path, flag)
        self._inputs[_resolve(path)] = (flag, path)

    def declare(self, flag: str, path, suffixes=None, *, folder_ok: bool = False) -> None:
        """Check an output before any work is done (InputError naming ``flag`` and the fix)."""
        if not path:
            return
        target = Path(path).expanduser()
        if suffixes is not None and target.suffix.lower() not in suffixes:
            kinds = " or ".join(s or "a folder name" for s in suffixes)
            raise InputError(f"{flag} must end in {kinds} (got '{target.name}').")
        resolved = _resolve(target)
        for source, (in_flag, given) in self._inputs.items():
            how = _related(resolved, source)
            if how == "is":
                raise InputError(f"{flag} {target} is also an input ({in_flag} {given}); write the output to another "
                                 "file so the input is not overwritten.")
            if how:
                raise InputError(f"{flag} {target} {how} {given}, which the command reads ({in_flag}); write the "
                                 "output elsewhere so no input is touched.")
        for other, (t, _, _) in self._targets.items():
            how = _related(resolved, _resolve(t))
            if how:
                what = "name the same file" if how == "is" else f"overlap ({target} {how} {t})"
                raise InputError(f"{flag} and {other} {what}; give each output its own path.")
        parent = target.parent if str(target.parent) else Path(".")
        if not parent.is_dir():
            raise InputError(f"the folder {parent} for {flag} does not exist; create it or choose another path.")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise InputError(f"the folder {parent} for {flag} is not writable; choose another folder.")
        seen = self._check_existing(flag, target, folder_ok, suffixes)
        self._remove_dead_temporaries(target)
        temporary = _hidden(target, "tmp")
        try:   # a read-only or special file system says no here, before any work; the probe is made
            temporary.touch(exist_ok=False)   # new, so the unlink below can only remove the tool's own file
            temporary.unlink()
        except OSError as exc:
            raise InputError(f"cannot write {flag} in {parent} ({exc.strerror or exc}); choose another folder.") from None
        self._reserve(temporary)
        self._targets[flag] = (target, temporary, seen)

    def _check_existing(self, flag: str, target: Path, folder_ok: bool, suffixes):
        """Refuse an existing output the tool may not replace; else what is there (its `_stamp`,
        None when nothing is), which `commit` holds the path to."""
        if not (target.exists() or target.is_symlink()):
            return None
        is_dir = target.is_dir() and not target.is_symlink()
        if is_dir and not folder_ok:
            raise InputError(f"{flag} {target} is a folder; give a file name such as {target / 'out'}{(suffixes or [''])[0]}.")
        if (is_dir and not any(target.iterdir())) or self.ledger.owns(target):
            return _stamp(target)   # an empty folder, or this tool's own unchanged output: replaced
        kind = "folder" if is_dir else ("file" if target.is_file() and not target.is_symlink() else "path")
        raise InputError(f"{flag} {target} exists and is a {kind} Artifact Lens did not write (or that changed since "
                         "it did); the tool never overwrites what it did not create. Choose a new name, or move "
                         "or delete it yourself.")

    def _reserve(self, temporary: Path) -> None:
        try:
            self.ledger.reserve(temporary)
        except OSError as exc:   # an unwritable cache: a killed run's temporary then stays for the user to delete
            self._unrecorded(exc)

    def _unrecorded(self, exc: OSError) -> None:
        """The ledger cannot be written: say so once, before the work, since every output of this run
        will then be one Artifact Lens did not record, which a later run refuses to replace."""
        if self._ledger_failed:
            return
        self._ledger_failed = True
        if self._note is not None:
            self._note(f"note: the record of what Artifact Lens writes cannot be kept ({self.ledger.path}: "
                       f"{exc.strerror or exc}): this run's outputs will be yours to move or delete, and a later run "
                       "will not replace them; give a writable --cache-dir (or $ARTIFACT_LENS_CACHE) to keep it.")

    def _remove_dead_temporaries(self, target: Path) -> None:
        """Remove the hidden temporaries and set-aside outputs of killed commands beside ``target``:
        only names the ledger recorded before making them, whose writer process is gone."""
        prefix = "." + _short(target.name, NAME_MAX - 32) + "."
        try:
            found = [p for p in target.parent.iterdir() if p.name.startswith(prefix) and _HIDDEN.fullmatch(p.name)]
        except OSError:
            return
        if not found:
            return
        ours = self.ledger.temporaries()
        for p in found:
            pid = int(_HIDDEN.fullmatch(p.name).group("pid"))
            if str(p.parent.resolve() / p.name) in ours and not paths.process_alive(pid):
                paths.remove_tree(p)

    def path_for(self, flag: str) -> str:
        """The temporary path to write ``flag``'s output to (a file, or a folder the writer creates)."""
        return str(self._targets[flag][1])

    def commit(self) -> list:
        """Move every output into place and record it in the ledger; the targets written, in order.

        Raises `OutputsKept` (after every output is placed) when a path was no longer what the
        check at `declare` saw: that result is kept under a new name beside it."""
        if self._stop is not None and self._stop.is_set():
            raise KeyboardInterrupt   # the point of no return: a stop request is honoured here at the latest
        mode = 0o666 & ~paths.umask()
        for target, temporary, _ in self._targets.values():
            if not temporary.exists():
                raise InputError(f"internal: {target} was declared but never written")
        kept = {}
        for target, temporary, seen in self._targets.values():
            if temporary.is_dir():
                for p in [temporary, *temporary.rglob("*")]:
                    os.chmod(p, (mode | 0o111) if p.is_dir() else mode)
            else:
                os.chmod(temporary, mode)
            where = self._place(target, temporary, seen)
            if where != target:
                kept[target] = where
            self.written.append(where)
            try:
                self.ledger.record(where)
            except OSError as exc:   # an unwritable cache only means the output cannot be replaced later
                self._unrecorded(exc)
        if kept:
            raise OutputsKept(kept)
        return list(self.written)

    def _place(self, target: Path, temporary: Path, seen) -> Path:
        """Move ``temporary`` to ``target`` if the path is still what `declare` saw; else beside it.
        Where the result now is."""
        old = None
        if seen is not None:   # the tool's own output (or an empty folder): set it aside, then compare
            old = _hidden(target, "old")
            self._reserve(old)
            try:
                paths.rename_noreplace(target, old)
            except FileNotFoundError:
                old = None   # the user removed it meanwhile: the path is free
            if old is not None and _stamp(old) != seen:   # changed since the check: it is the user's now
                try:
                    paths.rename_noreplace(old, target)
                except FileExistsError:   # and something else took the path: keep theirs visible
                    self._keep_beside(target, old)
                return self._keep_beside(target, temporary)
        try:
            paths.rename_noreplace(temporary, target)
        except FileExistsError:
            where = self._keep_beside(target, temporary)
        else:
            where = target
        if old is not None:
            paths.remove_tree(old)   # verified to be this tool's own, unchanged output
        return where

    @staticmethod
    def _keep_beside(target: Path, source: Path) -> Path:
        for n in range(1, 10_000):
            candidate = _free_name(target, n)
            try:
                paths.rename_noreplace(source, candidate)
                return candidate
            except FileExistsError:
                continue
        raise InputError(f"{target} and 10,000 names beside it are taken; the result stays in {source}.")

    def abort(self) -> None:
        """Remove every temporary (called on any failure or interrupt)."""
        for _, temporary, _ in self._targets.values():
            paths.remove_tree(temporary)

    def describe(self, path) -> Optional[str]:
        """``"--flag target"`` when ``path`` is one of the temporaries (for error messages)."""
        for flag, (target, temporary, _) in self._targets.items():
            if str(path) == str(temporary):
                return f"{flag} {target}"
        return None

    def report(self) -> Optional[str]:
        """What an interrupt leaves: None (nothing written) or the files that were."""
        return ", ".join(map(str, self.written)) or None
