"""The AFLite estimator (paper 000, Algorithm 1): it checks parameters and input and runs
the phases; partitions, model families, the rule for τ/k/n and the recorded
trajectory live in their own modules of `core.aflite`."""
from __future__ import annotations

import time
from numbers import Integral, Real
from typing import Callable, Optional

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import InvalidParameterError, StrOptions
from sklearn.utils.validation import check_is_fitted

from .inputs import check_protected, check_removal_order, check_X, encode_labels
from .partitions import Blocks, block_size, partition_plan, phase_rng, tiebreak
from .backends import ArrayRidgeScorer
from ..base.devices import namespace
from .scorers import CHUNK_ROWS, RidgeScorer, SklearnScorer, ridge_bytes
from .storage import LocalRows, trim_heap
from .knobs import KNOBS, Number as _Number, constraint as _constraint
from .selection import check_tau, resolve_size, select
from .trajectory import Trajectory
from ..base.cores import one_blas_thread
from ..base.errors import InputError
from ..base.progress import check_cancel, report

__all__ = ["AFLite", "ParameterError", "NotFitted", "FAMILIES", "STRATEGIES"]

#: Model families for M. "ensemble" pools the predictions of "logistic" and "svm"
#: trained on the same partitions (paper 002, Algorithm 1).
#: ``choice``: a conditional logit over a multiple-choice item's options (`core.aflite.items`)
FAMILIES = ("ridge", "logistic", "svm", "ensemble", "choice")
_ENSEMBLE = ("logistic", "svm")

#: Strategies (paper 003 §2): "greedy-slice" (B, AFLite), "slice-sample" (C, the
#: Gumbel top-k trick), "greedy" (A, = greedy slicing with k = 1).
STRATEGIES = ("greedy-slice", "slice-sample", "greedy")

PCA_ROWS = 10000               # rows used to estimate the principal axes
#: ``max_dim``'s default: full dimension up to 768 columns, PCA onto 768 components
#: above (the rule and its measurements: the ``max_dim`` docstring, benchmarks/README.md).
DEFAULT_MAX_DIM = 768



# How to fix each parameter, appended to scikit-learn's message.
_HINTS = {"n_partitions": "e.g. n_partitions=64 (m)", "train_size": "e.g. train_size=0.1 (t)",
          "slice_size": "e.g. slice_size=0.01 (k)", "tau": "e.g. tau=0.75 (τ)", "target_size": "e.g. target_size=0.5 (n)",
          "model": f"one of {', '.join(FAMILIES)} or a list of them", "strategy": f"one of {', '.join(STRATEGIES)}",
          "max_dim": "a positive integer or None", "alpha": "a positive ridge penalty, e.g. alpha=1e-3",
          "random_state": "a non-negative integer seed or None",
          "n_jobs": "a number of threads (e.g. 2, or -1 for every core) or None",
          "device": "None (the CPU engine), 'cuda', 'cuda:N', 'torch', 'cupy' or 'array-api'"}


def _phase_record(j: int, size: int, scores, ok, keep, chosen, n_pass, correct, held, reason) -> dict:
    """A phase's record (the history's row): S's size, how many pass τ and were removed, the
    representation bias R before and after (eq. 5, as a mean), the held-out accuracy, why it stopped."""
    scored, kept_scored = scores[ok], scores[ok & keep]
    return {
        "phase": j,
        "size": int(size),
        "n_passing_tau": int(n_pass),
        "removed": int(len(chosen)),
        "R": _num(scored.mean()) if len(scored) else None,
        "R_after": _num(kept_scored.mean()) if len(kept_scored) else None,
        "heldout_accuracy": _num(correct.sum() / max(held.sum(), 1)),
        "min_removed_score": _num(scores[chosen].min()) if len(chosen) else None,
        "n_never_held_out": int((~ok).sum()),
        "stop_reason": reason,
        "seconds": 0.0,
    }


class ParameterError(InputError, InvalidParameterError):
    """A constructor parameter of the wrong type or range (scikit-learn's check, with a hint)."""


class NotFitted(InputError, NotFittedError):
    """A fitted attribute or method was used before `fit`."""


def _num(x):
    """A float for JSON records (None instead of NaN)."""
    x = float(x)
    return None if np.isnan(x) else x


def _is_dask_array(X) -> bool:
    return type(X).__module__.split(".")[0] == "dask"


def _range_sum(chunk, lo):
    return chunk.sum(axis=0, dtype=np.float64)


def _range_project(chunk, lo, *, mean, V):
    return (chunk - mean) @ V


class AFLite(BaseEstimator):
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
        The model family M: "ridge" (closed-form one-vs-rest least squares, all m
        partitions solved from shared block Gram matrices), "logistic" (scikit-learn's
        LogisticRegression, the paper's family), "svm" (LinearSVC), "ensemble"
        (= logistic + svm, paper 002), or a sequence of family names whose
        predictions are pooled. See `core.aflite.scorers`; measured speed and quality
        of each family are in benchmarks/README.md.
    strategy : {"greedy-slice", "slice-sample", "greedy"}, default "greedy-slice"
        Paper 003 §2: greedy slicing (AFLite); slice sampling (draw k without
        replacement with probability ∝ p̃ among p̃ ≥ τ, Gumbel top-k); plain greedy
        (k = 1).
    max_dim : int or None, default 768
        If X has more than ``max_dim`` columns, it is centred and projected once onto
        its top ``max_dim`` principal components (axes estimated on at most 10,000
        seeded random rows) before filtering, for every family; recorded in
        ``reduction_``. The rule of the default: X is filtered on all its dimensions
        up to 768 columns (384-, 512- and 768-d sentence embeddings), where a whole
        ridge run stays within 3× of the time with a PCA-256 step; wider X is
        projected onto 768 components, which bounds the d × d work per partition
        (the solves grow as d³). Projecting costs fidelity (the models never see the
        dropped directions); the measurements behind the rule are in
        benchmarks/README.md. None always filters on all dimensions.
    alpha : float, default 1e-3
        Ridge penalty relative to the mean feature energy (family "ridge" only).
    random_state : int or None, default 0
        Seed of the partitions, tie-breaks and Gumbel noise. None draws a seed and
        records it in ``seed_``.
    n_jobs : int or None, default None
        Threads for the ridge family's passes over X and its m solves (scikit-learn's
        convention: None = 1, -1 = every core). The result does not depend on it: X
        is processed in fixed row ranges combined in order (`core.aflite.storage`).
        A dask array X runs on the Dask cluster of the current `distributed.Client`
        instead (`core.aflite.distributed`), with the same result.

    Attributes
    ----------
    trajectory_ : core.aflite.Trajectory
        The recorded run; answers `retained_for` / `result_for` for larger τ and n.
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
        ``n_passing_tau`` (c_j, members with p̃ ≥ τ); ``removed``; ``R``
        (representation bias, eq. 5: Σ p̃(i) with eq. 4's 1/|S| normalisation, i.e.
        the mean p̃ over S_j; None when no member was scored); ``R_after`` (eq. 5
        over what the phase kept, with that phase's scores); ``heldout_accuracy``
        (eq. 2: all held-out predictions pooled); ``min_removed_score``;
        ``n_never_held_out``; ``stop_reason`` ("tau": fewer than k passed τ;
        "target_size": reached n; None: filtering went on); ``seconds``.
    n_phases_ : int
    classes_ : ndarray
    n_, t_, k_, m_ : int
        The resolved sizes (n, t, k, m).
    seed_ : int
    reduction_ : dict or None
        The recorded dimension reduction (method, dims, explained variance).

    Notes
    -----
    An example that falls in the training set of all m partitions of a phase gets no
    prediction, so its p̃ is undefined: it is recorded as NaN, it does not count
    towards c_j (it did not pass τ) and it cannot be removed in that phase; its
    ``predictability_`` is the score of the last phase that did score it. With the
    defaults (t = 10 %, m = 64) this has probability 0.1^64 per example; it matters
    only for tiny m with a large t.
    """

    _parameter_constraints = {
        **{name: _constraint(knob) for name, knob in KNOBS.items()},   # m, t, k, τ, n: `core.aflite.knobs`
        "model": [StrOptions(set(FAMILIES)), list, tuple],
        "strategy": [StrOptions(set(STRATEGIES))],
        "max_dim": [_Number(Integral, 1, None, closed="left"), None],
        "alpha": [_Number(Real, 0, None, closed="neither")],
        "random_state": [_Number(Integral, 0, None, closed="left"), None],
        "n_jobs": [_Number(Integral, None, None, closed="neither"), None],
        "device": [str, None],
    }

    def __init__(self, n_partitions=KNOBS["n_partitions"].default, train_size=KNOBS["train_size"].default,
                 slice_size=KNOBS["slice_size"].default, tau=KNOBS["tau"].default,
                 target_size=KNOBS["target_size"].default, model="ridge", strategy="greedy-slice", max_dim=DEFAULT_MAX_DIM,
                 alpha=1e-3, random_state=0, n_jobs=None, device=None):
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
        self.n_jobs = n_jobs
        self.device = device

    # ------------------------------------------------------------------ parameters
    def _validate(self):
        try:
            self._validate_params()
        except InvalidParameterError as exc:
            name = next((p for p in _HINTS if f"'{p}'" in str(exc)), None)
            raise ParameterError(f"{exc} Give {_HINTS[name]}." if name else str(exc)) from None

    def _families(self):
        names = [self.model] if isinstance(self.model, str) else list(self.model)
        if not names:
            raise ParameterError(f"model={self.model!r} is empty: give one of {', '.join(FAMILIES)} or a list of them.")
        out = []
        for name in names:
            if name not in FAMILIES:
                raise ParameterError(f"model={name!r} is not a known family: use one of {', '.join(FAMILIES)}.")
            out.extend(_ENSEMBLE if name == "ensemble" else [name])
        return tuple(dict.fromkeys(out))

    def _resolve(self, N: int, n_classes: int) -> dict:
        """Sizes in examples and the cross-parameter rules that need N (t < n, k ≥ 1, ...)."""
        if N < 4:
            raise InputError(f"X has only {N} rows: AFLite needs at least 4 examples (more "
                             "rows, or a smaller problem is not worth filtering).")
        rs = self.random_state
        seed = int(np.random.SeedSequence().generate_state(1)[0]) if rs is None else int(rs)
        n = resolve_size("target_size", "n", self.target_size, N)
        # a fraction is a share of N with a floor that makes it usable on any N (the defaults work on a
        # 60-row file): every model sees each class once, every phase removes one example
        t = resolve_size("train_size", "t", self.train_size, N, least=n_classes)
        k = 1 if self.strategy == "greedy" else resolve_size("slice_size", "k", self.slice_size, N, least=1)
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
        return dict(m=int(self.n_partitions), t=t, k=k, n=n, tau=check_tau(self.tau),
                    families=self._families(), seed=seed)

    # ------------------------------------------------------------------ fit
    def fit(self, X, y, *, quality=None, protected=None, progress=None, cancel=None,
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
        protected : (N,) bool array, optional
            Rows no phase removes (the joint filter, `core.dynamics.joint`: ambiguous and possibly
            mislabelled examples). They stay in every S_j and are scored, but never count
            as passing τ, so c_j and the stop consider only the rows that may go.
        progress : callable(fraction, message), optional
        cancel : object with ``is_set()``, optional
            Checked between models; raises `core.base.errors.Cancelled`.
        on_phase : callable(record), optional
            Called after each phase with that phase's `history_` record plus three
            arrays (not JSON): ``indices`` (rows of S_j), ``scores`` (their p̃) and
            ``removed_indices`` (rows removed, in removal order).

        Returns
        -------
        self
        """
        self._validate()
        if self.n_jobs == 0:
            raise ParameterError(f"n_jobs=0 runs nothing: give {_HINTS['n_jobs']}.")
        codes, classes = encode_labels(y)
        self._backend = namespace(self.device)   # (xp, device) of the ridge family; None: the CPU engine
        if _is_dask_array(X):
            from .distributed import DaskRows

            rows = DaskRows(X)             # checks shape, dtype and values on the cluster
        else:   # float16 stays float16 for a device, which widens it chunk by chunk (`ArrayRidgeScorer`)
            rows = LocalRows(check_X(X, keep_half=self._backend is not None), self.n_jobs)
        N = rows.shape[0]
        if len(codes) != N:
            raise InputError(f"len(X)={N} but len(y)={len(codes)}: give exactly one label per row of X.")
        # the choice family's "classes" are the gold's letters, positions it must not depend on: a
        # benchmark whose gold always sits first (TruthfulQA as released) is scored like any other
        if len(classes) < 2 and self.model != "choice":
            raise InputError(f"y has a single class ({classes[0]!r}): AFLite needs at least two "
                             "classes to measure predictability; check the label column.")
        cfg = self._resolve(N, len(classes))
        cfg["classes"] = classes   # (the choice family reads a class as the letter of its position)
        if not rows.distributed and rows.X.dtype != np.float32 and set(cfg["families"]) != {"ridge"}:
            rows = LocalRows(np.asarray(rows.X, dtype=np.float32), self.n_jobs)   # only ridge widens by chunk
        q = check_removal_order(quality, N, self.strategy)
        protect = check_protected(protected, N)

        if self._backend is not None and rows.distributed:
            raise InputError(f"device={self.device!r} computes in this process: give X as an array or memory map, "
                             "not a Dask array (or leave device unset to run on the cluster).")
        if rows.distributed and set(cfg["families"]) != {"ridge"}:
            raise InputError(f"model={self.model!r}: on a Dask cluster only the ridge family runs (its block "
                             "Gram matrices are what the workers compute); use model='ridge', or give X as a "
                             "numpy array or memory map to run the scikit-learn families in this process.")
        t0 = time.perf_counter()
        self.n_features_in_ = rows.shape[1]
        # One BLAS thread for the whole fit: on a shared 2-core machine multi-threaded
        # BLAS was 2-30x slower on every product here (benchmarks/README.md).
        with one_blas_thread():
            Z, mean, self.reduction_ = self._prepare(rows, cfg["seed"], progress, cancel)
            d_gram = Z.shape[1] + 1 if "ridge" in cfg["families"] else 1
            cfg["block_size"] = block_size(N, cfg["t"], d_gram)
            arrays, history = self._run_phases(Z, mean, codes, len(classes), cfg, q, protect, progress, cancel,
                                               on_phase)
        record = {
            "algorithm": "aflite",
            "params": self._record_params(),
            "resolved": {"N": int(N), "d": int(rows.shape[1]), "m": cfg["m"], "t": cfg["t"], "k": cfg["k"],
                         "n": cfg["n"], "tau": cfg["tau"], "families": list(cfg["families"]),
                         "strategy": self.strategy, "block_size": int(cfg["block_size"]),
                         "quality_order": q is not None,
                         "protected": None if protect is None else int(protect.sum())},
            "seed": cfg["seed"],
            "classes": [c.item() if hasattr(c, "item") else c for c in classes],
            "reduction": self.reduction_,
            "execution": {**rows.describe(), "device": self.device or "cpu"},
            "n_phases": len(history),
            "n_retained": int((arrays["removed_at"] == -1).sum()),
            "fit_seconds": round(time.perf_counter() - t0, 4),
            "history": history,
        }
        self.trajectory_ = Trajectory(record, arrays)
        return self

    def _record_params(self) -> dict:
        params = self.get_params()
        for where in ("n_jobs", "device"):   # where and on how many threads it ran are not parameters of the result
            params.pop(where, None)
        if not isinstance(params["model"], str):
            params["model"] = list(params["model"])
        return params

    def _scorer(self, fam: str, Z, mean, codes, n_classes: int, blocks, seed, progress, cancel, classes=None):
        """The scorer of one model family: ridge on the CPU engine or on the device, the conditional
        logit of multiple-choice items, else scikit-learn's."""
        if fam == "choice":
            from .items import ChoiceScorer

            return ChoiceScorer(Z.X, codes, classes, seed)
        if fam == "ridge" and self._backend is not None:
            report(progress, 0.0, f"ridge on {self.device}: block Gram matrices")
            return ArrayRidgeScorer(*self._backend, Z.X, mean, codes, n_classes, blocks, self.alpha, cancel)
        if fam == "ridge":
            report(progress, 0.0, "ridge: block Gram matrices")
            return RidgeScorer(Z, mean, codes, n_classes, blocks, self.alpha, cancel)
        return SklearnScorer(fam, Z.X, mean, codes, seed)

    def _run_phases(self, Z, mean, codes, n_classes, cfg, q, protected, progress, cancel, on_phase):
        N, k, n, tau, seed = len(codes), cfg["k"], cfg["n"], cfg["tau"], cfg["seed"]
        u_all = tiebreak(seed, N)
        removed_at = np.full(N, -1, dtype=np.int64)
        rank = np.full(N, -1, dtype=np.int64)
        pred = np.full(N, np.nan, dtype=np.float32)
        S = np.arange(N)
        scores_list, noise_list, history = [], [], []
        expected_phases = max(1, -(-(N - n) // k))
        blocks = Blocks(seed, N, cfg["block_size"])
        if "ridge" in cfg["families"]:
            _check_ridge_memory(N, Z.shape[1], n_classes, cfg["m"], blocks.n_blocks)
        scorers = [self._scorer(fam, Z, mean, codes, n_classes, blocks, seed, progress, cancel, cfg["classes"])
                   for fam in cfg["families"]]
        j = 0
        while len(S) > n:
            check_cancel(cancel)
            ts = time.perf_counter()
            frac0 = min(j / expected_phases, 0.99)
            rng = phase_rng(seed, j)
            plan = partition_plan(blocks, S, cfg["t"], cfg["m"], rng)
            noise = rng.gumbel(size=len(S)).astype(np.float32) if self.strategy == "slice-sample" else None

            def sub(f, msg, _j=j, _f0=frac0):
                report(progress, _f0 + f * (min((_j + 1) / expected_phases, 1.0) - _f0), msg)

            correct = np.zeros(len(S))
            held = np.zeros(len(S))
            for si, scorer in enumerate(scorers):
                c, h = scorer.score(S, plan, lambda f, msg, _si=si: sub((_si + f) / len(scorers), msg), cancel, j)
                correct += c
                held += h
            with np.errstate(invalid="ignore", divide="ignore"):
                scores = np.where(held > 0, correct / np.maximum(held, 1), np.nan).astype(np.float32)

            chosen, n_pass, reason = select(scores, len(S), tau, k, n, self.strategy, u_all[S], noise,
                                            None if q is None else q[S], None if protected is None else protected[S])
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
            rec = _phase_record(j, len(S), scores, ok, keep, chosen, n_pass, correct, held, reason)
            history.append(rec)
            members = S
            S = S[keep]
            if reason is None:
                for scorer in scorers:
                    scorer.remove(removed_rows)     # e.g. downdate the block Gram matrices for phase j+1
            trim_heap()
            rec["seconds"] = round(time.perf_counter() - ts, 4)
            report(progress, min((j + 1) / expected_phases, 1.0) if reason is None else 1.0,
                   f"phase {j + 1}: |S| = {len(S)}, removed {len(chosen)}")
            if on_phase is not None:
                on_phase(dict(rec, indices=members, scores=scores, removed_indices=removed_rows))
            j += 1
            if reason is not None:
                break

        arrays = {
            "removed_at": removed_at, "removal_rank": rank, "predictability": pred,
            "phase_scores": np.concatenate(scores_list) if scores_list else np.empty(0, np.float32),
            "phase_offsets": np.concatenate([[0], np.cumsum([len(s) for s in scores_list])]).astype(np.int64),
        }
        if noise_list:
            arrays["phase_noise"] = np.concatenate(noise_list)
        if q is not None:
            arrays["quality"] = q
        if protected is not None:
            arrays["protected"] = protected
        return arrays, history

    def _prepare(self, rows, seed, progress, cancel):
        """The rows the models see, and their mean: X centred (by the mean passed to
        every task), or X centred and projected on its top principal components if
        d > max_dim (then a zero mean)."""
        N, d = rows.shape
        mean = np.zeros(d, dtype=np.float64)
        every = {i: {} for i in range(len(rows.ranges))}
        for part in rows.map(_range_sum, every, {}, cancel):   # summed in range order
            mean += part
        mean /= N
        mean32 = mean.astype(np.float32)
        if self.max_dim is None or d <= self.max_dim:
            return rows, mean32, None
        report(progress, 0.0, f"projecting {d} dims on {self.max_dim} principal components")
        # The principal axes are estimated on at most PCA_ROWS seeded random rows (the
        # covariance costs rows·d²); every row is then projected.
        sample = np.arange(N)
        if N > PCA_ROWS:
            rng = np.random.default_rng(np.random.SeedSequence([seed, 0x9CA]))
            sample = np.sort(rng.choice(N, size=PCA_ROWS, replace=False))
        from ..base.pca import covariance_axes

        Xs = rows.take(sample)
        V, w, total = covariance_axes((Xs[lo:lo + CHUNK_ROWS] - mean32 for lo in range(0, len(sample), CHUNK_ROWS)),
                                      d, self.max_dim)
        del Xs
        Z = rows.derive(_range_project, dict(mean=mean32, V=V), self.max_dim, cancel)
        info = {"method": "pca", "d_in": int(d), "d_out": int(self.max_dim), "fit_rows": int(len(sample)),
                "explained_variance_ratio": round(float(w.sum()) / total, 6) if total > 0 else 1.0}
        return Z, np.zeros(self.max_dim, dtype=np.float32), info

    # ------------------------------------------------------------------ the fitted run
    def _trajectory(self) -> Trajectory:
        try:
            check_is_fitted(self, "trajectory_")
        except NotFittedError as exc:
            raise NotFitted(f"{exc} (or use AFLite.load_trajectory).") from None
        return self.trajectory_

    def retained_for(self, tau=None, target_size=None) -> np.ndarray:
        """See `Trajectory.retained_for`: the filtered set for τ' ≥ τ and n' ≥ n, no refit."""
        return self._trajectory().retained_for(tau, target_size)

    def result_for(self, tau=None, target_size=None) -> dict:
        """See `Trajectory.result_for`."""
        return self._trajectory().result_for(tau, target_size)

    def scores_at(self, phase: int) -> np.ndarray:
        """See `Trajectory.scores_at`."""
        return self._trajectory().scores_at(phase)

    def training_sets(self, phase: int) -> list:
        """See `Trajectory.training_sets`."""
        return self._trajectory().training_sets(phase)

    def to_record(self) -> dict:
        """A plain JSON-serialisable record: parameters, resolved sizes, seed, reduction, history."""
        return self._trajectory().record

    def save_trajectory(self, path) -> None:
        """Write the trajectory arrays and the JSON record to an ``.npz`` file."""
        self._trajectory().save(path)

    @classmethod
    def load_trajectory(cls, path) -> "AFLite":
        """An `AFLite` restored from `save_trajectory`: `retained_for`, `result_for`,
        `scores_at` and `to_record` work on it; `fit` it again to refit."""
        traj = Trajectory.load(path)
        params = dict(traj.record["params"])
        if isinstance(params.get("model"), list):
            params["model"] = tuple(params["model"])
        est = cls(**params)
        est.trajectory_ = traj
        est.n_features_in_ = traj.record["resolved"]["d"]
        est.reduction_ = traj.record.get("reduction")
        return est

    # Fitted attributes, read from the trajectory (one copy of every array).
    retained_ = property(lambda self: self._trajectory().retained)
    predictability_ = property(lambda self: self._trajectory().predictability)
    removed_at_ = property(lambda self: self._trajectory().removed_at)
    removal_rank_ = property(lambda self: self._trajectory().removal_rank)
    history_ = property(lambda self: self._trajectory().history)
    n_phases_ = property(lambda self: self._trajectory().n_phases)
    classes_ = property(lambda self: self._trajectory().classes)
    n_samples_ = property(lambda self: self._trajectory().n_samples)
    n_ = property(lambda self: self._trajectory().n)
    t_ = property(lambda self: self._trajectory().t)
    k_ = property(lambda self: self._trajectory().k)
    m_ = property(lambda self: self._trajectory().m)
    tau_ = property(lambda self: self._trajectory().tau)
    seed_ = property(lambda self: self._trajectory().seed)
    strategy_ = property(lambda self: self._trajectory().strategy)
    block_size_ = property(lambda self: self._trajectory().block_size)
    families_ = property(lambda self: tuple(self._trajectory().record["resolved"]["families"]))
    phase_scores_ = property(lambda self: self._trajectory().arrays["phase_scores"])
    phase_offsets_ = property(lambda self: self._trajectory().arrays["phase_offsets"])
    phase_noise_ = property(lambda self: self._trajectory().phase_noise)
    quality_ = property(lambda self: self._trajectory().quality)
    fit_seconds_ = property(lambda self: self._trajectory().record.get("fit_seconds"))


def _check_ridge_memory(N: int, d: int, n_classes: int, m: int, n_blocks: int) -> None:
    """Refuse a ridge run that would outgrow the memory (it grows with classes × d × m) with
    the flags that shrink it, before any work."""
    from ..base.memory import available_memory, size_text

    need, avail = ridge_bytes(N, d, n_classes, m, n_blocks), available_memory()
    if avail is not None and need > avail:
        fix = "lower --m (models per phase) or the representation's dim"
        if n_classes * 10 > N:   # fewer than 10 examples per class: rarely a real label
            fix = (f"{n_classes:,} classes for {N:,} examples ({N / n_classes:.1f} per class) looks like an id or "
                   f"free-text column: check --label; or {fix}")
        raise InputError(f"the ridge models for {n_classes:,} classes at d = {d} and m = {m} need about "
                         f"{size_text(need)} of memory, but only {size_text(avail)} is available; {fix}.")
