"""The model families M behind one small interface: a scorer counts, for every member of
S_j, how many of the phase's m held-out predictions were correct.

A scorer has ``score(S, plan, sub, cancel, phase) -> (correct, held)`` (float64 counts
per member of S_j) and ``remove(rows)`` (called after a phase with the removed rows).

- `RidgeScorer` ("ridge", the default): closed-form one-vs-rest least squares on
  one-hot labels with an unpenalised intercept and penalty λ = alpha · tr(Z_TᵀZ_T)/d
  on the centred training rows, solved in float64 (Cholesky) per partition. It owns
  per-block Gram matrices G_b = Z̃_bᵀZ̃_b and cross products H_b = Z̃_bᵀY_b
  (Z̃ = [Z, 1]) of the current S: built once per fit (one pass over X), downdated by
  the removed rows, so a phase never re-reads all of S for them. Partition p's
  normal equations are the sum over its whole blocks (one matrix product for all p)
  plus its partial rows; all m models then predict S in one product per chunk.
- `SklearnScorer` ("logistic": scikit-learn's LogisticRegression, C = 1, the paper's
  family; "svm": LinearSVC, C = 1): one model per partition.

Measured speed and quality of each family: benchmarks/README.md.
"""
from __future__ import annotations

import warnings

import numpy as np

from core.progress import check_cancel

__all__ = ["RidgeScorer", "SklearnScorer", "CHUNK_ROWS", "rows_of"]

CHUNK_ROWS = 8192   # rows gathered at a time (bounds temporary memory)


def rows_of(Z, mean, idx):
    """Rows ``idx`` of Z, centred by ``mean`` (a zero mean when Z was already projected)."""
    out = Z[idx]
    if mean.any():
        out -= mean
    return out


class RidgeScorer:
    """The ridge family: block Gram state, its downdates and the m solves of a phase."""

    def __init__(self, Z, mean, codes, n_classes, blocks, alpha, cancel):
        self.Z, self.mean, self.codes, self.alpha = Z, mean, codes, float(alpha)
        self.block_of = blocks.block_of
        B, d1, C = blocks.n_blocks, Z.shape[1] + 1, n_classes
        self.eye = np.eye(C, dtype=np.float32)
        # GH[b] = Z̃_bᵀ [Z̃_b, Y_b]: G_b and H_b side by side, one product per block.
        self.GH = np.zeros((B, d1, d1 + C), dtype=np.float32)
        order = np.argsort(self.block_of, kind="stable")
        starts = np.concatenate([[0], np.cumsum(np.bincount(self.block_of, minlength=B))])
        per_chunk = max(1, CHUNK_ROWS // blocks.size)
        for b0 in range(0, B, per_chunk):
            check_cancel(cancel)
            b1 = min(B, b0 + per_chunk)
            idx = order[starts[b0]:starts[b1]]
            ZY = self._zy(idx)
            for b in range(b0, b1):
                s0, s1 = starts[b] - starts[b0], starts[b + 1] - starts[b0]
                np.matmul(ZY[s0:s1, :d1].T, ZY[s0:s1], out=self.GH[b])

    def _zy(self, idx):
        """[Z̃, Y] for the rows idx."""
        d = self.Z.shape[1]
        out = np.empty((len(idx), d + 1 + self.eye.shape[0]), dtype=np.float32)
        out[:, :d] = rows_of(self.Z, self.mean, idx)
        out[:, d] = 1.0
        out[:, d + 1:] = self.eye[self.codes[idx]]
        return out

    def remove(self, removed_rows: np.ndarray) -> None:
        """Subtract the removed rows from their blocks' Gram matrices."""
        if len(removed_rows) == 0:
            return
        removed_rows = np.sort(removed_rows)
        blk = self.block_of[removed_rows]
        order = np.argsort(blk, kind="stable")
        removed_rows, blk = removed_rows[order], blk[order]
        ZY = self._zy(removed_rows)
        d1 = self.Z.shape[1] + 1
        bounds = np.flatnonzero(np.diff(blk)) + 1
        for lo, hi in zip(np.concatenate([[0], bounds]), np.concatenate([bounds, [len(blk)]])):
            self.GH[blk[lo]] -= ZY[lo:hi, :d1].T @ ZY[lo:hi]

    def score(self, S, plan, sub, cancel, phase):
        from scipy.linalg import lapack

        n_s, m, C = len(S), plan.full.shape[1], self.eye.shape[0]
        d1 = self.Z.shape[1] + 1
        B = self.GH.shape[0]
        F = np.ascontiguousarray(plan.full.T, dtype=np.float32)     # (m, B)
        AH = (F @ self.GH.reshape(B, -1)).reshape(m, d1, d1 + C)
        sub(0.3, "ridge: normal equations")
        W = np.empty((d1, C, m), dtype=np.float32)   # class-major columns: out[:, c, p]
        diag = np.arange(d1 - 1)
        for p in range(m):
            check_cancel(cancel)
            ah = AH[p].astype(np.float64)
            pos = plan.partial[p]
            if len(pos):
                ZY = self._zy(S[pos])
                ah += ZY[:, :d1].T @ ZY
            a, h = np.ascontiguousarray(ah[:, :d1]), np.ascontiguousarray(ah[:, d1:])
            lam = self.alpha * max(np.trace(a[:-1, :-1]) / (d1 - 1), 1e-12)
            a[diag, diag] += lam                              # intercept not penalised
            _, x, info = lapack.dposv(a, h, lower=0, overwrite_a=0, overwrite_b=0)
            if info != 0:  # numerically singular: fall back to least squares
                x = np.linalg.lstsq(a, h, rcond=None)[0]
            W[:, :, p] = x
        sub(0.6, "ridge: solved")
        Wz = np.ascontiguousarray(W[:-1].reshape(d1 - 1, C * m))
        w0 = W[-1].reshape(C * m)
        y_s = self.codes[S]
        c = np.zeros(n_s)
        h = np.zeros(n_s)
        for lo in range(0, n_s, CHUNK_ROWS):
            check_cancel(cancel)
            hi = min(n_s, lo + CHUNK_ROWS)
            out = (rows_of(self.Z, self.mean, S[lo:hi]) @ Wz + w0).reshape(hi - lo, C, m)
            yc = y_s[lo:hi]
            own = np.where((yc == 0)[:, None], out[:, 0, :], 0.0)
            best = out[:, 0, :].copy()
            for cl in range(1, C):
                np.maximum(best, out[:, cl, :], out=best)
                own += np.where((yc == cl)[:, None], out[:, cl, :], 0.0)
            held = ~plan.in_train(lo, hi)
            c[lo:hi] = ((own >= best) & held).sum(axis=1)    # own score is the max: correct
            h[lo:hi] = held.sum(axis=1)
        sub(1.0, "ridge: predicted")
        return c, h


class SklearnScorer:
    """One scikit-learn model of family ``name`` ("logistic" or "svm") per partition."""

    def __init__(self, name, Z, mean, codes, seed):
        self.name, self.Z, self.mean, self.codes, self.seed = name, Z, mean, codes, seed

    def remove(self, removed_rows) -> None:   # nothing to keep up to date
        pass

    def _model(self, seed):
        if self.name == "logistic":
            from sklearn.linear_model import LogisticRegression

            return LogisticRegression(C=1.0, max_iter=1000)
        from sklearn.svm import LinearSVC

        return LinearSVC(C=1.0, max_iter=5000, random_state=seed)

    def _fit_predict(self, Ztr, ytr, Zte, seed):
        """Predicted class codes for Zte from one model trained on (Ztr, ytr)."""
        present = np.unique(ytr)
        if len(present) == 1:  # a training set with one class: the model can only predict it
            return np.full(len(Zte), present[0], dtype=np.int64)
        model = self._model(seed)
        with warnings.catch_warnings():
            # A non-converged linear model still gives usable predictions; the family is
            # the paper's, and warnings from thousands of fits would drown the user.
            warnings.simplefilter("ignore")
            model.fit(Ztr, ytr)
        return model.predict(Zte).astype(np.int64)

    def score(self, S, plan, sub, cancel, phase):
        n_s, m = len(S), plan.full.shape[1]
        y_s = self.codes[S]
        c = np.zeros(n_s)
        h = np.zeros(n_s)
        Zs = rows_of(self.Z, self.mean, S)
        for p in range(m):
            check_cancel(cancel)
            tr = plan.train_positions(p)
            te = np.ones(n_s, dtype=bool)
            te[tr] = False
            te = np.flatnonzero(te)
            yhat = self._fit_predict(Zs[tr], y_s[tr], Zs[te],
                                     seed=(self.seed * 1000003 + phase * 1009 + p) % (2**31))
            c[te] += yhat == y_s[te]
            h[te] += 1
            sub((p + 1) / m, f"{self.name} model {p + 1}/{m}")
        return c, h
