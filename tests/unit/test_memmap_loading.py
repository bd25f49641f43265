"""Large embeddings (issue 13, item 4): file:path=… memory-maps a float32 .npy without a copy,
converts anything else in chunks into a memory-mapped cache file keyed by the source's
size and mtime, and refuses bad or too-large input with the cause and the fix, leaving nothing
half-written."""
import os

import numpy as np
import pandas as pd
import pytest

from artifact_lens.base.result_store import MARK
import artifact_lens.representations as R
import artifact_lens.base.memory as S
from artifact_lens.data.sources import load_dataset as load_source
from artifact_lens.data.dataset import Dataset
from artifact_lens.base.errors import InputError
from artifact_lens.representations import represent

N, D = 40, 6


@pytest.fixture
def cache(tmp_path):
    return tmp_path / "cache"


@pytest.fixture
def ds():
    table = pd.DataFrame({"label": ["a", "b"] * (N // 2)}, index=pd.Index([f"r{i}" for i in range(N)], name="id"))
    return Dataset(table=table, label="label", name="mm")


@pytest.fixture
def X():
    return np.random.default_rng(0).normal(size=(N, D)).astype(np.float32)


def _cache_files(cache):
    """Files in the cache (not the mark of a results folder, `core.base.result_store.MARK`)."""
    return sorted(p.name for p in cache.rglob("*") if p.is_file() and p.name != MARK) if cache.exists() else []


def test_float32_npy_is_memory_mapped_without_any_copy(tmp_path, ds, X, cache):
    np.save(tmp_path / "emb.npy", X)
    rep = represent(ds, f"file:path={tmp_path / 'emb.npy'}", cache_dir=cache)
    assert isinstance(rep.X, np.memmap)                       # the file itself, not an array in memory
    assert os.path.samefile(rep.X.filename, tmp_path / "emb.npy")
    assert not rep.X.flags.writeable
    np.testing.assert_array_equal(rep.X, X)
    assert _cache_files(cache) == []                          # no second copy in the cache
    src = rep.info["source"]
    assert src["bytes"] == (tmp_path / "emb.npy").stat().st_size and src["mtime_ns"] > 0
    assert rep.info["memory_mapped"] == str(tmp_path / "emb.npy")


def test_aflite_fit_reads_the_memmap_without_copying_it(tmp_path, ds, X, cache):
    from artifact_lens.aflite.inputs import check_X

    np.save(tmp_path / "emb.npy", X)
    rep = represent(ds, f"file:path={tmp_path / 'emb.npy'}", cache_dir=cache)
    assert np.shares_memory(check_X(rep.X), rep.X)


def test_float64_npy_is_converted_in_chunks_to_a_cache_file_and_reused(tmp_path, ds, X, cache, monkeypatch):
    monkeypatch.setattr(R.common, "FILE_CHUNK", 7)                  # several chunks at a small size
    np.save(tmp_path / "emb64.npy", X.astype(np.float64))
    rep = represent(ds, f"file:path={tmp_path / 'emb64.npy'}", cache_dir=cache)
    assert isinstance(rep.X, np.memmap) and rep.X.dtype == np.float32
    assert str(rep.X.filename).startswith(str(cache))
    np.testing.assert_array_equal(rep.X, X)
    assert any("holds float64" in m and "converted to float32 in chunks" in m for m in rep.info["messages"])
    files = _cache_files(cache)
    assert len(files) == 2 and not any(f.endswith(".tmp") for f in files)
    again = represent(ds, f"file:path={tmp_path / 'emb64.npy'}", cache_dir=cache)
    assert again.info["converted"] == "cache" and again.X.filename == rep.X.filename
    assert any("holds float64" in m for m in again.info["messages"])
    # a changed file (new size/mtime) is noticed: converted again, never the stale copy
    np.save(tmp_path / "emb64.npy", (2 * X).astype(np.float64))
    os.utime(tmp_path / "emb64.npy", ns=(1, 10**18))
    changed = represent(ds, f"file:path={tmp_path / 'emb64.npy'}", cache_dir=cache)
    assert changed.info["converted"] == "now"
    np.testing.assert_array_equal(changed.X, 2 * X)


def test_fortran_and_shuffled_npy_and_parquet_streams_are_aligned(tmp_path, ds, X, cache, monkeypatch):
    monkeypatch.setattr(R.common, "FILE_CHUNK", 8)
    np.save(tmp_path / "fortran.npy", np.asfortranarray(X))
    np.testing.assert_array_equal(represent(ds, f"file:path={tmp_path / 'fortran.npy'}", cache_dir=cache).X, X)
    order = np.random.default_rng(2).permutation(N)
    ids = ds.ids[order]
    np.savez(tmp_path / "shuf.npz", X=X[order], ids=ids.astype(str))
    rep = represent(ds, f"file:path={tmp_path / 'shuf.npz'}", cache_dir=cache)
    assert isinstance(rep.X, np.memmap)
    np.testing.assert_array_equal(rep.X, X)
    # Parquet read in row groups smaller than a chunk, rows shuffled, one extra id
    frame = pd.DataFrame({"id": list(ids) + ["zz"], "emb": list(X[order]) + [np.zeros(D, np.float32)]})
    frame.to_parquet(tmp_path / "emb.parquet", row_group_size=5)
    rep = represent(ds, f"file:path={tmp_path / 'emb.parquet'}", cache_dir=cache)
    np.testing.assert_array_equal(rep.X, X)
    assert not any(f.endswith(".tmp") for f in _cache_files(cache))   # the staged copy is removed
    # the same without the cache: in memory, same values
    np.testing.assert_array_equal(represent(ds, f"file:path={tmp_path / 'emb.parquet'}", cache_dir=False).X, X)


@pytest.mark.parametrize("make, fragment", [
    (lambda X: X[:-3], "has 37 rows but the dataset has 40 examples"),
    (lambda X: np.array([list(r) for r in X], dtype=object), "dtype object"),
    (lambda X: X.reshape(N, 2, 3), r"shape \(40, 2, 3\); give a 2-D array"),
    (lambda X: X[:, 0], r"shape \(40,\); give a 2-D array"),
    (lambda X: X.astype(np.complex64), "not real numbers"),
    (lambda X: np.where(np.arange(N)[:, None] == 33, np.nan, X), r"NaN or infinite values in 1 rows \(e.g. ids r33\)"),
])
def test_bad_npy_files_are_refused_with_the_cause_and_nothing_is_written(tmp_path, ds, X, cache, make, fragment):
    arr = make(X)
    np.save(tmp_path / "bad.npy", arr.astype(np.float64) if arr.dtype == np.float32 and np.isnan(arr).any() else arr,
            allow_pickle=True)
    with pytest.raises(InputError, match=fragment):
        represent(ds, f"file:path={tmp_path / 'bad.npy'}", cache_dir=cache)
    assert [f for f in _cache_files(cache) if not f.startswith(".")] == []
    assert [f for f in _cache_files(cache) if f.endswith(".tmp")] == []


def test_too_large_for_memory_without_memory_mapping(tmp_path, ds, X, cache, monkeypatch):
    monkeypatch.setattr(S, "available_memory", lambda: 500)   # 500 bytes "available"
    np.savez_compressed(tmp_path / "emb.npz", X=X.astype(np.float64))
    with pytest.raises(InputError) as err:
        represent(ds, f"file:path={tmp_path / 'emb.npz'}", cache_dir=False)
    msg = str(err.value)
    assert "cannot be memory-mapped" in msg and "960 bytes, but only 500 bytes of memory is available" in msg
    assert "Enable the cache" in msg and "float32 .npy" in msg
    # with the cache it is converted in chunks instead (memory is not the limit)
    rep = represent(ds, f"file:path={tmp_path / 'emb.npz'}", cache_dir=cache)
    np.testing.assert_allclose(rep.X, X)


def test_embedding_column_larger_than_memory(ds, X, monkeypatch):
    monkeypatch.setattr(S, "available_memory", lambda: 100)
    table = pd.DataFrame({"vec": list(X), "label": ds.table["label"].to_numpy()}, index=ds.table.index)
    emb = Dataset(table=table, label="label", embedding="vec", name="mm")
    with pytest.raises(InputError, match=r"needs .* but only .* available.*\.npy.*file:path="):
        represent(emb, "embedding", cache_dir=False)


def test_csv_dataset_larger_than_memory(tmp_path, monkeypatch):
    path = tmp_path / "big.csv"
    path.write_text("text,label\n" + "".join(f"t{i},{i % 2}\n" for i in range(200)))
    monkeypatch.setattr(S, "available_memory", lambda: 100)
    with pytest.raises(InputError, match=r"big.csv' holds .* only .* of memory is available.*\.npy"):
        load_source(str(path))
