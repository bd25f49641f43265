"""Per-example quality components after DQI (paper 002; Mishra et al. 2020, "DQI"), traffic
lights, one-example feedback for creators, and DQI-guided pruning.

DQI has seven components. Each is computed here per example, on CPU, normalised to
[0, 1] with **higher = better**, under the column name in the first column:

=======================  ==========================================  ============================================
column                   DQI component it follows                    formula (per example i)
=======================  ==========================================  ============================================
``vocabulary``           C1 vocabulary                               Guiraud's root type-token ratio over all text
                                                                     fields, R_i = types_i / √tokens_i, divided by
                                                                     R_ref (the dataset's 95th percentile of R,
                                                                     fitted) and clipped to [0, 1]
``ngram_frequency``      C2 inter-sample n-gram frequency and        mean over the example's distinct n-grams g
                         relation                                    (uni- and bigrams, per field) of
                                                                     log((N + 1) / df_g) / log(N + 1), df_g = examples
                                                                     with g (itself included): examples made of
                                                                     phrases every example uses score low
``neighbour``            C3 inter-sample semantic similarity         1 − max(0, max_{j ≠ i} cos(Φ_i, Φ_j)): a
                                                                     near-duplicate in Φ scores ≈ 0. Batched: chunked
                                                                     matrix products, never an N × N matrix; above
                                                                     ``nn_dim`` dimensions Φ is first projected on its
                                                                     top ``nn_dim`` principal axes (a knob; None =
                                                                     exact in all of Φ)
``word_overlap``         C4 intra-sample word similarity             1 − share of the last field's tokens (the
                                                                     hypothesis) that occur in the first (the
                                                                     premise); NaN with one text field
``semantic_similarity``  C5 intra-sample semantic similarity         1 − max(0, cos(ψ(first field), ψ(last field)))
                                                                     with ψ each field represented alone in one space
                                                                     (see "Semantic space" below); NaN with one field
``label_tied``           C6 n-gram frequency per label               1 / (1 + (z⁺_i / z*)²), z⁺_i = max(0, largest z of
                                                                     the example's own n-gram features for its own
                                                                     label) (`core.zstats.z_scores`, paper 004 eq. 2,
                                                                     features of `core.text.features` seen in ≥
                                                                     ``min_count`` examples), z* the one-sided
                                                                     Bonferroni threshold: 0.5 exactly at z = z*
``inter_split``          C7 inter-split similarity                   1 − max(0, max_j cos(Φ_i, Φ'_j)) over the
                                                                     examples j of a second split in the same Φ;
                                                                     NaN without a second split
=======================  ==========================================  ============================================

The combined score ``dqi`` is the weighted mean of the components an example has
(NaN components are left out and the weights renormalised), with `DEFAULT_WEIGHTS`
(a knob): the label-tied n-grams weigh most (the artifact the tool exists to find),
then word overlap and semantic similarity between the fields, which paper 002 §4.2
expects to matter most (it calls them C3 and C5; in the component list above, word
overlap is C4), then near-duplicates and the split leak, then vocabulary and n-gram
frequency.

What DQI defines that cannot be computed here, and what stands in
------------------------------------------------------------------
DQI (133 terms) scores against "ideal" values fitted on reference corpora and uses
sentence embeddings, POS tags (adjective/adverb/noun/verb granularities of C2 and C6)
and STS models. Offline on CPU we have none of those, so: C2's and C6's POS-tag and
sentence granularities are left out (word uni- and bigrams stand in); DQI's ideal
values are replaced by the dataset's own statistics (R_ref, df, z*); C3/C5/C7's
sentence-embedding similarity is cosine in the chosen representation Φ (C3, C7) or
in the semantic space below (C5); C1's sentence-length-variation term is left out
(length is already a z-statistics feature).

Semantic space (C5)
-------------------
``glove`` and ``sbert`` are fixed maps, so each field is represented alone with the
same spec (`core.representations.represent` with ``fields=`` one field). A TF-IDF/SVD
fitted per field would put the two fields in different bases, so for ``tfidf-svd``
one TF-IDF/SVD with the spec's options is fitted on both fields' texts together and
each field is projected into it; every other kind (embedding, file, warm-up, pixels:
no per-field vectors) uses that TF-IDF/SVD with default options as a stand-in.

Traffic lights
--------------
`lights(scores, thresholds)` gives ``red`` below the component's red threshold,
``green`` at or above its green threshold, ``yellow`` between, ``n/a`` for NaN.
`DEFAULT_THRESHOLDS` documents each pair (knobs). The example's own light is that of
its ``dqi`` score.

Feedback for one new example
----------------------------
``ctx = QualityContext.fit(ds, "tfidf-svd:fields=hypothesis")`` fits everything once
(tokens, feature counts and z, a hypothesis-only logistic regression on n-grams, a
logistic regression on Φ, the map of new text into Φ, the semantic space), then
``ctx.feedback({"premise": ..., "hypothesis": ..., "label": ...})`` returns a
`Feedback` in milliseconds (benchmarks/quality_bench.py). New text enters Φ through
the representation's own map where it has one: ``tfidf-svd`` (its TF-IDF refitted
with the same options, and the SVD axes recovered exactly as V = Mᵀ Φ Σ⁻²),
``glove``/``sbert`` (fixed maps), ``embedding`` (the example gives its vector);
``warmup``/``file``/``pixels`` cannot embed new text, so a TF-IDF/SVD over the same
fields stands in for the neighbours and Φ-predictability (the feedback says so).

The package: `scoring` (names, weights, thresholds, the combined score and the lights),
`kernels` (numeric helpers), `context` (`QualityContext`, `Feedback`, `check_example`), `pruning`
(DQI-guided pruning: a quality-ordered run's column and key, the plain-vs-quality comparison);
`quality_scores` and `quality_for_aflite` are here.

May import: core.base, core.models, core.data, core.text, core.representations, core.zstats, core.aflite,
core.evaluation, core.results.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

from ..data.dataset import Dataset
from ..base.errors import InputError
from .context import QualityContext, check_example
from .feedback import Feedback
from .scoring import (COMPONENTS, DEFAULT_THRESHOLDS, DEFAULT_WEIGHTS, DQI_COMPONENTS, LIGHTS, 
                                  check_quality, check_second_split, combine, lights)

__all__ = ["COMPONENTS", "DQI_COMPONENTS", "DEFAULT_WEIGHTS", "DEFAULT_THRESHOLDS", "LIGHTS", "QualityContext",
           "Feedback", "check_example", "quality_scores", "combine", "lights", "check_quality", "check_second_split",
           "quality_for_aflite"]

# ============================================================== functions


def quality_scores(dataset: Dataset, rep_spec: Optional[str] = None, *, representation=None,
                   other: Optional[Dataset] = None, **kwargs) -> pd.DataFrame:
    """The per-example components, ``dqi`` and lights of a dataset (see `QualityContext.fit`
    for the keyword arguments; ``other`` is the second split for ``inter_split``)."""
    if other is not None:
        check_second_split(dataset, other)
    progress, cancel = kwargs.pop("progress", None), kwargs.get("cancel")
    ctx = QualityContext.fit(dataset, rep_spec, representation=representation, feedback=False, **kwargs)
    return ctx.components(other, progress=progress, cancel=cancel)


def quality_for_aflite(table: pd.DataFrame, choice: str, ids) -> np.ndarray:
    """The quality column AFLite orders removal by (paper 002): ``"dqi"`` or a component name,
    aligned with the representation's ``ids``; checked by `check_quality`."""
    if choice not in ("dqi", *COMPONENTS):
        raise InputError(f"quality {choice!r} is not dqi or a component ({', '.join(COMPONENTS)}).")
    col = table[choice].reindex(pd.Index(np.asarray(ids).astype(str)))
    if col.isna().all():
        raise InputError(f"the quality component {choice!r} does not apply to this dataset (e.g. inter_split needs a "
                         "second split, word_overlap two text fields); choose dqi or another component.")
    return check_quality(col.to_numpy(dtype=np.float64), f"quality {choice!r}")
