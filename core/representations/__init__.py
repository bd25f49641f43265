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
``pair-diff``        preference pairs: TF-IDF of both responses (one vocabulary),
                     their difference A − B, truncated SVD: ``dim=128``,
                     ``ngram=1-2``, ``min_df=2``, ``seed=0``, ``prompt=0`` (1: and how
                     the difference lines up with the prompt); antisymmetric.
``pair-style``       preference pairs: the style features' differences
                     (`core.text.style`), sign·log(1 + |d|): style only.
``pair-length``      preference pairs: the difference in words alone.
``choice-diff``      multiple-choice items: each option's TF-IDF/SVD vector less its
                     item's mean (what sets an option apart from the others):
                     ``dim=32``, ``ngram=1-2``, ``min_df=2``, ``seed=0``.
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

The package: `spec` (the spec language and `REGISTRY`, the kinds), `kinds` (the built-in kinds, one
declaration each), `common` (shared checks and helpers), `vectors` (vector files), `text` (text and
image builders), `pairs` (preference pairs); `represent`, the disk cache and the warm-up extractor
(whose input features go through `represent`) are here.

May import: core.base, core.data, core.text.
"""
from __future__ import annotations

import json
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from functools import partial
from typing import Callable, Union

import numpy as np
import pandas as pd

from ..data.dataset import Dataset
from ..base import paths
from ..base.cores import one_blas_thread
from ..base.errors import InputError
from ..base.keyed_locks import KeyedLocks
from ..base.progress import check_cancel, report
from .common import CACHE_VERSION, check_finite, fitted_store, json_default, stores
from .fitted import FITTED, FittedTfidfSvd
from .spec import (KINDS, REGISTRY, Kind, canonical_spec, check_warmup, default_spec, parse_spec, register_kind,
                   resolve_options, resolve_spec, spec_paths)
from . import kinds as _kinds  # noqa: F401  (registers the built-in kinds)
from .vectors import source_changed
from ..base.keys import result_key

__all__ = ["Representation", "represent", "embed_new", "default_spec", "parse_spec", "spec_paths", "resolve_spec", "canonical_spec", "source_changed", "KINDS", "REGISTRY", "register_kind"]

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
    fitted : FittedTfidfSvd, callable or None
        What a fitted kind (``tfidf-svd``) learned from the dataset, for `transform`; from the cache,
        a function that reads it on first use (its SVD components can outweigh Φ itself, and most
        readers of Φ never map new text).
    """

    X: np.ndarray
    ids: np.ndarray
    excluded_ids: np.ndarray
    spec: str
    info: dict = field(default_factory=dict)
    fitted: Union[FittedTfidfSvd, Callable, None] = None

    def __len__(self) -> int:
        return int(self.X.shape[0])

    @property
    def dim(self) -> int:
        return int(self.X.shape[1])

    @property
    def can_transform(self) -> bool:
        """Whether `transform` maps new text: a fitted ``tfidf-svd``, or a kind that fits nothing
        on the dataset (``glove``, ``sbert``)."""
        return self.fitted is not None or _stateless(parse_spec(self.spec)[0])

    def transform(self, texts_by_field) -> np.ndarray:
        """New examples in this Φ (``field -> list of texts``, the spec's fields): (rows, dim) float32,
        as Φ's own rows were computed (a ``tfidf-svd`` with the vocabulary, IDF and SVD it learned,
        nothing fitted again). InputError for a kind that cannot embed new text (vectors computed
        elsewhere, the warm-up extractor, pixels)."""
        kind, _ = parse_spec(self.spec)
        if callable(self.fitted):
            self.fitted = self.fitted()
        if self.fitted is not None:
            missing = [f for f in self.fitted.fields if f not in texts_by_field]
            if missing:
                raise InputError(f"transform needs the field(s) {missing} of {self.spec}.")
            return self.fitted.transform(texts_by_field)
        if not _stateless(kind):
            why = REGISTRY[kind].new_text if REGISTRY[kind].new_text not in ("", "fitted") else "it was not fitted here"
            raise InputError(f"{self.spec} cannot map new text into its space ({why}); "
                             "use tfidf-svd, glove or sbert for that.")
        return embed_new(self.spec, texts_by_field)


def embed_new(spec: str, texts_by_field) -> np.ndarray:
    """New texts (``field -> list of texts``, the spec's fields) in a kind that fits nothing on the
    dataset (``glove``, ``sbert``): (rows, dim) float32, embedded as a dataset's rows are, uncached."""
    kind, options = parse_spec(spec)
    if not _stateless(kind):
        raise InputError(f"{spec} learns from its dataset: map new text with its Representation's transform.")
    fields = str(options["fields"]).split("+")
    missing = [f for f in fields if f not in texts_by_field]
    if missing:
        raise InputError(f"transform needs the field(s) {missing} of {spec}.")
    rows = {f: list(texts_by_field[f]) for f in fields}
    n = len(rows[fields[0]])
    rows["_label"] = [""] * n   # a Dataset has a label; the builders never read it
    tiny = Dataset(table=pd.DataFrame(rows, index=pd.Index([f"new-{i}" for i in range(n)], name="id")),
                   label="_label", text=fields)
    X, _ = REGISTRY[kind].build(tiny, resolve_options(tiny, kind, options), messages=[], info={}, progress=None,
                                cancel=None, cache_dir=False)
    return np.asarray(X, dtype=np.float32)


def _stateless(kind: str) -> bool:
    """A kind that fits nothing on the dataset: a new text is embedded as the dataset's were."""
    return REGISTRY[kind].new_text == "stateless"


# ============================================================== spec grammar


# ============================================================== cache


def _cache(cache_dir, fingerprint: str, spec: str):
    """(the stores of the dataset's cached Φs, the key of ``spec``)."""
    return stores(Path(cache_dir) / "representations" / fingerprint), \
        result_key(fingerprint, spec, length=20)


def _load_cached(cache, dataset: Dataset, spec: str):
    (vectors, sidecars), key = cache
    # unreadable (logged): rebuilt and overwritten
    meta = sidecars.load_or_none(key, lambda p: json.loads(p.read_text()))
    X = vectors.load_or_none(key, lambda p: np.load(p, mmap_mode="r")) if meta is not None else None
    if X is None:
        return None
    excluded = np.asarray(meta.get("excluded_ids", []), dtype=object)
    ids = _remaining_ids(dataset, excluded)
    if (meta.get("spec") != spec or meta.get("fingerprint") != dataset.fingerprint or X.dtype != np.float32
            or list(X.shape) != list(meta.get("shape", [])) or X.shape[0] != len(ids)):
        return None
    fitted = None
    if REGISTRY[parse_spec(spec)[0]].new_text == "fitted":   # its learned parts: without them (an entry from before they were
        parts = fitted_store(cache[0][0].root)                          # kept, or unreadable) it is built again
        if parts.load_or_none(key, FittedTfidfSvd.check) is None:       # (the file's index only: cheap)
            return None
        fitted = partial(_read_fitted, parts, key)
    info = dict(meta.get("info", {}))
    info.update(cached=True, cache_path=str(cache[0][0].path(cache[1])))
    return Representation(X=X, ids=ids, excluded_ids=excluded, spec=spec, info=info, fitted=fitted)


def _read_fitted(parts, key: str) -> FittedTfidfSvd:
    fitted = parts.load_or_none(key, FittedTfidfSvd.read)
    if fitted is None:
        raise InputError(f"the fitted parts of this representation in the cache ({parts.path(key)}) cannot be read; "
                         "delete that file and build the representation again.")
    return fitted


def _store(cache, rep: Representation, dataset: Dataset) -> None:
    (vectors, sidecars), key = cache
    vectors.save(key, lambda f: np.save(f, np.ascontiguousarray(rep.X, dtype=np.float32)))
    if isinstance(rep.fitted, FittedTfidfSvd):
        fitted_store(vectors.root).save(key, rep.fitted.write)
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
    sidecars.save(key, lambda f: f.write(json.dumps(meta, indent=1, default=json_default).encode()))


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
        Cache folder; None means `core.base.paths.cache_dir`; False disables the cache.
    progress : callable, optional
        ``progress(fraction, message)``.
    cancel : object with ``is_set()``, optional
        Checked between steps; raises `core.base.errors.Cancelled` when set.

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
        raise InputError(f"represent needs a core.data.dataset.Dataset, got {type(dataset).__name__}; "
                         "load one with core.data.sources.load_dataset.")
    if len(dataset) == 0:
        raise InputError("the dataset has no examples; nothing to represent.")
    kind, options = parse_spec(spec)
    opts = resolve_options(dataset, kind, options)
    canon = canonical_spec(kind, opts)
    check_cancel(cancel)

    use_cache = cache_dir is not False and kind != "file"
    if not use_cache:
        return _build(dataset, kind, opts, canon, None, cache_dir, progress, cancel)
    cache = _cache(cache_dir if cache_dir is not None else paths.cache_dir(), dataset.fingerprint, canon)
    # one build of a Φ at a time in this process: a second job asking for it waits, then reads it
    with _BUILDING.hold(str(cache[0][0].path(cache[1])), cancel):
        hit = _load_cached(cache, dataset, canon)
        if hit is not None:
            report(progress, 1.0, "loaded from cache")
            return hit
        return _build(dataset, kind, opts, canon, cache, cache_dir, progress, cancel)


#: the Φs being built in this process, by cache file (`represent`)
_BUILDING = KeyedLocks()


def _build(dataset: Dataset, kind: str, opts: dict, canon: str, cache, cache_dir, progress, cancel) -> Representation:
    """Build Φ and, with a ``cache`` (`_cache`), store it there."""
    start = time.perf_counter()
    messages: list = []
    info: dict = {}
    report(progress, 0.0, f"building {kind}")
    builder = REGISTRY[kind].build
    # BLAS on one thread: its sums depend on its thread count, so Φ would differ with the machine's
    # cores and with whether another job holds BLAS at one thread (`core.base.cores`)
    with one_blas_thread():
        X, excluded = builder(dataset, opts, messages=messages, info=info, progress=progress, cancel=cancel,
                              cache_dir=cache_dir)
    if not (isinstance(X, np.memmap) and X.dtype == np.float32 and X.flags.c_contiguous):
        X = np.ascontiguousarray(X, dtype=np.float32)   # a float32 memory map stays one (no copy)
    fitted = info.pop(FITTED, None)
    ids = _remaining_ids(dataset, excluded)
    check_finite(X, ids, f"the {kind} vectors")
    assert X.shape[0] == len(ids), (X.shape, len(ids))
    X.setflags(write=False)  # shared by reference downstream; a cached copy is a read-only memmap anyway
    info.update(kind=kind, options={k: v for k, v in opts.items() if v is not None}, dim=int(X.shape[1]),
                n=int(X.shape[0]), seconds=round(time.perf_counter() - start, 4), messages=messages, cached=False)
    rep = Representation(X=X, ids=ids, excluded_ids=np.asarray(list(excluded), dtype=object), spec=canon, info=info,
                         fitted=fitted)
    if cache is not None:
        check_cancel(cancel)
        try:
            _store(cache, rep, dataset)
            info["cache_path"] = str(cache[0][0].path(cache[1]))
        except OSError as exc:  # a read-only or full disk must not lose the computed result
            messages.append(f"could not write the cache ({exc}); set ARTIFACT_LENS_CACHE to a writable folder.")
    report(progress, 1.0, "done")
    return rep


def _build_warmup(dataset, opts, *, messages, info, progress, cancel, cache_dir):
    """Paper 000's warm-up representation: an MLP trained on a share of the examples (which are then
    excluded from Φ and everything downstream), its last hidden layer on the rest."""
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


# declared here, beside its builder, which builds its input features through `represent`
register_kind(Kind("warmup", {"fields": None, "fraction": 0.1, "hidden": "128", "dim": 128, "input": None, "seed": 0},
                   "warmup:fields=premise+hypothesis,fraction=0.1,hidden=128",
                   "Warm-up feature extractor (paper 000; excludes the warm-up share)", _build_warmup, check_warmup,
                   page_inputs=(("fields", "fields"), ("dim", "dim"), ("fraction", "fraction")),
                   new_text="its extractor's training examples are part of it"))
