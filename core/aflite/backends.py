"""AFLite's ridge family on another array library: PyTorch (CPU or a CUDA GPU), CuPy, or any
namespace of the Python array API (`AFLite(device=...)`, issue 32).

The phase loop stays on the host: the partition plan, the random numbers, the one τ rule
(`core.aflite.selection`), the trajectory. Only the arithmetic of a phase moves: the block Gram
sums, each partition's normal equations (its whole blocks' sums plus or minus its extra rows,
as in `core.aflite.scorers.RidgeScorer`), the m solves at once (float64, batched), and the
held-out predictions of all m models. The arithmetic is the engine's, on full matrices instead
of LAPACK's packed triangles and by a batched LU solve instead of a Cholesky factorisation, so a
backend's retained set equals the engine's up to predictions that tie within rounding
(`tests/unit/test_aflite_backends.py` measures it).

The names a user gives (``device=``) and the namespace each means: `core.base.devices`.
"""
from __future__ import annotations

import numpy as np

from ..base.devices import to_host
from ..base.progress import check_cancel

__all__ = ["ArrayRidgeScorer"]

#: bytes of class scores predicted at a time (rows × m × C floats on the device)
PREDICT_BYTES = 256 << 20
#: rows of X sent to the device at a time (centred there: no centred copy of X on the host)
UPLOAD_ROWS = 65536
#: bytes of padded rows gathered at a time for the batched per-group Gram matrices
BATCH_BYTES = 256 << 20


class ArrayRidgeScorer:
    """`core.aflite.scorers.RidgeScorer`'s interface (``score``, ``remove``) on namespace ``xp``.

    [X, 1] (in X's own float32 or float16: a 10M × 768 float16 memory map is 15 GB on the device,
    not 31) and the one-hot labels live on the device; so do the block Grams G[b] = Z̃_bᵀZ̃_b and
    H[b] = Z̃_bᵀY_b, kept full (d1 × d1). Rows are widened to float32 and centred as they are
    gathered, Z̃ = [float32(x) − mean, 1]: the engine's numbers, for either storage."""

    def __init__(self, xp, device, X, mean, codes, n_classes, blocks, alpha, cancel):
        self.xp, self.device, self.alpha, self.C = xp, device, float(alpha), int(n_classes)
        self.codes, self.block_of = np.asarray(codes), blocks.block_of
        N, d = X.shape
        # float16 is not in the array API standard: PyTorch, CuPy and NumPy have it, a namespace without it widens
        half = X.dtype == np.float16 and hasattr(xp, "float16")
        host = np.float16 if half else np.float32
        self.Z = xp.empty((N, d + 1), dtype=xp.float16 if half else xp.float32, **self._on())
        for lo in range(0, N, UPLOAD_ROWS):   # X streamed from the host (a memory map's pages as read)
            check_cancel(cancel)
            hi = min(N, lo + UPLOAD_ROWS)
            self.Z[lo:hi, :d] = self._put(np.ascontiguousarray(X[lo:hi], dtype=host))
        self.Z[:, d] = 1.0
        # subtracted from each gathered row, [mean, 0]: the intercept's column stays 1
        self.shift = self._put(np.r_[np.asarray(mean, dtype=np.float32), np.float32(0)]) if np.any(mean) else None
        self.Y = self._put(np.eye(self.C, dtype=np.float32)[self.codes])
        order = np.argsort(blocks.sort_key, kind="stable")
        bounds = np.searchsorted(self.block_of[order], np.arange(blocks.n_blocks + 1))
        grams, rhs = [], []
        for _, _, g, h in self._group_sums([order[bounds[b]:bounds[b + 1]] for b in range(blocks.n_blocks)]):
            check_cancel(cancel)
            grams.append(g)
            rhs.append(h)
        self.G, self.H = xp.concat(grams, axis=0), xp.concat(rhs, axis=0)

    def _on(self) -> dict:
        return {} if self.device is None else {"device": self.device}

    def _put(self, a: np.ndarray):
        return self.xp.asarray(a, **self._on())

    def _sums(self, rows: np.ndarray):
        """(Z̃ᵀZ̃, Z̃ᵀY) of ``rows`` (absolute row numbers), or (None, None) for none."""
        if len(rows) == 0:
            return None, None
        Zr, Yr = self._gather(rows)
        return Zr.T @ Zr, Zr.T @ Yr

    def _gather(self, rows: np.ndarray):
        """(Z̃, Y) of ``rows`` on the device: one transfer of the row numbers, one gather each."""
        idx = self._put(np.asarray(rows, dtype=np.int64))
        return self._rows(idx), self.xp.take(self.Y, idx, axis=0)

    def _rows(self, idx):
        """Z̃ of the rows ``idx`` (a device array): float32, centred."""
        Zr = self.xp.astype(self.xp.take(self.Z, idx, axis=0), self.xp.float32, copy=False)
        return Zr if self.shift is None else Zr - self.shift

    def _group_sums(self, groups: list):
        """(g0, g1, Z̃ᵀZ̃, Z̃ᵀY) for consecutive runs g0..g1-1 of ``groups`` (arrays of absolute rows,
        empty ones too), each run one gather and one batched product (not one small product per
        group: on a GPU the launches, not the flops, were the cost). The groups are padded to the
        longest with rows weighted 0, which add exact zeros; a run holds at most BATCH_BYTES of rows."""
        xp, d1 = self.xp, self.Z.shape[1]
        width = max(1, max(len(g) for g in groups))
        per = max(1, BATCH_BYTES // (4 * width * d1))
        for g0 in range(0, len(groups), per):
            g1 = min(len(groups), g0 + per)
            idx = np.zeros((g1 - g0, width), dtype=np.int64)
            weight = np.zeros((g1 - g0, width, 1), dtype=np.float32)
            for i, rows in enumerate(groups[g0:g1]):
                idx[i, :len(rows)], weight[i, :len(rows)] = rows, 1.0
            Zr, Yr = self._gather(idx.reshape(-1))
            Zr = xp.reshape(Zr, (g1 - g0, width, d1)) * self._put(weight)
            Zt = xp.permute_dims(Zr, (0, 2, 1))
            yield g0, g1, Zt @ Zr, Zt @ xp.reshape(Yr, (g1 - g0, width, self.C))

    def remove(self, removed_rows: np.ndarray) -> None:
        """Subtract the removed rows from their blocks' Grams."""
        removed_rows = np.asarray(removed_rows)
        if len(removed_rows) == 0:
            return
        B = self.G.shape[0]
        blk = self.block_of[removed_rows]
        order = np.argsort(blk, kind="stable")   # by block, each block's rows in their given order
        starts = np.searchsorted(blk[order], np.arange(B + 1))
        groups = [removed_rows[order[starts[b]:starts[b + 1]]] for b in range(B)]
        if B * max(len(g) for g in groups) <= 4 * len(removed_rows) + 8 * B:   # padding stays cheap: all at once
            for g0, g1, g, h in self._group_sums(groups):
                self.G[g0:g1, ...] = self.G[g0:g1, ...] - g
                self.H[g0:g1, ...] = self.H[g0:g1, ...] - h
            return
        for b in np.flatnonzero(np.diff(starts)):   # few blocks lost many rows: only those change
            g, h = self._sums(groups[b])
            self.G[int(b), ...] = self.G[int(b), ...] - g
            self.H[int(b), ...] = self.H[int(b), ...] - h

    def score(self, S, plan, sub, cancel, phase):
        from .scorers import extra_rows

        xp = self.xp
        m, (B, d1, _) = plan.full.shape[1], self.G.shape
        extra = [extra_rows(plan, p) for p in range(m)]
        F = np.ascontiguousarray(plan.full.T, dtype=np.float32)
        for p, (b, _, _) in enumerate(extra):
            if b >= 0:
                F[p, b] = 1.0
        Fd = self._put(F)
        # float64(whole blocks' sums) ± float64(the extra rows' sums), as the engine adds them
        A = xp.astype(xp.reshape(Fd @ xp.reshape(self.G, (B, d1 * d1)), (m, d1, d1)), xp.float64)
        R = xp.astype(xp.reshape(Fd @ xp.reshape(self.H, (B, d1 * self.C)), (m, d1, self.C)), xp.float64)
        sub(0.3, "ridge: normal equations")
        if any(len(pos) for _, pos, _ in extra):
            sign = self._put(np.array([s for _, _, s in extra], dtype=np.float64).reshape(m, 1, 1))
            for g0, g1, g, h in self._group_sums([S[pos] for _, pos, _ in extra]):
                check_cancel(cancel)
                A[g0:g1, ...] = A[g0:g1, ...] + sign[g0:g1, ...] * xp.astype(g, xp.float64)
                R[g0:g1, ...] = R[g0:g1, ...] + sign[g0:g1, ...] * xp.astype(h, xp.float64)
        # the ridge penalty on every weight but the intercept, scaled by the mean diagonal
        mask = self._put(np.r_[np.ones(d1 - 1), 0.0])
        diag = xp.linalg.diagonal(A)                                   # (m, d1)
        lam = self.alpha * xp.maximum(xp.sum(diag * mask, axis=1) / (d1 - 1), xp.asarray(1e-12, **self._on()))
        A = A + (lam[:, None] * mask[None, :])[:, :, None] * xp.eye(d1, dtype=xp.float64, **self._on())[None, ...]
        W = xp.astype(self._solve(A, R), xp.float32)                  # (m, d1, C)
        sub(0.6, "ridge: solved")
        W = xp.reshape(xp.permute_dims(W, (1, 0, 2)), (d1, m * self.C))  # one product predicts all m models
        S_d = self._put(np.asarray(S, dtype=np.int64))
        whole_out = self._put(~plan.full)                               # (B, m): block b held out of p's whole blocks
        blk = self._put(np.asarray(plan.blk, dtype=np.int64))
        c = np.zeros(len(S))
        step = max(16, PREDICT_BYTES // (4 * m * self.C))
        for lo in range(0, len(S), step):
            check_cancel(cancel)
            hi = min(len(S), lo + step)
            idx = S_d[lo:hi]
            scores = xp.reshape(self._rows(idx) @ W, (hi - lo, m, self.C))
            own = xp.sum(scores * xp.take(self.Y, idx, axis=0)[:, None, :], axis=2)   # the true class's score
            right = own >= xp.max(scores, axis=2)                                     # (rows, m)
            held = xp.take(whole_out, blk[lo:hi], axis=0)
            c[lo:hi] = to_host(xp.sum(xp.astype(right & held, xp.int32), axis=1))
            pos, part = plan.pairs(lo, hi)
            if len(pos):   # in a partial training set: counted above as held out, so taken back out
                flat = self._put((pos - lo) * m + part)
                back = to_host(xp.take(xp.reshape(right, (-1,)), flat)).astype(np.float64)
                c[lo:hi] -= np.bincount(pos - lo, weights=back, minlength=hi - lo)
        sub(1.0, "ridge: predicted")
        return c, plan.n_held().astype(np.float64)

    def _solve(self, A, R):
        """The m systems at once; a singular one by least squares (the pseudo-inverse)."""
        xp = self.xp
        try:
            W = xp.linalg.solve(A, R)
        except Exception:  # noqa: BLE001  (each library names a singular matrix its own way)
            W = None
        if W is None or not bool(xp.all(xp.isfinite(W))):
            W = xp.linalg.pinv(A) @ R
        return W
