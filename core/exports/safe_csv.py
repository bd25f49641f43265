"""The one CSV writer: every CSV the project writes (CLI and dashboard) goes through it.

Two dangers of CSV, both handled here:

- **Formula injection**: a spreadsheet runs a cell that starts with ``=``, ``+``,
  ``-`` or ``@`` (or a tab / carriage return) as a formula. Such text cells *and
  header names* get a leading apostrophe (``'=HYPERLINK(...)``), the usual
  neutralisation (OWASP "CSV injection"); spreadsheets show the text, not a result.
  Text that is just a number (``-1``, ``+0.5``) is left alone, and so are numeric
  columns. Ids are text like any other cell: an id ``=1`` is written ``'=1``
  (`NEUTRALISATION` says so in manifests).
- **Broken rows**: every text cell is quoted (``csv.QUOTE_NONNUMERIC``), so a lone
  carriage return or newline, quotes, tabs and NUL stay inside their cell and the
  file reads back cell for cell (UTF-8, emoji and right-to-left text included).

Lists and arrays in cells (embeddings) are written as JSON text.
"""
from __future__ import annotations

import csv
import json
import re
from typing import Optional

import numpy as np
import pandas as pd

__all__ = ["to_csv_bytes", "write_csv", "write_csv_chunks", "neutralise_formulas", "neutralise", "NEUTRALISATION"]

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")

#: What manifests say about CSV files.
NEUTRALISATION = ("text cells and column names starting with = + - @ tab or CR are prefixed with ' "
                  "(plain numbers excepted), ids included; every text cell is quoted")


def neutralise(value):
    """``value`` with a leading ``'`` when a spreadsheet would run it as a formula."""
    if isinstance(value, str) and value.startswith(_FORMULA_START) and not _PLAIN_NUMBER.match(value):
        return "'" + value
    return value


def neutralise_formulas(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy where text cells and column names that a spreadsheet would run as a formula
    start with ``'``; numbers and strings that are plain numbers stay as they are."""
    out = frame.copy()
    types = pd.api.types
    for col in out.columns:
        series = out[col]
        # every column that can hold text, whatever its dtype: object, string, category (whose
        # categories are text too), mixed; only numbers, booleans and datetimes cannot
        if not (types.is_numeric_dtype(series.dtype) or types.is_bool_dtype(series.dtype)
                or types.is_datetime64_any_dtype(series.dtype) or types.is_timedelta64_dtype(series.dtype)):
            out[col] = series.astype(object).map(neutralise)
    out.columns = [neutralise(str(c)) for c in out.columns]
    return out


def _arrays_to_json_text(frame: pd.DataFrame) -> pd.DataFrame:
    """Lists, arrays and mappings in cells become JSON text (CSV has neither: BBQ's ``answer_info``
    written as Python's repr would not read back)."""
    out = frame.copy()
    for col in out.columns:
        if out[col].dtype != object:
            continue
        sample = out[col].dropna()
        if len(sample) and isinstance(sample.iloc[0], (list, tuple, np.ndarray)):
            fast = _vectors_as_json(out[col])
            out[col] = fast if fast is not None else [json.dumps(np.asarray(v).tolist()) if v is not None else None
                                                      for v in out[col]]
        elif len(sample) and isinstance(sample.iloc[0], dict):
            out[col] = [json.dumps(v, default=_plain) if isinstance(v, dict) else v for v in out[col]]
    return out


def _plain(value):
    """A NumPy value inside a mapping, as JSON has it."""
    if isinstance(value, (np.generic, np.ndarray)):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON")


def _vectors_as_json(cells: pd.Series):
    """Equal-length 1-D float vectors, all finite, as JSON lists in one vectorised pass (Arrow's
    shortest round-trip text: float32 stays exact at half the length of Python's float repr);
    None when the cells are anything else (then each is ``json.dumps``-ed)."""
    values = list(cells)
    if not values or not all(isinstance(v, np.ndarray) and v.ndim == 1 and v.dtype.kind == "f" for v in values):
        return None
    if len({v.shape[0] for v in values}) != 1 or len({v.dtype for v in values}) != 1 or values[0].shape[0] == 0:
        return None
    block = np.stack(values)
    if not np.isfinite(block).all():   # Arrow writes nan/inf, which JSON has no words for
        return None
    import pyarrow as pa
    import pyarrow.compute as pc

    width = block.shape[1]
    text = pc.cast(pa.array(block.ravel()), pa.string())
    rows = pa.ListArray.from_arrays(pa.array(np.arange(0, block.size + 1, width, dtype=np.int64)), text)
    return pc.binary_join_element_wise("[", pc.binary_join(rows, ","), "]", "").to_pylist()


def to_csv_bytes(frame: pd.DataFrame, float_format: Optional[str] = None, *, header: bool = True) -> bytes:
    """``frame`` as safe CSV (UTF-8, no index); ``float_format`` as in pandas (e.g. ``"%.6g"``).
    ``header=False`` gives the rows only (the second and later chunks of a streamed file)."""
    safe = neutralise_formulas(_arrays_to_json_text(frame))
    return safe.to_csv(index=False, header=header, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\r\n",
                       float_format=float_format).encode("utf-8")


def write_csv_chunks(chunks, fh, float_format: Optional[str] = None) -> int:
    """Write an iterable of frames (same columns) to the binary file ``fh`` as one safe CSV:
    the header once, then each chunk's rows, so only one chunk is in memory as text. Returns
    the rows written. An empty iterable writes nothing."""
    rows = 0
    for i, chunk in enumerate(chunks):
        fh.write(to_csv_bytes(chunk, float_format, header=i == 0))
        rows += len(chunk)
    return rows


def write_csv(frame: pd.DataFrame, path_or_file, float_format: Optional[str] = None) -> None:
    """Write safe CSV to a path or a binary file object (callers make it atomic)."""
    data = to_csv_bytes(frame, float_format)
    if hasattr(path_or_file, "write"):
        path_or_file.write(data)
    else:
        with open(path_or_file, "wb") as fh:
            fh.write(data)
