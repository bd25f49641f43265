"""What a new example gets back: its `Feedback` (components, lights, giveaway words, partial-input
and Φ predictions, similar examples, near-duplicates, suggestions) and the rule of its overall
light (`overall_light`)."""
from __future__ import annotations

from dataclasses import dataclass, field as dc_field
from typing import Optional


#: a partial-input model this sure of the example's label gives it away, whatever the other components say
DECISIVE = 0.9


def overall_light(components: dict, partial: Optional[dict], label) -> tuple:
    """(light, reason) of one new example: a weighted mean (``dqi``) would let a decisive giveaway
    hide behind good components, so a red label-tied component, or a partial-input model that
    predicts the example's own label with p ≥ `DECISIVE`, makes it red; else ``dqi``'s light."""
    if components.get("label_tied", {}).get("light") == "red":
        return "red", "overall red: a word or phrase gives the label away (label-tied component red)."
    if partial is not None and partial.get("predicted") == label and partial.get("confidence", 0) >= DECISIVE:
        return "red", (f"overall red: a model reading only the {partial.get('field')} predicts {label} with "
                       f"p = {partial['confidence']:.2f}.")
    return components["dqi"]["light"], ""


@dataclass
class Feedback:
    """What one new example gets (`QualityContext.feedback`). ``to_dict()`` is JSON-ready.

    Attributes
    ----------
    example : dict
        The example as given (fields and label).
    components : dict name -> {"score", "light", "dqi", "detail"}
        Every component of `COMPONENTS` plus ``dqi``; score None and light ``n/a``
        where it does not apply (``inter_split`` for a new example: it is not in a split).
    light : str
        The example's overall light (`overall_light`): red when a decisive giveaway is there (the
        label-tied component is red, or the partial-input model predicts the example's label with
        p ≥ `DECISIVE`), else that of ``dqi``.
    label_tied : list of dict
        The example's n-gram features that lean to a label: ``feature`` (``nobody@hypothesis``),
        ``ngram``, ``field``, ``words`` (its tokens), ``label``, ``z``, ``n`` (examples with it),
        ``p_hat``, ``own_label`` (the example's label), ``significant`` (z > z*); z descending.
    partial_input : dict or None
        ``field``, ``predicted``, ``confidence`` (its probability), ``p_label`` (probability of the
        example's label), ``probabilities``, ``heldout_accuracy``, ``majority``: the hypothesis-only
        logistic regression on n-grams. None with a single text field.
    representation : dict
        The same for a logistic regression on Φ (``spec``, ``stand_in`` when Φ cannot embed new text).
    neighbours : list of dict
        ``id``, ``similarity`` (cosine in Φ), ``label`` and the text fields of the most similar
        examples in Φ (similar, not duplicates: see ``duplicates``).
    duplicates : list of dict
        ``id`` and ``overlap`` of the dataset's near-duplicates of the example: every text field
        shares at least `core.text.duplicates.THRESHOLD` of its wording (`core.text.duplicates`).
    suggestions : list of str
        What to change to turn red into green, most important first.
    notes : list of str
    seconds : float
    """

    example: dict
    components: dict
    light: str
    label_tied: list
    partial_input: Optional[dict]
    representation: dict
    neighbours: list
    suggestions: list
    z_star: float
    notes: list = dc_field(default_factory=list)
    seconds: float = 0.0
    duplicates: list = dc_field(default_factory=list)

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in ("example", "light", "components", "label_tied", "partial_input",
                                              "representation", "neighbours", "duplicates", "suggestions", "z_star",
                                              "notes", "seconds")}
