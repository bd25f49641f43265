"""Computed results as files a restart reads back: z-filtering, consistency filtering, training
dynamics and cues across splits, whose objects are dataclasses of tables, arrays and plain values.

One zip per result: ``value.json`` holds the structure (dicts, lists, tuples, numbers, text, and
the dataclasses named in `CLASSES`), each table a Parquet part and each array a ``.npy`` part
(no pickle: a damaged or hostile file can only fail to read, never run code). Only the classes
listed are rebuilt; anything else in a file is damage (`core.base.result_store.CorruptResult` through
the store's `load`).
"""
from __future__ import annotations

import dataclasses
import importlib
import io
import json
import math
import zipfile

import numpy as np
import pandas as pd

__all__ = ["write_result", "read_result", "CLASSES"]

#: the result classes a file may name (module, class): nothing else is ever built from a file
CLASSES = {"core.dynamics.transfer.Transfer", "core.dynamics.cartography.Cartography", "core.zstats.zfilter.ZFilterResult",
           "core.zstats.consistency.ConsistencyResult", "core.zstats.statistics.ZStats",
           "core.evaluation.information.UsableInformation"}
#: the names files written before core had packages give the same classes (read as these)
MOVED = {"core.transfer.Transfer": "core.dynamics.transfer.Transfer",
         "core.cartography.Cartography": "core.dynamics.cartography.Cartography"}


def write_result(fh, value) -> None:
    """``value`` as one zip into the binary file object ``fh``. ValueError for what it cannot hold."""
    parts: list = []
    tree = _encode(value, parts)
    with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("value.json", json.dumps(tree, allow_nan=False))
        for i, part in enumerate(parts):
            buf = io.BytesIO()
            if isinstance(part, pd.DataFrame):
                part.to_parquet(buf)
                z.writestr(f"part-{i}.parquet", buf.getvalue())
            else:
                np.save(buf, part, allow_pickle=False)
                z.writestr(f"part-{i}.npy", buf.getvalue())


def read_result(path):
    """What `write_result` wrote to ``path`` (ValueError, KeyError, … on a damaged file)."""
    with zipfile.ZipFile(path) as z:
        names = set(z.namelist())

        def part(i: int, kind: str):
            data = z.read(f"part-{int(i)}.{kind}")
            if kind == "parquet":
                return pd.read_parquet(io.BytesIO(data))
            return np.load(io.BytesIO(data), allow_pickle=False)

        if "value.json" not in names:
            raise ValueError("no value.json in the result file")
        return _decode(json.loads(z.read("value.json")), part)


def _encode(value, parts: list):
    if isinstance(value, pd.DataFrame):
        parts.append(value)
        return {"$frame": len(parts) - 1}
    if isinstance(value, pd.Series):
        parts.append(value.to_frame("value"))
        return {"$series": len(parts) - 1, "name": _encode(value.name, parts)}
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            raise ValueError("an array of Python objects cannot be stored without pickle")
        parts.append(value)
        return {"$array": len(parts) - 1}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        name = f"{type(value).__module__}.{type(value).__qualname__}"
        if name not in CLASSES:
            raise ValueError(f"{name} is not a result class this store keeps")
        return {"$class": name, "fields": {f.name: _encode(getattr(value, f.name), parts)
                                           for f in dataclasses.fields(value)}}
    if isinstance(value, (bool, np.bool_)) or value is None or isinstance(value, str):
        return bool(value) if isinstance(value, np.bool_) else value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else {"$float": repr(float(value))}
    if isinstance(value, tuple):
        return {"$tuple": [_encode(v, parts) for v in value]}
    if isinstance(value, list):
        return [_encode(v, parts) for v in value]
    if isinstance(value, dict):
        if all(isinstance(k, str) and not k.startswith("$") for k in value):
            return {k: _encode(v, parts) for k, v in value.items()}
        return {"$dict": [[_encode(k, parts), _encode(v, parts)] for k, v in value.items()]}
    raise ValueError(f"a {type(value).__name__} cannot be stored in a result file")


def _decode(tree, part):
    if isinstance(tree, list):
        return [_decode(v, part) for v in tree]
    if not isinstance(tree, dict):
        return tree
    if "$frame" in tree:
        return part(tree["$frame"], "parquet")
    if "$series" in tree:
        return part(tree["$series"], "parquet")["value"].rename(_decode(tree["name"], part))
    if "$array" in tree:
        return part(tree["$array"], "npy")
    if "$float" in tree:
        return float(tree["$float"])
    if "$tuple" in tree:
        return tuple(_decode(v, part) for v in tree["$tuple"])
    if "$dict" in tree:
        return {_decode(k, part): _decode(v, part) for k, v in tree["$dict"]}
    if "$class" in tree:
        name = tree["$class"]
        name = MOVED.get(name, name) if isinstance(name, str) else name
        if name not in CLASSES:
            raise ValueError(f"the result file names {str(name)[:80]!r}, which is not a result class")
        module, _, cls = name.rpartition(".")
        return getattr(importlib.import_module(module), cls)(**{k: _decode(v, part) for k, v in tree["fields"].items()})
    return {k: _decode(v, part) for k, v in tree.items()}
