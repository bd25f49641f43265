"""The recorded trajectory of an AFLite fit, and the live answers it gives.

Because a phase's partitions depend only on (random_state, j, S_j) and the removal
order in a phase does not depend on τ or n, a fit with a low τ and a small n
answers any τ' ≥ τ and n' ≥ n exactly: walk the recorded phases and stop where τ'
or n' would have stopped (the rule in `core.aflite.selection`).

A `Trajectory` holds the JSON record of the fit (parameters, resolved sizes, seed,
classes, reduction, per-phase history) and its arrays: ``removed_at``,
``removal_rank``, ``predictability``, ``phase_scores`` / ``phase_offsets`` (p̃ of the
members of every S_j, phase after phase), and optionally ``phase_noise`` (slice
sampling), ``quality`` (quality-ordered removal) and ``protected`` (rows the joint filter never
removes; the removal order among the others still does not depend on τ or n). It saves to one ``.npz`` file.
"""
from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING
from functools import cached_property

import numpy as np

if TYPE_CHECKING:   # only for an annotation: pandas is imported where a history is built
    import pandas as pd

from .partitions import Blocks, partition_plan, phase_rng, tiebreak
from .selection import check_tau, is_int, passing, phase_step, resolve_size, select
from ..base.errors import InputError

__all__ = ["Trajectory", "RefitNeeded"]

_REQUIRED = ("removed_at", "removal_rank", "predictability", "phase_scores", "phase_offsets")
_OPTIONAL = ("phase_noise", "quality", "protected")


class RefitNeeded(InputError):
    """The recorded trajectory cannot answer this τ / n; a new `fit` is needed."""


class Trajectory:
    """What an AFLite fit recorded, phase by phase; answers larger τ and n without refitting.

    Build it with `from_arrays` (or `load`); `AFLite.fit` makes one (``trajectory_``).
    """

    def __init__(self, record: dict, arrays: dict):
        self.record = record
        self.arrays = arrays
        res = record["resolved"]
        self.n_samples = int(res["N"])
        self.m, self.t, self.k, self.n = int(res["m"]), int(res["t"]), int(res["k"]), int(res["n"])
        self.tau = float(res["tau"])
        self.strategy = res["strategy"]
        self.block_size = res.get("block_size")   # only `training_sets` needs it
        self.seed = int(record["seed"])
        self.classes = np.asarray(record["classes"])
        self.history = record["history"]
        self.n_phases = int(record["n_phases"])
        self.removed_at = arrays["removed_at"]
        self.removal_rank = arrays["removal_rank"]
        self.predictability = arrays["predictability"]
        self.retained = self.removed_at == -1
        self.quality = arrays.get("quality")
        self.phase_noise = arrays.get("phase_noise")
        self.protected = arrays.get("protected")
        self._scores, self._offsets = arrays["phase_scores"], arrays["phase_offsets"]

    @classmethod
    def from_arrays(cls, record: dict, arrays: dict) -> "Trajectory":
        """A trajectory from its JSON record and its arrays (as `to_arrays` gives them)."""
        missing = [k for k in _REQUIRED if k not in arrays]
        if missing:
            raise InputError(f"the trajectory is damaged: arrays {missing} are missing; refit to rebuild it.")
        out = {k: np.asarray(arrays[k]) for k in (*_REQUIRED, *_OPTIONAL) if arrays.get(k) is not None}
        for k, a in out.items():
            if a.ndim != 1 or not (np.issubdtype(a.dtype, np.number) or a.dtype == bool):
                raise InputError(f"the trajectory is damaged: {k} is not a list of numbers; refit to rebuild it.")
        for k in ("predictability", "phase_scores", "quality"):
            a = out.get(k)
            if k != "quality" and a is not None and len(a) and not (np.nanmin(a, initial=0) >= 0 and
                                                                    np.nanmax(a, initial=0) <= 1):
                raise InputError(f"the trajectory is damaged: {k} holds values outside [0, 1]; refit to rebuild it.")
        for k in ("removed_at", "removal_rank", "phase_offsets"):
            a = out[k]
            if not np.issubdtype(a.dtype, np.integer) and len(a) and not (
                    np.all(np.isfinite(a)) and np.all(a == np.round(a)) and np.all(np.abs(a) < 2 ** 53)):
                raise InputError(f"the trajectory is damaged: {k} holds values that are not whole numbers; refit to "
                                 "rebuild it.")
            out[k] = a.astype(np.int64)
        if "protected" in out:
            out["protected"] = out["protected"].astype(bool)
        sizes = {k: len(out[k]) for k in ("removed_at", "removal_rank", "predictability", "protected", "quality")
                 if k in out}
        offsets = out["phase_offsets"]
        if len(set(sizes.values())) > 1 or not len(offsets) or offsets[0] != 0 or np.any(np.diff(offsets) < 0) \
                or ("phase_scores" in out and offsets[-1] != len(out["phase_scores"])):
            raise InputError(f"the trajectory is damaged: its arrays disagree in length ({sizes}); refit to rebuild it.")
        try:
            made = cls(record, out)
        except (KeyError, TypeError, ValueError, OverflowError, AttributeError) as exc:
            raise InputError(f"the trajectory is damaged: its record does not hold what a fit records ({type(exc).__name__}"
                             f": {str(exc)[:80]}); refit to rebuild it.") from None
        ra = made.removed_at
        if made.n_phases < 0 or len(offsets) != made.n_phases + 1 or made.n_samples != len(ra) or (
                len(ra) and (ra.min() < -1 or ra.max() >= made.n_phases)) or min(made.k, made.m, made.t) < 1 \
                or not 0 <= made.n <= made.n_samples or not math.isfinite(made.tau) \
                or not isinstance(made.history, list) or not all(isinstance(h, dict) for h in made.history):
            raise InputError("the trajectory is damaged: its phases disagree with its record (removal phases out of "
                             "range, or a count that does not match); refit to rebuild it.")
        return made

    def to_arrays(self) -> dict:
        """The arrays (plain numeric, no record): what `from_arrays` takes back."""
        return dict(self.arrays)

    # ------------------------------------------------------------------ phases
    def members(self, phase: int) -> np.ndarray:
        """Rows in S_j, the set phase ``phase`` scored (ascending)."""
        ra = self.removed_at
        return np.flatnonzero((ra == -1) | (ra >= phase))

    def phase_scores(self, phase: int) -> np.ndarray:
        """p̃ of `members(phase)`, aligned with them (NaN = never held out)."""
        return self._scores[self._offsets[phase]:self._offsets[phase + 1]]

    def _check_phase(self, phase) -> int:
        if not is_int(phase) or not 0 <= phase < self.n_phases:
            raise InputError(f"phase={phase!r} is invalid: give 0 <= phase < {self.n_phases}.")
        return int(phase)

    def history_of(self, row: int) -> pd.DataFrame:
        """One example's way through the run (``row`` is its position in the run): per phase
        it took part in, ``phase`` (1-based, as shown to people), ``p̃`` (NaN when no model
        held it out) and ``removed`` (whether that phase removed it)."""
        import pandas as pd

        if not is_int(row) or not 0 <= int(row) < self.n_samples:
            raise InputError(f"row={row!r} is invalid: give 0 <= row < {self.n_samples}.")
        row = int(row)
        gone = int(self.removed_at[row])
        last = self.n_phases - 1 if gone < 0 else gone
        phases, scores = [], []
        for j in range(last + 1):
            members = self.members(j)
            at = int(np.searchsorted(members, row))   # members are ascending
            phases.append(j + 1)
            scores.append(float(self.phase_scores(j)[at]))
        return pd.DataFrame({"phase": phases, "p̃": scores, "removed": [j == gone for j in range(last + 1)]})

    def scores_at(self, phase: int) -> np.ndarray:
        """(N,) float32: p̃ of every example in phase ``phase`` (NaN outside S_j / never held out)."""
        phase = self._check_phase(phase)
        out = np.full(self.n_samples, np.nan, dtype=np.float32)
        out[self.members(phase)] = self.phase_scores(phase)
        return out

    def training_sets(self, phase: int) -> list:
        """The m training sets (dataset row indices, sorted) of phase ``phase``, rebuilt from the seed."""
        phase = self._check_phase(phase)
        if self.block_size is None:
            raise InputError("this trajectory was saved without its block size: refit to rebuild "
                             "its training sets.")
        S = self.members(phase)
        plan = partition_plan(Blocks(self.seed, self.n_samples, self.block_size), S, self.t, self.m,
                              phase_rng(self.seed, phase))
        return [S[plan.train_positions(p)] for p in range(self.m)]

    # ------------------------------------------------------------------ live τ and n
    def live_bounds(self) -> dict:
        """What the trajectory answers: τ' ≥ ``tau_min`` and n' ≥ ``n_min``, of ``N`` examples."""
        return {"tau_min": self.tau, "n_min": self.n, "N": self.n_samples}

    def clamp(self, tau, target_size) -> tuple:
        """(τ, n as a count) from knob values, moved into what the trajectory answers:
        τ ≥ the fitted τ, the fitted n ≤ n ≤ N − 1."""
        n = resolve_size("target_size", "n", target_size, self.n_samples)
        return max(float(tau), self.tau), min(max(n, self.n), self.n_samples - 1)

    def _resolve_query(self, tau, target_size):
        tau = self.tau if tau is None else check_tau(tau)
        if target_size is None:
            n = self.n
        else:
            n = resolve_size("target_size", "n", target_size, self.n_samples)
            if n < 1:
                raise InputError(f"target_size={target_size!r} is invalid: give a count of at least 1 or a "
                                 "fraction in (0, 1).")
            if n >= self.n_samples:
                raise InputError(f"target_size={target_size!r} gives n={n} ≥ N={self.n_samples}: "
                                 "give a target size below N.")
        if tau < self.tau - 1e-12:
            raise RefitNeeded(
                f"tau={tau} is below the fitted τ={self.tau}: a lower threshold could remove examples "
                f"the recorded run never removed, so a refit is needed (fit with tau={tau}, or fit once "
                "with a low τ such as 0 and then move τ up live).")
        if n < self.n:
            raise RefitNeeded(
                f"target_size={target_size!r} gives n={n}, below the fitted n={self.n}: the recorded run "
                f"stopped at {self.n} examples, so a refit is needed (fit with that target size, or fit "
                "once with a small target size and then move it up live).")
        return tau, n

    @cached_property
    def _phase_protected(self):
        """``protected`` of the members of every S_j, aligned with the phase scores (built once:
        the live τ/n answers walk the phases on every knob move)."""
        if self.protected is None:
            return None
        return np.concatenate([self.protected[self.members(j)] for j in range(self.n_phases)])

    @cached_property
    def _u(self) -> np.ndarray:
        return tiebreak(self.seed, self.n_samples)

    def _walk(self, tau, n):
        """Phase J where a fresh run with (τ', n') stops, how many it removes there (r), and
        which rows (None when they are the first r of the recorded order)."""
        # Greedy slicing without a quality order: a phase's removal order does not depend
        # on τ or n, so the fresh run removes a prefix of the recorded order.
        prefix = self.strategy != "slice-sample" and self.quality is None
        ra = self.removed_at
        for j in range(self.n_phases):
            s = self.phase_scores(j)
            prot = None if self.protected is None else self._phase_protected[self._offsets[j]:self._offsets[j + 1]]
            if prefix:
                r, reason = phase_step(int(np.count_nonzero(passing(s, tau, prot))), len(s), self.k, n)
                if reason is not None:
                    return j, r, None
                continue
            members = self.members(j)
            noise = None if self.phase_noise is None else self.phase_noise[self._offsets[j]:self._offsets[j + 1]]
            chosen, _, reason = select(s, len(s), tau, self.k, n, self.strategy, self._u[members], noise,
                                       None if self.quality is None else self.quality[members], prot)
            if reason is not None:
                return j, len(chosen), members[chosen]
            recorded = np.flatnonzero(ra[members] == j)
            if len(chosen) != len(recorded) or not np.array_equal(np.sort(chosen), recorded):
                why = ("the quality order among p̃ ≥ τ changes with τ" if self.quality is not None
                       else "slice sampling draws among p̃ ≥ τ, so a higher τ changes the draw")
                raise RefitNeeded(
                    f"tau={tau}, n={n} would remove different examples than the recorded run in phase "
                    f"{j} ({why}) and continue, so the later phases were never recorded: a refit is "
                    f"needed (fit with tau={tau}).")
        # Unreachable for τ' ≥ τ, n' ≥ n: the recorded run's last phase also stops the fresh run.
        raise RuntimeError("trajectory walk did not stop; the recorded trajectory is inconsistent")

    def _cut(self, tau, n):
        """(J, removed in J): the last phase a fresh fit with (τ', n') runs, and the (N,) mask of
        the rows it removes there (the recorded run may have removed more in phase J)."""
        if (tau, n) == (self.tau, self.n):
            J = self.n_phases - 1
            return J, self.removed_at == J
        J, r, removed_last = self._walk(tau, n)
        if removed_last is None:
            return J, (self.removed_at == J) & (self.removal_rank < r)
        last = np.zeros(self.n_samples, dtype=bool)
        last[removed_last] = True
        return J, last

    def retained_for(self, tau=None, target_size=None) -> np.ndarray:
        """(N,) bool: the filtered set a fresh fit with this τ and n would return, without refitting.

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
        J, last = self._cut(tau, n)
        ra = self.removed_at
        return ((ra == -1) | (ra >= J)) & ~last

    def result_for(self, tau=None, target_size=None) -> dict:
        """What a fresh fit with this τ and n gives: ``retained``, ``removed_at``,
        ``predictability`` (N,) arrays and ``n_phases``; same rules as `retained_for`."""
        tau, n = self._resolve_query(tau, target_size)
        J, last = self._cut(tau, n)
        ra = self.removed_at
        removed_at = np.where((ra >= 0) & (ra < J), ra, -1)
        removed_at[last] = J
        pred = np.full(self.n_samples, np.nan, dtype=np.float32)
        for j in range(J + 1):
            s = self.phase_scores(j)
            ok = ~np.isnan(s)
            pred[self.members(j)[ok]] = s[ok]
        return {"retained": removed_at == -1, "removed_at": removed_at,
                "predictability": pred, "n_phases": J + 1}

    # ------------------------------------------------------------------ files
    def save(self, path) -> None:
        """Write the arrays and the JSON record to one ``.npz`` file (a path or a file object)."""
        arrays = dict(self.arrays, record=np.array(json.dumps(self.record, default=str)))
        np.savez_compressed(path, **arrays)

    @classmethod
    def load(cls, path) -> "Trajectory":
        """A trajectory written by `save` (or by ``AFLite.save_trajectory``)."""
        try:
            with np.load(path, allow_pickle=False) as z:
                record = json.loads(str(z["record"]))
                arrays = {k: z[k] for k in z.files if k != "record"}
        except (OSError, ValueError, KeyError, EOFError) as exc:
            raise InputError(f"the trajectory file {path} is damaged or not a trajectory ({type(exc).__name__}); "
                             "save it again with AFLite.save_trajectory, or refit.") from None
        return cls.from_arrays(record, arrays)
