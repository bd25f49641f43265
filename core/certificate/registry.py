"""The certificate's measures, one registry (issue 43): what each measure is, once, in code.

A `Measure` holds what a reader and a gate need to know of a measure: its unit, which direction is
worse, whether it measures artifact strength (gated by default), and its description. `certify`
records values under these names (`record`), and `core.certificate.gate` reads direction and kind
from here, never from the certificate under test: a candidate file cannot declare its own measure
harmless ("artifact": false) or turn its direction round. A measure with a value per label says so
(``per_label``, its description for one label) and is named ``name[label]``
(`core.certificate.measures.per_label`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

__all__ = ["Measure", "MEASURES", "register", "spec_of", "record"]


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
MEASURES: dict = {}


def register(measure: Measure) -> Measure:
    if measure.name in MEASURES:
        raise ValueError(f"certificate measure {measure.name!r} is registered twice")
    if measure.worse not in ("higher", "lower", "neither"):
        raise ValueError(f"{measure.name}: worse must be higher, lower or neither, not {measure.worse!r}")
    MEASURES[measure.name] = measure
    return measure


def spec_of(name: str) -> Optional[Measure]:
    """The registered measure a certificate's name stands for (``zstats.over_line[neutral]`` ->
    ``zstats.over_line``), or None for a name this tool does not know."""
    base, bracket, _ = name.partition("[")
    found = MEASURES.get(base)
    if found is None or not (found.per_label if bracket else found.description):
        return None
    return found


def record(name: str, value, stderr, *, label=None, description: Optional[str] = None) -> dict:
    """A measure's entry in a certificate (the schema's fields), from its registration."""
    m = MEASURES[name]

    def number(v):
        return None if v is None or not math.isfinite(float(v)) else float(v)

    return {"value": number(value), "stderr": number(stderr), "worse": m.worse, "artifact": m.artifact, "unit": m.unit,
            "description": description or (m.description if label is None else m.per_label.format(label=label))}


for _m in (
    # a z grows with √n and a count over a line with n: information, not gated (the cue table is)
    Measure("zstats.z_max", "z", "higher", False, "the largest z-statistic of any simple feature for any label "
            "(grows with √n: the cue table is gated instead)", "the largest z of a simple feature for {label}"),
    Measure("zstats.over_line", "features", "higher", False,
            per_label="features over the Bonferroni line for {label} (grows with n: the cue table is gated instead)"),
    Measure("labels.majority_share", "share", "higher", False, "the largest label's share"),
    Measure("v_information.full", "bits", "neither", False,
            "mean PVI of the full input: how much the representation tells of the label"),
    # a model's accuracy and bits differ between halves of one file by 1.1-1.4 times their stated error
    # (the training's variance, which the folds' spread only partly sees; benchmarks/gate_calibration.py):
    # they warn, and the cue table gates what they would catch
    Measure("v_information.partial", "bits", "higher", True,
            "mean PVI of the partial input: the bits the artifact alone carries", warns=True),
    Measure("partial_input.accuracy", "accuracy", "higher", True,
            "cross-fitted accuracy of a model that reads the partial input only", warns=True),
    Measure("partial_input.lift", "accuracy", "higher", True, "partial-input accuracy above the majority class",
            warns=True),
    # its error is binomial over examples, but the examples share one ensemble: halves of one file
    # differ by 2-3 times that (benchmarks/gate_calibration.py), so it warns
    Measure("aflite.predictable_share", "share", "higher", True, "share of examples with AFLite's p̃ ≥ τ", warns=True),
    # halves of SNLI split its premise groups between them: they differ by 1.07 times the clustered
    # error and fail its line in 3 of 40 pairs (benchmarks/gate_calibration.py), so it warns
    Measure("near_duplicates.within", "share", "higher", True, "share of examples with a near-duplicate in the split",
            warns=True),
    Measure("mislabelled.share", "share", "higher", False, "share of examples cleanlab flags as possibly mislabelled "
            "(out-of-sample probabilities of the training dynamics; left out when that model is right on fewer "
            "than 80 % of examples)"),
    Measure("transfer.cues_transferring", "features", "higher", True,
            "the split's label cues that give the labels away on the evaluation split too (a count: grows with n)",
            warns=True),
    Measure("transfer.partial_accuracy_eval", "accuracy", "higher", True,
            "accuracy on the evaluation split of a partial-input model trained on this split", warns=True),
    Measure("near_duplicates.across", "share", "higher", True,
            "share of evaluation examples with a near-duplicate in this split (binomial error: not yet measured by "
            "the calibration, so it warns)", warns=True),
    Measure("reviewers.alpha", "alpha", "lower", False, "Krippendorff's α of the team's reviewers (nominal)"),
):
    register(_m)
