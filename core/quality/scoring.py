"""The quality components, one entry each (`QualityComponent`: its name, the DQI component it
follows, its weight in the combined ``dqi``, its light thresholds, its words, the quantity it scores
and its rule), the tables read from them, their checks; `component_scores` (the one place the rules
run, for a whole dataset and for one new example), `combine` and `lights` (see `core.quality`)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping, Optional

import numpy as np
import pandas as pd

from ..data.dataset import Dataset
from ..base.errors import InputError
from ..base.registry import Registry
from ..text.features import FeatureOptions
from ..base import lights as lights_vocabulary
from .kernels import dissimilarity, label_tied_score, vocabulary_score, word_overlap_score
from .quantities import QUANTITIES


@dataclass(frozen=True)
class QualityComponent:
    """One quality component: everything the tool says and sets of it, in one entry."""

    name: str                 #: its column, e.g. ``"word_overlap"``
    dqi: str                  #: the DQI component of paper 002 it follows, e.g. ``"C4 intra-sample word similarity"``
    weight: float             #: its default weight in the combined ``dqi``
    thresholds: tuple         #: its default light thresholds: (red below, green at or above)
    #: for someone who never read paper 002: (its name, what it checks, what to change when it is not
    #: green); the Create and Validate pages show these, with ``dqi`` in a tooltip
    words: tuple
    measures: str             #: the quantity it scores, one of `QUANTITIES`
    #: ``rule(quantity, context) -> score in [0, 1]`` over an array of quantities (a dataset's, or one
    #: new example's); ``context`` gives the dataset's references (``R_ref``, ``z_star``)
    rule: Callable


#: the components, in DQI order; adding one on a quantity `core.quality.quantities.QUANTITIES`
#: measures is one entry here: its column in `core.quality.context.QualityContext.components` and its
#: score in `feedback` follow (docs/architecture.md, "How to add a quality component"). Thresholds, read as the raw
#: quantity: vocabulary: red below 35 % of the dataset's R_ref, green from 60 %; ngram_frequency: red
#: when the mean normalised IDF is below 0.2, green from 0.35; neighbour / inter_split: red when a
#: neighbour has cos > 0.98 (a near-duplicate), green when none above 0.85; word_overlap: red when
#: more than 90 % of the hypothesis occurs in the premise, green when at most 60 %;
#: semantic_similarity: red when cos > 0.9, green when cos ≤ 0.6; label_tied: red when an own-label
#: feature has z > z* (score < 0.5), green when none above z*/2 (≥ 0.8). Weights: see the module
#: docstring of `core.quality` for why.
REGISTRY = (
    QualityComponent("vocabulary", "C1 vocabulary", 0.5, (0.35, 0.6), (
        "Word variety", "how varied the words are, against the dataset's most varied examples",
        "use more varied, more specific words"),
        "richness", lambda q, ctx: vocabulary_score(q, ctx.R_ref)),
    QualityComponent("ngram_frequency", "C2 inter-sample n-gram frequency and relation", 0.5, (0.2, 0.35), (
        "Stock phrasing", "whether the example is made of phrases most examples use",
        "rephrase in your own words instead of the dataset's usual phrases"),
        "rarity", lambda q, ctx: q),
    QualityComponent("neighbour", "C3 inter-sample semantic similarity", 1.0, (0.02, 0.15), (
        "Like existing examples", "how close the example is to the nearest one already in the dataset",
        "write about something the dataset does not cover yet"),
        "nearest_cosine", lambda q, ctx: dissimilarity(q)),
    QualityComponent("word_overlap", "C4 intra-sample word similarity", 1.5, (0.1, 0.4), (
        "Copied words", "how many words of the last field are copied from the first",
        "use fewer words taken from the first field"),
        "copied_share", lambda q, ctx: word_overlap_score(q)),
    QualityComponent("semantic_similarity", "C5 intra-sample semantic similarity", 1.5, (0.1, 0.4), (
        "Restated meaning", "whether the last field only restates the first",
        "say something the first field does not already say"),
        "restated_cosine", lambda q, ctx: dissimilarity(q)),
    QualityComponent("label_tied", "C6 n-gram frequency per label", 2.0, (0.5, 0.8), (
        "Giveaway words", "whether words that predict the label on their own are in the example",
        "replace the marked words: a model learns the word, not the task"),
        "own_label_z", lambda q, ctx: label_tied_score(q, ctx.z_star)),
    QualityComponent("inter_split", "C7 inter-split similarity", 1.0, (0.02, 0.15), (
        "Leak between splits", "how close the example is to one in the other split",
        "make it less like the other split's examples"),
        "other_split_cosine", lambda q, ctx: dissimilarity(q)),
)
BY_NAME = Registry("quality component")   # (a name given twice is refused here, at import)
for _component in REGISTRY:
    BY_NAME.add(_component.name, _component)
del _component
if {c.measures for c in REGISTRY} - QUANTITIES.keys():
    raise ValueError(f"a quality component scores an unmeasured quantity: {({c.measures for c in REGISTRY} - QUANTITIES.keys())}")

#: Component columns, in DQI order.
COMPONENTS = tuple(c.name for c in REGISTRY)
#: Component -> the DQI component it follows.
DQI_COMPONENTS = {c.name: c.dqi for c in REGISTRY}


def quality_columns() -> list:
    """The columns an export's quality table adds (`core.exports.writers.add_quality_columns`):
    the components, the combined ``dqi`` and its ``light``."""
    return [*COMPONENTS, "dqi", "light"]


def component_scores(quantities: Mapping[str, object], context, n: int) -> dict:
    """Each component's scores (``n`` of them) from the measured ``quantities`` (name -> ``n`` values,
    or one for all; a quantity not measured, e.g. ``other_split_cosine`` without a second split, is
    NaN): the one place the rules run, so a dataset's column and one new example's score agree."""
    out = {}
    for c in REGISTRY:
        q = np.broadcast_to(np.asarray(quantities.get(c.measures, np.nan), dtype=np.float64), (n,))
        score = np.full(n, np.nan)
        known = ~np.isnan(q)
        if known.any():
            score[known] = c.rule(q[known], context)
        out[c.name] = score
    return out


#: Weights of the combined ``dqi`` score (knobs).
DEFAULT_WEIGHTS = {c.name: c.weight for c in REGISTRY}
#: (red below, green at or above) per column (knobs); dqi: red below 0.4, green from 0.6.
DEFAULT_THRESHOLDS = {**{c.name: c.thresholds for c in REGISTRY}, "dqi": (0.4, 0.6)}
#: each component in words (`QualityComponent.words`), and the combined score's
IN_WORDS = {**{c.name: c.words for c in REGISTRY},
            "dqi": ("Overall score", "the weighted mean of the checks above", "fix the red and yellow checks first")}

LIGHTS = tuple(reversed(lights_vocabulary.LIGHTS))   # worst first, as thresholds read
NA = lights_vocabulary.NA

#: Longest text of one field a new example may have (characters; a knob of `QualityContext`).
MAX_CHARS = 2000

NGRAM_OPTIONS = FeatureOptions(lengths=False, overlap_above=(), overlap_below=(), partial_input=None, null=False)


# ============================================================== checks


def check_quality(values, name: str = "quality", n: Optional[int] = None) -> np.ndarray:
    """A quality column as float64, or `InputError`: NaN/infinite values, values outside [0, 1],
    or (with ``n``) the wrong length."""
    try:
        q = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{name} holds values that are not numbers; give one score in [0, 1] per example.") from None
    if q.ndim != 1 or (n is not None and len(q) != n):
        raise InputError(f"{name} has shape {q.shape}: give one score per example ({n if n is not None else 'N'},).")
    bad = ~np.isfinite(q)
    if bad.any():
        raise InputError(f"{name} has {int(bad.sum())} NaN or infinite values: give a score in [0, 1] for every example.")
    out = (q < 0) | (q > 1)
    if out.any():
        raise InputError(f"{name} has {int(out.sum())} values outside [0, 1] (e.g. {q[out][0]:g}); quality scores "
                         "are in [0, 1], higher = better.")
    return q


def check_thresholds(thresholds) -> dict:
    th = dict(DEFAULT_THRESHOLDS)
    for key, pair in dict(thresholds or {}).items():
        try:
            red, green = (float(v) for v in pair)
        except (TypeError, ValueError):
            raise InputError(f"thresholds[{key!r}]={pair!r} must be a pair (red below, green from), e.g. (0.3, 0.6).") from None
        if not (0 <= red <= green <= 1):
            raise InputError(f"thresholds[{key!r}]=({red:g}, {green:g}) must satisfy 0 ≤ red ≤ green ≤ 1.")
        th[key] = (red, green)
    return th


def check_weights(weights) -> dict:
    w = dict(DEFAULT_WEIGHTS)
    for key, value in dict(weights or {}).items():
        if key not in COMPONENTS:
            raise InputError(f"weights: unknown component {key!r}; the components are {', '.join(COMPONENTS)}.")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise InputError(f"weights[{key!r}]={value!r} must be a number ≥ 0.")
        w[key] = float(value)
    if sum(w.values()) <= 0:
        raise InputError("weights are all zero; give at least one component a positive weight.")
    return w


def check_second_split(ds: Dataset, other: Dataset) -> None:
    """`InputError` unless the second split has the same columns and roles as ``ds``."""
    if not isinstance(other, Dataset):
        raise InputError(f"the second split must be a core.data.dataset.Dataset, not {type(other).__name__}.")
    a, b = set(map(str, ds.table.columns)), set(map(str, other.table.columns))
    if a != b or other.label != ds.label or list(other.text) != list(ds.text):
        missing, extra = sorted(a - b), sorted(b - a)
        parts = ([f"it lacks {', '.join(missing)}"] if missing else []) + ([f"it adds {', '.join(extra)}"] if extra else [])
        if not parts:
            parts = [f"its roles differ (label {other.label!r}, text {list(other.text)})"]
        raise InputError(f"the second split's columns differ from the dataset's ({'; '.join(parts)}); give a split "
                         f"with the same columns ({', '.join(sorted(a))}).")


# ============================================================== lights and the combined score


def combine(scores: pd.DataFrame, weights: Optional[Mapping] = None) -> pd.Series:
    """The combined ``dqi`` score: weighted mean of the components present (NaN left out)."""
    w = check_weights(weights)
    cols = [c for c in COMPONENTS if c in scores.columns]
    if not cols:
        raise InputError(f"no quality component among the columns {list(scores.columns)}.")
    V = scores[cols].to_numpy(dtype=np.float64)
    W = np.array([w[c] for c in cols])[None, :] * ~np.isnan(V)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.nansum(np.nan_to_num(V) * W, axis=1) / W.sum(axis=1)
    return pd.Series(np.where(W.sum(axis=1) > 0, out, np.nan), index=scores.index, name="dqi")


def _light(value: float, red: float, green: float) -> str:
    if value is None or not np.isfinite(value):
        return NA
    return "red" if value < red else ("green" if value >= green else "yellow")


def lights(scores, thresholds: Optional[Mapping] = None):
    """Traffic lights of scores: ``red`` below the column's red threshold, ``green`` at or
    above its green threshold, ``yellow`` between, ``n/a`` for NaN.

    Parameters
    ----------
    scores : DataFrame (columns = components and/or ``dqi``), Series named after a column,
        or dict column -> value.
    thresholds : dict column -> (red below, green from), optional
        Overrides `DEFAULT_THRESHOLDS`; 0 ≤ red ≤ green ≤ 1.

    Returns
    -------
    The same shape: a DataFrame of strings, a Series, or a dict.
    """
    th = check_thresholds(thresholds)

    def one(col, values):
        if col not in th:
            raise InputError(f"no thresholds for column {col!r}; give thresholds[{col!r}] = (red, green).")
        red, green = th[col]
        v = np.asarray(values, dtype=np.float64)
        return np.where(np.isnan(v), NA, np.where(v < red, "red", np.where(v >= green, "green", "yellow")))

    if isinstance(scores, pd.DataFrame):
        return pd.DataFrame({c: one(c, scores[c]) for c in scores.columns}, index=scores.index)
    if isinstance(scores, pd.Series):
        return pd.Series(one(scores.name, scores), index=scores.index, name=scores.name)
    if isinstance(scores, Mapping):
        return {c: str(one(c, [np.nan if v is None else v])[0]) for c, v in scores.items()}
    raise InputError(f"lights needs a DataFrame, a Series or a dict of scores, not {type(scores).__name__}.")
