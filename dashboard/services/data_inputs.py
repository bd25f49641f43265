"""The Data page's helpers: representation specs from widgets, uploads, loading a dataset."""
from __future__ import annotations

import re
from pathlib import Path

from artifact_lens.base import paths
from artifact_lens.base.errors import InputError
from artifact_lens.base.settings import settings
from artifact_lens.base.keys import data_key, digest
from artifact_lens.dashboard.services import current
from artifact_lens.dashboard.state.session import Source

def rep_kinds(ds) -> dict:
    """The representation kinds ``ds`` takes (preference pairs and multiple-choice items only the
    kinds made for them, the others only the rest), name → description: the Data page's choice
    (`core.representations.REGISTRY`)."""
    from artifact_lens.representations import REGISTRY

    pairs, items = ds.pairs is not None, getattr(ds, "choices", None) is not None
    return {name: kind.description for name, kind in REGISTRY.items() if kind.pairs == pairs and kind.items == items}


def default_kind(ds) -> str:
    """The kind the Data page offers first: the dataset's default representation's
    (`core.representations.default_spec`), else what its columns hold (images, vectors)."""
    from artifact_lens.representations import default_spec

    kind = default_spec(ds).split(":")[0]
    if kind == "tfidf-svd" and not ds.text:
        return "pixels" if ds.image else "embedding" if ds.embedding else kind
    return kind


def kind_inputs(kind: str) -> tuple:
    """The Data page's inputs a kind takes (fields, dim, fraction, path, model: the page shows only these)."""
    from artifact_lens.representations import REGISTRY

    return tuple(field for field, _ in REGISTRY[kind].page_inputs)


def build_spec(kind: str, *, fields=(), dim: int = 64, fraction: float = 0.1, path: str = "", model: str = "") -> str:
    """A representation spec string from the Data page's inputs (each kind says which it takes and the
    option each sets: `core.representations.spec.Kind.page_inputs`)."""
    from artifact_lens.representations import REGISTRY

    given = {"fields": "+".join(fields), "dim": int(dim), "fraction": f"{float(fraction):g}", "path": path,
             "model": model}
    opts = [f"{option}={given[field]}" for field, option in REGISTRY[kind].page_inputs
            if given[field] != "" or field == "path"]
    return kind + (":" + ",".join(opts) if opts else "")


def demos() -> dict:
    """The built-in demos (`core.data.demos.DEMOS`): name → what it is (its docstring's first
    sentence, up to a colon)."""
    import re

    from artifact_lens.data.demos import DEMOS

    return {name: " ".join(re.split(r"[.:]", make.__doc__ or "")[0].replace("`", "").split())
            for name, make in DEMOS.items()}


def demo_of(source: str):
    """The demo's name a source names (``demo:nli:n=300`` → ``nli``), or None for any other source."""
    parts = str(source).split(":")
    return parts[1] if len(parts) > 1 and parts[0] == "demo" else None


def demo_sized(name: str) -> bool:
    """Whether the demo takes a number of examples ``n`` (digits is scikit-learn's fixed set)."""
    import inspect

    from artifact_lens.data.demos import DEMOS

    return "n" in inspect.signature(DEMOS[name]).parameters


def file_formats() -> dict:
    """The input file formats the loader reads (`core.data.file_tables.INPUT_FORMATS`), suffix without
    its dot → name: the upload widget's accepted types and its labels."""
    from artifact_lens.data.file_tables import INPUT_FORMATS

    return {suffix.lstrip("."): fmt.name for suffix, fmt in INPUT_FORMATS.items()}


def data_folders() -> list:
    """Folders the Data page's "Local path" may read: ``$ARTIFACT_LENS_DATA_DIRS``
    (separated by ``os.pathsep``), else the working folder and the cache."""
    return list(settings().data_dirs)


def check_local_path(text: str) -> str:
    """``text`` when every file a load of it would read (after symlinks, and after a folder's
    README ``data_files`` and ``state.json`` pointers) is inside `data_folders`; else an
    InputError that names the first file outside and how an administrator adds its folder."""
    from artifact_lens.data.source_files import local_path, outside, resolved

    path = resolved(local_path(text, "the local path"))
    allowed = data_folders()
    where = " (" + ", ".join(str(f) for f in allowed) + "); upload the file instead, or ask the " \
        "administrator to add its folder to ARTIFACT_LENS_DATA_DIRS"
    if not any(path == folder or folder in path.parents for folder in allowed):
        raise InputError(f"{text} is outside the folders this server may read" + where)
    files, remote = outside(text, allowed)
    if remote:
        raise InputError(f"{text} has a README.md whose data_files point at {remote[0]}, which this server does "
                         "not fetch for a local path; copy that file into the folder and point data_files at it.")
    if files:
        raise InputError(f"{text} would make the server read {files[0]}, which is outside the folders this "
                         "server may read (through a symbolic link or the README.md's data_files)" + where)
    return text


def check_spec_paths(spec: str) -> str:
    """``spec`` when every file it names (kind ``file``) is inside `data_folders`."""
    from artifact_lens.representations import parse_spec

    kind, options = parse_spec(spec)
    if kind == "file" and options.get("path"):
        check_local_path(str(options["path"]))
    return spec


def save_upload(tab, name: str, data: bytes) -> Path:
    from artifact_lens.dashboard.services.team import require

    require(tab, "load data")   # before a byte reaches the server's disk
    return _save_upload(name, data)


def _save_upload(name: str, data: bytes) -> Path:
    """An uploaded file saved under the cache (named by its content hash), so core.data.sources can
    read it. Uploads are kept within ``$ARTIFACT_LENS_UPLOADS_MB`` (default 2048 MB): the least
    recently used ones are deleted past it. The name is the tool's mark: a file in the folder whose
    name is not the hash of its content is someone else's, never read as an upload, replaced or
    deleted."""
    content = data_key(data)
    suffixes = "".join(Path(name).suffixes[-2:]) or ".csv"
    folder = paths.cache_dir() / "uploads"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{content}{suffixes}"
    if path.exists():
        if not _is_upload(path):
            raise InputError(f"the uploads folder {folder} holds a file named {path.name} that is not this upload "
                             "(its content differs), and the tool leaves files it did not write alone: move that "
                             "file elsewhere, then upload again.")
        path.touch()   # recently used: evicted last
    else:
        paths.atomic_write(path, lambda fh: fh.write(data))
    _evict_uploads(folder, keep=path)
    return path


_UPLOAD_NAME = re.compile(r"^[0-9a-f]{16}(\.|$)")


def _is_upload(path: Path) -> bool:
    """Whether ``path`` is an upload this tool saved: its name starts with the hash of its content."""
    if not _UPLOAD_NAME.match(path.name):
        return False
    try:
        with open(path, "rb") as fh:
            return digest(iter(lambda: fh.read(1 << 20), b"")) == path.name[:16]
    except OSError:
        return False


def _evict_uploads(folder: Path, keep: Path) -> None:
    budget = settings().uploads_mb * (1 << 20)
    named = [p for p in folder.iterdir() if p.is_file() and p != keep and _UPLOAD_NAME.match(p.name)]
    if keep.stat().st_size + sum(p.stat().st_size for p in named) <= budget:
        return   # the common case: nothing to delete, nothing read
    # over the budget: only the tool's own uploads count and go (their content checked against their
    # name), oldest first; anything else in the folder is not the tool's to delete
    files = sorted((p for p in named if _is_upload(p)), key=lambda p: p.stat().st_mtime)
    total = keep.stat().st_size + sum(p.stat().st_size for p in files)
    for old in files:
        if total <= budget:
            break
        total -= old.stat().st_size
        old.unlink(missing_ok=True)


def load_pending(tab, source: Source):
    """Load a dataset (raises InputError, or `core.team.store.NotAllowed` for a role that does not
    load data) and make it the Data page's pending choice."""
    from artifact_lens.dashboard.services.team import require

    require(tab, "load data")
    key, ds = current.load(tab, source)
    sess = tab.session
    sess.pending_key, sess.pending_source = key, source
    return ds
