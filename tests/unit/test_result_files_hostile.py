"""Stored results read back as what they claim (issue 45, sweep items 1 and 5), generated: for
every result class and every field, a file holding a value of another kind there is refused
naming the field; a repeated key, ids that are not text, a Parquet part with a huge footer and an
array whose header promises more than its data are refused naming the part, before anything of
that size is allocated."""
from __future__ import annotations

import dataclasses
import importlib
import io
import json
import zipfile

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from imports import installed_name

from artifact_lens.results import files
from artifact_lens.results.files import CLASSES, read_result, write_result

#: a value of each kind a field can hold, as value.json encodes it (tables are parts of the zip)
KINDS = {"text": "not a frame", "whole": 5, "real": 0.5, "list": [1, 2], "dict": {"a": 1}, "none": None,
         "frame": {"$frame": 0}, "array": {"$array": 1}}


def _cls(name):
    """The class a result file names (``core.…``, the format's name), as the installed package holds it."""
    module, _, cls = name.rpartition(".")
    return getattr(importlib.import_module(installed_name(module)), cls)


def _fits_kind(hint, kind) -> bool:
    """Whether a value of ``kind`` is what a field declared ``hint`` holds (the reader's rule)."""
    return {pd.DataFrame: {"frame"}, np.ndarray: {"array"}, dict: {"dict"}, list: {"list"}, float: {"whole", "real"},
            int: {"whole"}, str: {"text"}}.get(hint, set()) >= {kind} if hint in (
        pd.DataFrame, np.ndarray, dict, list, float, int, str) else False


def _zip(path, tree, frame=None, array=None, extra=None):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("value.json", tree if isinstance(tree, str) else json.dumps(tree))
        buf = io.BytesIO()
        (frame if frame is not None else pd.DataFrame({"a": [1.0]}, index=pd.Index(["x"], name="id"))).to_parquet(buf)
        z.writestr("part-0.parquet", buf.getvalue())
        buf = io.BytesIO()
        np.save(buf, array if array is not None else np.zeros(3, dtype=np.float32))
        z.writestr("part-1.npy", buf.getvalue())
        for name, data in (extra or {}).items():
            z.writestr(name, data)
    return path


@settings(max_examples=120, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(name=st.sampled_from(sorted(CLASSES)), data=st.data())
def test_a_field_of_the_wrong_kind_is_refused_naming_it(tmp_path_factory, name, data):
    import typing

    cls = _cls(name)
    hints = typing.get_type_hints(cls)
    fields = [f.name for f in dataclasses.fields(cls)]
    field = data.draw(st.sampled_from(fields))
    kind = data.draw(st.sampled_from(sorted(KINDS)))
    good = {f: KINDS[next(k for k in ("frame", "array", "dict", "list", "real", "whole", "text")
                          if _fits_kind(hints[f], k))] if any(_fits_kind(hints[f], k) for k in KINDS) else None
            for f in fields}
    if any(v is None for v in good.values()):   # a nested class (ZFilterResult.before): its own draw
        return
    tree = {"$class": name, "fields": {**good, field: KINDS[kind]}}
    path = _zip(tmp_path_factory.mktemp("f") / "r.zip", tree)
    if _fits_kind(hints[field], kind):
        assert type(read_result(path)) is cls
    else:
        with pytest.raises(ValueError, match=rf"field '{field}' of the {cls.__name__} in the result file holds"):
            read_result(path)


def test_missing_and_unknown_fields_are_refused(tmp_path):
    tree = {"$class": "core.evaluation.information.UsableInformation", "fields": {"summary": {}}}
    with pytest.raises(ValueError, match="has no 'table'"):
        read_result(_zip(tmp_path / "a.zip", tree))
    tree["fields"].update(table={"$frame": 0}, extra=1)
    with pytest.raises(ValueError, match="fields it does not know: 'extra'"):
        read_result(_zip(tmp_path / "b.zip", tree))


def test_a_repeated_key_is_refused(tmp_path):
    text = '{"$class": "core.evaluation.information.UsableInformation", "fields": {"table": {"$frame": 0}, ' \
           '"summary": {"a": 1, "a": 2}}}'
    with pytest.raises(ValueError, match="repeats the key 'a'"):
        read_result(_zip(tmp_path / "a.zip", text))


@pytest.mark.parametrize("index", [pd.Index([1.5, 2.5], name="id"), pd.Index([1, 2], name="id")])
def test_ids_that_are_not_text_are_refused(tmp_path, index):
    tree = {"$class": "core.evaluation.information.UsableInformation",
            "fields": {"table": {"$frame": 0}, "summary": {}}}
    with pytest.raises(ValueError, match="the ids in 'index' are not text"):
        read_result(_zip(tmp_path / "a.zip", tree, frame=pd.DataFrame({"a": [1, 2]}, index=index)))
    frame = pd.DataFrame({"id": [3.0, 4.0], "a": [1, 2]})
    with pytest.raises(ValueError, match="the ids in 'id' are not text"):
        read_result(_zip(tmp_path / "b.zip", tree, frame=frame))


def test_a_parquet_part_with_a_huge_footer_is_refused_before_it_is_parsed(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({"a": [1.0]}).replace_schema_metadata({"k": "x" * (files.METADATA_MAX + 10)})
    buf = io.BytesIO()
    pq.write_table(table, buf)
    tree = {"$frame": 0}
    with zipfile.ZipFile(tmp_path / "a.zip", "w") as z:
        z.writestr("value.json", json.dumps(tree))
        z.writestr("part-0.parquet", buf.getvalue())
    with pytest.raises(ValueError, match="footer"):
        read_result(tmp_path / "a.zip")
    lying = buf.getvalue()[:-8] + (2 ** 31).to_bytes(4, "little") + b"PAR1"   # a length past the part itself
    with zipfile.ZipFile(tmp_path / "b.zip", "w") as z:
        z.writestr("value.json", json.dumps(tree))
        z.writestr("part-0.parquet", lying)
    with pytest.raises(ValueError, match="footer"):
        read_result(tmp_path / "b.zip")


@settings(max_examples=40, deadline=None, derandomize=True)
@given(shape=st.lists(st.integers(0, 10 ** 6), min_size=1, max_size=3), dtype=st.sampled_from(["<f4", "<i8", "|b1"]),
       have=st.integers(0, 64))
def test_an_array_whose_header_promises_other_data_is_refused_before_allocation(tmp_path_factory, shape, dtype, have):
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": dtype, "fortran_order": False, "shape": tuple(shape)})
    data = np.lib.format.magic(1, 0) + header.getvalue()[len(np.lib.format.magic(1, 0)):] + b"\0" * have
    path = tmp_path_factory.mktemp("a") / "a.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("value.json", json.dumps({"$array": 0}))
        z.writestr("part-0.npy", data)
    needed = int(np.prod(shape)) * np.dtype(dtype).itemsize
    if needed == have:
        assert read_result(path).shape == tuple(shape)
    else:
        with pytest.raises(ValueError, match="part-0.npy says it holds"):
            read_result(path)


def test_a_part_over_the_bound_is_refused_before_it_is_read(tmp_path, monkeypatch):
    """A 4 MB zip whose part expands to 4 GB was refused only by the process running out of memory."""
    path = tmp_path / "a.zip"
    with open(path, "wb") as fh:
        write_result(fh, np.zeros(1 << 16, dtype=np.float32))
    monkeypatch.setattr(files, "PART_MAX", 1 << 16)
    with pytest.raises(ValueError, match=r"part-0.npy would take 262,\d+ bytes when read"):
        read_result(path)
