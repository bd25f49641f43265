"""The export formats, one registry (issue 43: an extension point is one entry, not parallel lists).

Each `ExportFormat` says everything the tool needs of a format: its name (``--format``, the Export
page's value), the words a person reads, the file ending an output path takes (none for a folder),
its MIME type (the page's download) and how it streams a table to a binary file. The CLI's choices
and help, the Export page's options, the output policy's endings, `format_of` and the writers read
this registry; adding a format is one `register` call, and `tests/unit/test_export_format_checks.py` runs its
common checks (read back, formulas neutralised) the day it is added.

A format that is a folder (``datasets``) has no streaming writer: `core.exports.writers` builds it.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from ..base.registry import Registry

__all__ = ["ExportFormat", "register", "FORMATS", "names", "format_of", "endings", "described", "SPREADSHEET_ENDINGS"]


@dataclass(frozen=True)
class ExportFormat:
    name: str                 #: ``--format`` and the page's value, e.g. ``"parquet"``
    title: str                #: what the Export page calls it, e.g. ``"Parquet"``
    suffix: str               #: the ending of an output path, e.g. ``".parquet"``; ``""`` for a folder
    mime: str                 #: the download's media type
    #: ``write(frame, fh, chunk_rows, progress, cancel)``: stream ``frame`` to the binary file ``fh`` in
    #: chunks (None: a folder, which `core.exports.writers` builds)
    write: Optional[Callable] = None
    #: a spreadsheet opens it as a table: a text cell a spreadsheet would run as a formula is written
    #: neutralised (`core.exports.safe_csv`); `tests/unit/test_export_format_checks.py` holds every
    #: format to what it declares, and a format with a spreadsheet's ending (`SPREADSHEET_ENDINGS`) to this
    spreadsheet: bool = False

    @property
    def folder(self) -> bool:
        return self.write is None


#: name -> format, in the order the CLI and the page list them
FORMATS = Registry("export format")

#: the endings a spreadsheet opens as a table (a format with one must declare ``spreadsheet``)
SPREADSHEET_ENDINGS = (".csv", ".tsv", ".tab", ".txt", ".xls", ".xlsx", ".ods")


def register(fmt: ExportFormat) -> ExportFormat:
    """Add ``fmt`` (a name or an ending already taken is a mistake in the code, said at import)."""
    if fmt.suffix and any(f.suffix == fmt.suffix for f in FORMATS.values()):
        raise ValueError(f"the ending {fmt.suffix!r} of {fmt.name!r} is another export format's")
    return FORMATS.add(fmt.name, fmt)


def names() -> tuple:
    return tuple(FORMATS)


def format_of(path) -> Optional[str]:
    """The export format an output path's ending names (``.csv`` -> csv, no ending -> the folder
    format), or None when its ending names none."""
    suffix = Path(path).suffix.lower()
    return next((f.name for f in FORMATS.values() if f.suffix == suffix), None)


def endings() -> tuple:
    """Every ending an export path may take (``""``: a folder)."""
    return tuple(f.suffix for f in FORMATS.values())


def described() -> str:
    """The endings in words, for help texts and errors: ".csv, .parquet, .jsonl, or a folder (datasets)"."""
    files = [f.suffix for f in FORMATS.values() if f.suffix]
    folders = [f.name for f in FORMATS.values() if not f.suffix]
    return ", ".join(files) + (f", or a folder ({', '.join(folders)})" if folders else "")
