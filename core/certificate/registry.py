"""The certificate's measures, one registry (issue 43): what each measure is and how it is
computed, once, in code.

A `Measure` holds what a reader and a gate need to know of a measure: its unit, which direction is
worse, whether it measures artifact strength (gated by default), and its description. `certify`
records values under these names (`record`), and `core.certificate.gate` reads direction and kind
from here, never from the certificate under test: a candidate file cannot declare its own measure
harmless ("artifact": false) or turn its direction round. A measure with a value per label says so
(``per_label``, its description for one label) and is named ``name[label]``
(`core.certificate.measures.per_label`).

A `Step` is how measures are computed: one computation (a model trained, a table counted) and the
measures it writes, declared with it. `certify` runs the registered steps in order; a new measure
is one `step` in `core/certificate/measures.py` that declares its `Measure` and computes it
(`tests/unit/test_extension_checks.py` checks every measure has its docs row, direction and
calibration line). The built-in steps register when `core.certificate`
is imported, so the registry is full wherever a measure is read.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional

from ..base.registry import Registry

__all__ = ["Measure", "MEASURES", "register", "spec_of", "record", "Step", "STEPS", "step"]


@dataclass(frozen=True)
class Measure:
    name: str                 #: e.g. ``"partial_input.accuracy"``; a per-label family without its ``[label]``
    unit: str                 #: ``"accuracy"``, ``"bits"``, ``"z"``, ``"features"``, ``"share"``, ``"alpha"``
    worse: str                #: ``"higher"``, ``"lower"`` or ``"neither"``: the direction that means more artifact
    artifact: bool            #: a measure of artifact strength, gated by default (else shown, gated only by a rule)
    description: str = ""     #: what the whole-dataset value is, in a sentence ("": there is none)
    #: what the value for one label is (``{label}`` in it), when there is one per label, named ``name[label]``
    per_label: str = ""
    #: an artifact measure whose uncertainty the gate cannot vouch for (its false alarms, measured by
    #: benchmarks/gate_calibration.py, are above the family's): it warns by default, and fails only
    #: where a rule names it
    warns: bool = False


#: name -> measure, in the order a certificate lists them
MEASURES = Registry("certificate measure")


def register(measure: Measure) -> Measure:
    if measure.worse not in ("higher", "lower", "neither"):
        raise ValueError(f"{measure.name}: worse must be higher, lower or neither, not {measure.worse!r}")
    return MEASURES.add(measure.name, measure)


def spec_of(name: str) -> Optional[Measure]:
    """The registered measure a certificate's name stands for (``zstats.over_line[neutral]`` ->
    ``zstats.over_line``), or None for a name this tool does not know."""
    base, bracket, _ = name.partition("[")
    found = MEASURES.get(base)
    if found is None or not (found.per_label if bracket else found.description):
        return None
    return found


def record(name: str, value, stderr, *, label=None, description: Optional[str] = None, n: Optional[int] = None) -> dict:
    """A measure's entry in a certificate (the schema's fields), from its registration; ``n``, a
    share's denominator, lets the gate pool two shares' binomial error (`core.certificate.gate`)."""
    m = MEASURES[name]

    def number(v):
        return None if v is None or not math.isfinite(float(v)) else float(v)

    out = {"value": number(value), "stderr": number(stderr), "worse": m.worse, "artifact": m.artifact, "unit": m.unit,
           "description": description or (m.description if label is None else m.per_label.format(label=label))}
    if n is not None:
        out["n"] = int(n)
    return out




@dataclass(frozen=True)
class Step:
    """One computation of `certify` and the measures it writes."""

    title: str                #: what the progress says while it runs ("" for a step too quick to say)
    at: float                 #: the progress fraction at its start
    writes: tuple             #: the `Measure` objects it writes (registered with it)
    applies: Callable         #: ``applies(inputs) -> bool``: whether this dataset and these options have it
    compute: Callable         #: ``compute(inputs) -> {name: record}`` (a per-label measure as ``name[label]``)

    def check(self, found: dict) -> dict:
        """``found``, every name one this step declared (a stray name is a mistake in the code)."""
        mine = {m.name for m in self.writes}
        stray = sorted(k for k in found if k.partition("[")[0] not in mine)
        if stray:
            raise ValueError(f"the certificate step {self.compute.__name__} wrote {stray}, which it does not declare")
        return found


#: the steps of `certify`, in the order they run (the order a certificate lists the measures)
STEPS: list = []


def step(title: str, at: float, writes, applies: Callable = lambda inputs: True):
    """Register the decorated ``compute(inputs)`` as a step writing the measures ``writes`` (each
    registered here, so a measure and how it is computed are declared together)."""
    writes = tuple(writes)

    def add(compute: Callable) -> Callable:
        for m in writes:
            register(m)
        STEPS.append(Step(title, float(at), writes, applies, compute))
        return compute

    return add
