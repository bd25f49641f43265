"""Export a filtered split: CSV, Parquet, JSONL or a `datasets` folder, with the run manifest.

Three selections (`export_frame`):

- ``"retained"``: the examples AFLite kept at the chosen τ and n;
- ``"removed"``: the examples it removed;
- ``"all"``: every example with the score columns ``predictability``,
  ``removed_at`` (the removal phase, -1 if retained), ``retained`` and ``warmup``.

Warm-up examples (used to train the representation Φ) are never scored; they are
left out of ``"retained"`` and ``"removed"``, appear in ``"all"`` with
``warmup = True`` and empty scores, and the manifest lists their ids.

Every format can go to bytes (for a download button) or to a path. Writing to a
path is atomic: the data goes to a temporary file or folder beside the target,
then is renamed over it, so a failed or interrupted export never leaves a partial
file. The manifest (JSON, `core.exports.manifest`) is written beside the data as
``<name>.manifest.json``.

CSV goes through `core.exports.safe_csv` (formula neutralisation of cells and headers,
every text cell quoted); Parquet, JSONL and `datasets` exports keep the text
unchanged.

Every writer streams (`write_file`): the rows go out in chunks of ``chunk_rows``, so
only one chunk is ever converted at a time (CSV through the safe writer chunk by chunk,
Parquet through pyarrow's ``ParquetWriter`` one row group per chunk, JSONL line by
line, a `datasets` folder from an Arrow stream file written chunk by chunk, zipped
from disk). Embeddings stay float32: Parquet keeps them as a list column; CSV has no
list type, so they become JSON text there, and the dashboard leaves them out of CSV
unless asked. `to_bytes` and `write` are built on `write_file`.
"""
from __future__ import annotations

import io
import json
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import numpy as np
import pandas as pd

if TYPE_CHECKING:   # only for annotations: pyarrow is imported where a writer needs it
    import pyarrow as pa

from ..base import paths
from ..base.errors import InputError
from ..base.progress import check_cancel, report
from . import formats
from .formats import ExportFormat, register
from .safe_csv import neutralise_formulas, write_csv_chunks
from ..results.tables import SELECTIONS, ExampleTable

__all__ = ["FORMATS", "SELECTIONS", "export_frame", "neutralise_formulas", "to_bytes", "write",
           "write_file", "manifest_path", "format_of", "mime", "CHUNK_ROWS", "add_quality_columns"]

#: Rows converted at a time by the streaming writers (100k × 768 float32: about 15 MB of
#: vectors per chunk; as CSV JSON text about 60 MB).
CHUNK_ROWS = 4096

#: the export formats by name (`core.exports.formats`: the one registry; the built-in ones are
#: registered below, beside their writers)
FORMATS = formats.FORMATS


def data_suffixes() -> set:
    """Suffixes a data file's name ends with (every input format's, and the archives' and Hub
    files'): cut from a dataset's name to make an export's."""
    from ..data.file_tables import INPUT_FORMATS

    return set(INPUT_FORMATS) | {".txt", ".arrow", ".zip", ".gz"}
format_of = formats.format_of


def _check_choice(name, value, choices):
    if value not in choices:
        raise InputError(f"{name}={value!r} is not supported; use one of {', '.join(map(repr, choices))}")


def export_frame(dataset, run=None, *, live=None, which: str = "retained", include_arrays: bool = True) -> pd.DataFrame:
    """The table to export (see `core.results.tables.ExampleTable.export`, which it calls).

    ``live`` is ``run.result_for(tau, n)`` for the τ and n the user chose (default:
    the fitted run); ``which`` is ``"retained"``, ``"removed"`` or ``"all"``.
    """
    return ExampleTable(dataset, run).export(live, which=which, include_arrays=include_arrays)


def add_quality_columns(frame: pd.DataFrame, quality: pd.DataFrame, columns=None) -> pd.DataFrame:
    """``frame`` (an export frame, with an ``id`` column) with quality columns appended, matched by
    id: by default the seven components, ``dqi`` and ``light`` of a `core.quality` table (indexed by
    id, e.g. ``QualityContext.components()``). Examples the table lacks get NaN and light ``n/a``.
    Raises InputError when the table lacks a column or the frame already has one of that name."""
    from ..quality.scoring import quality_columns

    columns = list(columns or quality_columns())
    missing = [c for c in columns if c not in quality.columns]
    if missing:
        raise InputError(f"the quality table lacks {', '.join(missing)}; compute it with core.quality "
                         "(QualityContext.components or quality_scores).")
    clash = [c for c in columns if c in frame.columns]
    if clash:
        raise InputError(f"the data already has column(s) {', '.join(clash)}; rename them before adding the "
                         "quality columns.")
    if "id" not in frame.columns:
        raise InputError("the export frame has no id column to match the quality table by.")
    found = quality[columns].reindex(pd.Index(frame["id"].astype(str)))
    out = frame.copy()
    for c in columns:
        values = found[c].to_numpy()
        out[c] = np.where(pd.isna(values), "n/a", values) if c.startswith("light") else values
    return out


def _arrays_to_lists(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    for col in array_columns(out):
        out[col] = [None if v is None else np.asarray(v).tolist() for v in out[col]]
    return out


def array_columns(frame: pd.DataFrame) -> list:
    """Columns whose cells are arrays or lists (embeddings, images)."""
    found = []
    for col in frame.columns:
        if frame[col].dtype == object:
            sample = frame[col].dropna()
            if len(sample) and isinstance(sample.iloc[0], (np.ndarray, list, tuple)):
                found.append(col)
    return found


def _chunks(frame: pd.DataFrame, chunk_rows: int, progress, cancel, verb: str):
    n = len(frame)
    for start in range(0, n, max(int(chunk_rows), 1)):
        check_cancel(cancel)
        report(progress, start / max(n, 1), f"{verb} rows {start:,}–{min(start + chunk_rows, n):,} of {n:,}")
        yield frame.iloc[start:start + chunk_rows]
    check_cancel(cancel)


def _arrow_list(cells) -> "pa.Array":
    """Array cells as one Arrow list column; float32 vectors stay float32, without a Python
    list per value (equal-length 1-D vectors: one ``np.stack``)."""
    import pyarrow as pa

    values = list(cells)
    if values and all(isinstance(v, np.ndarray) and v.ndim == 1 for v in values) \
            and len({v.shape[0] for v in values}) == 1 and len({v.dtype for v in values}) == 1:
        flat = np.stack(values).ravel()
        offsets = np.arange(0, len(values) + 1, dtype=np.int32) * values[0].shape[0]
        return pa.ListArray.from_arrays(pa.array(offsets), pa.array(flat))
    return pa.array([None if v is None else np.asarray(v).tolist() for v in values])


class _ArrowChunks:
    """Chunks of an export frame as Arrow tables with one schema (taken from the whole frame's
    plain columns, so a chunk whose text cells are all empty still matches)."""

    def __init__(self, frame: pd.DataFrame):
        import pyarrow as pa

        self.arrays = array_columns(frame)
        self.plain = [c for c in frame.columns if c not in self.arrays]
        self.plain_schema = pa.Schema.from_pandas(frame[self.plain], preserve_index=False)
        self.order = list(frame.columns)
        self.schema = None

    def table(self, chunk: pd.DataFrame) -> "pa.Table":
        import pyarrow as pa

        table = pa.Table.from_pandas(chunk[self.plain], schema=self.plain_schema, preserve_index=False)
        columns = {name: table.column(name) for name in self.plain}
        for col in self.arrays:
            columns[col] = _arrow_list(chunk[col])
        out = pa.table({name: columns[name] for name in self.order}).replace_schema_metadata(table.schema.metadata)
        if self.schema is None:
            self.schema = out.schema
        elif out.schema != self.schema:
            out = out.cast(self.schema)
        return out


def _write_csv(frame, fh, chunk_rows, progress, cancel) -> None:
    if len(frame) == 0:   # the header alone
        write_csv_chunks([frame], fh)
        return
    write_csv_chunks(_chunks(frame, chunk_rows, progress, cancel, "writing CSV"), fh)


def _json_value(value):
    """A cell as JSON holds it: a float with every digit it has (pandas' ``to_json`` keeps 10, so a
    JSONL export lost what CSV and Parquet keep), a missing value or a non-finite float as null, numpy
    scalars as Python's, a time as pandas writes it (milliseconds since 1970)."""
    if isinstance(value, (list, tuple)):
        return [_json_value(v) for v in value]
    if isinstance(value, (float, np.floating)):
        return float(value) if np.isfinite(value) else None
    if isinstance(value, (np.integer, np.bool_)):
        return value.item()
    if isinstance(value, pd.Timestamp):
        return None if pd.isna(value) else int(value.value // 10 ** 6)
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    return value


def _write_jsonl(frame, fh, chunk_rows, progress, cancel) -> None:
    for chunk in _chunks(frame, chunk_rows, progress, cancel, "writing JSONL"):
        rows = _arrays_to_lists(chunk).to_dict(orient="records")
        text = "".join(json.dumps({str(k): _json_value(v) for k, v in row.items()}, ensure_ascii=False,
                                  allow_nan=False, default=str) + "\n" for row in rows)
        fh.write(text.encode("utf-8"))


def _write_parquet(frame, fh, chunk_rows, progress, cancel) -> None:
    import pyarrow.parquet as pq

    conv = _ArrowChunks(frame)
    writer = None
    try:
        for chunk in _chunks(frame, chunk_rows, progress, cancel, "writing Parquet"):
            table = conv.table(chunk)
            if writer is None:
                writer = pq.ParquetWriter(fh, table.schema)
            writer.write_table(table)   # one row group per chunk
        if writer is None:   # no rows: the schema alone
            writer = pq.ParquetWriter(fh, conv.table(frame.iloc[:0]).schema)
    finally:
        if writer is not None:
            writer.close()


for _format in (ExportFormat("csv", "CSV", ".csv", "text/csv", _write_csv, spreadsheet=True),
                ExportFormat("parquet", "Parquet", ".parquet", "application/vnd.apache.parquet", _write_parquet),
                ExportFormat("jsonl", "JSONL", ".jsonl", "application/jsonl", _write_jsonl),
                ExportFormat("datasets", "datasets folder (zip)", "", "application/zip")):
    register(_format)


def _save_datasets_folder(frame: pd.DataFrame, folder: Path, chunk_rows: int = CHUNK_ROWS, progress=None,
                          cancel=None) -> None:
    """``save_to_disk`` layout, built from an Arrow stream file written chunk by chunk (memory-mapped
    by `datasets`, never one table in memory)."""
    import datasets
    import pyarrow as pa

    folder = Path(folder)
    stage = folder.with_name(folder.name + ".arrow-stage")
    stage.mkdir(parents=True)   # new, beside a folder of our own: never a folder someone else made
    try:
        conv = _ArrowChunks(frame)
        arrow = stage / "data.arrow"
        with pa.OSFile(str(arrow), "wb") as sink:
            writer = None
            for chunk in _chunks(frame, chunk_rows, progress, cancel, "writing the datasets folder"):
                table = conv.table(chunk)
                if writer is None:
                    writer = pa.ipc.new_stream(sink, table.schema)
                writer.write_table(table)
            if writer is None:
                writer = pa.ipc.new_stream(sink, conv.table(frame.iloc[:0]).schema)
            writer.close()
        ds = datasets.Dataset.from_file(str(arrow), in_memory=False)
        from datasets.utils import logging as ds_logging

        bars = ds_logging.is_progress_bar_enabled()
        ds_logging.disable_progress_bar()   # progress is ours (``progress``): no second bar on stderr
        try:
            ds.save_to_disk(str(folder))
        finally:
            if bars:
                ds_logging.enable_progress_bar()
        del ds
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _zip_folder(folder: Path, fh) -> None:
    with zipfile.ZipFile(fh, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                zf.write(p, p.relative_to(folder).as_posix())   # read from disk in blocks


def write_file(frame: pd.DataFrame, out, fmt: str, *, manifest: Optional[dict] = None, zipped: bool = True,
               chunk_rows: int = CHUNK_ROWS, progress=None, cancel=None, card: Optional[str] = None,
               files: Optional[dict] = None) -> None:
    """Stream the export to ``out`` in chunks of ``chunk_rows`` rows.

    ``out`` is a binary file object or a path (not made atomic here: `write` and the
    callers write to a temporary and rename). ``fmt="datasets"`` writes a zip of the
    ``save_to_disk`` folder with ``manifest.json`` inside, and ``README.md`` when a dataset
    ``card`` is given (`core.exports.card.dataset_card`), and ``files`` (name → bytes, or a function
    of the written folder giving them: the split's ``certificate.json`` and ``croissant.json``) beside them (``zipped=False`` and a path: the folder itself). ``progress(fraction, message)`` and ``cancel`` (an object with
    ``is_set()``) are checked between chunks; a cancel raises `core.base.errors.Cancelled`.
    """
    _check_choice("fmt", fmt, FORMATS)
    if FORMATS[fmt].folder:   # the datasets folder, the one format that is a folder
        with tempfile.TemporaryDirectory(prefix="artifact-lens-export-",
                                         dir=None if zipped or hasattr(out, "write") else Path(out).parent) as tmp:
            folder = Path(tmp) / "dataset"
            _save_datasets_folder(frame, folder, chunk_rows, progress, cancel)
            if manifest is not None:
                (folder / "manifest.json").write_text(json.dumps(manifest, indent=1, default=str))
            if card is not None:
                (folder / "README.md").write_text(str(card), encoding="utf-8")
            for name, blob in (files or {}).items():
                if Path(name).name != name or name in ("README.md", "manifest.json") or name.startswith("."):
                    raise ValueError(f"{name!r} is not a file name the datasets folder can hold beside its data")
                # bytes, or made from the written folder (croissant.json hashes the data's shards)
                (folder / name).write_bytes(blob(folder) if callable(blob) else blob)
            check_cancel(cancel)
            report(progress, 0.95, "zipping the datasets folder" if zipped else "moving the datasets folder")
            if not zipped:
                paths.rename_noreplace(folder, out)   # a fresh temporary of the output policy: never replaced
            elif hasattr(out, "write"):
                _zip_folder(folder, out)
            else:
                with open(out, "wb") as fh:
                    _zip_folder(folder, fh)
        report(progress, 1.0, "done")
        return
    writer = FORMATS[fmt].write
    if hasattr(out, "write"):
        writer(frame, out, chunk_rows, progress, cancel)
    else:
        with open(out, "wb") as fh:
            writer(frame, fh, chunk_rows, progress, cancel)
    report(progress, 1.0, "done")


def mime(fmt: str) -> str:
    return FORMATS[fmt].mime


def to_bytes(frame: pd.DataFrame, fmt: str, manifest: Optional[dict] = None) -> bytes:
    """The export as bytes (small exports, tests). ``"datasets"`` gives a zip of the
    ``save_to_disk`` folder with ``manifest.json`` inside. Large exports: `write_file`."""
    _check_choice("fmt", fmt, FORMATS)
    buf = io.BytesIO()
    write_file(frame, buf, fmt, manifest=manifest)
    return buf.getvalue()


def manifest_path(path) -> Path:
    path = Path(path)
    stem = path.name[: -len(path.suffix)] if path.suffix else path.name
    return path.with_name(f"{stem}.manifest.json")


def write(frame: pd.DataFrame, path, fmt: Optional[str] = None, manifest: Optional[dict] = None, *,
          card=None, progress=None, cancel=None, chunk_rows: int = CHUNK_ROWS) -> Path:
    """Write the export to ``path`` atomically, and the manifest beside it.

    ``fmt`` defaults from the extension (a path without one means a `datasets`
    folder, which holds the manifest and ``card``, `core.exports.card.card_of`, as README.md too).
    Returns the data path; the manifest is ``<name>.manifest.json``. An existing
    path is replaced only when Artifact Lens wrote it and it is unchanged since
    (`core.exports.outputs`, the one output policy); anything else is refused, untouched.
    """
    from .outputs import Outputs

    path = Path(path)
    if fmt is None:
        fmt = format_of(path)
        if fmt is None:
            raise InputError(f"cannot tell the export format from {path.name!r}; use {formats.described()}, "
                             "or pass fmt=")
    _check_choice("fmt", fmt, FORMATS)
    if not path.parent.exists():
        raise InputError(f"the folder {str(path.parent)!r} does not exist; create it or choose another path")
    outs = Outputs()
    outs.declare("the export", path, folder_ok=FORMATS[fmt].folder)
    if manifest is not None:
        outs.declare("its manifest", manifest_path(path))
    try:
        write_new(frame, outs.path_for("the export"), fmt, manifest=manifest, card=card, progress=progress,
                  cancel=cancel, chunk_rows=chunk_rows)
        if manifest is not None:
            Path(outs.path_for("its manifest")).write_text(json.dumps(manifest, indent=1, default=str))
        outs.commit()
    finally:
        outs.abort()   # temporaries not moved into place
    return path


def write_new(frame: pd.DataFrame, path, fmt: str, *, manifest: Optional[dict] = None, card=None, progress=None,
              cancel=None, chunk_rows: int = CHUNK_ROWS, files: Optional[dict] = None) -> None:
    """Write the export to ``path``, which must not exist yet: a temporary the output policy
    (`core.exports.outputs.Outputs.path_for`) handed out and will move into place. A datasets folder
    holds ``manifest``, ``card`` and ``files`` (see `write_file`)."""
    _check_choice("fmt", fmt, FORMATS)
    if FORMATS[fmt].folder:
        write_file(frame, path, fmt, zipped=False, chunk_rows=chunk_rows, progress=progress, cancel=cancel,
                   manifest=manifest, card=card, files=files)
    else:
        with open(path, "wb") as fh:
            write_file(frame, fh, fmt, progress=progress, cancel=cancel, chunk_rows=chunk_rows)

