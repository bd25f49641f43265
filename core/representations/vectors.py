"""Vectors computed elsewhere (``file:path=…``): ``.npy`` memory-mapped as it is when it can be,
anything else converted once, in chunks, into the cache (see `core.representations`)."""
from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd

from ..base import memory
from ..base.memory import size_text
from ..base import paths
from ..base.errors import Cancelled, InputError
from ..base.progress import check_cancel, report
from . import common as common   # FILE_CHUNK read at call time (tests shrink it)
from .common import CACHE_VERSION, check_finite, json_default, read_progress, stores
from .spec import canonical_spec
from ..base.keys import result_key


# ---------------------------------------------------------------- vector files (file:path=…)
#
# A float32 C-ordered .npy aligned with the dataset is memory-mapped as it is: no copy in
# memory and none in the cache (the OS page cache holds what is read). Anything else (another
# dtype, Fortran order, rows in another order, .npz, Parquet) is converted in chunks of
# common.FILE_CHUNK rows into a float32 .npy in the cache, keyed by the source's path, size and
# modification time (a changed file gets a new entry), and that is memory-mapped; only with
# the cache disabled is it built in memory, and then only if it fits.



def _npy_header(fh):
    """(shape, fortran_order, dtype) of the .npy stream ``fh``, positioned at the data."""
    from numpy.lib import format as npf

    version = npf.read_magic(fh)
    if version == (1, 0):
        return npf.read_array_header_1_0(fh)
    if version == (2, 0):
        return npf.read_array_header_2_0(fh)
    return npf._read_array_header(fh, version)  # 3.0 (utf-8 field names); no public reader


def _check_array(name: str, shape, dtype) -> None:
    """A vector file's array must be 2-D and numeric: say which and how to fix it."""
    if dtype.hasobject:
        raise InputError(f"'{name}' holds Python objects (dtype object), which cannot be memory-mapped or read "
                         "safely; save a numeric array instead: np.save('emb.npy', np.asarray(X, dtype=np.float32)).")
    if len(shape) != 2:
        raise InputError(f"'{name}' holds an array of shape {tuple(shape)}; give a 2-D array with one row per example "
                         "(e.g. np.save('emb.npy', X.reshape(len(X), -1))).")
    if dtype.fields is not None or not (np.issubdtype(dtype, np.floating) or np.issubdtype(dtype, np.integer)
                                        or dtype == bool):
        raise InputError(f"'{name}' holds {dtype} values, not real numbers; save the vectors as float32: "
                         "np.save('emb.npy', X.astype(np.float32)).")
    if shape[1] == 0:
        raise InputError(f"'{name}' has 0 columns; give at least one dimension per example.")


def _checked(chunks, n_rows: int, ids, what: str, cancel, progress, lo_frac=0.0, hi_frac=1.0):
    """Float32 C-ordered chunks, each checked for NaN/inf (naming its rows' ids) before it
    is used, so a bad file never leaves a cache entry."""
    done = 0
    for chunk in chunks:
        check_cancel(cancel)
        chunk = np.ascontiguousarray(chunk, dtype=np.float32)
        check_finite(chunk, ids[done:done + len(chunk)], what)
        done += len(chunk)
        report(progress, lo_frac + (hi_frac - lo_frac) * done / max(n_rows, 1), f"reading {what}: {done} of {n_rows} rows")
        yield chunk


def _ordered_chunks(array, stream, pos, n: int):
    """The rows of the dataset in its order, common.FILE_CHUNK at a time: slices or gathers of an
    array (a memory map), or the file's stream as it comes (pos None)."""
    if array is None:
        yield from _rechunk(stream(), common.FILE_CHUNK)
        return
    for lo in range(0, n, common.FILE_CHUNK):
        hi = min(n, lo + common.FILE_CHUNK)
        if pos is None:
            yield array[lo:hi]
        else:
            idx = pos[lo:hi]
            order = np.argsort(idx, kind="stable")   # read in ascending order: sequential I/O
            out = np.empty((hi - lo, array.shape[1]), dtype=np.float32)
            out[order] = array[idx[order]]
            yield out


def _rechunk(stream, size):
    """Re-cut a stream of row arrays into chunks of ``size`` rows (the last one shorter)."""
    buf, have = [], 0
    for c in stream:
        if len(c) == 0:
            continue
        buf.append(c)
        have += len(c)
        while have >= size:
            whole = np.concatenate(buf) if len(buf) > 1 else buf[0]
            yield whole[:size]
            rest = whole[size:]
            buf, have = ([rest] if len(rest) else []), len(rest)
    if have:
        yield np.concatenate(buf) if len(buf) > 1 else buf[0]


def _write_npy(fh, shape, chunks) -> None:
    """A float32 C-ordered .npy of ``shape`` written from row chunks (never whole in memory)."""
    from numpy.lib import format as npf

    npf.write_array_header_1_0(fh, {"descr": npf.dtype_to_descr(np.dtype(np.float32)), "fortran_order": False,
                                    "shape": tuple(int(s) for s in shape)})
    rows = 0
    for chunk in chunks:
        fh.write(memoryview(np.ascontiguousarray(chunk, dtype=np.float32)).cast("B"))
        rows += len(chunk)
    if rows != shape[0]:
        raise InputError(f"the vector file ended after {rows} of {shape[0]} rows; write the file again.")


class _VectorSource:
    """One vector file opened lazily: its shape and dtype from the header or schema, its ids
    if it has them, and its rows in file order: ``array`` (a memory map, any dtype) for a
    .npy, else ``stream()`` (row arrays in order) for .npz and Parquet."""

    def __init__(self, name, n_rows, d, dtype, *, ids=None, array=None, stream=None):
        self.name, self.n_rows, self.d, self.dtype = name, int(n_rows), int(d), np.dtype(dtype)
        self.ids, self.array, self.stream = ids, array, stream

    @property
    def direct(self) -> bool:
        """A float32 C-ordered memory map: usable as it is."""
        a = self.array
        return a is not None and a.dtype == np.dtype(np.float32) and a.dtype.isnative and a.flags.c_contiguous


def _open_npy(path: Path, opts) -> _VectorSource:
    if opts["id_column"] or opts["column"]:
        raise InputError("a .npy file holds one array and no ids; drop id_column/column, or save an .npz "
                         "with arrays 'X' and 'ids' (or a Parquet file with an id column).")
    with open(path, "rb") as fh:
        shape, fortran, dtype = _npy_header(fh)
    _check_array(path.name, shape, dtype)
    return _VectorSource(path.name, shape[0], shape[1], dtype, array=np.load(path, mmap_mode="r", allow_pickle=False))


def _open_npz(path: Path, opts) -> _VectorSource:
    import zipfile

    z = zipfile.ZipFile(path)
    members = {n[:-4]: n for n in z.namelist() if n.endswith(".npy")}
    names = list(members)

    def header(key):
        with z.open(members[key]) as fh:
            return _npy_header(fh)

    key = opts["column"] or ("X" if "X" in names else None)
    if key is None:
        cands = [k for k in names if len(header(k)[0]) == 2]
        if len(cands) != 1:
            raise InputError(f"cannot tell which array of '{path.name}' holds the vectors (arrays: "
                             f"{', '.join(names)}); name it with column=NAME.")
        key = cands[0]
    if key not in names:
        raise InputError(f"'{path.name}' has no array '{key}'; its arrays are: {', '.join(names)}.")
    id_key = opts["id_column"] or ("ids" if "ids" in names else ("id" if "id" in names else None))
    if opts["id_column"] and id_key not in names:
        raise InputError(f"'{path.name}' has no array '{id_key}'; its arrays are: {', '.join(names)}.")
    ids = None
    if id_key:
        with np.load(path, allow_pickle=False) as npz:
            ids = npz[id_key].astype(str)
    shape, fortran, dtype = header(key)
    _check_array(path.name, shape, dtype)
    name = path.name
    if fortran:
        # Column-major data cannot be read row by row from the (compressed) stream: whole only.
        size, avail = int(np.prod(shape)) * dtype.itemsize, memory.available_memory()
        if avail is not None and size > avail:
            raise InputError(f"'{path.name}' stores '{key}' in Fortran (column-major) order, which can only be read "
                             f"whole: {size_text(size)}, but only {size_text(avail)} of memory is available. {_FILE_FIX[0].upper()}"
                             f"{_FILE_FIX[1:]}.")

        def stream():
            with np.load(path, allow_pickle=False) as npz:
                yield npz[key]
        return _VectorSource(name, shape[0], shape[1], dtype, ids=ids, stream=stream)

    def stream():
        row_bytes = shape[1] * dtype.itemsize
        with z.open(members[key]) as fh:
            _npy_header(fh)
            for lo in range(0, shape[0], common.FILE_CHUNK):
                n = min(common.FILE_CHUNK, shape[0] - lo)
                buf = fh.read(n * row_bytes)
                if len(buf) != n * row_bytes:
                    raise InputError(f"'{path.name}' ends early (array '{key}' is cut short); write the file again.")
                yield np.frombuffer(buf, dtype=dtype).reshape(n, shape[1])
    return _VectorSource(name, shape[0], shape[1], dtype, ids=ids, stream=stream)


def _open_parquet(path: Path, opts) -> _VectorSource:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    # Buffered, not pre-buffered: pages are read as batches need them, not a whole row group at once.
    pf = pq.ParquetFile(path, buffer_size=1 << 22, pre_buffer=False)
    schema = pf.schema_arrow
    columns = list(schema.names)
    id_col = opts["id_column"] or next((c for c in ("id", "ids") if c in columns), None)
    if opts["id_column"] and id_col not in columns:
        raise InputError(f"'{path.name}' has no column '{id_col}'; its columns are: {', '.join(columns)}.")
    rest = [c for c in columns if c != id_col]
    if opts["column"]:
        if opts["column"] not in columns:
            raise InputError(f"'{path.name}' has no column '{opts['column']}'; its columns are: {', '.join(columns)}.")
        rest = [opts["column"]]
    n_rows = pf.metadata.num_rows
    ids = None
    if id_col:
        ids = pf.read(columns=[id_col]).column(0).to_pandas().astype(str).to_numpy()
    types = [schema.field(c).type for c in rest]
    is_list = [pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t) for t in types]
    row_ids = ids if ids is not None else np.arange(n_rows).astype(str)

    if len(rest) == 1 and is_list[0]:
        col, vtype = rest[0], types[0].value_type
        if not (pa.types.is_floating(vtype) or pa.types.is_integer(vtype)):
            raise InputError(f"the vectors in '{path.name}' (column '{col}') hold {vtype} values that are not "
                             "numbers; give lists of numbers.")
        first = next(pf.iter_batches(batch_size=1, columns=[col]), None)
        d = 0
        if first is not None and first.num_rows and first.column(0)[0].is_valid:
            d = len(first.column(0)[0])

        def stream():
            lo = 0
            for batch in pf.iter_batches(batch_size=common.FILE_CHUNK, columns=[col]):
                arr = batch.column(0)
                n = len(arr)
                if arr.null_count:
                    bad = lo + int(np.flatnonzero(arr.is_null().to_numpy(zero_copy_only=False))[0])
                    raise InputError(f"the vectors in '{path.name}': example {row_ids[bad]!r} has no vector "
                                     "(missing value); every row needs one.")
                lengths = pc.list_value_length(arr).to_numpy(zero_copy_only=False)
                odd = np.flatnonzero(lengths != d)
                if len(odd):
                    shown = ", ".join(f"{row_ids[lo + j]} ({lengths[j]})" for j in odd[:5])
                    raise InputError(f"the vectors in '{path.name}' are ragged: the first has {d} numbers but rows "
                                     f"differ (e.g. {shown}); every vector must have the same length.")
                values = arr.flatten()
                if values.null_count:
                    raise InputError(f"the vectors in '{path.name}' have missing numbers inside some lists; "
                                     "every vector needs all its numbers.")
                yield values.to_numpy(zero_copy_only=False).reshape(n, d)
                lo += n
        if d == 0 and n_rows:
            raise InputError(f"the first vector in '{path.name}' (column '{col}') is missing or empty; "
                             "every row needs a vector with at least one number.")
        return _VectorSource(path.name, n_rows, d, np.dtype(vtype.to_pandas_dtype()), ids=ids, stream=stream)

    numeric = [c for c, t in zip(rest, types) if pa.types.is_floating(t) or pa.types.is_integer(t)]
    if not numeric or len(numeric) != len(rest):
        raise InputError(f"'{path.name}' should have one list column of vectors or only numeric columns "
                         f"besides the id; found: {', '.join(rest)}. Name the vector column with column=NAME.")

    def stream():
        for batch in pf.iter_batches(batch_size=common.FILE_CHUNK, columns=numeric):
            cols = [batch.column(i) for i in range(len(numeric))]
            if any(c.null_count for c in cols):
                raise InputError(f"'{path.name}' has missing values in its vector columns; fill or drop those rows.")
            yield np.column_stack([c.to_numpy(zero_copy_only=False) for c in cols])
    return _VectorSource(path.name, n_rows, len(numeric), np.dtype(np.float64), ids=ids, stream=stream)


def _file_positions(dataset, src: _VectorSource, opts, messages, info):
    """For each dataset row, its row in the file (None: the same row, align=row)."""
    align = opts["align"] or ("id" if src.ids is not None else "row")
    info["align"] = align
    if align == "row":
        if src.n_rows != len(dataset):
            hint = (" The dataset dropped rows while loading; align=id matches file rows to ids "
                    "(for a file without ids, row i has id 'i', the row number in the source)."
                    if dataset.dropped else " Give align=id with a file that has ids.")
            raise InputError(f"'{src.name}' has {src.n_rows} rows but the dataset has {len(dataset)} examples; "
                             f"with align=row they must match.{hint}")
        return None
    file_ids = src.ids
    if file_ids is None:
        # No ids in the file: row i is the example with id str(i) (source row number).
        file_ids = np.arange(src.n_rows).astype(str)
        messages.append(f"'{src.name}' has no ids; row i was matched to the example with id '{{i}}' "
                        "(its row number in the source).")
    if len(file_ids) != src.n_rows:
        raise InputError(f"'{src.name}' has {len(file_ids)} ids but {src.n_rows} vectors; they must match.")
    index = pd.Index(file_ids)
    if index.has_duplicates:
        dup = index[index.duplicated()].unique()[:5]
        raise InputError(f"'{src.name}' has duplicated ids (e.g. {', '.join(map(str, dup))}); ids must be unique.")
    pos = index.get_indexer(pd.Index(dataset.ids.astype(str)))
    missing = np.flatnonzero(pos < 0)
    if len(missing):
        shown = ", ".join(map(str, dataset.ids[missing][:5]))
        raise InputError(f"{len(missing)} of {len(dataset)} dataset ids are not in '{src.name}' (e.g. {shown}); "
                         "the file must have a vector for every example. Check id_column=… or use align=row.")
    extra = src.n_rows - len(dataset)
    if extra:
        messages.append(f"'{src.name}' has {extra} rows whose ids are not in the dataset; they were ignored.")
    if extra == 0 and np.array_equal(pos, np.arange(len(pos))):
        return None  # already in the dataset's order
    return pos


def _source_stat(path: Path) -> dict:
    st = path.stat()
    return {"path": str(path.resolve()), "bytes": int(st.st_size), "mtime_ns": int(st.st_mtime_ns)}


def source_changed(info: Optional[dict]) -> Optional[str]:
    """What changed in the vector file a ``file:`` Φ was read from (``info["source"]``, as
    `represent` records it in ``Representation.info`` and a run keeps in its
    ``representation_info``): None when the file is the same (size and modification time)
    or Φ did not come from a file. A spec names the file by its path only, so a file
    rewritten in place keeps its spec, and everything keyed by the spec (cached Φ, saved
    runs) would still stand for the old vectors."""
    src = (info or {}).get("source")
    if not src:
        return None
    path = Path(src["path"])
    try:
        now = _source_stat(path)
    except OSError:
        return f"the vector file '{path}' is gone"
    if (now["bytes"], now["mtime_ns"]) == (int(src["bytes"]), int(src["mtime_ns"])):
        return None
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now["mtime_ns"] / 1e9))
    return (f"the vector file '{path}' changed (now {now['bytes']:,} bytes, modified {when}; "
            f"{int(src['bytes']):,} bytes before)")


def build_file(dataset, opts, *, messages, info, progress, cancel, cache_dir):
    path = Path(str(opts["path"])).expanduser()
    if not path.exists():
        raise InputError(f"representation file '{path}' does not exist; check file:path=….")
    suffix = "".join(path.suffixes[-1:]).lower()
    openers = {".npy": _open_npy, ".npz": _open_npz, ".parquet": _open_parquet}
    if suffix not in openers:
        raise InputError(f"representation file '{path.name}' has an unknown type '{suffix or '(none)'}'; "
                         "use .npy, .npz or .parquet.")
    source = _source_stat(path)
    info["source"] = source
    try:
        src = openers[suffix](path, opts)
        pos = _file_positions(dataset, src, opts, messages, info)
        if src.direct and pos is None:
            # float32, C order, the dataset's rows: the file itself, memory-mapped (no copy anywhere).
            info["memory_mapped"] = str(path)
            return src.array, []
        return _converted_file(dataset, opts, path, src, pos, source, messages=messages, info=info,
                               progress=progress, cancel=cancel, cache_dir=cache_dir), []
    except (InputError, Cancelled):
        raise
    except Exception as exc:  # numpy/pyarrow/zipfile errors on corrupt files
        raise InputError(f"cannot read representation file '{path}': {exc}. Check that it is a valid "
                         f"{suffix or 'numpy/Parquet'} file.") from None


_FILE_FIX = ("save the vectors as a float32 .npy with one row per example in the dataset's order to memory-map "
             "the file itself (docs/scale.md, 'Large embeddings')")


def _converted_file(dataset, opts, path, src, pos, source, *, messages, info, progress, cancel, cache_dir):
    """The file's vectors as float32 rows in the dataset's order: a memory-mapped cache file
    written in chunks (or, with the cache disabled, an array in memory if it fits)."""
    n, d = len(dataset), src.d
    out_bytes = n * d * 4
    why = []
    if src.dtype != np.dtype(np.float32) or not src.dtype.isnative:
        why.append(f"holds {src.dtype}")
    if src.array is None:
        why.append(f"is a {path.suffix} file, which cannot be memory-mapped")
    elif not src.array.flags.c_contiguous:
        why.append("is stored in Fortran (column-major) order")
    if pos is not None:
        why.append("has its rows in another order than the dataset")
    why = " and ".join(why)
    what = f"the vectors in '{src.name}'"
    staged = src.array is None and pos is not None   # a stream that must be reordered

    if cache_dir is False:
        return _converted_in_memory(dataset, path, src, pos, why, staged, messages, progress, cancel)

    canon = canonical_spec("file", opts)
    folder = Path(cache_dir if cache_dir is not None else paths.cache_dir()) / "representations" / dataset.fingerprint
    # the file's state (path, size, modification time) is a setting: a rewritten file converts again
    key = result_key(dataset.fingerprint, canon, source, length=20, kind="file")
    vectors, sidecars = stores(folder)
    npy = vectors.path(key)
    # unreadable (logged): converted again and overwritten
    meta = sidecars.load_or_none(key, lambda p: json.loads(p.read_text()))
    X = vectors.load_or_none(key, lambda p: np.load(p, mmap_mode="r")) if meta is not None else None
    if (X is not None and meta.get("source") == source and meta.get("fingerprint") == dataset.fingerprint
            and meta.get("spec") == canon and X.dtype == np.float32 and X.shape == (n, d)):
        messages.extend(meta.get("messages", []))
        info.update(meta.get("info", {}))
        info.update(cache_path=str(npy), memory_mapped=str(npy), converted="cache")
        return X

    folder.mkdir(parents=True, exist_ok=True)
    need = out_bytes + (src.n_rows * d * 4 if staged else 0)
    free = shutil.disk_usage(folder).free
    if need > free:
        raise InputError(f"converting '{path.name}' ({why}) needs {size_text(need)} in the cache folder {folder}, which "
                         f"has {size_text(free)} free; free space, set ARTIFACT_LENS_CACHE to a larger disk, or {_FILE_FIX}.")
    array, rows_tmp = src.array, None
    try:
        if staged:
            # The stream in the file's order is staged as float32 first, then gathered in the dataset's order.
            fd, name = tempfile.mkstemp(prefix=f".{key}.rows.{os.getpid()}.", suffix=".tmp", dir=folder)
            rows_tmp = Path(name)   # new, made here: the unlink below can only remove the tool's own file
            with os.fdopen(fd, "wb") as fh:
                _write_npy(fh, (src.n_rows, d), read_progress(src.stream(), src.n_rows, what, cancel, progress))
            array = np.load(rows_tmp, mmap_mode="r")
        chunks = _checked(_ordered_chunks(array, src.stream, pos, n), n, dataset.ids, what, cancel, progress,
                          0.5 if staged else 0.0, 1.0)
        vectors.save(key, lambda fh: _write_npy(fh, (n, d), chunks))
    finally:
        array = None
        if rows_tmp is not None and rows_tmp.exists():
            rows_tmp.unlink()
    messages.append(f"'{path.name}' {why}; it was converted to float32 in chunks into the cache ({size_text(out_bytes)}, "
                    f"{npy}), which is memory-mapped from now on (a changed file is converted again). To skip the "
                    f"conversion, {_FILE_FIX}.")
    meta = {"spec": canon, "fingerprint": dataset.fingerprint, "dataset": dataset.name, "source": source,
            "shape": [n, d], "dtype": "float32", "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "cache_version": CACHE_VERSION, "messages": list(messages), "info": dict(info)}
    sidecars.save(key, lambda f: f.write(json.dumps(meta, indent=1, default=json_default).encode()))
    info.update(cache_path=str(npy), memory_mapped=str(npy), converted="now")
    return np.load(npy, mmap_mode="r")


def _converted_in_memory(dataset, path, src, pos, why: str, staged: bool, messages: list, progress, cancel):
    """The file's vectors converted to float32 rows in the dataset's order in memory (the cache is
    disabled), or InputError when they would not fit."""
    n, d = len(dataset), src.d
    out_bytes = n * d * 4
    what = f"the vectors in '{src.name}'"
    need = out_bytes + (src.n_rows * d * 4 if staged else 0)
    avail = memory.available_memory()
    if avail is not None and need > avail:
        raise InputError(f"'{path.name}' {why}, so with the cache disabled it must be converted in memory: "
                         f"{size_text(need)}, but only {size_text(avail)} of memory is available. Enable the cache "
                         f"(it converts in chunks into a memory-mapped file) or {_FILE_FIX}.")
    array = src.array
    if staged:
        array = np.concatenate([np.asarray(c, dtype=np.float32) for c in src.stream()]) if src.n_rows \
            else np.zeros((0, d), np.float32)
    X = np.empty((n, d), dtype=np.float32)
    done = 0
    for chunk in _checked(_ordered_chunks(array, src.stream, pos, n), n, dataset.ids, what, cancel, progress):
        X[done:done + len(chunk)] = chunk
        done += len(chunk)
    messages.append(f"'{path.name}' {why}; it was converted to float32 in memory ({size_text(out_bytes)}). "
                    f"To avoid the copy, {_FILE_FIX}.")
    return X
