"""The model families M behind one small interface: a scorer counts, for every member of
S_j, how many of the phase's m held-out predictions were correct.

A scorer has ``score(S, plan, sub, cancel, phase) -> (correct, held)`` (float64 counts
per member of S_j) and ``remove(rows)`` (called after a phase with the removed rows).

- `RidgeScorer` ("ridge", the default): closed-form one-vs-rest least squares on
  one-hot labels with an unpenalised intercept and penalty λ = alpha · tr(Z_TᵀZ_T)/d
  on the centred training rows, solved in float64 (Cholesky) per partition. It owns
  per-block Gram matrices G_b = Z̃_bᵀZ̃_b (upper triangle only, RFP format) and cross
  products H_b = Z̃_bᵀY_b (Z̃ = [Z, 1]) of the current S: built once per fit (one
  pass over X, each row range adding its rows' contributions, in range order),
  downdated by the removed rows, so a phase never re-reads all of S for them.
  Partition p's normal equations are the sum over its whole blocks (one matrix
  product for all m) plus its partial rows' Gram, or, when it takes more than half
  of a block, that whole block minus the Gram of the block's other members (fewer
  rows); they are factored in RFP form (``dpftrf``). All m models then predict S in
  one product per chunk of each range, with C − 1 columns per model. The range functions (`range_grams`,
  `range_counts`) and `solve_partition` are plain functions of their arguments, so
  they run the same in this process, on threads or on Dask workers.
- `SklearnScorer` ("logistic": scikit-learn's LogisticRegression, C = 1, the paper's
  family; "svm": LinearSVC, C = 1): one model per partition.

Measured speed and quality of each family: benchmarks/README.md.
"""
from __future__ import annotations

import functools
import warnings

import numpy as np

from . import lapack as lapack
from ..base.progress import check_cancel
from ..models import make_model

__all__ = ["RidgeScorer", "SklearnScorer", "CHUNK_ROWS", "rows_of", "split_of"]

CHUNK_ROWS = 8192   # rows gathered at a time (bounds temporary memory)
CHUNK_BYTES = 64 << 20   # at most this many bytes of class scores per predicted chunk
ASSEMBLY_COLS = 1 << 12  # RFP columns per block-Gram assembly task (73 at d = 768: 16 threads, 5 tasks each)
#: prediction tasks a phase aims at (a function of |S_j| alone, never of the threads, so the numbers
#: are the same on any count): 64 keep 16 threads busy to the end of the pass, where 13 tasks of
#: 8,192 rows at 100k left 3 threads idle and the last wave a third full
PREDICT_TASKS = 64
PREDICT_MIN_ROWS = 1024  # a smaller task spends more on its gathers and set-up than on its product
DOWNDATE_TASKS = 64      # tasks of a phase's downdates (each block's is its own: any cut gives the same Grams)


def split_of(plan, p: int, n_s: int) -> tuple:
    """(training, held-out) positions into S_j of partition ``p`` of ``plan``."""
    tr = plan.train_positions(p)
    te = np.ones(n_s, dtype=bool)
    te[tr] = False
    return tr, np.flatnonzero(te)


def rows_of(Z, mean, idx, out=None):
    """Rows ``idx`` of Z, centred by ``mean`` (a zero mean when Z was already projected);
    into ``out[:len(idx)]`` if given (a reused buffer: no fresh pages per chunk)."""
    if out is None:
        out = Z[idx]
    else:
        # mode="clip": the indices are rows of Z by construction, and the default mode
        # ("raise") buffers a take with ``out`` (3x slower, measured).
        out = np.take(Z, idx, axis=0, out=out[:len(idx)], mode="clip")
    if mean.any():
        out -= mean
    return out


def _with_ones(Zc):
    """[Zc, 1] as a C-contiguous float32 matrix (Z̃)."""
    Zt = np.empty((len(Zc), Zc.shape[1] + 1), dtype=np.float32)
    Zt[:, :-1] = Zc
    Zt[:, -1] = 1.0
    return Zt


def _gram(Zt, out=None, sign=1.0, add=False):
    """sign·Z̃ᵀZ̃'s upper triangle in RFP (``ssfrk``), written into ``out`` in place
    (added to it if ``add``) or into a new array.

    Zt is C-contiguous, so Zt.T is F-contiguous (d1 × rows): it reaches BLAS without
    a copy."""
    d1 = Zt.shape[1]
    if out is None:
        out = np.empty(d1 * (d1 + 1) // 2, dtype=np.float32)
    return lapack.sfrk(d1, len(Zt), sign, Zt.T, 1.0 if add else 0.0, out)


def one_hot(codes: np.ndarray, n_classes: int) -> np.ndarray:
    """(len(codes), C) float32 rows with a 1 in each code's column (no C × C identity)."""
    Y = np.zeros((len(codes), n_classes), dtype=np.float32)
    Y[np.arange(len(codes)), codes] = 1.0
    return Y


def range_grams(chunk, lo, *, block_of, codes, mean, n_classes):
    """One range's contributions to the block Gram matrices: (blocks present, their
    Z̃ᵀZ̃ in RFP (a list of nb arrays of d1(d1+1)/2), their Z̃ᵀY (nb, d1, C)). ``block_of`` and ``codes``
    are those of the range's rows."""
    order = np.argsort(block_of, kind="stable")
    blk = block_of[order]
    Zt = _with_ones(rows_of(chunk, mean, order))
    codes = codes[order]
    cut = np.flatnonzero(np.diff(blk)) + 1
    starts, stops = np.concatenate([[0], cut]), np.concatenate([cut, [len(blk)]])
    d1 = Zt.shape[1]
    # One array per block, not one (nb, …) array: a 1 MB allocation is served again from the
    # heap range after range, where a 134 MB one (113 blocks at d = 768) is fresh pages from
    # the OS every time (page faults: 0.2–0.7 s of a 20k × 768 fit's set-up).
    P = [_gram(Zt[s0:s1]) for s0, s1 in zip(starts, stops)]
    H = np.empty((len(starts), d1, n_classes), dtype=np.float32)
    for i, (s0, s1) in enumerate(zip(starts, stops)):   # one block's one-hot Y at a time: rows × C floats
        np.matmul(Zt[s0:s1].T, one_hot(codes[s0:s1], n_classes), out=H[i])
    return blk[starts], P, H


def range_counts(chunk, lo, *, rows, codes, blk, train_pos, train_part, whole, mean, Wz, w0):
    """Held-out predictions of all m models for some members of S in a range: per member,
    (correct, held) counts. ``rows`` are absolute row numbers (ascending), ``codes`` their
    labels, ``blk`` their blocks; partition p trains on every member of block b where
    ``whole[b, p]`` and on the members at (``train_pos``, ``train_part``) (positions into
    ``rows``, partitions: its partial block). ``Wz``, ``w0`` hold the weights of the first
    C − 1 classes (class-major columns); the last class's score is 1 minus their sum (see
    `RidgeScorer`)."""
    m = whole.shape[1]
    K = len(w0) // m                      # C − 1
    c = np.zeros(len(rows))
    h = np.zeros(len(rows))
    step = chunk_rows(K, m)
    buf = np.empty((min(len(rows), step), chunk.shape[1]), dtype=chunk.dtype)
    held_all = ~whole[blk]
    held_all[train_pos, train_part] = False
    for a in range(0, len(rows), step):
        b = min(len(rows), a + step)
        out = (rows_of(chunk, mean, rows[a:b] - lo, buf) @ Wz + w0).reshape(b - a, K, m)
        yc = codes[a:b]
        best = 1.0 - out.sum(axis=1)                    # the last class's scores
        own = np.where((yc == K)[:, None], best, 0.0)
        for cl in range(K):
            np.maximum(best, out[:, cl, :], out=best)
            own += np.where((yc == cl)[:, None], out[:, cl, :], 0.0)
        held = held_all[a:b]
        c[a:b] = ((own >= best) & held).sum(axis=1)      # own score is the max: correct
        h[a:b] = held.sum(axis=1)
    return c, h


def chunk_rows(K: int, m: int) -> int:
    """Rows predicted at a time: `CHUNK_ROWS`, fewer when K·m scores a row would pass
    `CHUNK_BYTES` (thousands of classes), so the temporaries stay bounded."""
    return int(max(16, min(CHUNK_ROWS, CHUNK_BYTES // max(1, 4 * K * m))))


def task_rows(n_s: int, K: int, m: int) -> int:
    """Members of S_j per prediction task: about |S_j| / `PREDICT_TASKS`, within
    [`PREDICT_MIN_ROWS`, `chunk_rows`]. Each member's counts are its own row of products, so how S_j
    is cut changes no number."""
    return int(min(chunk_rows(K, m), max(PREDICT_MIN_ROWS, -(-n_s // PREDICT_TASKS))))


@functools.lru_cache(maxsize=4)
def _rfp_diagonal(n: int) -> np.ndarray:
    """Where the diagonal of an n × n matrix sits in its RFP form (upper, TRANSR = N)."""
    from scipy.linalg import lapack

    marks = np.zeros((n, n), order="F")
    marks[np.arange(n), np.arange(n)] = np.arange(1, n + 1)
    rfp = lapack.dtrttf(marks)[0]
    at = np.flatnonzero(rfp)
    pos = np.empty(n, dtype=np.int64)
    pos[rfp[at].astype(np.int64) - 1] = at
    return pos


def solve_partition(ag, ah, Zt, Y, alpha, sign=1.0):
    """One partition's ridge weights (d1, C), float64: the penalised normal equations
    from the sums over its whole blocks (``ag`` in RFP, ``ah``) plus ``sign`` times the
    Gram of the rows Z̃ (with their one-hot Y), solved by a Cholesky factorisation of
    the RFP matrix itself (least squares if numerically singular)."""
    d1 = ah.shape[0]
    diag = _rfp_diagonal(d1)[:-1]                           # the intercept is not penalised

    def normal_equations():
        h = np.asfortranarray(ah, dtype=np.float64)
        if len(Zt):
            a = np.add(ag, _gram(Zt, sign=sign), dtype=np.float64)   # float64(whole) ± float64(rows)
            h += sign * (Zt.T @ Y)
        else:
            a = ag.astype(np.float64)
        a[diag] += alpha * max(a[diag].sum() / (d1 - 1), 1e-12)
        return a, h

    a, h = normal_equations()
    # a and h are scratch: factor and solve in place.
    a, info = lapack.pftrf(d1, a)   # the GIL is let go: the m solves of a phase run on every thread
    if info == 0:
        x, info = lapack.pftrs(d1, a, h)
    if info != 0:
        a, h = normal_equations()
        from scipy.linalg.lapack import dtfttr

        a = dtfttr(d1, a)[0]                                # RFP -> full (upper triangle)
        x = np.linalg.lstsq(np.triu(a) + np.triu(a, 1).T, h, rcond=None)[0]
    return x


def extra_rows(plan, p):
    """Partition p's rows beyond its whole blocks, as the cheaper of two equal sums:
    (its partial rows, +1) or, when it takes more than half of that block, (the
    block's other members, −1) with the whole block added to its sum. Returns
    (extra whole block or −1, positions, sign)."""
    pos = plan.partial[p]
    if len(pos) == 0:
        return -1, pos, 1.0
    b = int(plan.blk[pos[0]])
    members = plan.members(b)
    if 2 * len(pos) <= len(members):
        return -1, pos, 1.0
    return b, np.setdiff1d(members, pos, assume_unique=True), -1.0


def ridge_bytes(N: int, d: int, n_classes: int, m: int, n_blocks: int) -> int:
    """Memory the ridge family holds at once (float32): the block Grams and Z̃ᵀY (B blocks),
    the m assembled right-hand sides, weights and their copy (m · d1 · C each), and two
    prediction chunks."""
    d1, C = d + 1, n_classes
    return 4 * (n_blocks * (d1 * (d1 + 1) // 2 + d1 * C) + 3 * m * d1 * C + m * d1 * (d1 + 1) // 2) \
        + 2 * CHUNK_BYTES


class RidgeScorer:
    """The ridge family: block Gram state, its downdates and the m solves of a phase.

    A Gram matrix is symmetric, so only its upper triangle (LAPACK's Fortran view)
    is computed and kept, in LAPACK's rectangular full packed format (RFP,
    d1(d1+1)/2 floats): ``ssfrk`` computes Z̃ᵀZ̃ at half the flops of a full product
    (bit for bit the same triangle as the matmul), and the block Grams take half the
    memory, so the per-phase assembly product reads half the bytes. The Cholesky
    solve reads the triangle alone. The arithmetic (float32 products and sums,
    float64 normal equations and solve) is that of full matrices.

    X is reached through ``rows`` (`core.aflite.storage`): the block Grams are summed
    range by range in range order, the predictions are one task per range, and the
    m solves are tasks too, so the numbers do not depend on where the tasks run.
    """

    def __init__(self, rows, mean, codes, n_classes, blocks, alpha, cancel):
        self.rows, self.mean, self.codes, self.alpha = rows, mean, codes, float(alpha)
        self.block_of = blocks.block_of
        B, d1, C = blocks.n_blocks, rows.shape[1] + 1, n_classes
        self.n_classes = C
        # G[b]: Z̃_bᵀZ̃_b's upper triangle in RFP; H[b] = Z̃_bᵀY_b.
        self.G = np.zeros((B, d1 * (d1 + 1) // 2), dtype=np.float32)
        self.H = np.zeros((B, d1, C), dtype=np.float32)
        self._AG = None                       # the assembly's output, reused each phase
        per_range = {i: dict(block_of=self.block_of[lo:hi], codes=codes[lo:hi])
                     for i, (lo, hi) in enumerate(rows.ranges)}
        common = dict(mean=mean, n_classes=C)
        for blk, P, H in rows.map(range_grams, per_range, common, cancel):
            for i, b in enumerate(blk):       # in place: no temporary copy of G[blk]
                np.add(self.G[b], P[i], out=self.G[b])
                np.add(self.H[b], H[i], out=self.H[b])

    def _zy(self, idx, take=None):
        """Z̃ (the rows idx, centred, with a column of ones) and their one-hot Y."""
        X = (take or self.rows.take)(idx)
        if self.mean.any():
            X -= self.mean
        return _with_ones(X), one_hot(self.codes[idx], self.n_classes)

    def remove(self, removed_rows: np.ndarray) -> None:
        """Subtract the removed rows from their blocks' Gram matrices."""
        if len(removed_rows) == 0:
            return
        removed_rows = np.sort(removed_rows)
        blk = self.block_of[removed_rows]
        order = np.argsort(blk, kind="stable")
        removed_rows, blk = removed_rows[order], blk[order]
        Zt, Y = self._zy(removed_rows)
        bounds = np.flatnonzero(np.diff(blk)) + 1

        def downdate(spans):   # some blocks' rows: blocks are independent, so they run on every thread
            for lo, hi in spans:
                b = blk[lo]
                _gram(Zt[lo:hi], out=self.G[b], sign=-1.0, add=True)
                self.H[b] -= Zt[lo:hi].T @ Y[lo:hi]

        spans = list(zip(np.concatenate([[0], bounds]), np.concatenate([bounds, [len(blk)]])))
        # a few blocks per task (a block loses ~k/B rows: one task each was mostly overhead),
        # as many tasks on any thread count
        per = max(1, -(-len(spans) // DOWNDATE_TASKS))
        for _ in self.rows.tasks(downdate, [dict(spans=spans[i:i + per]) for i in range(0, len(spans), per)], {}):
            pass

    def score(self, S, plan, sub, cancel, phase):
        m, C = plan.full.shape[1], self.n_classes
        d1 = self.rows.shape[1] + 1
        B, L = self.G.shape
        extra = [extra_rows(plan, p) for p in range(m)]
        F = np.ascontiguousarray(plan.full.T, dtype=np.float32)     # (m, B)
        for p, (b, _, _) in enumerate(extra):
            if b >= 0:
                F[p, b] = 1.0
        # Every partition's sum over its whole blocks: one product F·G, in fixed column
        # groups (tasks), so the block Grams are read once a phase. A column of the
        # product does not depend on the others, and the groups do not depend on the
        # threads. The (m, L) result is kept from phase to phase (no fresh pages).
        if self._AG is None or self._AG.shape[0] != m:
            self._AG = np.empty((m, L), dtype=np.float32)
        AG = self._AG

        def assemble(lo):
            hi = min(L, lo + ASSEMBLY_COLS)
            np.matmul(F, self.G[:, lo:hi], out=AG[:, lo:hi])

        for _ in self.rows.tasks(assemble, [dict(lo=lo) for lo in range(0, L, ASSEMBLY_COLS)], {}, cancel):
            pass
        AH = (F @ self.H.reshape(B, -1)).reshape(m, d1, C)
        sub(0.3, "ridge: normal equations")
        # Each solve gathers its own extra rows (at most half a block), so only the
        # running solves' rows are in memory (`fetcher`: a cluster gathers them once).
        fetch = self.rows.fetcher(np.unique(np.concatenate([S[pos] for _, pos, _ in extra])))

        def solve(p):
            _, pos, sign = extra[p]
            Zt, Y = self._zy(S[pos], fetch)
            return solve_partition(AG[p], AH[p], Zt, Y, self.alpha, sign)

        # One-vs-rest ridge on one-hot targets with an unpenalised intercept: the C
        # targets sum to the all-ones column, whose solution is (w = 0, intercept 1), so
        # the class scores sum to 1 and the last class's score is 1 minus the others'.
        # The predictions need only C − 1 columns per model (a third fewer flops at C = 3).
        K = C - 1
        W = np.empty((d1, K, m), dtype=np.float32)   # class-major columns: out[:, c, p]
        for p, x in enumerate(self.rows.tasks(solve, [dict(p=p) for p in range(m)], {}, cancel)):
            W[:, :, p] = x[:, :K]
        sub(0.6, "ridge: solved")
        Wz = np.ascontiguousarray(W[:-1].reshape(d1 - 1, K * m))
        w0 = W[-1].reshape(K * m)
        # S is ascending: its members in range i are one slice of positions, predicted in
        # tasks of `task_rows` members each (one product each, the same on any thread count;
        # more tasks than ranges keep every thread busy).
        bounds = np.searchsorted(S, [lo for lo, _ in self.rows.ranges] + [self.rows.shape[0]])
        step = task_rows(len(S), K, m)
        per_task, span = {}, {}
        for i in range(len(self.rows.ranges)):
            for j, p0 in enumerate(range(int(bounds[i]), int(bounds[i + 1]), step)):
                p1 = min(int(bounds[i + 1]), p0 + step)
                pos, part = plan.pairs(p0, p1)
                per_task[(i, j)] = dict(rows=S[p0:p1], codes=self.codes[S[p0:p1]], blk=plan.blk[p0:p1],
                                        train_pos=pos - p0, train_part=part)
                span[(i, j)] = (p0, p1)
        c = np.zeros(len(S))
        h = np.zeros(len(S))
        common = dict(mean=self.mean, Wz=Wz, w0=w0, whole=plan.full)
        for key, (ci, hi) in zip(sorted(per_task), self.rows.map(range_counts, per_task, common, cancel)):
            p0, p1 = span[key]
            c[p0:p1] = ci
            h[p0:p1] = hi
        sub(1.0, "ridge: predicted")
        return c, h


class SklearnScorer:
    """One scikit-learn model of family ``name`` ("logistic" or "svm") per partition."""

    def __init__(self, name, Z, mean, codes, seed):
        self.name, self.Z, self.mean, self.codes, self.seed = name, Z, mean, codes, seed

    def remove(self, removed_rows) -> None:   # nothing to keep up to date
        pass

    def _model(self, seed):
        return make_model(self.name, seed, {"max_iter": 5000} if self.name == "svm" else None)

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
            tr, te = split_of(plan, p, n_s)
            yhat = self._fit_predict(Zs[tr], y_s[tr], Zs[te],
                                     seed=(self.seed * 1000003 + phase * 1009 + p) % (2**31))
            c[te] += yhat == y_s[te]
            h[te] += 1
            sub((p + 1) / m, f"{self.name} model {p + 1}/{m}")
        return c, h
