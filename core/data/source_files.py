"""Every file a dataset load would read, after symlinks and after a folder's own pointers.

A folder is read by `datasets`, which follows symlinks, the ``data_files`` patterns of a
Hub-style ``README.md`` (relative, ``../``, absolute or a URL) and the ``filename`` entries of a
``save_to_disk`` folder's ``state.json``. Anything that checks "may this load read that?" (the
Data page's folder allowlist) or "may this command write there?" (the output policy) must see
that whole set, not only the path the user typed.
"""
from __future__ import annotations

import glob
import json
import os
from pathlib import Path
from typing import Optional

from ..base.errors import InputError

#: a folder with more entries than this is refused rather than walked for minutes
MAX_ENTRIES = 200_000
_GLOB = set("*?[")


def check_path_text(text: str, what: str = "the path") -> str:
    """``text`` when the operating system can take it as a path; else a clear InputError."""
    if "\0" in text:
        raise InputError(f"{what} {text.replace(chr(0), '<NUL>')!r} holds a NUL byte, which no file name can; "
                         "retype it without that character.")
    try:
        longest = max((len(os.fsencode(part)) for part in Path(text).parts), default=0)
    except UnicodeEncodeError:
        raise InputError(f"{what} {text!r} holds characters this system cannot use in a file name; retype it.") \
            from None
    if longest > 255:
        raise InputError(f"{what} has a part of {longest} bytes, longer than a file name may be (255); "
                         "check what was pasted.")
    if len(os.fsencode(text)) > 4095:
        raise InputError(f"{what} is {len(os.fsencode(text))} bytes long, longer than a path may be (4095); "
                         "check what was pasted.")
    return text


def local_path(text: str, what: str = "the path") -> Path:
    """``text`` as a Path with ``~`` expanded, or a clear InputError (see `check_path_text`)."""
    try:
        return Path(check_path_text(text, what)).expanduser()
    except RuntimeError:   # ~name of a user this system does not have
        raise InputError(f"{what} {text!r} starts with a ~user this system does not know; give the full path.") \
            from None


def resolved(path: Path) -> Path:
    """``path`` after every symbolic link, or a clear InputError when a link loops."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        raise InputError(f"{path} is a symbolic link that loops or cannot be followed; remove it, or point at "
                         "the data file itself.") from None


def files_read(source: str, *, limit: Optional[int] = MAX_ENTRIES) -> tuple[list[Path], list[str]]:
    """(resolved paths, remote references) a load of ``source`` would read.

    A file gives itself; a folder gives every entry under it (symlinked folders walked once),
    the roots and matches of its README ``data_files`` patterns, and its ``state.json`` files.
    Remote references are ``data_files`` entries with a URL scheme (``hf://``, ``https://``).
    A source that is not a local path (a Hub name, ``demo:``) gives nothing. A folder with more
    than ``limit`` entries is refused (the shared server's Data page); the CLI walks any size."""
    path = local_path(os.fspath(source))
    try:
        exists, is_dir = path.exists(), path.is_dir()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}; check the path and its permissions.") from None
    if not exists:
        return [], []
    if not is_dir:
        return [resolved(path)], []
    found: set = set()
    remote: list = []
    visited: set = set()
    pending = [path]
    while pending:
        folder = pending.pop()
        real = resolved(folder)
        found.add(real)
        if real in visited:
            continue
        visited.add(real)
        try:
            entries = list(os.scandir(folder))
        except OSError as exc:
            raise InputError(f"cannot list the folder {folder}: {exc.strerror}; check its permissions.") from None
        for entry in entries:
            if limit is not None and len(found) > limit:
                raise InputError(f"{path} holds more than {limit:,} files and folders; point at the data "
                                 "file itself, or at a folder with only the dataset in it.")
            child = Path(entry.path)
            real = resolved(child)
            is_dir = real.is_dir()   # a linked folder is read too
            if is_dir:
                pending.append(child)
            else:
                found.add(real)
                if entry.name == "README.md" and folder == path:
                    patterns = _readme_patterns(child)
                    remote += [p for p in patterns if "://" in p or p.startswith("hf:")]
                    for pattern in (p for p in patterns if p not in remote):
                        found |= _pattern_paths(path, pattern)
                elif entry.name == "state.json":
                    found |= {resolved(folder / name) for name in _state_files(child)}
    return sorted(found), remote


def _readme_patterns(readme: Path) -> list:
    """The strings under ``configs: … data_files`` of a README's YAML header."""
    import yaml

    try:
        text = readme.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    if not text.startswith("---"):
        return []
    header = text[3:].split("\n---", 1)[0]
    try:
        meta = yaml.safe_load(header)
    except yaml.YAMLError:
        return []   # datasets will refuse it with its own message
    configs = meta.get("configs") if isinstance(meta, dict) else None
    strings: list = []

    def collect(value):
        if isinstance(value, str):
            strings.append(value)
        elif isinstance(value, dict):
            for key, item in value.items():
                if key != "split":
                    collect(item)
        elif isinstance(value, list):
            for item in value:
                collect(item)

    for config in configs if isinstance(configs, list) else [configs] if isinstance(configs, dict) else []:
        if isinstance(config, dict):
            collect(config.get("data_files"))
            if isinstance(config.get("data_dir"), str):
                strings.append(config["data_dir"])
    return strings


def _pattern_paths(folder: Path, pattern: str) -> set:
    """The folder a pattern starts from (its part before the first wildcard) and its matches."""
    joined = os.path.join(str(folder), pattern)
    parts = Path(joined).parts
    fixed = [p for p in parts[:next((i for i, p in enumerate(parts) if _GLOB & set(p)), len(parts))]]
    paths = {resolved(Path(*fixed))} if fixed else set()
    try:
        matches = list(glob.iglob(joined, recursive=True))
    except (OSError, ValueError):
        matches = []
    return paths | {resolved(Path(p)) for p in matches}


def _state_files(state: Path) -> list:
    try:
        meta = json.loads(state.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    files = meta.get("_data_files") if isinstance(meta, dict) else None
    return [f["filename"] for f in files or [] if isinstance(f, dict) and isinstance(f.get("filename"), str)]


def outside(source: str, allowed: list) -> tuple[list[Path], list[str]]:
    """The files a load of ``source`` would read that lie outside every folder of ``allowed``,
    and its remote references."""
    files, remote = files_read(source)
    return [f for f in files if not any(f == a or a in f.parents for a in allowed)], remote


def source_stamp(source) -> Optional[str]:
    """What tells, without reading them, whether the files a load of ``source`` reads (`files_read`)
    still hold what they held: a key of each one's path, size, change times and inode (a write, an
    in-place edit or a replacement by rename each change it), or of a demo's name (made the same way
    every time). None where nothing tells (a Hub name, a remote file, an in-memory table, a path that
    cannot be read): such a source is read again each time.

    A stamp only says when to read again; what a dataset and its results are named by is what was
    read (`core.data.dataset.Dataset.content_key`)."""
    from ..base.keys import key_of

    if not isinstance(source, (str, os.PathLike)):
        return None
    text = os.fspath(source).strip()
    if text.startswith("demo:"):
        return key_of(["demo", text])
    try:
        files, remote = files_read(text)
        stats = [(str(p), p.stat()) for p in files if not p.is_dir()]
    except (InputError, OSError):
        return None
    if remote or not stats:
        return None
    return key_of(["files", [(p, s.st_size, s.st_mtime_ns, s.st_ctime_ns, s.st_ino) for p, s in stats]])
