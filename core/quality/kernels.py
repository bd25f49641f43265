"""Small numeric kernels of the quality context: each component's rule (one function per
component, used for the whole dataset and for one new example alike), row normalisation, chunked
maximum cosine, PCA bases, and a TF-IDF/SVD that can embed new text (see `core.quality`)."""
from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from ..data.dataset import text_values


# ============================================================== the components' rules (arrays or scalars)


def vocabulary_score(R, R_ref: float):
    """C1: Guiraud's root type-token ratio against the dataset's reference, in [0, 1]."""
    return np.clip(np.asarray(R, dtype=np.float64) / R_ref, 0, 1)


def rarity(df, n_examples: int):
    """C2, per n-gram: log((N + 1) / df) / log(N + 1), ``df`` the examples holding the n-gram (the
    example itself counted); an n-gram in every example scores near 0."""
    return np.log((n_examples + 1) / np.maximum(np.asarray(df, dtype=np.float64), 1)) / math.log(n_examples + 1)


def dissimilarity(similarity):
    """C3, C5 and C7: 1 − max(0, cosine) of the nearest (or the other field's) vector."""
    return 1 - np.clip(np.asarray(similarity, dtype=np.float64), 0, 1)


def word_overlap_score(share):
    """C4: 1 − the share of the last field's tokens that occur in the first."""
    return 1 - np.clip(np.asarray(share, dtype=np.float64), 0, 1)


def label_tied_score(z_own_max, z_star: float):
    """C6: 1 / (1 + (z⁺ / z*)²), z⁺ the largest z of the example's own n-grams for its own label
    (negative or none: 0): exactly 0.5 at the Bonferroni line."""
    z = np.asarray(z_own_max, dtype=np.float64)
    zp = np.maximum(np.where(np.isfinite(z), z, 0.0), 0.0)
    return 1.0 / (1.0 + (zp / z_star) ** 2)


# ============================================================== small kernels


def pca_basis(X: np.ndarray, dim: int, seed: int = 0, rows: int = 20000):
    """Mean and top ``dim`` principal axes of X (estimated exactly on at most ``rows`` seeded rows)."""
    from ..base.pca import fit_pca

    pca = fit_pca(X, dim, seed, rows, exact=True)
    return pca.mean_.astype(np.float32), pca.components_.T.astype(np.float32)


def spec_parts(spec: str):
    from ..representations import parse_spec

    return parse_spec(spec)


def with_fields(kind: str, opts: dict, fields: str) -> str:
    from ..representations import canonical_spec, KINDS

    o = {k: v for k, v in opts.items() if k in KINDS[kind]}
    o["fields"] = fields
    return canonical_spec(kind, o)


class TfidfSvd:
    """TF-IDF per field (the options of `core.representations`' ``tfidf-svd``) and a linear map into
    an SVD space fitted here: the space in which the two fields of a pair are compared when Φ has no
    vectors per field (new text reaches Φ itself through `Representation.transform`)."""

    def __init__(self, texts_by_field: dict, ngram="1-2", min_df=2):
        from ..representations.text import fit_tfidf

        self.fields = list(texts_by_field)
        self.vecs = {f: fit_tfidf(texts, ngram, min_df, f)[0] for f, texts in texts_by_field.items()}
        self.V = None

    def matrix(self, table_or_dict) -> sp.csr_matrix:
        blocks = [self.vecs[f].transform(text_values(table_or_dict[f])) for f in self.fields]
        return sp.hstack(blocks, format="csr", dtype=np.float32)

    def fit_svd(self, M: sp.csr_matrix, dim: int, seed: int = 0, rows: int = 20000) -> "TfidfSvd":
        """The map: the top ``dim`` right singular vectors of (at most ``rows`` seeded rows of) ``M``,
        by Φ's own truncated SVD (`core.representations.svd.RandomizedSVD`)."""
        from ..representations.svd import RandomizedSVD

        rng = np.random.default_rng(seed)
        sample = M if M.shape[0] <= rows else M[np.sort(rng.choice(M.shape[0], rows, replace=False))]
        dim = max(1, min(int(dim), min(sample.shape) - 1))
        svd = RandomizedSVD(n_components=dim, random_state=seed)
        svd.fit_transform(sample)
        self.V = np.ascontiguousarray(svd.components_.T, dtype=np.float32)
        return self

    def transform(self, table_or_dict) -> np.ndarray:
        return np.asarray(self.matrix(table_or_dict) @ self.V, dtype=np.float32)
