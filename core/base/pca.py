"""Principal axes of dense vectors: the one PCA of the package.

The map's reduction before UMAP and its PCA map, the images' ``pca=`` option and the quality
context's neighbour space all fit their axes here (AFLite's rows, which may be memory-mapped, by
`covariance_axes`): on at most ``fit_rows`` rows drawn with the seed
(the axes are settled long before 100,000 rows), on one BLAS thread (BLAS's sums depend on its
thread count, and on a shared 2-core machine two threads were 2–7× slower: 100k × 768 took 1.3 s
against 4–9 s), and applied to every row in blocks, so a million rows never need a second copy of
the whole matrix in float64. The truncated SVD of sparse TF-IDF is `core.representations.svd`.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from .cores import one_blas_thread
from .progress import check_cancel, report

__all__ = ["fit_pca", "pca_transform", "covariance_axes", "FIT_ROWS"]

#: rows a PCA is fitted on, at most (a seeded sample beyond)
FIT_ROWS = 100_000
#: rows transformed at a time (bounds the float copy scikit-learn makes of each block)
_BLOCK = 100_000


def fit_pca(X: np.ndarray, dims: int, seed: int = 0, fit_rows: Optional[int] = FIT_ROWS, exact: bool = False):
    """A fitted `sklearn.decomposition.PCA` of ``X`` to ``dims`` (at most X's rank allows), on at
    most ``fit_rows`` seeded rows (None: every row). ``exact``: the full SVD in float64 (the quality
    context's neighbour space, whose cosines are stored); else scikit-learn's choice of solver."""
    from sklearn.decomposition import PCA

    n = X.shape[0]
    dims = int(min(dims, X.shape[1], n))
    rows = np.arange(n) if fit_rows is None or n <= fit_rows else np.sort(
        np.random.default_rng(seed).choice(n, size=int(fit_rows), replace=False))
    sample = X if len(rows) == n else X[rows]
    if exact:
        sample = np.asarray(sample, dtype=np.float64)
    with one_blas_thread():
        pca = PCA(n_components=dims, random_state=seed, svd_solver="full" if exact else "auto").fit(sample)
    pca.fit_rows_ = len(rows)
    return pca


def pca_transform(pca, X: np.ndarray, *, progress=None, cancel=None) -> np.ndarray:
    """``X`` in the axes of ``pca`` (float32), a block at a time (progress and cancellation between blocks)."""
    n = X.shape[0]
    out = np.empty((n, pca.n_components_), dtype=np.float32)
    with one_blas_thread():
        for start in range(0, n, _BLOCK):
            check_cancel(cancel)
            out[start:start + _BLOCK] = pca.transform(X[start:start + _BLOCK])
            report(progress, min(start + _BLOCK, n) / max(n, 1), f"PCA {X.shape[1]} → {pca.n_components_} dimensions")
    return out


def covariance_axes(blocks, d: int, dims: int) -> tuple:
    """(axes (d × dims, float32), their variances, the total variance): the top ``dims`` principal
    axes of rows given as centred ``blocks``, from their covariance summed in float64 in one pass
    (the out-of-core form, for AFLite's rows that may be memory-mapped or on a device: the
    covariance costs rows·d², never a copy of the rows)."""
    cov = np.zeros((d, d), dtype=np.float64)
    for c in blocks:
        cov += (c.T @ c).astype(np.float64)
    w, V = np.linalg.eigh(cov)
    order = np.argsort(w)[::-1][:dims]
    return np.ascontiguousarray(V[:, order], dtype=np.float32), w[order], float(w.sum())
