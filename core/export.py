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
file. The manifest (JSON) is written beside the data as ``<name>.manifest.json``.

CSV goes through `core.safe_csv` (formula neutralisation of cells and headers,
every text cell quoted); Parquet, JSONL and `datasets` exports keep the text
unchanged.
"""
from __future__ import annotations

import io
import json
import os
import re
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd

from core import paths
from core.errors import InputError
from core.safe_csv import NEUTRALISATION, neutralise_formulas, to_csv_bytes
from core.tables import SELECTIONS, ExampleTable

__all__ = ["FORMATS", "SELECTIONS", "export_frame", "neutralise_formulas", "to_bytes", "write",
           "manifest_for", "file_name"]

FORMATS = ("csv", "parquet", "jsonl", "datasets")
_EXTENSION = {"csv": ".csv", "parquet": ".parquet", "jsonl": ".jsonl", "datasets": ""}
_MIME = {"csv": "text/csv", "parquet": "application/vnd.apache.parquet", "jsonl": "application/jsonl",
         "datasets": "application/zip"}


def _check_choice(name, value, choices):
    if value not in choices:
        raise InputError(f"{name}={value!r} is not supported; use one of {', '.join(map(repr, choices))}")


def export_frame(dataset, run=None, *, live=None, which: str = "retained", include_arrays: bool = True) -> pd.DataFrame:
    """The table to export (see `core.tables.ExampleTable.export`, which it calls).

    ``live`` is ``run.result_for(tau, n)`` for the τ and n the user chose (default:
    the fitted run); ``which`` is ``"retained"``, ``"removed"`` or ``"all"``.
    """
    return ExampleTable(dataset, run).export(live, which=which, include_arrays=include_arrays)


def _arrays_to_lists(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    for col in out.columns:
        if out[col].dtype == object:
            sample = out[col].dropna()
            if len(sample) and isinstance(sample.iloc[0], np.ndarray):
                out[col] = [np.asarray(v).tolist() for v in out[col]]
    return out


def _parquet_bytes(frame: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    _arrays_to_lists(frame).to_parquet(buf, index=False)
    return buf.getvalue()


def _jsonl_bytes(frame: pd.DataFrame) -> bytes:
    return _arrays_to_lists(frame).to_json(orient="records", lines=True, force_ascii=False).encode("utf-8")


def _save_datasets_folder(frame: pd.DataFrame, folder: Path) -> None:
    import datasets

    ds = datasets.Dataset.from_pandas(_arrays_to_lists(frame), preserve_index=False)
    ds.save_to_disk(str(folder))


def manifest_for(run, *, which: str, fmt: str, rows: int, tau=None, target_size=None,
                 dataset=None, extra: Optional[dict] = None) -> dict:
    """The manifest of one export: the run's record plus what was exported and how."""
    export = {"selection": which, "format": fmt, "rows": int(rows), "tau": tau, "target_size": target_size,
              "csv_formula_neutralisation": NEUTRALISATION if fmt == "csv" else None,
              "warmup_note": "warm-up examples trained the representation; they are not scored and are "
                             "not in the retained or removed selections (in 'all' they have warmup=true)"}
    if run is None:
        base = {"tool": "artifact-lens", "dataset": {"name": getattr(dataset, "name", ""),
                                                      "fingerprint": getattr(dataset, "fingerprint", None)},
                "aflite": None}
    else:
        base = run.manifest()
    base["export"] = export
    if extra:
        base["export"].update(extra)
    return base


def file_name(dataset_name: str, which: str, fmt: str) -> str:
    """A safe default file name such as ``snli_dev-retained.csv``."""
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(str(dataset_name) or "dataset").stem).strip("._") or "dataset"
    return f"{stem}-{which}{_EXTENSION[fmt]}" if fmt != "datasets" else f"{stem}-{which}"


def mime(fmt: str) -> str:
    return _MIME[fmt]


def to_bytes(frame: pd.DataFrame, fmt: str, manifest: Optional[dict] = None) -> bytes:
    """The export as bytes, for ``st.download_button``.

    ``"datasets"`` gives a zip of the ``save_to_disk`` folder with ``manifest.json``
    inside (a folder cannot be downloaded as one file).
    """
    _check_choice("fmt", fmt, FORMATS)
    if fmt == "csv":
        return to_csv_bytes(frame)
    if fmt == "parquet":
        return _parquet_bytes(frame)
    if fmt == "jsonl":
        return _jsonl_bytes(frame)
    with tempfile.TemporaryDirectory(prefix="artifact-lens-export-") as tmp:
        folder = Path(tmp) / "dataset"
        _save_datasets_folder(frame, folder)
        if manifest is not None:
            (folder / "manifest.json").write_text(json.dumps(manifest, indent=1, default=str))
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            for p in sorted(folder.rglob("*")):
                if p.is_file():
                    zf.write(p, p.relative_to(folder).as_posix())
        return buf.getvalue()


def manifest_path(path) -> Path:
    path = Path(path)
    stem = path.name[: -len(path.suffix)] if path.suffix else path.name
    return path.with_name(f"{stem}.manifest.json")


def write(frame: pd.DataFrame, path, fmt: Optional[str] = None, manifest: Optional[dict] = None) -> Path:
    """Write the export to ``path`` atomically, and the manifest beside it.

    ``fmt`` defaults from the extension (a path without one means a `datasets`
    folder). Returns the data path; the manifest is ``<name>.manifest.json``.
    """
    path = Path(path)
    if fmt is None:
        fmt = {".csv": "csv", ".parquet": "parquet", ".jsonl": "jsonl", "": "datasets"}.get(path.suffix.lower())
        if fmt is None:
            raise InputError(f"cannot tell the export format from {path.name!r}; use .csv, .parquet, .jsonl, "
                             "a folder name without extension, or pass fmt=")
    _check_choice("fmt", fmt, FORMATS)
    if not path.parent.exists():
        raise InputError(f"the folder {str(path.parent)!r} does not exist; create it or choose another path")
    if fmt == "datasets":
        tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent))
        try:
            _save_datasets_folder(frame, tmp / "data")
            if path.exists():
                old = path.with_name(f".{path.name}.old")
                shutil.rmtree(old, ignore_errors=True)
                os.replace(path, old)
                os.replace(tmp / "data", path)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.replace(tmp / "data", path)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    else:
        paths.atomic_write(path, lambda fh: fh.write(to_bytes(frame, fmt)))
    if manifest is not None:
        paths.atomic_write(manifest_path(path), lambda fh: fh.write(json.dumps(manifest, indent=1, default=str).encode()))
    return path
