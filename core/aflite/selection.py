"""Where τ, k and n act: which members of S_j a phase removes, and whether filtering stops.

The stopping rule, exactly
--------------------------
Phase j scores every i in S_j, then counts c_j = |{i : p̃(i) ≥ τ}| and removes
r_j = min(k, |S_j| − n, c_j) examples: the r_j most predictable ones among those
with p̃ ≥ τ (greedy slicing; ties broken by a fixed seeded random order of the
examples). (With a protected set — the joint filter — c_j counts only unprotected members: a
protected example is never removed.) Filtering stops after phase j if c_j < k (fewer than k examples passed
τ, Algorithm 1's early stop) or if |S_j| − r_j ≤ n. The last slice is truncated at
|S| − n so the filtered set never drops below n: Algorithm 1 as printed may
overshoot n by up to k − 1 examples, the prose's ⌊(|D| − n)/k⌋ phases may stop up
to k − 1 short; truncating makes ``target_size`` exact.

`passing` holds the one comparison with τ and `phase_step` the one computation of
r_j and the stop; `select` (used by `AFLite.fit`) and the trajectory's live answers
(`Trajectory.retained_for`, including its fast path) both call them, which is what
makes the live τ / n answers exact. `resolve_size` turns a count or a fraction
into a number of examples, for every size here and in the dashboard.
"""
from __future__ import annotations

import math
import numbers
from typing import Optional

import numpy as np

from ..base.errors import InputError

__all__ = ["TAU_RANGE", "resolve_size", "check_tau", "passing", "phase_step", "select", "top"]


def is_int(v) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def is_real(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def resolve_size(name: str, symbol: str, value, N: int, least: int = 0) -> int:
    """A size in examples: an int is a count; a float in (0, 1) a fraction of N, rounded down, and
    at least ``least`` (a count is taken as given: the caller checks it)."""
    if is_int(value):
        return int(value)
    if is_real(value) and 0.0 < float(value) < 1.0:
        return max(int(math.floor(float(value) * N + 1e-9)), int(least))
    raise InputError(
        f"{name}={value!r} ({symbol}) is invalid: give a count (int) or a fraction of the "
        f"dataset as a float in (0, 1), e.g. {name}=0.1.")


#: τ's bounds, both closed: a predictability score p̃ is a share of models. Declared once: the
#: estimator's constraints, check_tau, the CLI's --tau and the dashboard's sliders read them
TAU_RANGE = (0.0, 1.0)


def check_tau(tau, name="tau") -> float:
    lo, hi = TAU_RANGE
    if not is_real(tau) or not (lo <= float(tau) <= hi) or math.isnan(float(tau)):
        raise InputError(f"{name}={tau!r} (τ) is invalid: the early-stopping threshold is a "
                         f"predictability score, give a number in [{lo:g}, {hi:g}], e.g. {name}=0.75.")
    return float(tau)


def passing(scores: np.ndarray, tau: float, protected: Optional[np.ndarray] = None) -> np.ndarray:
    """(|S_j|,) bool: which members have p̃ ≥ τ (NaN, never held out, never passes) and are
    not ``protected`` (the joint filter's ambiguous and possibly mislabelled examples: they
    stay in S_j, are scored and count towards |S_j|, but are never shortlisted)."""
    out = scores >= tau
    return out if protected is None else out & ~protected


def phase_step(n_pass: int, size: int, k: int, n: int):
    """(r_j, stop reason) of a phase with c_j = ``n_pass`` of |S_j| = ``size`` members passing τ.

    The reason is "tau" (fewer than k passed τ), "target_size" (|S_j| − r_j ≤ n) or
    None (filtering goes on).
    """
    r = min(k, size - n, n_pass)
    if n_pass < k:
        return r, "tau"
    if size - r <= n:
        return r, "target_size"
    return r, None


def top(primary: np.ndarray, secondary: Optional[np.ndarray], u: np.ndarray, r: int) -> np.ndarray:
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


def select(scores, size_s, tau, k, n, strategy, u, noise=None, quality=None, protected=None):
    """Which members of S_j a phase removes, and whether it stops.

    Parameters
    ----------
    scores : (|S_j|,) float32, p̃ of the members of S_j (NaN = never held out).
    u, noise, quality : per-member tie-break ranks, Gumbel noise, quality scores.
    protected : per-member bool, members that are never removed (see `passing`).

    Returns
    -------
    chosen : member positions removed, in priority order (a prefix for smaller r).
    n_pass : c_j, the number of members with p̃ ≥ τ.
    reason : "tau", "target_size" or None (see `phase_step`); filtering stops unless None.
    """
    elig = np.flatnonzero(passing(scores, tau, protected))
    r, reason = phase_step(len(elig), size_s, k, n)
    s = scores[elig].astype(np.float64)
    if quality is not None:
        # Paper 002: among p̃ ≥ τ, remove the lowest quality first (then most predictable).
        pos = top(-quality[elig], s, u[elig], r)
    elif strategy == "slice-sample":
        with np.errstate(divide="ignore"):
            key = np.log(s) + noise[elig].astype(np.float64)   # Gumbel top-k: sample ∝ p̃
        pos = top(key, None, u[elig], r)
    else:
        pos = top(s, None, u[elig], r)
    return elig[pos], len(elig), reason
