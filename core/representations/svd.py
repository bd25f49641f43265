"""The truncated SVD of a ``tfidf-svd`` Φ, with its sparse products on every core.

The algorithm is scikit-learn's ``TruncatedSVD(algorithm="randomized", n_iter=5)`` step for step
(the same Gaussian start from ``RandomState(seed)``, LU-normalised power iterations, the QR, the
small SVD, the sign flip of the components and the explained variance), so Φ is the one it gave to
float rounding. What differs is where the time goes: its dozen products of the sparse TF-IDF
matrix with a tall dense block (about two thirds of the SVD at 100k rows) run single-threaded
there, and here in row blocks on a thread each (SciPy releases the GIL in them, and each output
row is summed in the same order as before).

With a device (``RandomizedSVD(device=...)``, or the enclosing `core.base.devices.computing_on`,
issue 57) the same steps run there through the array API: the tall blocks, their orthonormal
bases, the small SVD and the products with the sparse matrix, which is put on the device where
its library has sparse matrices (PyTorch, CuPy) and multiplied on the host otherwise (NumPy
through the array API: how the tests run this code without a GPU). The array API has no LU, so
the power iterations are normalised by QR; both keep the block's column space, so the subspace
found, and the components, are the same up to rounding (tests/unit/test_svd_device.py).
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp

from ..base.cores import usable_cores
from ..base.devices import arrays_on, current, to_host

__all__ = ["RandomizedSVD"]

#: below this many stored values a product takes milliseconds: threads would only add overhead
_THREADED_NNZ = 200_000


class _Products:
    """``M @ X`` and ``M.T @ Y`` for a CSR matrix ``M``, each in row blocks on ``workers`` threads."""

    def __init__(self, M: sp.csr_matrix, workers: int):
        self.M = M
        self.workers = workers if M.nnz >= _THREADED_NNZ else 1
        # rows of Mᵀ to split over threads: a CSR copy, made only when there are threads to feed
        self.MT = M.T.tocsr() if self.workers > 1 else M.T

    def _blocks(self, A: sp.csr_matrix, X: np.ndarray) -> np.ndarray:
        if self.workers == 1:
            return np.asarray(A @ X)
        cuts = np.linspace(0, A.shape[0], self.workers + 1).astype(int)
        with ThreadPoolExecutor(self.workers) as pool:
            parts = list(pool.map(lambda ab: np.asarray(A[ab[0]:ab[1]] @ X), zip(cuts[:-1], cuts[1:])))
        return np.vstack(parts)

    def dot(self, X: np.ndarray) -> np.ndarray:
        return self._blocks(self.M, X)

    def tdot(self, Y: np.ndarray) -> np.ndarray:
        return self._blocks(self.MT, Y)


def _sparse_on(device: str, M: sp.csr_matrix):
    """(M, Mᵀ) as sparse matrices of ``device``'s library, or None where it has none."""
    name = str(device)
    if name == "torch" or name.startswith("cuda"):
        import torch

        where = torch.device("cpu" if name == "torch" else name)

        def put(A):
            return torch.sparse_csr_tensor(torch.from_numpy(A.indptr.astype(np.int64)),
                                           torch.from_numpy(A.indices.astype(np.int64)), torch.from_numpy(A.data),
                                           size=A.shape, device=where)
    elif name == "cupy":
        import cupy
        import cupyx.scipy.sparse as csp

        def put(A):
            return csp.csr_matrix((cupy.asarray(A.data), cupy.asarray(A.indices), cupy.asarray(A.indptr)),
                                  shape=A.shape)
    else:
        return None
    return put(M), put(M.T.tocsr())


class _DeviceProducts:
    """``M @ X`` and ``M.T @ Y`` for blocks X, Y on ``device``: there, or on the host's threads
    (`_Products`) for a namespace without sparse matrices."""

    def __init__(self, M: sp.csr_matrix, device: str, workers: int):
        self.xp, self.put = arrays_on(device)
        self.on_device = _sparse_on(device, M)
        self.host = None if self.on_device else _Products(M, workers)

    def dot(self, X):
        return self.on_device[0] @ X if self.on_device else self.put(self.host.dot(to_host(X)))

    def tdot(self, Y):
        return self.on_device[1] @ Y if self.on_device else self.put(self.host.tdot(to_host(Y)))


class RandomizedSVD:
    """``fit_transform(M)`` → (rows, ``n_components``) and ``components_`` /
    ``explained_variance_ratio_``, as `sklearn.decomposition.TruncatedSVD` with
    ``algorithm="randomized"`` gives them (``n_oversamples`` 10, power iterations normalised by LU;
    by QR on a ``device``, which defaults to the enclosing `core.base.devices.computing_on`)."""

    def __init__(self, n_components: int, n_iter: int = 5, random_state: int = 0, n_oversamples: int = 10,
                 workers: int = 0, device=None):
        self.n_components, self.n_iter, self.random_state = int(n_components), int(n_iter), int(random_state)
        self.n_oversamples = int(n_oversamples)
        self.workers = int(workers) or usable_cores()
        self.device = device

    def fit_transform(self, M) -> np.ndarray:
        from sklearn.utils.sparsefuncs import mean_variance_axis

        M = sp.csr_matrix(M)
        device = self.device if self.device is not None else current()
        Z = self._on_host(M) if device in (None, "numpy") else self._on_device(M, device)
        self.explained_variance_ = np.var(Z, axis=0)
        self.explained_variance_ratio_ = self.explained_variance_ / mean_variance_axis(M, axis=0)[1].sum()
        return Z

    def _on_host(self, M: sp.csr_matrix) -> np.ndarray:
        from scipy import linalg
        from sklearn.utils.extmath import svd_flip

        k, size = self.n_components, self.n_components + self.n_oversamples
        prod = _Products(M, self.workers)
        transpose = M.shape[0] < M.shape[1]
        # A is the matrix whose range is found (scikit-learn transposes the wider way round)
        a_dot, at_dot = (prod.tdot, prod.dot) if transpose else (prod.dot, prod.tdot)
        width = M.shape[0] if transpose else M.shape[1]
        Q = np.random.RandomState(self.random_state).normal(size=(width, size)).astype(M.dtype, copy=False)
        normalise = self.n_iter > 2
        for _ in range(self.n_iter):
            Q = linalg.lu(a_dot(Q), permute_l=True)[0] if normalise else a_dot(Q)
            Q = linalg.lu(at_dot(Q), permute_l=True)[0] if normalise else at_dot(Q)
        Q = linalg.qr(a_dot(Q), mode="economic")[0]
        B = at_dot(Q).T                                    # Qᵀ A
        Uhat, s, Vt = linalg.svd(B, full_matrices=False, lapack_driver="gesdd")
        U = Q @ Uhat
        if transpose:
            U, s, Vt = Vt[:k].T, s[:k], U[:, :k].T
        else:
            U, s, Vt = U[:, :k], s[:k], Vt[:k]
        U, Vt = svd_flip(U, Vt, u_based_decision=False)
        Z = prod.dot(np.ascontiguousarray(Vt.T))          # M Vᵀ: exact for every row, unlike U·Σ
        self.components_, self.singular_values_ = Vt, s
        return Z

    def _on_device(self, M: sp.csr_matrix, device: str) -> np.ndarray:
        """`_on_host`'s steps on ``device`` (module docstring): the same start, QR for LU."""
        prod = _DeviceProducts(M, device, self.workers)
        xp, k, size = prod.xp, self.n_components, self.n_components + self.n_oversamples
        transpose = M.shape[0] < M.shape[1]
        a_dot, at_dot = (prod.tdot, prod.dot) if transpose else (prod.dot, prod.tdot)
        width = M.shape[0] if transpose else M.shape[1]
        Q = prod.put(np.random.RandomState(self.random_state).normal(size=(width, size)).astype(M.dtype, copy=False))
        for _ in range(self.n_iter):
            Q = xp.linalg.qr(a_dot(Q))[0] if self.n_iter > 2 else a_dot(Q)
            Q = xp.linalg.qr(at_dot(Q))[0] if self.n_iter > 2 else at_dot(Q)
        Q = xp.linalg.qr(a_dot(Q))[0]
        Uhat, s, Vt = xp.linalg.svd(xp.matrix_transpose(at_dot(Q)), full_matrices=False)   # of Qᵀ A
        Vt = to_host(xp.matrix_transpose((Q @ Uhat)[:, :k]) if transpose else Vt[:k, :])
        # scikit-learn's sign rule (u_based_decision=False): each component's largest entry is positive
        Vt = Vt * np.sign(Vt[np.arange(k), np.argmax(np.abs(Vt), axis=1)])[:, None]
        self.components_, self.singular_values_ = Vt, to_host(s)[:k]
        return to_host(prod.dot(prod.put(np.ascontiguousarray(Vt.T))))
