"""Where artifact-lens keeps files it can recompute (the one cache-directory function), and
the one way it writes a file atomically.

Representations (``representations/``), projections (``projections/``), finished
runs (``runs/``) and uploaded files (``uploads/``) all live under `cache_dir`.
"""
from __future__ import annotations

import ctypes
import errno
import os
import tempfile
from pathlib import Path
from typing import Optional

__all__ = ["cache_dir", "atomic_write", "fsync_folder", "umask", "rename_noreplace", "remove_tree"]


def cache_dir() -> Path:
    """``$ARTIFACT_LENS_CACHE`` if set, else ``~/.cache/artifact-lens`` (`core.base.settings`: read
    again when the environment changes, so tests and servers can point it elsewhere)."""
    from .settings import settings

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


_RENAME_NOREPLACE = 1   # linux/fs.h
_AT_FDCWD = -100
try:
    _renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    _renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
except (AttributeError, OSError):   # not glibc >= 2.28 / not Linux
    _renameat2 = None


def rename_noreplace(src, dst) -> None:
    """Rename ``src`` (a file or a folder) to ``dst`` only if nothing is at ``dst``, in one step
    that cannot replace what appears there meanwhile: FileExistsError when something is there.

    Linux's ``renameat2(RENAME_NOREPLACE)`` where the file system has it; elsewhere a file is
    hard-linked (``link`` never replaces) and a folder takes an empty folder made exclusively
    at ``dst`` (``rename`` of a folder replaces only an empty one: whatever the user puts into
    the reserved folder meanwhile makes it fail, never lost).
    """
    src, dst = os.fsencode(os.fspath(src)), os.fsencode(os.fspath(dst))
    if _renameat2 is not None:
        if _renameat2(_AT_FDCWD, src, _AT_FDCWD, dst, _RENAME_NOREPLACE) == 0:
            return
        code = ctypes.get_errno()
        if code not in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):   # those: the file system lacks the flag
            raise OSError(code, os.strerror(code), os.fsdecode(src), None, os.fsdecode(dst)) if code != errno.EEXIST \
                else FileExistsError(code, os.strerror(code), os.fsdecode(dst))
    if os.path.isdir(src) and not os.path.islink(src):
        os.mkdir(dst)   # FileExistsError when something is there
        try:
            os.rename(src, dst)
        except OSError as exc:
            if exc.errno in (errno.ENOTEMPTY, errno.EEXIST):
                raise FileExistsError(errno.EEXIST, "something was put into the folder meanwhile",
                                      os.fsdecode(dst)) from None
            os.rmdir(dst)
            raise
        return
    os.link(src, dst, follow_symlinks=False)   # FileExistsError when something is there
    os.unlink(src)


def remove_tree(path) -> None:
    """Delete a file or a folder this tool made, never following a symbolic link: a link is
    removed itself, what it points at is left alone (``shutil.rmtree`` refuses a link)."""
    import shutil

    path = Path(path)
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            path.unlink()
        except FileNotFoundError:
            pass


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
    if not folder.is_dir() or folder.is_symlink():
        return 0   # a link is never followed: what it points at is not the tool's
    removed = 0
    for tmp in (folder.rglob if recursive else folder.glob)(".*.tmp"):   # neither descends into a linked folder
        if tmp.is_symlink() or not tmp.is_file():
            continue
        parts = tmp.name.split(".")
        pid = int(parts[-3]) if len(parts) >= 4 and parts[-3].isdigit() else None
        if pid is None or process_alive(pid):
            continue  # not one of ours, or another process is writing it now
        try:
            tmp.unlink()
            removed += 1
        except OSError:
            pass
    return removed


def process_alive(pid: int) -> bool:
    """Whether a process with this id runs (one of another user counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
