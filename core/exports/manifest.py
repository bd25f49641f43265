"""What an export says about itself: its manifest (the run's record plus what was exported and
how, with no server paths), the dataset's name for files and manifests, the default file name,
the summary line, and the export of a run as fitted from its JSON manifest (`from_manifest`: rows,
manifest and summary). The rows themselves are written by `core.exports.writers`."""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd

from ..base.errors import InputError
from .safe_csv import NEUTRALISATION
from .writers import FORMATS, SELECTIONS, _check_choice, data_suffixes

__all__ = ["manifest_for", "dataset_label", "summary_line", "file_name", "from_manifest"]


def _arrays_included(dataset, include_arrays) -> bool:
    """Whether the export holds embedding or image columns: asked for, and the dataset has one
    (a manifest states only what is true)."""
    return bool(include_arrays) and dataset is not None and bool(dataset.embedding or dataset.image)


def manifest_for(run, *, which: str, fmt: str, rows: int, tau=None, target_size=None,
                 dataset=None, extra: Optional[dict] = None, dataset_name: Optional[str] = None,
                 retained_ids=None, include_arrays: Optional[bool] = None) -> dict:
    """The manifest of one export: the run's record plus what was exported and how.

    ``dataset_name`` is the dataset's name for people (an upload's original file name);
    the manifest keeps only its last path part (`dataset_label`), never a server folder.
    ``retained_ids``: the ids retained at the exported τ/n (after review overrides), listed
    as ``retained_ids`` like the CLI's run manifest.
    """
    export = {"selection": which, "format": fmt, "rows": int(rows), "tau": tau, "target_size": target_size,
              "csv_formula_neutralisation": NEUTRALISATION if fmt == "csv" else None,
              "warmup_note": "warm-up examples trained the representation; they are not scored and are "
                             "not in the retained or removed selections (in 'all' they have warmup=true)"}
    if include_arrays is not None:
        export["embeddings_included"] = _arrays_included(dataset, include_arrays)
    if run is None:
        base = {"tool": "artifact-lens", "dataset": {"name": getattr(dataset, "name", ""),
                                                      "fingerprint": getattr(dataset, "fingerprint", None)},
                "aflite": None}
    else:
        base = run.manifest()
        rep = base.get("representation") or {}
        rep["info"] = _without_server_paths(rep.get("info") or {})
    name = dataset_name or base["dataset"].get("name") or getattr(dataset, "name", "")
    base["dataset"]["name"] = dataset_label(name)
    if retained_ids is not None:
        base["retained_ids"] = [str(i) for i in retained_ids]
    base["export"] = export
    if extra:
        base["export"].update(extra)
    return base


#: representation info that names where the server keeps files (its cache), not what the data is
_SERVER_PATHS = ("cache_path", "memory_mapped")


def _without_server_paths(info: dict) -> dict:
    """Representation info for a manifest that leaves the server: no cache paths, and a vector
    file's name without its folders (its size and modification time stay, to tell versions apart)."""
    out = {k: v for k, v in info.items() if k not in _SERVER_PATHS}
    gone = [str(info[k]) for k in _SERVER_PATHS if info.get(k)]
    if isinstance(out.get("messages"), list):   # a message may quote the cache file it wrote
        out["messages"] = [_replace_all(str(m), gone, "the cache") for m in out["messages"]]
    if isinstance(out.get("source"), dict) and "path" in out["source"]:
        out["source"] = dict(out["source"], path=dataset_label(out["source"]["path"]))
    return out


def _replace_all(text: str, olds, new: str) -> str:
    for old in olds:
        text = text.replace(old, new)
    return text


def dataset_label(name) -> str:
    """A dataset's name for files and manifests: a path's last part (``/srv/cache/uploads/ab12.csv``
    gives ``ab12.csv``; an upload's original name is passed in instead of its cache path); Hub
    names (``nyu-mll/glue (mnli)``) and demo specs stay as they are."""
    text = str(name or "").strip()
    if not text:
        return "dataset"
    looks_like_path = (text.startswith(("/", "./", "../", "~")) or "\\" in text
                       or os.path.exists(os.path.expanduser(text.split(" (")[0])))
    return Path(text).name if looks_like_path and Path(text).name else text


def summary_line(tau, n: int, total: int, rows: int, which: str = "retained") -> str:
    """The export's summary, e.g. ``τ = 0.75, n = 2,952 (30 %) → 7,916 rows retained``: n as a
    count and as a share of the ``total`` scored examples."""
    share = 100.0 * n / total if total else 0.0
    pct = f"{share:.0f}" if share >= 1 or share == 0 else f"{share:.1f}"
    word = {"retained": "retained", "removed": "removed", "all": "in all (with scores)"}.get(which, which)
    return f"τ = {float(tau):.2f}, n = {int(n):,} ({pct} %) → {int(rows):,} rows {word}"


def file_name(dataset_name: str, which: str, fmt: str) -> str:
    """A safe default file name such as ``snli_dev-retained.csv``."""
    label = dataset_label(dataset_name)
    stem = Path(label).stem if Path(label).suffix.lower() in data_suffixes() else label
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", stem).strip("._") or "dataset"
    return f"{stem}-{which}{FORMATS[fmt].suffix}"


def from_manifest(dataset, man: dict, *, which: str = "retained", fmt: str = "csv", tau=None, target_size=None,
                  include_arrays: bool = True, extra: Optional[dict] = None) -> tuple:
    """The export of a run as fitted, from the JSON manifest ``artifact-lens aflite --manifest``
    wrote (it holds the retained ids, not the scores): ``(frame, manifest, summary)``. A saved
    run's export (any τ/n) is `core.usecases.exports.export_split`."""
    _check_choice("which", which, SELECTIONS)
    _check_choice("format", fmt, FORMATS)
    if tau is not None or target_size is not None:
        raise InputError("--tau/--target-size need the run's trajectory, which a manifest does not hold; give the "
                         "run .npz, or drop them to export the run as fitted.")
    if which == "all":
        raise InputError("--which all writes the score columns, which a manifest does not hold; give the run .npz, "
                         "or export --which retained / removed.")
    table = dataset.written_rows()   # preference pairs in the shape they came in
    ids = table.index.astype(str)
    kept = ids.isin(pd.Index([str(i) for i in man["retained_ids"]]))
    warm = ids.isin(pd.Index([str(i) for i in man.get("warmup_excluded_ids", [])]))
    chosen = kept if which == "retained" else ~kept & ~warm
    if not include_arrays:
        table = table.drop(columns=[c for c in (dataset.embedding, dataset.image) if c and c in table.columns])
    frame = table.iloc[np.flatnonzero(chosen)].reset_index(drop=True)
    frame.insert(0, "id", np.asarray(ids)[chosen])
    resolved = man["aflite"].get("resolved", {})
    manifest = {k: v for k, v in man.items() if k not in ("export", "command")}
    manifest["dataset"] = dict(man["dataset"], name=dataset_label(man["dataset"].get("name") or dataset.name))
    manifest["export"] = {"selection": which, "format": fmt, "rows": int(len(frame)), "tau": resolved.get("tau"),
                          "target_size": resolved.get("n"),
                          "embeddings_included": _arrays_included(dataset, include_arrays),
                          "csv_formula_neutralisation": NEUTRALISATION if fmt == "csv" else None, **(extra or {})}
    scored = int((~warm).sum())
    return frame, manifest, summary_line(resolved.get("tau", 0.0), resolved.get("n", 0), scored, int(kept.sum()))
