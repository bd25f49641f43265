"""AFLite's five knobs (m, t, k, τ, n), declared once: the estimator's parameter checks
(scikit-learn's ``_parameter_constraints``), the CLI's option types and the dashboard's sliders are
read from here, so a bound or a default changes in one place.

A knob's ``kind``:
- ``count``: a whole number in [low, high] (m);
- ``size``: a count of examples (a whole number ≥ 1) or a fraction in (0, 1), as scikit-learn
  sizes are (t, k, n); the range against the data is checked by the estimator, which knows N;
- ``unit``: a real number in [low, high] (τ, in `core.aflite.selection.TAU_RANGE`).
``offered`` is what the dashboard's slider offers (lo, hi, step), inside those bounds: a choice of
range for people, not a second bound; ``live`` the live τ and n sliders' top and step (their bottom
is the run's: below the fitted τ and n the trajectory cannot answer).
"""
from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real
from typing import Optional

import numpy as np
from sklearn.utils._param_validation import Interval, RealNotInt

from .selection import TAU_RANGE

__all__ = ["Knob", "KNOBS", "SIZE_COUNT_MAX", "Number", "constraint"]

#: the largest count a size takes as text (the CLI's check before the data is read)
SIZE_COUNT_MAX = 10 ** 9


@dataclass(frozen=True)
class Knob:
    param: str                      #: the estimator's parameter (``n_partitions``)
    symbol: str                     #: the paper's symbol (m)
    flag: str                       #: the CLI's option (``--m``)
    default: object                 #: the estimator's, the CLI's and a new run's default
    what: str                       #: what it sets, as help text says it
    kind: str                       #: count, size or unit (module docstring)
    low: Optional[float] = None     #: count and unit: the least value
    high: Optional[float] = None    #: count and unit: the largest value
    offered: tuple = ()             #: the dashboard's slider: (lo, hi, step)
    live: tuple = ()                #: τ and n: the live slider's top and step (its bottom is the run's fitted value)

    def __post_init__(self):
        if self.kind not in ("count", "size", "unit"):
            raise ValueError(f"a knob is a count, a size or a unit, not {self.kind!r}")
        if self.offered and self.kind != "size" and not (self.low <= self.offered[0] <= self.offered[1] <= self.high):
            raise ValueError(f"{self.symbol}'s slider offers {self.offered[:2]} beyond its bounds [{self.low}, {self.high}]")

    def help(self, default=True) -> str:
        return f"{self.symbol}: {self.what}" + (f" (default {self.default})" if default else "")


KNOBS = {k.param: k for k in (
    Knob("n_partitions", "m", "--m", 64, "partitions (models) per phase", "count", 1, 10_000, offered=(2, 128, 1)),
    Knob("train_size", "t", "--train-size", 0.1, "training-set size per model", "size", offered=(0.02, 0.5, 0.01)),
    Knob("slice_size", "k", "--k", 0.01, "examples removed per phase", "size", offered=(0.001, 0.1, 0.001)),
    Knob("tau", "τ", "--tau", 0.75, "early-stopping threshold on the predictability score", "unit", *TAU_RANGE,
         offered=(*TAU_RANGE, 0.01), live=(TAU_RANGE[1], 0.01)),
    Knob("target_size", "n", "--target-size", 0.5, "stop at this size", "size", offered=(0.05, 0.9, 0.05),
         live=(0.99, 0.01)),   # n live as a share of the scored examples: up to all but 1 %
)}


class Number(Interval):
    """scikit-learn's `Interval` without bools (``n_partitions=True`` is a mistake, not m = 1)
    and with any real type as a fraction (e.g. a ``np.float32`` from a computation)."""

    def is_satisfied_by(self, val):
        if isinstance(val, (bool, np.bool_)):
            return False
        if self.type is RealNotInt:
            return isinstance(val, Real) and not isinstance(val, Integral) and val in self
        return super().is_satisfied_by(val)


_SIZE = [Number(Integral, 1, None, closed="left"), Number(RealNotInt, 0, 1, closed="neither")]


def constraint(knob: Knob) -> list:
    """scikit-learn's constraint of a knob (the estimator's ``_parameter_constraints``)."""
    if knob.kind == "size":
        return _SIZE
    return [Number(Integral if knob.kind == "count" else Real, knob.low, knob.high, closed="both")]
