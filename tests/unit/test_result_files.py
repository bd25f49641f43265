"""Computed results as files (`core.results.files`): what is written reads back equal, for
generated values and the real result classes; a damaged or hostile file is an error, never an
object of a class it names (no pickle, an allow-list)."""
from __future__ import annotations

import io
import json
import math
import zipfile

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from artifact_lens.results.files import read_result, write_result

LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-2 ** 62, 2 ** 62), st.text(max_size=20),
                   st.floats(allow_nan=True, allow_infinity=True))
FRAMES = st.integers(0, 5).map(lambda n: pd.DataFrame({"a": np.arange(n, dtype=float), "b": [f"x{i}" for i in range(n)]},
                                                       index=[f"id{i}" for i in range(n)]))
ARRAYS = st.integers(0, 6).map(lambda n: np.linspace(0, 1, n * 2, dtype=np.float32).reshape(n, 2))
VALUES = st.recursive(st.one_of(LEAVES, FRAMES, ARRAYS), lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.tuples(inner, inner), st.dictionaries(st.text(max_size=8), inner, max_size=3),
    st.dictionaries(st.integers(0, 9), inner, max_size=3)), max_leaves=8)


def _same(a, b) -> bool:
    if isinstance(a, pd.DataFrame):
        return isinstance(b, pd.DataFrame) and a.equals(b) and list(a.index) == list(b.index)
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@settings(max_examples=80, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(value=VALUES)
def test_a_value_reads_back_equal(tmp_path_factory, value):
    path = tmp_path_factory.mktemp("r") / "v.zip"
    with open(path, "wb") as fh:
        write_result(fh, value)
    assert _same(value, read_result(path))


def test_the_result_classes_read_back_equal(tmp_path):
    from artifact_lens.data.sources import load_dataset
    from artifact_lens.dynamics.transfer import cue_transfer
    from artifact_lens.zstats import consistency_filter, z_filter

    ds = load_dataset("demo:nli:n=300")
    ids = ds.table.index
    for value in (z_filter(ds, batch_size=60, k=2, min_count=3, random_state=0), consistency_filter(ds, folds=2),
                  cue_transfer(ds.subset(ids[:150]), ds.subset(ids[150:]), k=5, m=2)):
        path = tmp_path / f"{type(value).__name__}.zip"
        with open(path, "wb") as fh:
            write_result(fh, value)
        back = read_result(path)
        assert type(back) is type(value)
        for name, field in vars(value).items():
            got = getattr(back, name)
            if isinstance(field, pd.DataFrame):
                pd.testing.assert_frame_equal(got, field)
            elif not hasattr(field, "__dataclass_fields__"):
                assert _same(field, got) or json.dumps(field, default=str) == json.dumps(got, default=str), name


def test_a_result_written_before_core_had_packages_reads_back(tmp_path):
    """Files name their class; a file from before the package move (``core.cartography.Cartography``)
    is read as the class it was, not taken for damage and recomputed."""
    import zipfile

    from artifact_lens.dynamics.cartography import training_dynamics
    from artifact_lens.results.files import MOVED

    rng = np.random.default_rng(0)
    value = training_dynamics(rng.normal(size=(60, 3)), np.array(["a", "b", "c"] * 20), epochs=2, folds=2)
    path, old = tmp_path / "new.zip", tmp_path / "old.zip"
    with open(path, "wb") as fh:
        write_result(fh, value)
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(old, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            for before, after in MOVED.items():
                data = data.replace(after.encode(), before.encode())
            dst.writestr(item, data)
    with zipfile.ZipFile(old) as z:
        assert any(b'"core.cartography.Cartography"' in z.read(n) for n in z.namelist())
    back = read_result(old)
    assert type(back) is type(value)
    pd.testing.assert_frame_equal(back.table, value.table)


@pytest.mark.parametrize("tree", [{"$class": "os.system", "fields": {"command": "echo hacked"}},
                                  {"$class": "builtins.eval", "fields": {}}, {"$frame": 7}, {"$float": "not"}])
def test_a_hostile_file_is_an_error_not_an_object(tmp_path, tree):
    path = tmp_path / "bad.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("value.json", json.dumps(tree))
    with pytest.raises((ValueError, KeyError)):
        read_result(path)


def test_what_a_file_cannot_hold_is_refused_when_written():
    class Other:
        pass

    for value in (Other(), np.array([object()], dtype=object), {"$frame": 1}.keys()):
        with pytest.raises(ValueError):
            write_result(io.BytesIO(), value)
