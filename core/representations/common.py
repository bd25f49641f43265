"""What the representation builders share: finiteness checks in chunks, vectors stacked from
a column, the text of a field, the embedding-column builder, the cache format version."""
from __future__ import annotations


import numpy as np

from ..base.result_store import ResultStore
from ..data.dataset import Dataset, text_values
from ..base import memory
from ..base.memory import size_text
from ..base.errors import InputError
from ..base.progress import check_cancel, report


# Bump when a representation's computation changes, so old cache entries are not reused.
CACHE_VERSION = 2   # 2: built with BLAS on one thread (the same Φ on any machine)


def stores(folder) -> tuple:
    """The artifact stores (`core.base.result_store`) of one dataset's cached Φs in ``folder``: the vectors
    (``.npy``, memory-mapped when read) and their descriptions (``.json``), one key each."""
    return (ResultStore(folder, suffix=".npy", format=CACHE_VERSION, what="representation"),
            ResultStore(folder, suffix=".json", format=CACHE_VERSION, what="representation's description"))


def fitted_store(folder) -> ResultStore:
    """The store of what fitted representations learned (``.npz``, `core.representations.fitted`),
    one key each, beside `stores`' vectors of the same key."""
    return ResultStore(folder, suffix=".npz", format=CACHE_VERSION, what="representation's fitted parts")

FILE_CHUNK = 16384   # rows read, converted and checked at a time (16384 × 768 float32 = 50 MB)


# ============================================================== checks


def check_finite(X: np.ndarray, ids, what: str) -> None:
    # In chunks: a whole-matrix isfinite would be an N×d temporary (0.8 GB at 1M × 768).
    bad = np.zeros(X.shape[0], dtype=bool)
    for lo in range(0, X.shape[0], FILE_CHUNK):
        bad[lo:lo + FILE_CHUNK] = ~np.isfinite(X[lo:lo + FILE_CHUNK]).all(axis=1)
    if bad.any():
        shown = ", ".join(map(str, np.asarray(ids)[bad][:5]))
        raise InputError(f"{what} have NaN or infinite values in {int(bad.sum())} rows (e.g. ids {shown}); "
                         "fix or drop those rows before loading.")


def stack_vectors(values, ids, what: str) -> np.ndarray:
    """Stack a sequence of vectors (lists/arrays) into (N, d) float32, with clear errors."""
    lengths = np.empty(len(values), dtype=np.int64)
    rows = []
    for i, v in enumerate(values):
        if v is None or (isinstance(v, float) and np.isnan(v)):
            raise InputError(f"{what}: example {ids[i]!r} has no vector (missing value); every row needs one.")
        try:
            a = np.asarray(v, dtype=np.float32)
        except (TypeError, ValueError):
            raise InputError(f"{what}: example {ids[i]!r} holds {type(v).__name__} values that are not numbers; "
                             "give lists or arrays of numbers.") from None
        if a.ndim != 1:
            a = a.reshape(-1) if a.ndim > 1 else a.reshape(1)
        lengths[i] = a.shape[0]
        rows.append(a)
    if len(set(lengths.tolist())) > 1:
        common = int(np.bincount(lengths).argmax())
        odd = np.flatnonzero(lengths != common)
        shown = ", ".join(f"{ids[j]} ({lengths[j]})" for j in odd[:5])
        raise InputError(f"{what} are ragged: most have {common} numbers but {len(odd)} rows differ (e.g. {shown}); "
                         "every vector must have the same length.")
    X = np.stack(rows) if rows else np.zeros((0, 0), np.float32)
    check_finite(X, ids, what)
    return X


def field_texts(dataset: Dataset, fld: str, messages: list, allow_empty: bool, kind: str) -> list:
    texts = text_values(dataset.table[fld])
    n_empty = sum(1 for t in texts if not t.strip())
    if n_empty == len(texts):
        raise InputError(f"every text in field '{fld}' is empty; choose another field (fields=…).")
    if n_empty:
        if not allow_empty:
            raise InputError(f"{n_empty} examples have an empty '{fld}', and {kind} cannot represent empty text; "
                             "drop them before loading or choose another field.")
        messages.append(f"{n_empty} of {len(texts)} examples have an empty '{fld}'; they are kept, with an "
                        f"all-zero {kind} block for that field.")
    return texts


# ============================================================== builders


def build_embedding(dataset, opts, *, messages, info, progress, cancel, cache_dir):
    col = opts["column"]
    values = dataset.table[col]
    first = next((v for v in values if v is not None and not (isinstance(v, float) and np.isnan(v))), None)
    need, avail = len(values) * max(np.size(first), 1) * 4, memory.available_memory()
    if avail is not None and need > avail:
        raise InputError(f"the embedding column '{col}' needs {size_text(need)} as a float32 matrix, but only "
                         f"{size_text(avail)} of memory is available. Save the vectors as a float32 .npy (one row "
                         "per example, in the dataset's order) and use -r file:path=emb.npy, which is memory-mapped.")
    X = stack_vectors(dataset.table[col].tolist(), dataset.ids, f"the embedding column '{col}'")
    return X, []



def read_progress(stream, n_rows, what, cancel, progress):
    done = 0
    for c in stream:
        check_cancel(cancel)
        done += len(c)
        report(progress, 0.5 * done / max(n_rows, 1), f"reading {what}: {done} of {n_rows} rows")
        yield c



def json_default(o):
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    return str(o)
