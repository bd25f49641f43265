"""AFLite: adversarial filtering of dataset biases (paper 000, Algorithm 1).

Where things happen
-------------------
- The partitions of a filtering phase: `_partition_plan` (depends only on the seed,
  the phase number and the current set S).
- The predictability scores p̃(i) of a phase: `AFLite._score_phase`.
- Where τ and n are applied (which examples a phase removes, and when filtering
  stops): `_select`. `AFLite.fit` and `AFLite.retained_for` both call it, which is
  what makes the live τ / n answers exact.

Paper symbols: m = ``n_partitions``, t = ``train_size``, k = ``slice_size``,
τ = ``tau``, n = ``target_size``; S is the current set, p̃(i) the predictability
score (eq. 4), R = Σ p̃ the representation bias (eq. 5).

The stopping rule, exactly
--------------------------
Phase j scores every i in S_j, then counts c_j = |{i : p̃(i) ≥ τ}| and removes
r_j = min(k, |S_j| − n, c_j) examples: the r_j most predictable ones among those
with p̃ ≥ τ (greedy slicing; ties broken by a fixed seeded random order of the
examples). Filtering stops after phase j if c_j < k (fewer than k examples passed
τ, Algorithm 1's early stop) or if |S_j| − r_j ≤ n. The last slice is truncated at
|S| − n so the filtered set never drops below n: Algorithm 1 as printed may
overshoot n by up to k − 1 examples, the prose's ⌊(|D| − n)/k⌋ phases may stop up
to k − 1 short; truncating makes ``target_size`` exact.

Because a phase's partitions depend only on (random_state, j, S_j) and the removal
order in a phase does not depend on τ or n, a fit with a low τ and a small n
answers any τ' ≥ τ and n' ≥ n exactly: walk the recorded phases and stop where τ'
or n' would have stopped (`AFLite.retained_for`).

Partitions
----------
The rows are dealt once, from the seed alone, into fixed blocks of about t/32 rows
(at least min(128, t/8)); a block shrinks as its rows are removed. Phase j draws,
from a generator seeded by (random_state, j), a random block order per partition;
each of the m training sets (S \\ T_j in the paper) takes whole blocks in that order
while they fit in t, then t − (rows taken) random members of the next block: exactly
t examples of S_j, and a function of (random_state, j, S_j) only. In phase 0 every
training set is a uniformly random t-subset of D, as in Algorithm 1; the one
difference from fully independent draws is that rows of the same block (at most
t/8 rows; about t/32 for t ≥ 4096) enter or leave a training set together. The blocks
are what make the ridge family fast: its per-block Gram matrices are built once per
fit and downdated by the removed rows, so a phase never re-reads S for them. All
families use the same plan.

Examples never held out
-----------------------
An example that falls in the training set of all m partitions of a phase gets no
prediction, so its p̃ is undefined: it is recorded as NaN, it does not count
towards c_j (it did not pass τ) and it cannot be removed in that phase; its
`predictability_` is the score of the last phase that did score it (NaN if none).
With the defaults (t = 10 %, m = 64) this has probability 0.1^64 per example; it
matters only for tiny m with a large t.
"""
from __future__ import annotations

import json
import math
import numbers
import time
import warnings
from typing import Callable, Optional

import numpy as np

from core.errors import InputError
from core.progress import check_cancel, report

__all__ = [
    "AFLite",
    "RefitNeeded",
    "FAMILIES",
    "STRATEGIES",
    "random_subset",
    "single_model_filter",
]

#: Model families for M. "ensemble" pools the predictions of "logistic" and "svm"
#: trained on the same partitions (paper 002, Algorithm 1).
FAMILIES = ("ridge", "logistic", "svm", "ensemble")
_ENSEMBLE = ("logistic", "svm")

#: Strategies (paper 003 §2): "greedy-slice" (B, AFLite), "slice-sample" (C, the
#: Gumbel top-k trick), "greedy" (A, = greedy slicing with k = 1).
STRATEGIES = ("greedy-slice", "slice-sample", "greedy")

_BLOCKS_PER_TRAIN = 32          # blocks per training set (speed/memory balance)
_BLOCK_GRAM_BYTES = 256 << 20   # cap on the per-phase block Gram matrices
_CHUNK_ROWS = 8192              # rows gathered at a time (bounds temporary memory)
_PCA_ROWS = 10000               # rows used to estimate the principal axes


class RefitNeeded(InputError):
    """The recorded trajectory cannot answer this τ / n; a new `fit` is needed."""


# --------------------------------------------------------------------------- checks

def _is_int(v) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _is_real(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _resolve_size(name: str, symbol: str, value, N: int) -> int:
    """An int is a count; a float in (0, 1) a fraction of N (rounded down)."""
    if _is_int(value):
        return int(value)
    if _is_real(value) and 0.0 < float(value) < 1.0:
        return int(math.floor(float(value) * N + 1e-9))
    raise InputError(
        f"{name}={value!r} ({symbol}) is invalid: give a count (int) or a fraction of the "
        f"dataset as a float in (0, 1), e.g. {name}=0.1.")


def _num(x):
    """A float for JSON records (None instead of NaN)."""
    x = float(x)
    return None if math.isnan(x) else x


def _check_tau(tau, name="tau"):
    if not _is_real(tau) or not (0.0 <= float(tau) <= 1.0) or math.isnan(float(tau)):
        raise InputError(f"{name}={tau!r} (τ) is invalid: the early-stopping threshold is a "
                         f"predictability score, give a number in [0, 1], e.g. {name}=0.75.")
    return float(tau)


def _encode_labels(y):
    """Labels of any hashable type -> (codes, classes). Sorted classes when sortable."""
    import pandas as pd

    arr = np.asarray(y, dtype=object) if not isinstance(y, np.ndarray) else y
    if arr.ndim != 1:
        raise InputError(f"y has shape {np.shape(y)}: give one label per row of X (a 1-D array).")
    try:
        codes, uniques = pd.factorize(arr, sort=True)
    except TypeError:  # mixed, unorderable types: keep first-seen order
        codes, uniques = pd.factorize(arr, sort=False)
    if (codes < 0).any():
        raise InputError("y contains missing labels (None/NaN): drop those rows or give every row a label.")
    classes = np.asarray(uniques)
    return codes.astype(np.int64), classes


def _check_X(X):
    try:
        X = np.asarray(X)
    except Exception as exc:  # ragged lists etc.
        raise InputError(f"X could not be read as a matrix ({exc}): give an (N, d) float array.") from None
    if X.ndim != 2:
        raise InputError(f"X has shape {X.shape}: give an (N, d) matrix, one row per example.")
    if not (np.issubdtype(X.dtype, np.floating) or np.issubdtype(X.dtype, np.integer)
            or X.dtype == bool):
        raise InputError(f"X has dtype {X.dtype}: give numbers (an (N, d) float array).")
    if X.shape[1] == 0:
        raise InputError("X has 0 columns: give a representation with at least one feature.")
    X = np.asarray(X, dtype=np.float32, order="C")   # no copy for float32 input (e.g. a memmap)
    bad_rows = []
    for lo in range(0, X.shape[0], _CHUNK_ROWS * 4):   # chunked: no N×d temporary
        bad = ~np.isfinite(X[lo:lo + _CHUNK_ROWS * 4]).all(axis=1)
        if bad.any():
            bad_rows.append(lo + np.flatnonzero(bad))
    if bad_rows:
        rows = np.concatenate(bad_rows)
        raise InputError(
            f"X has NaN or infinite values in {len(rows)} row(s) (first: row {rows[0]}): "
            "drop or impute those rows, or fix the representation.")
    return X


# --------------------------------------------------------------------------- partitions

def _block_size(N: int, t: int, d_gram: int) -> int:
    """Rows per block: about t/32, but at least min(128, t/8).

    Much smaller blocks make the per-block products slow; >= 8 blocks per training
    set keep the partitions close to independent draws. The number of blocks is
    capped so the block Gram matrices (d_gram² floats each) fit the memory budget.
    """
    size = max(1, -(-t // _BLOCKS_PER_TRAIN))
    if size < 128:
        size = max(size, min(128, -(-t // 8)))
    max_blocks = max(8, _BLOCK_GRAM_BYTES // (4 * d_gram * d_gram))
    return max(size, -(-N // max_blocks))


class _Blocks:
    """A fixed assignment of the N rows to blocks of ``size`` rows, from the seed alone.

    Rows keep their block for the whole fit; a block shrinks as its rows are removed.
    """

    def __init__(self, seed: int, N: int, size: int):
        rng = np.random.default_rng(np.random.SeedSequence([int(seed), 0xB10C]))
        self.block_of = np.empty(N, dtype=np.int64)
        self.block_of[rng.permutation(N)] = np.arange(N) // size
        self.size = size
        self.n_blocks = -(-N // size)


class _RidgeState:
    """Per-block G_b = Z̃_bᵀZ̃_b and H_b = Z̃_bᵀY_b over the current S (float32).

    Built once per fit (one pass over X); after each phase the removed rows'
    contributions are subtracted, so a phase never re-reads all of S for its Gram
    matrices.
    """

    def __init__(self, Z, mean, codes, n_classes, blocks, rows, cancel):
        self.Z, self.mean, self.codes, self.rows = Z, mean, codes, rows
        self.block_of = blocks.block_of
        B, d1, C = blocks.n_blocks, Z.shape[1] + 1, n_classes
        self.eye = np.eye(C, dtype=np.float32)
        # GH[b] = Z̃_bᵀ [Z̃_b, Y_b]: G_b and H_b side by side, one product per block.
        self.GH = np.zeros((B, d1, d1 + C), dtype=np.float32)
        order = np.argsort(self.block_of, kind="stable")
        starts = np.concatenate([[0], np.cumsum(np.bincount(self.block_of, minlength=B))])
        per_chunk = max(1, _CHUNK_ROWS // blocks.size)
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
        out[:, :d] = self.rows(self.Z, self.mean, idx)
        out[:, d] = 1.0
        out[:, d + 1:] = self.eye[self.codes[idx]]
        return out

    def remove(self, removed_rows: np.ndarray) -> None:
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


class _Plan:
    """The m training sets of one phase over S_j (positions into S_j, ascending rows).

    Partition p trains on every member of the blocks with ``full[b, p]`` plus the
    positions ``partial[p]`` (drawn from one more block), exactly t in all.
    """

    def __init__(self, blk, full, partial):
        self.blk, self.full, self.partial = blk, full, partial

    def in_train(self, lo: int, hi: int) -> np.ndarray:
        """(hi-lo, m) bool: is position pos of S_j in partition p's training set."""
        out = self.full[self.blk[lo:hi]]
        for p, pos in enumerate(self.partial):
            sel = pos[(pos >= lo) & (pos < hi)]
            out[sel - lo, p] = True
        return out

    def train_positions(self, p: int) -> np.ndarray:
        whole = np.flatnonzero(self.full[self.blk, p])
        return np.sort(np.concatenate([whole, self.partial[p]]))


def _partition_plan(blocks: _Blocks, S: np.ndarray, t: int, m: int, rng: np.random.Generator) -> _Plan:
    """Phase j's partitions: a function of (seed, j, S_j) only, hence the exact trajectory.

    Each training set takes whole blocks in a random order while they fit in t, then
    t − (rows taken) random members of the next block.
    """
    B = blocks.n_blocks
    blk = blocks.block_of[S]
    counts = np.bincount(blk, minlength=B)
    by_block = np.argsort(blk, kind="stable")                  # positions grouped by block
    starts = np.concatenate([[0], np.cumsum(counts)])
    order = np.argsort(rng.random((m, B)), axis=1)             # a random block order per partition
    cum = np.cumsum(counts[order], axis=1)
    n_whole = (cum <= t).sum(axis=1)
    full = np.zeros((B, m), dtype=bool)
    partial = []
    for p in range(m):
        q = int(n_whole[p])
        full[order[p, :q], p] = True
        taken = int(cum[p, q - 1]) if q else 0
        pos = np.empty(0, dtype=np.int64)
        if taken < t:
            b = order[p, q]
            members = by_block[starts[b]:starts[b + 1]]
            pos = np.sort(rng.choice(members, size=t - taken, replace=False))
        partial.append(pos)
    return _Plan(blk, full, partial)


def _phase_rng(seed: int, phase: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([int(seed), 0x5AF1, int(phase)]))


def _tiebreak(seed: int, N: int) -> np.ndarray:
    """A fixed random rank per example (from the seed alone) to break score ties."""
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 0x71E]))
    u = np.empty(N, dtype=np.int64)
    u[rng.permutation(N)] = np.arange(N)
    return u


# --------------------------------------------------------------------------- selection

def _top(primary: np.ndarray, secondary: Optional[np.ndarray], u: np.ndarray, r: int) -> np.ndarray:
    """Positions of the r largest `primary` (then largest `secondary`, then smallest u), in order."""
    n = len(primary)
    if r <= 0:
        return np.empty(0, dtype=np.int64)
    if r < n:
        thr = np.partition(primary, n - r)[n - r]
        cand = np.flatnonzero(primary >= thr)
    else:
        cand = np.arange(n)
    keys = [u[cand]]
    if secondary is not None:
        keys.append(-secondary[cand])
    keys.append(-primary[cand])
    return cand[np.lexsort(keys)[:r]]


def _select(scores, size_s, tau, k, n, strategy, u, noise=None, quality=None):
    """Where τ, k and n act: which examples of S_j a phase removes, and whether it stops.

    Parameters
    ----------
    scores : (|S_j|,) float32, p̃ of the members of S_j (NaN = never held out).
    u, noise, quality : per-member tie-break ranks, Gumbel noise, quality scores.

    Returns
    -------
    chosen : member positions removed, in priority order (a prefix for smaller r).
    n_pass : c_j, the number of members with p̃ ≥ τ.
    stop : bool, whether filtering stops after this phase.
    reason : "tau" (fewer than k passed τ), "target_size" (reached n) or None.
    """
    with np.errstate(invalid="ignore"):
        elig = np.flatnonzero(scores >= tau)
    n_pass = len(elig)
    r = min(k, size_s - n, n_pass)
    s = scores[elig].astype(np.float64)
    if quality is not None:
        # Paper 002: among p̃ ≥ τ, remove the lowest quality first (then most predictable).
        pos = _top(-quality[elig], s, u[elig], r)
    elif strategy == "slice-sample":
        with np.errstate(divide="ignore"):
            key = np.log(s) + noise[elig].astype(np.float64)   # Gumbel top-k: sample ∝ p̃
        pos = _top(key, None, u[elig], r)
    else:
        pos = _top(s, None, u[elig], r)
    chosen = elig[pos]
    reason = None
    if n_pass < k:
        reason = "tau"
    elif size_s - r <= n:
        reason = "target_size"
    return chosen, n_pass, reason is not None, reason


# --------------------------------------------------------------------------- BLAS threads

_CONTROLLER = None


def _one_blas_thread():
    """Context: BLAS on one thread (the controller is built once: building it costs ms)."""
    global _CONTROLLER
    if _CONTROLLER is None:
        import scipy.linalg  # noqa: F401  (load scipy's BLAS before inspecting libraries)
        from threadpoolctl import ThreadpoolController

        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER.limit(limits=1, user_api="blas")


# --------------------------------------------------------------------------- families

def _sklearn_model(name: str, seed: int):
    if name == "logistic":
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression(C=1.0, max_iter=1000)
    from sklearn.svm import LinearSVC

    return LinearSVC(C=1.0, max_iter=5000, random_state=seed)


def _fit_predict_sklearn(name, Ztr, ytr, Zte, seed):
    """Predicted class codes for Zte from one model of family `name` trained on (Ztr, ytr)."""
    present = np.unique(ytr)
    if len(present) == 1:  # a training set with one class: the model can only predict it
        return np.full(len(Zte), present[0], dtype=np.int64)
    model = _sklearn_model(name, seed)
    with warnings.catch_warnings():
        # A non-converged linear model still gives usable predictions; the family is
        # the paper's, and warnings from thousands of fits would drown the user.
        warnings.simplefilter("ignore")
        model.fit(Ztr, ytr)
    return model.predict(Zte).astype(np.int64)


# --------------------------------------------------------------------------- the estimator

class AFLite:
    """AFLite (paper 000, Algorithm 1) with a recorded trajectory for live τ and n.

    Parameters
    ----------
    n_partitions : int, default 64
        m, the number of random partitions (models) per filtering phase.
    train_size : int or float in (0, 1), default 0.1
        t, the training-set size of every model (a count, or a fraction of N); fixed
        across phases as in the paper, and t < n is required.
    slice_size : int or float in (0, 1), default 0.01
        k, the number of examples removed per phase (count or fraction of N).
        Ignored by ``strategy="greedy"``, which uses k = 1.
    tau : float in [0, 1], default 0.75
        τ, the early-stopping threshold: only examples with p̃ ≥ τ are removed, and
        filtering stops when fewer than k pass it.
    target_size : int or float in (0, 1), default 0.5
        n, the size at which filtering stops (count or fraction of N); the last
        slice is truncated so the filtered set never drops below n.
    model : str or sequence of str, default "ridge"
        The model family M: "ridge", "logistic", "svm", "ensemble" (= logistic + svm,
        paper 002), or a sequence of family names whose predictions are pooled.

        "ridge" (the default) is one-vs-rest least squares on one-hot labels with an
        unpenalised intercept and penalty λ = alpha · tr(Z_TᵀZ_T)/d on the centred
        training rows, solved in closed form (float64 Cholesky) per partition.
        Every partition's normal equations are a sum of per-block Gram matrices that
        are built once per fit and downdated as rows are removed, and all m models
        predict S in one matrix product, so a phase costs one pass over S plus m
        small solves. Why it is the default, measured with
        ``benchmarks/aflite_bench.py`` on 2 shared cores: on the circles experiment
        of the issue (4,000 points, m = 64, t = 10 %, k = 5 %, τ = 0, to 30 %) it
        keeps a biased share of 0.19 (the lowest of all families: "logistic" 0.24,
        "svm" 0.22, "ensemble" 0.22, a straightforward per-partition
        LogisticRegression 0.23); on SNLI dev hypothesis-only TF-IDF/SVD-128
        filtered to 30 % it brings 5-fold hypothesis-only accuracy from 0.52 to
        0.20 ("logistic": 0.21), so it gives up no quality, while a phase at
        20k × 768 is 80–100× faster than the straightforward implementation.
        "logistic" is scikit-learn's LogisticRegression (C = 1), the paper's
        family; "svm" is LinearSVC (C = 1); both fit one model per partition.
    strategy : {"greedy-slice", "slice-sample", "greedy"}, default "greedy-slice"
        Paper 003 §2: greedy slicing (AFLite); slice sampling (draw k without
        replacement with probability ∝ p̃ among p̃ ≥ τ, Gumbel top-k); plain greedy
        (k = 1).
    max_dim : int or None, default 256
        If X has more than ``max_dim`` columns, it is centred and projected once onto
        its top ``max_dim`` principal components (axes estimated on at most 10,000
        seeded random rows) before filtering, for every family; recorded in
        ``reduction_``. This bounds the d × d work per partition: at 20k × 768,
        m = 64 a phase takes 0.46 s with it and 1.5 s without (measured). It is a
        trade: on SNLI hypothesis-only TF-IDF/SVD-768 filtered to 30 %, a 768-d
        hypothesis-only LR then reaches 0.22 on the retained set against 0.15 when
        filtering on all 768 dims (0.57 before filtering), because the models never
        see the dropped directions. Use None to filter on all dimensions.
    alpha : float, default 1e-3
        Ridge penalty relative to the mean feature energy (family "ridge" only).
    random_state : int or None, default 0
        Seed of the partitions, tie-breaks and Gumbel noise. None draws a seed and
        records it in ``seed_``.

    Attributes
    ----------
    retained_ : (N,) bool
        In the filtered set S.
    predictability_ : (N,) float32
        p̃ in the last phase that scored the example (NaN only if no phase did).
    removed_at_ : (N,) int
        The phase (0-based) that removed the example, -1 if retained.
    removal_rank_ : (N,) int
        Rank of the example in its phase's removal order (0 = first), -1 if retained.
    history_ : list of dict
        One JSON-ready record per phase j: ``phase``; ``size`` (|S_j|);
        ``n_passing_tau`` (c_j, members with p̃ ≥ τ); ``removed``; ``mean_score``
        (mean p̃ over S_j); ``R`` (representation bias, eq. 5: Σ p̃(i) with eq. 4's
        1/|S| normalisation, i.e. the same mean; None when no member was scored);
        ``R_after`` (eq. 5 over what the phase kept, with that phase's scores);
        ``heldout_accuracy`` (eq. 2: all held-out predictions pooled);
        ``min_removed_score``; ``n_never_held_out``; ``stop_reason`` ("tau": fewer
        than k passed τ; "target_size": reached n; None: filtering went on);
        ``seconds``.
    n_phases_ : int
    classes_ : ndarray
    n_, t_, k_, m_ : int
        The resolved sizes (n, t, k, m).
    seed_ : int
    reduction_ : dict or None
        The recorded dimension reduction (method, dims, explained variance).
    """

    def __init__(self, n_partitions=64, train_size=0.1, slice_size=0.01, tau=0.75,
                 target_size=0.5, model="ridge", strategy="greedy-slice", max_dim=256,
                 alpha=1e-3, random_state=0):
        self.n_partitions = n_partitions
        self.train_size = train_size
        self.slice_size = slice_size
        self.tau = tau
        self.target_size = target_size
        self.model = model
        self.strategy = strategy
        self.max_dim = max_dim
        self.alpha = alpha
        self.random_state = random_state

    # ------------------------------------------------------------------ params

    def get_params(self) -> dict:
        return {k: getattr(self, k) for k in (
            "n_partitions", "train_size", "slice_size", "tau", "target_size", "model",
            "strategy", "max_dim", "alpha", "random_state")}

    def _families(self):
        model = self.model
        names = [model] if isinstance(model, str) else list(model) if isinstance(model, (list, tuple)) else None
        if not names:
            raise InputError(f"model={model!r} is invalid: give one of {', '.join(FAMILIES)} "
                             "or a list of them.")
        out = []
        for name in names:
            if name not in FAMILIES:
                raise InputError(f"model={name!r} is not a known family: use one of {', '.join(FAMILIES)}.")
            out.extend(_ENSEMBLE if name == "ensemble" else [name])
        return tuple(dict.fromkeys(out))

    def _check_params(self, N: int, n_classes: int):
        m = self.n_partitions
        if not _is_int(m) or m < 1:
            raise InputError(f"n_partitions={m!r} (m) is invalid: give a positive integer, e.g. 64.")
        if self.strategy not in STRATEGIES:
            raise InputError(f"strategy={self.strategy!r} is invalid: use one of {', '.join(STRATEGIES)}.")
        tau = _check_tau(self.tau)
        families = self._families()
        if self.max_dim is not None and (not _is_int(self.max_dim) or self.max_dim < 1):
            raise InputError(f"max_dim={self.max_dim!r} is invalid: give a positive integer or None.")
        if not _is_real(self.alpha) or not (float(self.alpha) > 0 and math.isfinite(float(self.alpha))):
            raise InputError(f"alpha={self.alpha!r} is invalid: give a positive ridge penalty, e.g. 1e-3.")
        rs = self.random_state
        if rs is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        elif _is_int(rs) and rs >= 0:
            seed = int(rs)
        else:
            raise InputError(f"random_state={rs!r} is invalid: give a non-negative integer seed or None.")
        if N < 4:
            raise InputError(f"X has only {N} rows: AFLite needs at least 4 examples (more "
                             "rows, or a smaller problem is not worth filtering).")
        n = _resolve_size("target_size", "n", self.target_size, N)
        t = _resolve_size("train_size", "t", self.train_size, N)
        k = 1 if self.strategy == "greedy" else _resolve_size("slice_size", "k", self.slice_size, N)
        if n >= N:
            raise InputError(f"target_size={self.target_size!r} gives n={n} ≥ N={N}: nothing would be "
                             f"removed; give a target size below N (e.g. target_size=0.5).")
        if n < 1:
            raise InputError(f"target_size={self.target_size!r} gives n={n} examples: give a "
                             "target size of at least 1 example.")
        if k < 1:
            raise InputError(f"slice_size={self.slice_size!r} gives k={k} examples (N={N}): each "
                             f"phase must remove at least 1 example; raise slice_size (e.g. to "
                             f"{max(1.0 / N, 0.01):.3g} or the count 1).")
        if t < 1:
            raise InputError(f"train_size={self.train_size!r} gives t={t} examples (N={N}): raise "
                             "train_size so every model trains on at least one example per class.")
        if t >= n:
            raise InputError(
                f"train_size={self.train_size!r} gives t={t} ≥ target size n={n}: Algorithm 1 needs "
                f"t < n, otherwise a late phase (|S| close to n) would have t ≥ |S| and nothing "
                f"held out; lower train_size or raise target_size.")
        if t < n_classes:
            raise InputError(f"train_size={self.train_size!r} gives t={t} examples for {n_classes} "
                             "classes: too few rows for the requested parameters; raise train_size "
                             "(or give more rows).")
        return dict(m=int(m), t=t, k=k, n=n, tau=tau, families=families, seed=seed)

    # ------------------------------------------------------------------ fit

    def fit(self, X, y, *, quality=None, progress=None, cancel=None,
            on_phase: Optional[Callable[[dict], None]] = None):
        """Run AFLite on (X, y) and record its trajectory.

        Parameters
        ----------
        X : (N, d) array of float
            The representation Φ(X) (used as float32).
        y : (N,) labels of any hashable type.
        quality : (N,) float array, optional
            A per-example quality score (paper 002): among p̃ ≥ τ a phase removes the
            k with the lowest quality (ties: most predictable first) instead of the k
            most predictable.
        progress : callable(fraction, message), optional
        cancel : object with ``is_set()``, optional
            Checked between models; raises `core.errors.Cancelled`.
        on_phase : callable(record), optional
            Called after each phase with that phase's `history_` record plus three
            arrays (not JSON): ``indices`` (rows of S_j), ``scores`` (their p̃) and
            ``removed_indices`` (rows removed, in removal order).

        Returns
        -------
        self
        """
        X = _check_X(X)
        codes, classes = _encode_labels(y)
        N = X.shape[0]
        if len(codes) != N:
            raise InputError(f"len(X)={N} but len(y)={len(codes)}: give exactly one label per row of X.")
        if len(classes) < 2:
            raise InputError(f"y has a single class ({classes[0]!r}): AFLite needs at least two "
                             "classes to measure predictability; check the label column.")
        cfg = self._check_params(N, len(classes))
        q = None
        if quality is not None:
            q = np.asarray(quality, dtype=np.float64)
            if q.shape != (N,):
                raise InputError(f"quality has shape {q.shape}: give one score per row of X, shape ({N},).")
            if not np.isfinite(q).all():
                raise InputError("quality has NaN or infinite values: give a finite score for every row.")
            if self.strategy == "slice-sample":
                raise InputError("quality cannot be combined with strategy='slice-sample': quality "
                                 "fixes the removal order; use strategy='greedy-slice'.")

        self.classes_, self.n_features_in_ = classes, X.shape[1]
        self.m_, self.t_, self.k_, self.n_ = cfg["m"], cfg["t"], cfg["k"], cfg["n"]
        self.tau_, self.seed_, self.families_ = cfg["tau"], cfg["seed"], cfg["families"]
        self.n_samples_ = N
        self.strategy_ = self.strategy
        self.quality_ = None if q is None else q.astype(np.float64)

        self._u = _tiebreak(self.seed_, N)
        t0 = time.perf_counter()
        # One BLAS thread for the whole fit: on a shared 2-core machine multi-threaded
        # BLAS was 2-30x slower on every product here (measured), e.g. the 768-d PCA
        # eigendecomposition 3.8 s vs 0.45 s under load.
        with _one_blas_thread():
            Z, mean, self.reduction_ = self._prepare(X, progress)
            d_gram = Z.shape[1] + 1 if "ridge" in self.families_ else 1
            self.block_size_ = _block_size(N, self.t_, d_gram)
            out = self._run_phases(Z, mean, codes, len(classes), q, progress, cancel, on_phase)
        removed_at, rank, pred, history, j, scores_list, noise_list = out
        self.removed_at_ = removed_at
        self.removal_rank_ = rank
        self.retained_ = removed_at == -1
        self.predictability_ = pred
        self.history_ = history
        self.n_phases_ = j
        self.phase_offsets_ = np.concatenate([[0], np.cumsum([len(s) for s in scores_list])]).astype(np.int64)
        self.phase_scores_ = (np.concatenate(scores_list) if scores_list else np.empty(0, np.float32))
        self.phase_noise_ = np.concatenate(noise_list) if noise_list else None
        self.fit_seconds_ = round(time.perf_counter() - t0, 4)
        return self

    # ------------------------------------------------------------------ internals

    def _run_phases(self, Z, mean, codes, n_classes, q, progress, cancel, on_phase):
        N = len(codes)
        u_all = self._u

        removed_at = np.full(N, -1, dtype=np.int64)
        rank = np.full(N, -1, dtype=np.int64)
        pred = np.full(N, np.nan, dtype=np.float32)
        S = np.arange(N)
        scores_list, noise_list, history = [], [], []
        expected_phases = max(1, -(-(N - self.n_) // self.k_))
        blocks = _Blocks(self.seed_, N, self.block_size_)
        state = None
        if "ridge" in self.families_:
            report(progress, 0.0, "ridge: block Gram matrices")
            state = _RidgeState(Z, mean, codes, n_classes, blocks, self._rows, cancel)
        j = 0
        while len(S) > self.n_:
            check_cancel(cancel)
            ts = time.perf_counter()
            frac0 = min(j / expected_phases, 0.99)
            rng = _phase_rng(self.seed_, j)
            plan = _partition_plan(blocks, S, self.t_, self.m_, rng)
            noise = None
            if self.strategy_ == "slice-sample":
                noise = rng.gumbel(size=len(S)).astype(np.float32)

            def sub(f, msg, _j=j, _f0=frac0):
                report(progress, _f0 + f * (min((_j + 1) / expected_phases, 1.0) - _f0), msg)

            correct, held = self._score_phase(Z, mean, codes, n_classes, S, plan, sub, cancel, j, state)
            with np.errstate(invalid="ignore", divide="ignore"):
                scores = np.where(held > 0, correct / np.maximum(held, 1), np.nan).astype(np.float32)

            chosen, n_pass, stop, reason = _select(
                scores, len(S), self.tau_, self.k_, self.n_, self.strategy_, u_all[S], noise,
                None if q is None else q[S])
            removed_rows = S[chosen]
            removed_at[removed_rows] = j
            rank[removed_rows] = np.arange(len(chosen))
            ok = ~np.isnan(scores)
            pred[S[ok]] = scores[ok]
            scores_list.append(scores)
            if noise is not None:
                noise_list.append(noise)

            keep = np.ones(len(S), dtype=bool)
            keep[chosen] = False
            scored = scores[ok]
            kept_scored = scores[ok & keep]
            rec = {
                "phase": j,
                "size": int(len(S)),
                "n_passing_tau": int(n_pass),
                "removed": int(len(chosen)),
                "mean_score": _num(scored.mean()) if len(scored) else None,
                "R": _num(scored.mean()) if len(scored) else None,
                "R_after": _num(kept_scored.mean()) if len(kept_scored) else None,
                "heldout_accuracy": _num(correct.sum() / max(held.sum(), 1)),
                "min_removed_score": _num(scores[chosen].min()) if len(chosen) else None,
                "n_never_held_out": int((~ok).sum()),
                "stop_reason": reason,
                "seconds": 0.0,
            }
            history.append(rec)
            S = S[keep]
            if state is not None and not stop:
                state.remove(removed_rows)      # downdate the block Gram matrices for phase j+1
            rec["seconds"] = round(time.perf_counter() - ts, 4)
            report(progress, min((j + 1) / expected_phases, 1.0) if not stop else 1.0,
                   f"phase {j + 1}: |S| = {len(S)}, removed {len(chosen)}")
            if on_phase is not None:
                on_phase(dict(rec, indices=np.flatnonzero((removed_at == -1) | (removed_at >= j)),
                              scores=scores, removed_indices=removed_rows))
            j += 1
            if stop:
                break

        return removed_at, rank, pred, history, j, scores_list, noise_list

    def _prepare(self, X, progress):
        """Centre X (and project it on its top principal components if d > max_dim)."""
        N, d = X.shape
        mean = np.zeros(d, dtype=np.float64)
        for lo in range(0, N, _CHUNK_ROWS * 4):
            mean += X[lo:lo + _CHUNK_ROWS * 4].sum(axis=0, dtype=np.float64)
        mean /= N
        mean32 = mean.astype(np.float32)
        if self.max_dim is None or d <= self.max_dim:
            return X, mean32, None
        report(progress, 0.0, f"projecting {d} dims on {self.max_dim} principal components")
        # The principal axes are estimated on at most _PCA_ROWS seeded random rows (the
        # covariance costs rows·d²); every row is then projected.
        rows = np.arange(N)
        if N > _PCA_ROWS:
            rng = np.random.default_rng(np.random.SeedSequence([self.seed_, 0x9CA]))
            rows = np.sort(rng.choice(N, size=_PCA_ROWS, replace=False))
        cov = np.zeros((d, d), dtype=np.float64)
        for lo in range(0, len(rows), _CHUNK_ROWS):
            c = X[rows[lo:lo + _CHUNK_ROWS]] - mean32
            cov += (c.T @ c).astype(np.float64)
        w, V = np.linalg.eigh(cov)
        order = np.argsort(w)[::-1][: self.max_dim]
        V = np.ascontiguousarray(V[:, order], dtype=np.float32)
        total = float(w.sum())
        Z = np.empty((N, self.max_dim), dtype=np.float32)
        for lo in range(0, N, _CHUNK_ROWS):
            Z[lo:lo + _CHUNK_ROWS] = (X[lo:lo + _CHUNK_ROWS] - mean32) @ V
        info = {"method": "pca", "d_in": int(d), "d_out": int(self.max_dim), "fit_rows": int(len(rows)),
                "explained_variance_ratio": round(float(w[order].sum()) / total, 6) if total > 0 else 1.0}
        return Z, np.zeros(self.max_dim, dtype=np.float32), info

    def _rows(self, Z, mean, idx):
        out = Z[idx]
        if mean.any():
            out -= mean
        return out

    def _score_phase(self, Z, mean, codes, n_classes, S, plan, sub, cancel, phase, state):
        """Counts of correct and of all held-out predictions for each member of S_j."""
        n_s = len(S)
        correct = np.zeros(n_s, dtype=np.float64)
        held = np.zeros(n_s, dtype=np.float64)
        y_s = codes[S]
        n_fam = len(self.families_)
        for fi, fam in enumerate(self.families_):
            def fsub(f, msg, _fi=fi):
                sub((_fi + f) / n_fam, msg)
            if fam == "ridge":
                c, h = self._ridge_phase(Z, mean, y_s, n_classes, S, plan, fsub, cancel, state)
            else:
                c, h = self._sklearn_phase(fam, Z, mean, y_s, S, plan, fsub, cancel, phase)
            correct += c
            held += h
        return correct, held

    def _sklearn_phase(self, fam, Z, mean, y_s, S, plan, sub, cancel, phase):
        n_s, m = len(S), self.m_
        c = np.zeros(n_s)
        h = np.zeros(n_s)
        Zs = self._rows(Z, mean, S)
        for p in range(m):
            check_cancel(cancel)
            tr = plan.train_positions(p)
            te = np.ones(n_s, dtype=bool)
            te[tr] = False
            te = np.flatnonzero(te)
            yhat = _fit_predict_sklearn(fam, Zs[tr], y_s[tr], Zs[te],
                                        seed=(self.seed_ * 1000003 + phase * 1009 + p) % (2**31))
            c[te] += yhat == y_s[te]
            h[te] += 1
            sub((p + 1) / m, f"{fam} model {p + 1}/{m}")
        return c, h

    def _ridge_phase(self, Z, mean, y_s, n_classes, S, plan, sub, cancel, state):
        """Closed-form one-vs-rest ridge for all m partitions of a phase.

        ``state`` holds per-block Gram matrices G_b = Z̃_bᵀZ̃_b and cross products
        H_b = Z̃_bᵀY_b (Z̃ = [Z, 1]) of the current S, kept up to date by subtracting
        removed rows. Partition p's normal equations are the sum over its whole
        blocks (one matrix product for all p) plus its partial rows; all m models
        then predict S in one product per chunk of rows.
        """
        from scipy.linalg import lapack

        n_s, m, C = len(S), self.m_, n_classes
        d1 = Z.shape[1] + 1
        B = state.GH.shape[0]
        F = np.ascontiguousarray(plan.full.T, dtype=np.float32)     # (m, B)
        AH = (F @ state.GH.reshape(B, -1)).reshape(m, d1, d1 + C)
        sub(0.3, "ridge: normal equations")
        W = np.empty((d1, C, m), dtype=np.float32)   # class-major columns: out[:, c, p]
        alpha = float(self.alpha)
        diag = np.arange(d1 - 1)
        for p in range(m):
            check_cancel(cancel)
            ah = AH[p].astype(np.float64)
            pos = plan.partial[p]
            if len(pos):
                ZY = state._zy(S[pos])
                ah += ZY[:, :d1].T @ ZY
            a, h = np.ascontiguousarray(ah[:, :d1]), np.ascontiguousarray(ah[:, d1:])
            lam = alpha * max(np.trace(a[:-1, :-1]) / (d1 - 1), 1e-12)
            a[diag, diag] += lam                              # intercept not penalised
            _, x, info = lapack.dposv(a, h, lower=0, overwrite_a=0, overwrite_b=0)
            if info != 0:  # numerically singular: fall back to least squares
                x = np.linalg.lstsq(a, h, rcond=None)[0]
            W[:, :, p] = x
        sub(0.6, "ridge: solved")
        Wz = np.ascontiguousarray(W[:-1].reshape(d1 - 1, C * m))
        w0 = W[-1].reshape(C * m)
        c = np.zeros(n_s)
        h = np.zeros(n_s)
        for lo in range(0, n_s, _CHUNK_ROWS):
            check_cancel(cancel)
            hi = min(n_s, lo + _CHUNK_ROWS)
            out = (self._rows(Z, mean, S[lo:hi]) @ Wz + w0).reshape(hi - lo, C, m)
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

    # ------------------------------------------------------------------ trajectory

    def _check_fitted(self):
        if not hasattr(self, "removed_at_"):
            raise InputError("this AFLite is not fitted: call fit(X, y) (or load_trajectory) first.")

    def scores_at(self, phase: int) -> np.ndarray:
        """(N,) float32: p̃ of every example in phase `phase` (NaN outside S_j / never held out)."""
        self._check_fitted()
        if not _is_int(phase) or not 0 <= phase < self.n_phases_:
            raise InputError(f"phase={phase!r} is invalid: give 0 <= phase < {self.n_phases_}.")
        out = np.full(self.n_samples_, np.nan, dtype=np.float32)
        out[self._members(phase)] = self.phase_scores_[self.phase_offsets_[phase]:self.phase_offsets_[phase + 1]]
        return out

    def _members(self, phase: int) -> np.ndarray:
        ra = self.removed_at_
        return np.flatnonzero((ra == -1) | (ra >= phase))

    def training_sets(self, phase: int) -> list:
        """The m training sets (dataset row indices, sorted) of phase `phase`, rebuilt from the seed."""
        self._check_fitted()
        if not _is_int(phase) or not 0 <= phase < self.n_phases_:
            raise InputError(f"phase={phase!r} is invalid: give 0 <= phase < {self.n_phases_}.")
        if self.block_size_ is None:
            raise InputError("this trajectory was saved without its block size: refit to rebuild "
                             "its training sets.")
        S = self._members(phase)
        plan = _partition_plan(_Blocks(self.seed_, self.n_samples_, self.block_size_), S, self.t_,
                               self.m_, _phase_rng(self.seed_, phase))
        return [S[plan.train_positions(p)] for p in range(self.m_)]

    def _resolve_query(self, tau, target_size):
        self._check_fitted()
        tau = self.tau_ if tau is None else _check_tau(tau)
        if target_size is None:
            n = self.n_
        else:
            n = _resolve_size("target_size", "n", target_size, self.n_samples_)
            if n >= self.n_samples_:
                raise InputError(f"target_size={target_size!r} gives n={n} ≥ N={self.n_samples_}: "
                                 "give a target size below N.")
        if tau < self.tau_ - 1e-12:
            raise RefitNeeded(
                f"tau={tau} is below the fitted τ={self.tau_}: a lower threshold could remove examples "
                f"the recorded run never removed, so a refit is needed (fit with tau={tau}, or fit once "
                "with a low τ such as 0 and then move τ up live).")
        if n < self.n_:
            raise RefitNeeded(
                f"target_size={target_size!r} gives n={n}, below the fitted n={self.n_}: the recorded run "
                f"stopped at {self.n_} examples, so a refit is needed (fit with that target size, or fit "
                "once with a small target size and then move it up live).")
        return tau, n

    def _walk(self, tau, n):
        """Phase J where a fresh run with (τ', n') stops, and its removal set there."""
        k = self.k_
        off = self.phase_offsets_
        fast = self.strategy_ != "slice-sample" and self.quality_ is None
        ra = self.removed_at_
        for j in range(self.n_phases_):
            s = self.phase_scores_[off[j]:off[j + 1]]
            size = len(s)
            if fast:
                # Greedy: the removal order of a phase does not depend on τ or n, so the
                # fresh run removes a prefix of the recorded order (see module docstring).
                n_pass = int(np.count_nonzero(s >= tau))
                r = min(k, size - n, n_pass)
                if n_pass < k or size - r <= n:
                    return j, r, None
                continue
            members = self._members(j)
            noise = None if self.phase_noise_ is None else self.phase_noise_[off[j]:off[j + 1]]
            chosen, n_pass, stop, _ = _select(
                s, size, tau, k, n, self.strategy_, self._u[members], noise,
                None if self.quality_ is None else self.quality_[members])
            if stop:
                return j, len(chosen), members[chosen]
            recorded = np.flatnonzero(ra[members] == j)
            if len(chosen) != len(recorded) or not np.array_equal(np.sort(chosen), recorded):
                why = ("the quality order among p̃ ≥ τ changes with τ" if self.quality_ is not None
                       else "slice sampling draws among p̃ ≥ τ, so a higher τ changes the draw")
                raise RefitNeeded(
                    f"tau={tau}, n={n} would remove different examples than the recorded run in phase "
                    f"{j} ({why}) and continue, so the later phases were never recorded: a refit is "
                    f"needed (fit with tau={tau}).")
        # Unreachable for τ' ≥ τ, n' ≥ n: the recorded run's last phase also stops the fresh run.
        raise RuntimeError("trajectory walk did not stop; the recorded trajectory is inconsistent")

    def retained_for(self, tau=None, target_size=None) -> np.ndarray:
        """(N,) bool: the filtered set a fresh `fit` with this τ and n would return, without refitting.

        Parameters
        ----------
        tau : float in [0, 1], optional
            τ' ≥ the fitted τ (default: the fitted τ).
        target_size : int or float in (0, 1), optional
            n' ≥ the fitted n (default: the fitted n).

        Raises
        ------
        RefitNeeded
            τ' < τ or n' < n, or (slice sampling / quality order only) the answer
            depends on phases the recorded run never ran.
        """
        tau, n = self._resolve_query(tau, target_size)
        if tau == self.tau_ and n == self.n_:
            return self.retained_.copy()
        J, r, removed_last = self._walk(tau, n)
        ra = self.removed_at_
        keep = (ra == -1) | (ra >= J)
        if removed_last is None:
            keep &= ~((ra == J) & (self.removal_rank_ < r))
        else:
            keep[removed_last] = False
        return keep

    def result_for(self, tau=None, target_size=None) -> dict:
        """What a fresh fit with this τ and n gives: ``retained``, ``removed_at``,
        ``predictability`` (N,) arrays and ``n_phases``; same rules as `retained_for`."""
        tau, n = self._resolve_query(tau, target_size)
        J, r, removed_last = self._walk(tau, n) if (tau, n) != (self.tau_, self.n_) else (
            self.n_phases_ - 1, None, None)
        ra = self.removed_at_
        removed_at = np.where((ra >= 0) & (ra < J), ra, -1)
        if r is None:  # the fitted parameters
            removed_at = ra.copy()
        elif removed_last is None:
            removed_at[(ra == J) & (self.removal_rank_ < r)] = J
        else:
            removed_at[removed_last] = J
        pred = np.full(self.n_samples_, np.nan, dtype=np.float32)
        off = self.phase_offsets_
        for j in range(J + 1):
            s = self.phase_scores_[off[j]:off[j + 1]]
            ok = ~np.isnan(s)
            pred[self._members(j)[ok]] = s[ok]
        return {"retained": removed_at == -1, "removed_at": removed_at,
                "predictability": pred, "n_phases": J + 1}

    # ------------------------------------------------------------------ persistence

    def to_record(self) -> dict:
        """A plain JSON-serialisable record: parameters, resolved sizes, seed, reduction, history."""
        self._check_fitted()
        params = self.get_params()
        if not isinstance(params["model"], str):
            params["model"] = list(params["model"])
        return {
            "algorithm": "aflite",
            "params": params,
            "resolved": {"N": int(self.n_samples_), "d": int(self.n_features_in_), "m": self.m_,
                         "t": self.t_, "k": self.k_, "n": self.n_, "tau": self.tau_,
                         "families": list(self.families_), "strategy": self.strategy_,
                         "block_size": int(self.block_size_),
                         "quality_order": self.quality_ is not None},
            "seed": int(self.seed_),
            "classes": [c.item() if hasattr(c, "item") else c for c in self.classes_],
            "reduction": self.reduction_,
            "n_phases": int(self.n_phases_),
            "n_retained": int(self.retained_.sum()),
            "fit_seconds": self.fit_seconds_,
            "history": self.history_,
        }

    def save_trajectory(self, path) -> None:
        """Write the trajectory arrays and the JSON record to an ``.npz`` file."""
        self._check_fitted()
        arrays = dict(
            removed_at=self.removed_at_, removal_rank=self.removal_rank_,
            predictability=self.predictability_, phase_scores=self.phase_scores_,
            phase_offsets=self.phase_offsets_,
            record=np.array(json.dumps(self.to_record(), default=str)),
        )
        if self.phase_noise_ is not None:
            arrays["phase_noise"] = self.phase_noise_
        if self.quality_ is not None:
            arrays["quality"] = self.quality_
        np.savez_compressed(path, **arrays)

    @classmethod
    def load_trajectory(cls, path) -> "AFLite":
        """An `AFLite` restored from `save_trajectory`: `retained_for`, `result_for`,
        `scores_at` and `to_record` work on it; `fit` it again to refit."""
        with np.load(path, allow_pickle=False) as z:
            rec = json.loads(str(z["record"]))
            p = dict(rec["params"])
            if isinstance(p["model"], list):
                p["model"] = tuple(p["model"])
            af = cls(**p)
            res = rec["resolved"]
            af.n_samples_, af.n_features_in_ = res["N"], res["d"]
            af.m_, af.t_, af.k_, af.n_, af.tau_ = res["m"], res["t"], res["k"], res["n"], res["tau"]
            af.families_, af.strategy_ = tuple(res["families"]), res["strategy"]
            af.block_size_ = res.get("block_size")   # only `training_sets` needs it
            af.seed_ = rec["seed"]
            af.classes_ = np.asarray(rec["classes"])
            af.reduction_ = rec["reduction"]
            af.history_ = rec["history"]
            af.n_phases_ = rec["n_phases"]
            af.fit_seconds_ = rec.get("fit_seconds")
            af.removed_at_ = z["removed_at"].astype(np.int64)
            af.removal_rank_ = z["removal_rank"].astype(np.int64)
            af.predictability_ = z["predictability"]
            af.phase_scores_ = z["phase_scores"]
            af.phase_offsets_ = z["phase_offsets"].astype(np.int64)
            af.phase_noise_ = z["phase_noise"] if "phase_noise" in z.files else None
            af.quality_ = z["quality"] if "quality" in z.files else None
        af.retained_ = af.removed_at_ == -1
        af._u = _tiebreak(af.seed_, af.n_samples_)
        return af


# --------------------------------------------------------------------------- baselines

def random_subset(n_examples: int, size, *, random_state=0) -> np.ndarray:
    """Baseline of paper 000 §4 (D_92k): a uniformly random subset of the same size.

    Parameters
    ----------
    n_examples : int
        N.
    size : int or float in (0, 1)
        Size of the subset (e.g. AFLite's ``retained_.sum()``).

    Returns
    -------
    (N,) bool mask with exactly ``size`` True.
    """
    if not _is_int(n_examples) or n_examples < 1:
        raise InputError(f"n_examples={n_examples!r} is invalid: give a positive integer.")
    s = _resolve_size("size", "n", size, n_examples)
    if not 0 <= s <= n_examples:
        raise InputError(f"size={size!r} is invalid: give a size between 0 and {n_examples}.")
    rng = np.random.default_rng(random_state)
    mask = np.zeros(n_examples, dtype=bool)
    mask[rng.choice(n_examples, size=s, replace=False)] = True
    return mask


def single_model_filter(X, y, size, *, n_folds=5, alpha=1e-3, random_state=0) -> np.ndarray:
    """Baseline of paper 000 §4.2: single-model, non-iterative filtering.

    One ridge model per fold (``n_folds``-fold cross-fitting, so every example is
    predicted once by a model that did not see it), one pass: examples are ranked
    by their margin for the true label (score of y minus the best other score) and
    the ``size`` least predictable are kept. No partitions ensemble, no phases.

    Returns
    -------
    (N,) bool mask with exactly ``size`` True.
    """
    X = _check_X(X)
    codes, classes = _encode_labels(y)
    N = len(X)
    if len(codes) != N:
        raise InputError(f"len(X)={N} but len(y)={len(codes)}: give exactly one label per row of X.")
    if len(classes) < 2:
        raise InputError(f"y has a single class ({classes[0]!r}): give at least two classes.")
    s = _resolve_size("size", "n", size, N)
    if not 1 <= s < N:
        raise InputError(f"size={size!r} is invalid: give a size between 1 and {N - 1}.")
    if not _is_int(n_folds) or not 2 <= n_folds <= N:
        raise InputError(f"n_folds={n_folds!r} is invalid: give an integer between 2 and {N}.")
    C = len(classes)
    Xc = X - X.mean(axis=0, dtype=np.float64).astype(np.float32)
    Xt = np.hstack([Xc, np.ones((N, 1), np.float32)]).astype(np.float64)
    Y = np.eye(C)[codes]
    fold = np.random.default_rng(random_state).permutation(N) % n_folds
    margin = np.empty(N)
    for f in range(n_folds):
        tr, te = fold != f, fold == f
        A = Xt[tr].T @ Xt[tr]
        d = A.shape[0] - 1
        A[np.arange(d), np.arange(d)] += alpha * max(np.trace(A[:d, :d]) / max(d, 1), 1e-12)
        W = np.linalg.solve(A, Xt[tr].T @ Y[tr])
        out = Xt[te] @ W
        yt = codes[te]
        own = out[np.arange(len(yt)), yt]
        out[np.arange(len(yt)), yt] = -np.inf
        margin[te] = own - out.max(axis=1)
    keep = np.zeros(N, dtype=bool)
    keep[np.argsort(margin, kind="stable")[:s]] = True
    return keep
