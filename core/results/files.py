"""Computed results as files a restart reads back: z-filtering, consistency filtering, training
dynamics and cues across splits, whose objects are dataclasses of tables, arrays and plain values.

One zip per result: ``value.json`` holds the structure (dicts, lists, tuples, numbers, text, and
the dataclasses named in `CLASSES`), each table a Parquet part and each array a ``.npy`` part
(no pickle: a damaged or hostile file can only fail to read, never run code). Only the classes
listed are rebuilt; anything else in a file is damage (`core.base.result_store.CorruptResult` through
the store's `load`).

A file reads back as what it claims or not at all: every field of a class is checked against the
type the class declares (a table where a table is due, a number where a number is), a table's ids
are text, ``value.json`` has no repeated key, and each part's size is checked against a bound (and an
array's header against its data) before anything is allocated, so a small hostile file cannot make
the process run out of memory. Each refusal is a ValueError naming the field or the part.
"""
from __future__ import annotations

import dataclasses
import io
import json
import math
import types
import typing
import zipfile

import numpy as np
import pandas as pd

from ..base.strict_json import unique_keys

__all__ = ["write_result", "read_result", "CLASSES", "PART_MAX", "METADATA_MAX"]

#: the largest part (uncompressed bytes) a result file may hold: far above any result of a 1M-row run
PART_MAX = 2 << 30
#: the largest Parquet footer (schema and key-value metadata) a part may have
METADATA_MAX = 16 << 20
#: columns (and an index name) that hold example ids, which are text
ID_COLUMNS = ("id", "example_id", "train_id", "eval_id")

#: the result classes a file may name (module, class): nothing else is ever built from a file
CLASSES = {"core.dynamics.transfer.Transfer", "core.dynamics.cartography.Cartography", "core.zstats.zfilter.ZFilterResult",
           "core.zstats.consistency.ConsistencyResult", "core.zstats.statistics.ZStats",
           "core.evaluation.information.UsableInformation"}
#: the names files written before core had packages give the same classes (read as these)
MOVED = {"core.transfer.Transfer": "core.dynamics.transfer.Transfer",
         "core.cartography.Cartography": "core.dynamics.cartography.Cartography"}
#: the name this package was imported under: ``core`` in a checkout, the project's name when installed.
#: A file names a class as ``core.…`` either way, so a file reads back under both.
_PACKAGE = __name__.split(".")[0]


def _result_classes() -> dict:
    """`CLASSES` by name, imported by name here (never from a name a file gives)."""
    from ..dynamics.cartography import Cartography
    from ..dynamics.transfer import Transfer
    from ..evaluation.information import UsableInformation
    from ..zstats.consistency import ConsistencyResult
    from ..zstats.statistics import ZStats
    from ..zstats.zfilter import ZFilterResult

    found = {_file_name(c): c for c in (Transfer, Cartography, ZFilterResult, ConsistencyResult, ZStats,
                                        UsableInformation)}
    if set(found) != CLASSES:   # a class renamed or moved: `CLASSES` (what files name) must follow it
        raise RuntimeError(f"the result classes and CLASSES differ: {sorted(set(found) ^ CLASSES)}")
    return found


def _file_name(cls: type) -> str:
    head, _, rest = cls.__module__.partition(".")
    return f"{'core' if head == _PACKAGE else head}.{rest}.{cls.__qualname__}"


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
    """What `write_result` wrote to ``path``; ValueError naming the field or part of a damaged or
    hostile file (KeyError, zipfile.BadZipFile, … where the zip itself is broken)."""
    with zipfile.ZipFile(path) as z:
        infos = {i.filename: i for i in z.infolist()}

        def part(i: int, kind: str):
            name = f"part-{int(i)}.{kind}"
            if name not in infos:
                raise ValueError(f"the result file has no {name}")
            if infos[name].file_size > PART_MAX:
                raise ValueError(f"{name} would take {infos[name].file_size:,} bytes when read, more than any result "
                                 f"({PART_MAX:,}); the file is not one this tool wrote")
            data = z.read(name)
            if kind == "parquet":
                _check_footer(data, name)
                return _check_ids(pd.read_parquet(io.BytesIO(data)), name)
            return _load_array(data, name)

        if "value.json" not in infos:
            raise ValueError("no value.json in the result file")
        if infos["value.json"].file_size > METADATA_MAX:
            raise ValueError(f"value.json takes {infos['value.json'].file_size:,} bytes; the file is not one this tool "
                             "wrote")
        try:
            tree = json.loads(z.read("value.json"), object_pairs_hook=unique_keys)
        except ValueError as exc:
            raise ValueError(f"value.json: {exc}") from None
        return _decode(tree, part)


def _check_footer(data: bytes, name: str) -> None:
    """A Parquet part's footer length, read from its last 8 bytes before pyarrow parses it (a huge
    key-value metadata made pyarrow abort the process with std::bad_alloc)."""
    if len(data) < 12 or data[-4:] != b"PAR1":
        raise ValueError(f"{name} is not a Parquet file")
    footer = int.from_bytes(data[-8:-4], "little")
    if footer > min(METADATA_MAX, len(data) - 12):
        raise ValueError(f"{name} has a {footer:,}-byte footer (its schema and metadata), more than a result's "
                         f"({METADATA_MAX:,}) or than the part holds")


def _check_ids(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    for label, values in ([("index", frame.index)] if frame.index.name in ID_COLUMNS else []) + [
            (c, frame[c]) for c in ID_COLUMNS if c in frame.columns]:
        if len(values) and not all(isinstance(v, str) for v in values):
            bad = next(v for v in values if not isinstance(v, str))
            raise ValueError(f"{name}: the ids in {label!r} are not text (e.g. {bad!r} of type {type(bad).__name__})")
    return frame


def _load_array(data: bytes, name: str) -> np.ndarray:
    """An ``.npy`` part, its header checked against its data before the array is allocated."""
    fh = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(fh)
        header = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}.get(version)
        if header is None:
            raise ValueError(f"npy format version {version}")
        shape, fortran, dtype = header(fh)
    except ValueError as exc:
        raise ValueError(f"{name} is not an array this tool wrote ({exc})") from None
    if dtype.hasobject:
        raise ValueError(f"{name} holds Python objects, which a result file never does")
    needed = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize if shape else dtype.itemsize
    if needed != len(data) - fh.tell():
        raise ValueError(f"{name} says it holds {needed:,} bytes of {dtype} {tuple(shape)} but has "
                         f"{len(data) - fh.tell():,}")
    return np.load(io.BytesIO(data), allow_pickle=False)


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
        name = _file_name(type(value))
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
        cls = _result_classes()[name]
        if not isinstance(tree.get("fields"), dict):
            raise ValueError(f"the {cls.__name__} in the result file has no fields")
        return _built(cls, {k: _decode(v, part) for k, v in tree["fields"].items()})
    return {k: _decode(v, part) for k, v in tree.items()}


def _built(cls, values: dict):
    """``cls(**values)`` once every field is one the class has, of the type it declares."""
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    hints = typing.get_type_hints(cls)
    unknown = sorted(set(values) - set(fields))
    missing = sorted(n for n, f in fields.items() if n not in values and f.default is dataclasses.MISSING
                     and f.default_factory is dataclasses.MISSING)
    if unknown or missing:
        raise ValueError(f"the {cls.__name__} in the result file has " + ("fields it does not know: " + ", ".join(
            map(repr, unknown)) if unknown else "no " + ", ".join(map(repr, missing))))
    for field, value in values.items():
        if not _fits(value, hints.get(field, typing.Any)):
            raise ValueError(f"field {field!r} of the {cls.__name__} in the result file holds a "
                             f"{type(value).__name__}, not {getattr(hints[field], '__name__', hints[field])}")
    return cls(**values)


def _fits(value, hint) -> bool:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is typing.Any:
        return True
    if origin is typing.Union or origin is types.UnionType:
        return any(_fits(value, a) for a in args)
    if hint is type(None):
        return value is None
    if origin is not None:
        return isinstance(value, origin) and (origin is not list or not args or all(_fits(v, args[0]) for v in value))
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(hint, type):
        return isinstance(value, hint)
    return True   # a hint this reader does not know (a forward reference it could not resolve): not checked
