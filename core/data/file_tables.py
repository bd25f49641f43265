"""One local data file read into a table: its format from its name, checks that refuse what
would read wrongly (a repeated header, a repeated JSON key, NUL bytes, a file larger than the
memory left) and columns turned into numbers only when no cell loses characters."""
from __future__ import annotations

import csv
import gzip
import json
import io
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from ..base import memory
from ..base.errors import InputError
from ..base.registry import Registry
from ..base.memory import size_text

@dataclass(frozen=True)
class InputFormat:
    """A kind of data file the tool reads, declared once in `INPUT_FORMATS`: the loader, the upload
    widget's accepted types, the CLI's help, the export's data suffixes and the docs derive from it."""

    suffix: str                                #: ".csv" (a ".gz" after it is read through gzip)
    name: str                                  #: "CSV", as messages name it
    read: Callable[[Path], pd.DataFrame]       #: the file's table (raises InputError or a reader's error)
    text: bool = True                          #: text, so a NUL byte means a binary or damaged file
    expansion: float = 2                       #: memory per byte on disk once read (a guard, not a budget)

    def __post_init__(self):
        if not re.fullmatch(r"\.[a-z0-9]+", self.suffix) or self.suffix == ".gz":
            raise ValueError(f"an input format's suffix is a dot and lower-case letters, not {self.suffix!r}")


def _read_csv(path: Path) -> pd.DataFrame:
    _duplicate_header(path, ",")
    return _numbers_without_loss(pd.read_csv(path, keep_default_na=False, na_values=[""], dtype=str))


def _read_tsv(path: Path) -> pd.DataFrame:
    _duplicate_header(path, "\t")
    return _numbers_without_loss(pd.read_csv(path, sep="\t", keep_default_na=False, na_values=[""],
                                             quoting=_tsv_quoting(path), dtype=str))


def _read_jsonl(path: Path) -> pd.DataFrame:
    """(JSON's floats read with every digit, ``precise_float``: the default parser changed the last
    one, so a file read and written back did not hold the same numbers.)"""
    where = _bad_json_line(path)
    if where:
        raise InputError(f"could not read {path} as JSON Lines: {where}. Fix that line (one JSON object "
                         "per line, UTF-8) or export the file again.")
    return pd.read_json(path, lines=True, dtype=False, precise_float=True, encoding="utf-8-sig")


def _read_json(path: Path) -> pd.DataFrame:
    """A JSON document (records, or a table by columns), or JSON Lines in a ``.json`` file. Read as
    JSON Lines are: a leading BOM is not data, and an object that repeats a key is refused, where a
    reader would silently keep one of its values."""
    opener = gzip.open if path.suffix.lower() == ".gz" else open
    with opener(path, "rt", encoding="utf-8-sig") as fh:
        text = fh.read()
    try:
        json.loads(text, object_pairs_hook=_unique_keys)
    except _RepeatedKey as exc:
        raise InputError(f"{path} repeats the key {exc.args[0]!r} in an object (a reader would keep only one of its "
                         "values); give every field one name, or export the file again.") from None
    except ValueError:   # not one JSON document: JSON Lines, with their own checks
        return _read_jsonl(path)
    return pd.read_json(io.StringIO(text), dtype=False, precise_float=True)


def _read_parquet(path: Path) -> pd.DataFrame:
    return pd.read_parquet(path)


#: every input file format, by suffix: the one place to add one
INPUT_FORMATS = Registry("input format for")


def register_input_format(fmt: InputFormat) -> InputFormat:
    """Add ``fmt`` to `INPUT_FORMATS` (ValueError for a suffix already taken)."""
    return INPUT_FORMATS.add(fmt.suffix, fmt)


for _fmt in (InputFormat(".csv", "CSV", _read_csv), InputFormat(".tsv", "TSV", _read_tsv),
             InputFormat(".jsonl", "JSON Lines", _read_jsonl), InputFormat(".json", "JSON", _read_json),
             InputFormat(".parquet", "Parquet", _read_parquet, text=False, expansion=5)):
    register_input_format(_fmt)
del _fmt


def _duplicate_header(path: Path, sep: str) -> None:
    """Repeated column names (pandas would silently rename the second 'a' to 'a.1')."""
    opener = gzip.open if path.suffix.lower() == ".gz" else open
    with opener(path, "rt", encoding="utf-8-sig", errors="replace", newline="") as fh:   # a BOM is not a name
        header = next(csv.reader(fh, delimiter=sep), [])
    repeated = sorted({c for c in header if header.count(c) > 1})
    if repeated:
        raise InputError(f"{path} repeats column names ({', '.join(map(repr, repeated))}); give every column a "
                         "unique name in the header row.")


_LONE_CR = ("{name}: line {line} holds a carriage return (\\r) outside quotes, which ends a row for every reader, so "
            "its rows cannot be told apart; export it again with such cells quoted (Python's csv module does), or as "
            "JSON Lines or Parquet.")


def _tsv_quoting(path: Path) -> int:
    """How a TSV's quotes are read: as pandas and Python's csv write them (a cell holding a tab, a
    line break or a quote is quoted, its quotes doubled), or as literal characters (GLUE's raw TSVs,
    whose texts hold stray quotes). Read literally, a quoted cell with a line break splits one row
    into several, silently; read as quoting, a stray quote joins rows. So the file decides:
    ``csv.QUOTE_MINIMAL`` when writing its rows back that way gives its text again, else
    ``csv.QUOTE_NONE`` when every line has the header's number of cells, else InputError."""
    opener = gzip.open if path.suffix.lower() == ".gz" else open
    with opener(path, "rt", encoding="utf-8-sig", errors="replace", newline="") as fh:
        text = fh.read()
    text = text.replace("\r\n", "\n")
    # a carriage return alone (pandas writes one unquoted) ends a row for every reader: only a
    # quoted cell may hold it
    lone = text.find("\r")
    if '"' not in text:
        if lone >= 0:
            raise InputError(_LONE_CR.format(name=path.name, line=text.count("\n", 0, lone) + 1))
        return csv.QUOTE_NONE   # nothing to decide: both read the same rows

    limit = csv.field_size_limit()
    csv.field_size_limit(max(limit, len(text)))   # a cell may be the whole file (pandas has no limit)
    try:
        # one row at a time, never the file's rows in memory twice beside its text (a TSV can be large)
        if _writes_back(text):
            return csv.QUOTE_MINIMAL
        short = _first_short_line(text)
    finally:
        csv.field_size_limit(limit)
    if short is None:
        if lone >= 0:
            raise InputError(_LONE_CR.format(name=path.name, line=text.count("\n", 0, lone) + 1))
        return csv.QUOTE_NONE
    line, cells, width = short
    raise InputError(f"{path.name}: its quotes fit neither way a TSV is read: as quoting (a cell in quotes may hold "
                     "a tab or a line break) its rows do not write back as the file; as literal text "
                     + (f"line {line} has {cells} cells where the header has {width}" if line else
                        "a cell holds a line break") + ". Export it "
                     "again with quotes doubled inside quoted cells (pandas' to_csv(sep='\\t') does), or as JSON Lines "
                     "or Parquet.")


def _writes_back(text: str) -> bool:
    """Whether ``text``'s rows, read with quoting and written back the way pandas and csv write a
    TSV, give ``text`` again (compared row by row as they are read)."""
    import io

    out, at = io.StringIO(newline=""), 0
    writer = csv.writer(out, delimiter="\t", lineterminator="\n")
    try:
        for row in csv.reader(io.StringIO(text, newline=""), delimiter="\t"):
            writer.writerow(row)
            piece = out.getvalue()
            chunk = text[at:at + len(piece)]
            # the last row may end the file without its line break
            if chunk != piece and not (chunk == piece[:-1] and at + len(chunk) == len(text)):
                return False
            at += len(chunk)
            out.seek(0)
            out.truncate()
    except csv.Error:
        return False
    return not text[at:].strip("\n")


def _first_short_line(text: str):
    """(line, cells, the header's cells) of the first line read literally (quotes as text) whose cell
    count is not the header's, (0, 0, 0) when a reader cannot read it so, or None when every line fits."""
    import io

    try:
        rows = csv.reader(io.StringIO(text, newline=""), delimiter="\t", quoting=csv.QUOTE_NONE)
        width = len(next(rows, []))
        for number, row in enumerate(rows, 2):
            if row and len(row) != width:
                return number, len(row), width
    except csv.Error:   # a line break in a cell read without quoting
        return 0, 0, 0
    return None


def _bad_json_line(path: Path) -> str:
    """Where a JSON Lines file first fails to parse, by line number."""
    opener = gzip.open if path.suffix.lower() == ".gz" else open
    with opener(path, "rt", encoding="utf-8-sig", errors="replace") as fh:   # a BOM is not data
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                if not isinstance(json.loads(line, object_pairs_hook=_unique_keys), dict):
                    return f"line {number} is not a JSON object"
            except _RepeatedKey as exc:
                return f"line {number} repeats the key {exc.args[0]!r} (a reader would keep only one of its values)"
            except ValueError as exc:
                return f"line {number} is not valid JSON ({exc.msg})"
    return ""


class _RepeatedKey(Exception):
    pass


def _unique_keys(pairs):
    keys = [k for k, _ in pairs]
    if len(set(keys)) < len(keys):
        raise _RepeatedKey(next(k for k in keys if keys.count(k) > 1))
    return dict(pairs)


def file_type(path: Path) -> str:
    """The file's extension (``.csv`` …), ignoring a trailing ``.gz``; InputError when unsupported."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    ext = suffixes[-1] if suffixes else ""
    if ext not in INPUT_FORMATS:
        kinds = ", ".join(INPUT_FORMATS)
        raise InputError(
            f"unknown file type '{ext or path.name}' for {path}: supported types are {kinds} "
            "(optionally .gz-compressed) and folders written by datasets' save_to_disk. "
            "Rename the file with the right extension or convert it."
        )
    return ext


def _text_size(path: Path) -> int:
    """Bytes the file's text takes once read: its size, or a .gz file's recorded uncompressed size
    (the gzip trailer, modulo 4 GiB; never below its compressed size)."""
    size = path.stat().st_size
    if path.suffix.lower() != ".gz" or size < 18:
        return size
    with open(path, "rb") as fh:
        fh.seek(-4, os.SEEK_END)
        return max(size, int.from_bytes(fh.read(4), "little"))


def _check_text_bytes(path: Path, ext: str) -> None:
    """Text formats hold no NUL byte: a sparse file (its holes read as NULs) or a binary file
    named .csv would otherwise be parsed into one giant cell."""
    if not INPUT_FORMATS[ext].text:
        return
    if path.suffix.lower() != ".gz":
        with open(path, "rb") as fh:
            try:
                hole = os.lseek(fh.fileno(), 0, os.SEEK_HOLE)
            except (OSError, AttributeError):   # no SEEK_HOLE here: the sample below still looks
                hole = path.stat().st_size
        if hole < path.stat().st_size:
            raise InputError(f"{path} is a sparse file (from byte {hole:,} on it has unwritten gaps, read as NUL "
                             f"bytes), not {INPUT_FORMATS[ext].name} text; export the dataset again.")
    opener = gzip.open if path.suffix.lower() == ".gz" else open
    try:
        with opener(path, "rb") as fh:
            sample = fh.read(1 << 20)
    except (OSError, EOFError):
        return   # the reader names a damaged file
    at = sample.find(b"\0")
    if at >= 0:
        raise InputError(f"{path} holds NUL bytes (at byte {at:,}), so it is not {INPUT_FORMATS[ext].name} "
                         "text: it may be binary or damaged; export the dataset again.")


def _check_fits_in_memory(path: Path, ext: str) -> None:
    """A dataset file is read whole into memory (pandas); one that would take more than the
    memory left would end in the kernel killing the process, so refuse it with the sizes and
    the fix."""
    _check_text_bytes(path, ext)
    size, avail = _text_size(path), memory.available_memory()
    need = size * INPUT_FORMATS[ext].expansion
    if avail is not None and need > avail:
        raise InputError(
            f"'{path.name}' holds {size_text(size)} and a {INPUT_FORMATS[ext].name} dataset is read whole into memory (it "
            f"cannot be memory-mapped; about {size_text(need)} once read), but only {size_text(avail)} of memory is "
            "available. Keep large embeddings out of "
            "the dataset file: save them as a float32 .npy (one row per example, in the dataset's row order) and "
            "pass it with -r file:path=emb.npy, which is memory-mapped; keep ids, labels and text in a smaller "
            "(Parquet) file.")


def read_file(path: Path) -> pd.DataFrame:
    ext = file_type(path)
    _check_fits_in_memory(path, ext)
    fmt = INPUT_FORMATS[ext]
    try:
        frame = fmt.read(path)
    except InputError:
        raise
    except (ValueError, UnicodeDecodeError, OSError, pd.errors.ParserError) as exc:
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(
            f"could not read {path} as {fmt.name}: {detail}. "
            f"Check that the file is valid {fmt.name} (UTF-8, one header row for CSV/TSV, "
            "one JSON object per line for JSONL) or export it again."
        ) from None
    except Exception as exc:  # pyarrow raises its own error types for corrupt Parquet
        raise InputError(
            f"could not read {path} as {fmt.name}: {type(exc).__name__}: {exc}. "
            "The file looks damaged; export it again."
        ) from None
    if frame.empty:
        raise InputError(f"{path} holds no rows; choose a file with labelled examples.")
    return frame


#: the spelling of booleans read as booleans: the one they are written back in (``true`` stays text)
_BOOLEAN = {"True": True, "False": False}
_LOSSY = re.compile(r"^\s|\s$|^[+-]?0\d|^\+")


def _numbers_without_loss(frame: pd.DataFrame) -> pd.DataFrame:
    """CSV cells are text; a column becomes numbers only when every cell is written back as the
    same text (``000``, ``007``, ``+1`` and padded cells stay text: they are ids or codes, and
    ``000`` written back as ``0`` would be another example). So whole numbers become integers only
    in a column without a blank (a blank would make them floats, ``10`` written back as ``10.0``),
    and other numbers floats only where each reads back as written (``1.10`` would come back as
    ``1.1``, the same option as ``1.1``); every other column keeps its text."""
    for col in frame.columns:
        cells = frame[col]
        present = cells.dropna()
        if len(present) and present.isin(_BOOLEAN).all():
            frame[col] = cells.map(_BOOLEAN.get)   # pandas' own reading of True/False columns
            continue
        if not len(present) or present.str.contains(_LOSSY).any():
            continue
        numbers = pd.to_numeric(cells, errors="coerce")
        if not numbers[cells.notna()].notna().all():
            continue
        if not present.str.contains(r"[.eE]").any():
            if len(present) == len(cells) and np.isfinite(numbers).all() and (numbers == numbers.round()).all():
                ints = numbers.astype("int64")
                if (ints.astype(str) == present).all():
                    frame[col] = ints
        elif (numbers[cells.notna()].map(repr) == present).all():
            frame[col] = numbers
    return frame
