"""The output files of one CLI command, as a transaction.

Every output is checked before any work (its folder exists and is writable, it is
not a folder where a file is expected, it is not an input or another output),
written to a temporary path beside its target, and renamed into place only when
every output of the command was written. A failure or an interrupt before that
leaves no file at all, hidden temporaries included; an interrupt during the
renames is reported with the exact list of what was written. Files get the
permissions the umask allows (0644 under the usual 022).
"""
from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path
from typing import Optional

from core import paths
from core.errors import InputError

__all__ = ["Outputs"]


class Outputs:
    """Declare the outputs, write each to `path_for(flag)`, then `commit`.

    Parameters
    ----------
    inputs : paths
        The command's input files; no output may overwrite one of them.
    """

    def __init__(self, inputs=()):
        self._inputs = {Path(p).expanduser().resolve(): p for p in inputs if p and Path(p).expanduser().exists()}
        self._targets: dict = {}     # flag -> (target, temporary)
        self.written: list = []      # targets renamed into place so far

    def declare(self, flag: str, path, suffixes=None, *, folder_ok: bool = False) -> None:
        """Check an output before any work is done (InputError naming ``flag`` and the fix)."""
        if not path:
            return
        target = Path(path).expanduser()
        if suffixes is not None and target.suffix.lower() not in suffixes:
            kinds = " or ".join(s or "a folder name" for s in suffixes)
            raise InputError(f"{flag} must end in {kinds} (got '{target.name}').")
        parent = target.parent if str(target.parent) else Path(".")
        if not parent.is_dir():
            raise InputError(f"the folder {parent} for {flag} does not exist; create it or choose another path.")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise InputError(f"the folder {parent} for {flag} is not writable; choose another folder.")
        if target.is_dir() and not folder_ok:
            raise InputError(f"{flag} {target} is a folder; give a file name such as {target / 'out'}{(suffixes or [''])[0]}.")
        resolved = target.resolve()
        if resolved in self._inputs:
            raise InputError(f"{flag} {target} is also an input ({self._inputs[resolved]}); write the output to "
                             "another file so the input is not overwritten.")
        for other, (t, _) in self._targets.items():
            if t.resolve() == resolved:
                raise InputError(f"{flag} and {other} name the same file ({target}); give each output its own path.")
        temporary = target.with_name(f".{target.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
        try:   # a read-only or special file system says no here, before any work
            temporary.touch()
            temporary.unlink()
        except OSError as exc:
            raise InputError(f"cannot write {flag} in {parent} ({exc.strerror or exc}); choose another folder.") from None
        self._targets[flag] = (target, temporary)

    def path_for(self, flag: str) -> str:
        """The temporary path to write ``flag``'s output to (a file, or a folder the writer creates)."""
        return str(self._targets[flag][1])

    def commit(self) -> list:
        """Move every output into place; the targets written, in order."""
        mode = 0o666 & ~paths.umask()
        for target, temporary in self._targets.values():
            if not temporary.exists():
                raise InputError(f"internal: {target} was declared but never written")
        for target, temporary in self._targets.values():
            if temporary.is_dir():
                for p in [temporary, *temporary.rglob("*")]:
                    os.chmod(p, (mode | 0o111) if p.is_dir() else mode)
                if target.is_dir():
                    old = target.with_name(f".{target.name}.{os.getpid()}.old")
                    os.replace(target, old)
                    os.replace(temporary, target)
                    shutil.rmtree(old, ignore_errors=True)
                else:
                    os.replace(temporary, target)
            else:
                os.chmod(temporary, mode)
                os.replace(temporary, target)
            self.written.append(target)
        return list(self.written)

    def abort(self) -> None:
        """Remove every temporary (called on any failure or interrupt)."""
        for _, temporary in self._targets.values():
            if temporary.is_dir():
                shutil.rmtree(temporary, ignore_errors=True)
            elif temporary.exists():
                temporary.unlink()

    def describe(self, path) -> Optional[str]:
        """``"--flag target"`` when ``path`` is one of the temporaries (for error messages)."""
        for flag, (target, temporary) in self._targets.items():
            if str(path) == str(temporary):
                return f"{flag} {target}"
        return None

    def report(self) -> Optional[str]:
        """What an interrupt leaves: None (nothing written) or the files that were."""
        return ", ".join(map(str, self.written)) or None
