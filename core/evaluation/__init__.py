"""Measures of what a filtered split did, the way the papers prove it (issue 12).

Every building block returns a pandas table. Bad input that concerns one cell (a
training set that lacks a label of the evaluation split, fewer examples of a class
than folds or than K, a model family that does not converge, a difficulty column
with missing or non-numeric values) never stops the table: the cell gets a ``note``
naming the cause, the table's ``attrs["notes"]`` collects them, and the other cells
are computed.

* `subset_accuracy`: cross-validated accuracy of model families on several subsets
  of the same data (paper 000 §4.2: full set D, AFLite-filtered set, a random subset
  of equal size; a drop the random subset does not show is the bias AFLite removed).
* `heldout_split`, `training_sets`, `evaluation_sets`, `family_table`: paper 000
  Table 3. One i.i.d. held-out split (stratified by label) is set aside; the model
  families (logistic regression, linear SVM, RBF-SVM, k-nearest neighbours, a small
  MLP) are trained on four sets drawn from the rest — **full**, **AFLite** (the
  examples of the rest the run retained at the chosen τ/n), **random** (a uniformly
  random subset of the rest of the AFLite set's size; optionally stratified so it
  keeps the full set's label shares) and **single-model** (paper 000 §4.2's
  non-iterative, single-model filter run on the rest, to the same size) — and
  evaluated on the held-out split (**i.i.d.**) and on that split filtered by AFLite
  (**AFLite-filtered**). *How the evaluation split is filtered*: the run scored every
  example, the held-out ones included, so the AFLite-filtered evaluation split is
  the held-out examples the run itself retained at the chosen τ/n (the run's own
  decision, the way paper 000 filters its dev and validation sets with the same
  AFLite pass; no second fit and no other model is involved). Cells: accuracy,
  Δ to the full training set, a percentile-bootstrap 95 % interval where the
  evaluation split is small.
* `knn_distances`: paper 003 Table 3. Held-out examples are compared with their K
  nearest training neighbours, within their own class and against the other
  classes, before filtering (training = everything else) and after (training =
  the retained examples only). The paper does not print its normalisation; here a
  cell is the mean cosine distance (1 − cos) to the K nearest neighbours, averaged
  over the held-out examples of the class. Distances that grow after filtering mean
  the filtered set is less redundant with unseen data.
* `phase_table`: representation bias R (mean p̃ on S, eq. 5) and held-out accuracy
  per phase, with the phases that run at the chosen τ/n.
* `coarse_action`: paper 002 Algorithm 1 lines 2–9, the learning-curve "coarse
  action": accuracy on growing random fractions b, 2b, … of the data; the fraction
  where it stops improving (by more than a tolerance) is the suggested target size n.
* `difficulty_check`: an external per-example number (models that got it right, a
  human rating) among retained vs removed vs a random subset of the retained size,
  with a permutation p-value.
* `synthetic_report`: paper 000 §3 / Fig. 2, the circles at four separations.
* `evaluate`: all of it for one run, as an `Evaluation` (plain tables, JSON-able),
  and `EvaluationStore`, where finished evaluations are kept beside the run store.

The package: `models` (families), `measures` (accuracy on subsets, KNN distances, the family
table), `checks` (phases, coarse action, external difficulty, synthetic report), `suite` (the
whole evaluation of a run and its store), `plots` (its figures), `information` (PVI) and
`choices` (the options-only, position-only and full-input baselines of multiple-choice items, each
a cross-fitted conditional logit; it counts the options' words as their cue table does). The files and the one-page
HTML report of an evaluation are an export: `core.exports.report`.

May import: core.base, core.models, core.data, core.text, core.representations, core.aflite, core.plots, core.zstats.
"""
from __future__ import annotations

from .checks import coarse_action, coarse_stop, difficulty_check, phase_table, synthetic_report, SYNTHETIC_PARAMS
from .measures import (Split, evaluation_sets, family_table, heldout_split, knn_distances, pivot_families,
                                      subset_accuracy, training_sets)
from .models import EVAL_SETS, SEPARATIONS, TRAIN_SETS
from .suite import TABLES, Evaluation, EvaluationOptions, EvaluationStore, default_partial_spec, evaluate, evaluation_key

__all__ = ["SEPARATIONS", "TRAIN_SETS", "EVAL_SETS",
           "subset_accuracy", "knn_distances", "Split", "heldout_split", "training_sets", "evaluation_sets",
           "family_table", "pivot_families", "phase_table", "coarse_action", "coarse_stop", "difficulty_check",
           "SYNTHETIC_PARAMS", "synthetic_report", "default_partial_spec", "EvaluationOptions", "Evaluation", "TABLES",
           "evaluation_key", "evaluate", "EvaluationStore"]
