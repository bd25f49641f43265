"""The measures of one split's certificate (`certify`), each a value with its standard error and
the direction that means more artifacts, computed deterministically for a seed.

Uncertainties: a z-statistic is in units of its own standard error (1); a count of features over
the Bonferroni line is taken as Poisson (√count); a share as binomial (√(p(1 − p)/n)), and the
share with a near-duplicate counting each group of near-duplicates once; a cross-fitted accuracy
or V-information by the spread of its folds (never below the formula over the test examples);
reviewers' α from its bootstrap interval (width / 3.92).

Size: the measures are effect sizes that more data of the same kind leaves where they were: the
cue table's shares (`core.certificate.cues`), accuracies and V-information of models trained on at
most ``model_train`` examples per fold, AFLite's share with models trained on ``train_size``
examples; z and the counts over the line grow with the data and are information only.

Each measure is declared with the step that computes it (`core.certificate.registry.step`), in the
order `certify` runs them; a step reads what it needs from `Inputs` and records the settings it
resolved there."""
from __future__ import annotations

import math
from importlib import metadata
from dataclasses import dataclass
from functools import cached_property
from typing import Optional

import numpy as np

from ..base.cores import one_blas_thread
from ..base.errors import InputError
from ..base.progress import check_cancel, report, span
from .cues import CUE_SUPPORT, cue_table
from .registry import MEASURES, STEPS, Measure, record, step
from .schema import FORMAT, validate
from ..zstats.statistics import binomial_se
from ..zstats.inputs import LABELS_MAX   # one bound for every features × labels table (the cue table too)

__all__ = ["certify", "DEFAULTS", "per_label", "LABEL_IN_NAME_MAX", "Inputs", "MISLABEL_MIN_ACCURACY"]

#: the most characters of a label a measure's name holds (the schema's bound)
LABEL_IN_NAME_MAX = 200

#: the settings a certificate is computed with unless given (recorded in the certificate)
DEFAULTS = {"representation": "tfidf-svd", "family": "logistic", "folds": 5, "seed": 0, "min_count": 5,
            "alpha": 0.01, "tau": 0.75, "m": 16, "train_size": 1000, "model_train": 3000, "epochs": 5}


def _share(name: str, hits: int, n: int, description: Optional[str] = None) -> dict:
    """A share measure with its binomial standard error (`record`; `binomial_se`: never 0, so a
    share that was 0 in the baseline allows what sampling gives a rare count)."""
    p = hits / n if n else float("nan")
    return record(name, p, binomial_se(hits, n), description=description, n=n)


#: the least out-of-sample accuracy of the model whose disagreements with the labels cleanlab counts:
#: below it, most flags are the model's own errors (on SNLI dev a linear model on TF-IDF is right on
#: about 55 % and cleanlab flags 45 %), so the share is left out with the reason
MISLABEL_MIN_ACCURACY = 0.8


def _mislabelled(table) -> dict:
    """The share of examples cleanlab flags as possibly mislabelled, when the model is good enough
    to mean it (`MISLABEL_MIN_ACCURACY`); otherwise no value, and why."""
    accuracy = float(table["correctness"].mean())
    if accuracy < MISLABEL_MIN_ACCURACY:
        return record("mislabelled.share", None, None, description=(
            f"not measured: the model that would flag examples is right on {accuracy:.0%} of them out of sample "
            f"(below {MISLABEL_MIN_ACCURACY:.0%}), so most of its flags would be its own errors; give a "
            "representation that reads the task better (e.g. embeddings) to measure it"))
    return _share("mislabelled.share", int(table["label_issue"].sum()), len(table),
                  f"share of examples cleanlab flags as possibly mislabelled (out-of-sample probabilities of a model "
                  f"right on {accuracy:.0%} of them)")


def _accuracy_se(accuracy: float, n: int) -> Optional[float]:
    """An accuracy's standard error as a share of ``n`` examples right (`binomial_se`: never 0)."""
    return binomial_se(round(accuracy * n), n) if n else None


def _fold_spread(table, column: str, formula: float) -> float:
    """The standard error of a cross-fitted mean, measured: the spread of its per-fold means
    (each fold's model trained on other examples, so it counts the training's variance too, which
    a formula over the test examples misses), never below ``formula``."""
    per_fold = table.groupby("fold")[column].mean().to_numpy(dtype=float)
    measured = float(np.std(per_fold, ddof=1) / math.sqrt(len(per_fold))) if len(per_fold) > 1 else 0.0
    return max(measured, float(formula))


def _clustered_share(name: str, pairs, n: int) -> dict:
    """The share of examples with a near-duplicate, and its standard error counting each group of
    near-duplicates as one draw (a ratio estimator over groups): near-duplicates come in groups
    (SNLI writes three hypotheses per premise), so the binomial error of single examples is too
    small by about √(group size)."""
    parent = {}

    def root(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in zip(pairs["a"].astype(str), pairs["b"].astype(str)):
        parent[root(a)] = root(b)
    sizes = np.bincount(np.unique([root(x) for x in list(parent)], return_inverse=True)[1]) if parent else np.zeros(0)
    involved = int(sizes.sum())
    if not n:
        return record(name, None, None)
    p = involved / n
    groups = len(sizes) + (n - involved)   # each example without a near-duplicate is a group of one
    spread = float(np.sum((sizes * (1 - p)) ** 2) + (n - involved) * p ** 2)
    se = math.sqrt(spread * groups / max(groups - 1, 1)) / n
    return record(name, p, max(se, binomial_se(involved, n)), n=n)   # never below a share's (0 at no near-duplicate)


@dataclass
class Inputs:
    """What the steps read: the dataset, its options and where to compute; ``settings`` (the
    certificate's record of them) is where a step writes a setting it resolved (a representation's
    full spec, a training size); ``cues`` the cue table, once the z-statistics have made it."""

    dataset: object
    settings: dict
    eval_dataset: object = None
    agreement: object = None
    device: Optional[str] = None
    cache_dir: object = None
    progress: object = None
    cancel: object = None
    cues: Optional[dict] = None

    @property
    def n(self) -> int:
        return len(self.dataset)

    @cached_property
    def labels(self):
        """Examples per label, by label (as text)."""
        return self.dataset.label_counts(as_text=True)

    @cached_property
    def represented(self):
        """(X, y): Φ (the settings' representation, as the full input's V-information resolved it)
        and the labels in Φ's order."""
        from ..base.devices import computing_on
        from ..representations import represent

        with computing_on(self.device):   # (from the cache: the full input's V-information built it)
            rep = represent(self.dataset, self.settings["representation"], cache_dir=self.cache_dir, cancel=self.cancel)
        y = self.dataset.table[self.dataset.label].reindex(np.asarray(rep.ids).astype(str)).to_numpy()
        return np.asarray(rep.X), y

    def pvi(self, spec: str):
        """Cross-fitted PVI on ``spec``, each fold's model trained on at most ``model_train`` examples
        (as strong on more data of the same kind)."""
        from ..evaluation.information import dataset_pvi

        s = self.settings
        return dataset_pvi(self.dataset, spec, family=s["family"], folds=int(s["folds"]), max_train=int(s["model_train"]),
                           random_state=int(s["seed"]), device=self.device, cache_dir=self.cache_dir, cancel=self.cancel)


def per_label(measure: str, label) -> str:
    """The name of ``measure`` for one label, ``measure[label]``, for any label the tool accepts: ``%``
    and ``]`` are percent-encoded (``%25``, ``%5D``), and a label longer than the schema allows keeps
    its start and a hash of the whole, so two labels never share a name."""
    from ..base.keys import digest

    label = str(label)
    text = label.replace("%", "%25").replace("]", "%5D") or "%00"
    if len(text) > LABEL_IN_NAME_MAX:
        head = text[:LABEL_IN_NAME_MAX - 18]
        escape = head.find("%", len(head) - 2)   # never cut an escape in two
        text = (head if escape < 0 else head[:escape]) + "%…" + digest(label, 16)
    return f"{measure}[{text}]"


def _version() -> str:
    try:
        return metadata.version("artifact-lens")
    except metadata.PackageNotFoundError:
        return "unknown"


# ------------------------------------------------------------------------------------------ the steps
def _labelled(i: Inputs) -> bool:
    """The step reads the label as a class (or a pair's side): not the gold letter of an item."""
    return getattr(i.dataset, "choices", None) is None


# a z grows with √n and a count over a line with n: information, not gated (the cue table is)
@step("z-statistics", 0.0, [
    Measure("zstats.z_max", "z", "higher", False, "the largest z-statistic of any simple feature for any label "
            "(grows with √n: the cue table is gated instead)", "the largest z of a simple feature for {label}"),
    Measure("zstats.over_line", "features", "higher", False,
            per_label="features over the Bonferroni line for {label} (grows with n: the cue table is gated instead)"),
], applies=lambda i: bool(i.dataset.text or i.dataset.features) and i.dataset.pairs is None and _labelled(i))
# (they read text fields and the columns a user names; preference pairs have their own cue table)
def _z_statistics(i: Inputs) -> dict:
    from ..zstats import compute_z

    s, out = i.settings, {}
    # one pass down to the cue table's support (features seen twice or more, so that `check` knows a
    # cue the baseline had too rarely to test from one it never had); the z measures keep the
    # features `min_count` admits, under the Bonferroni line over those
    least = int(s["min_count"])
    zs = compute_z(i.dataset, min_count=min(least, CUE_SUPPORT), alpha=float(s["alpha"]), random_state=int(s["seed"]))
    i.cues = cue_table(zs, CUE_SUPPORT)
    table = zs.table[zs.table["n"] >= least]
    z_star = zs.line_at(least)
    out["zstats.z_max"] = record("zstats.z_max", table["z"].max() if len(table) else None, 1.0)
    # grouped once: a label at a time over the whole table costs labels × features (900 labels: minutes)
    by_label = dict(tuple(table.groupby(table["label"].astype(str), sort=True, observed=True)))
    for label in sorted(by_label):
        mine = by_label[label]
        over = int((mine["z"] > z_star).sum())
        out[per_label("zstats.z_max", label)] = record("zstats.z_max", mine["z"].max(), 1.0, label=label)
        out[per_label("zstats.over_line", label)] = record(
            "zstats.over_line", over, math.sqrt(max(over, 1)), label=label,
            description=f"features over the Bonferroni line (z* = {z_star:.2f}) for {label}")
    return out


# preference pairs (issue 42): the length bias papers quote, the partial inputs that read style or
# the responses alone, the strongest pair cue and the pairs that cannot teach a preference; the pair
# cue table (the side with more of a feature against 0.5) is what the gate compares cue by cue
@step("preference pairs", 0.05, [
    Measure("pairs.chosen_longer", "share", "neither", False,
            "share of pairs whose chosen response has more words (ties count half): 0.5 without a length bias"),
    Measure("pairs.longer_wins_accuracy", "accuracy", "neither", False,
            "accuracy of picking the longer response, on the pairs whose lengths differ"),
    Measure("pairs.style_only.accuracy", "accuracy", "higher", True,
            "cross-fitted accuracy of a model that reads the two responses' style features only (pair-style)",
            warns=True),
    Measure("pairs.style_only.v_information", "bits", "higher", True,
            "mean PVI of the style-only input: the bits of the preference that style alone carries", warns=True),
    Measure("pairs.response_only.accuracy", "accuracy", "higher", True,
            "cross-fitted accuracy of a model that reads the two responses without the prompt (pair-diff)",
            warns=True),
    Measure("pairs.response_only.v_information", "bits", "higher", True,
            "mean PVI of the response-only input", warns=True),
    Measure("pairs.cue_z_max", "z", "higher", False,
            "the largest |z| of a pair cue against the 0.5 line (grows with √n: the cue table is gated instead)"),
    Measure("pairs.degenerate", "share", "higher", True,
            "share of pairs whose two responses are the same text or a side has no word"),
    Measure("pairs.cut_off", "share", "higher", False,
            "share of pairs with a side that seems to stop mid-sentence (a heuristic: listed for review)"),
    Measure("pairs.first_shown_wins", "share", "neither", False,
            "judged pairs: share of decided pairs won by the first-shown response (0.5 without a position bias)"),
    Measure("pairs.swap_flip_rate", "share", "higher", False,
            "judged pairs: of the pairs judged in both orders, the share whose winner changed with the order"),
], applies=lambda i: i.dataset.pairs is not None)
def _pairs(i: Inputs) -> dict:
    from ..text.degenerate import STRICT, degenerate_pairs
    from ..zstats.pairs import length_bias, pair_cue_table, pair_cues, position_bias
    from .cues import CUE_SUPPORT

    s, out = i.settings, {}
    bias = length_bias(i.dataset)
    out["pairs.chosen_longer"] = record("pairs.chosen_longer", bias["chosen_longer"], bias["stderr"])
    out["pairs.longer_wins_accuracy"] = record("pairs.longer_wins_accuracy", bias["longer_wins_accuracy"],
                                               bias["longer_wins_stderr"])
    for name, spec in (("style_only", "pair-style"), ("response_only", "pair-diff")):
        found = i.pvi(spec)
        acc = found.summary["accuracy"]
        out[f"pairs.{name}.accuracy"] = record(f"pairs.{name}.accuracy", acc, _fold_spread(
            found.table, "correct", _accuracy_se(acc, i.n)))
        out[f"pairs.{name}.v_information"] = record(f"pairs.{name}.v_information", found.summary["v_information"],
                                                    _fold_spread(found.table, "pvi", found.summary["stderr"]))
    # one count of the features, down to the cue table's support; the z measure keeps those `min_count` admits
    found = pair_cues(i.dataset, min_count=min(int(s["min_count"]), CUE_SUPPORT), alpha=float(s["alpha"]))
    tested = found.table[found.table["differ"] >= int(s["min_count"])]
    out["pairs.cue_z_max"] = record("pairs.cue_z_max", tested["z"].abs().max() if len(tested) else None, 1.0)
    i.cues = pair_cue_table(found, CUE_SUPPORT)
    flagged = degenerate_pairs(i.dataset)
    strict = flagged["reason"].isin(STRICT)
    out["pairs.degenerate"] = _share("pairs.degenerate", flagged.loc[strict, "id"].nunique(), i.n)
    out["pairs.cut_off"] = _share("pairs.cut_off", flagged.loc[~strict, "id"].nunique(), i.n)
    order = position_bias(i.dataset)   # judged pairs only: the order the judge saw
    if order is not None:
        out["pairs.first_shown_wins"] = record("pairs.first_shown_wins", order["first_wins"], order["stderr"])
        if order["swapped"]:
            out["pairs.swap_flip_rate"] = record("pairs.swap_flip_rate", order["flip_rate"], order["flip_stderr"])
    return out


# multiple-choice items (issue 55): where the gold sits, how often it is the longest option, what a
# model that reads the options alone or the position alone gets right, and the items that cannot be
# answered; the option cue table (with the positions) is what the gate compares cue by cue
@step("multiple-choice items", 0.05, [
    Measure("mc.gold_position.max_share", "share", "higher", True,
            "share of items whose gold sits at its most common position (1/k without a position bias)"),
    Measure("mc.gold_position.cohens_w", "effect", "higher", False,
            "Cohen's w of the gold's positions against a gold placed at random (about √((k − 1)/n) with no bias)"),
    Measure("mc.gold_longest_share", "share", "neither", False,
            "share of the items whose options differ in length where the gold is the longest (the cue table gates it "
            "against its chance)"),
    Measure("mc.options_only.accuracy", "accuracy", "higher", True,
            "cross-fitted accuracy of a conditional logit that reads the options alone, never the stem", warns=True),
    Measure("mc.options_only.v_information", "bits", "higher", True,
            "mean bits about the gold, beyond a uniform guess, of the options alone", warns=True),
    Measure("mc.position_only.accuracy", "accuracy", "higher", True,
            "cross-fitted accuracy of a model that reads the position alone", warns=True),
    Measure("mc.cue_z_max", "z", "higher", False,
            "the largest |z| of an option cue against its chance line (grows with √n: the cue table is gated instead)"),
    Measure("mc.degenerate", "share", "higher", True, "share of items with an empty or a repeated option"),
], applies=lambda i: getattr(i.dataset, "choices", None) is not None)
def _choices(i: Inputs) -> dict:
    from ..data.choices import degenerate_items
    from ..evaluation.choices import choice_baselines
    from ..zstats.choices import choice_cue_table, gold_position, longest_share, option_cues

    s, out = i.settings, {}
    position = gold_position(i.dataset, seed=int(s["seed"]))
    top = int(position.table["gold"].max())
    out["mc.gold_position.max_share"] = _share("mc.gold_position.max_share", top, i.n)
    out["mc.gold_position.cohens_w"] = record("mc.gold_position.cohens_w", position.w,
                                              (position.w_high - position.w_low) / 3.92)
    longest = longest_share(i.dataset)
    out["mc.gold_longest_share"] = record("mc.gold_longest_share", longest["share"] if longest["items"] else None,
                                          longest["lift_se"] if longest["items"] else None)
    found = choice_baselines(i.dataset, which=("options_only", "position_only"), folds=int(s["folds"]),
                             random_state=int(s["seed"]), max_train=int(s["model_train"]), cancel=i.cancel)
    for name, got in found.items():
        acc, said = got.summary["accuracy"], MEASURES[f"mc.{name}.accuracy"].description
        # the chance line beside the figure, as `pvi` prints it: 0.67 means little without it
        out[f"mc.{name}.accuracy"] = record(f"mc.{name}.accuracy", acc, _fold_spread(got.table, "correct",
                                                                                    _accuracy_se(acc, i.n)),
                                            description=f"{said} (chance {got.summary['chance']:.3f}, a uniform "
                                                        f"guess among each item's options)")
    options = found["options_only"]
    out["mc.options_only.v_information"] = record("mc.options_only.v_information", options.summary["v_information"],
                                                  _fold_spread(options.table, "pvi", options.summary["stderr"]))
    cues = option_cues(i.dataset, min_count=min(int(s["min_count"]), CUE_SUPPORT), alpha=float(s["alpha"]))
    tested = cues.table[cues.table["items"] >= int(s["min_count"])]
    out["mc.cue_z_max"] = record("mc.cue_z_max", tested["z"].abs().max() if len(tested) else None, 1.0)
    i.cues = choice_cue_table(cues, position, CUE_SUPPORT)
    out["mc.degenerate"] = _share("mc.degenerate", degenerate_items(i.dataset.table, i.dataset.choices)["id"].nunique(),
                                  i.n)
    return out


@step("", 0.15, [Measure("labels.majority_share", "share", "higher", False, "the largest label's share")],
      applies=lambda i: _labelled(i))
def _majority(i: Inputs) -> dict:
    return {"labels.majority_share": _share("labels.majority_share", int(i.labels.max()), i.n)}


@step("V-information of the full input", 0.15, [
    Measure("v_information.full", "bits", "neither", False,
            "mean PVI of the full input: how much the representation tells of the label"),
], applies=lambda i: _labelled(i))
def _v_information_full(i: Inputs) -> dict:
    full = i.pvi(i.settings["representation"])
    i.settings["representation"] = full.summary["representation"]
    return {"v_information.full": record("v_information.full", full.summary["v_information"],
                                         _fold_spread(full.table, "pvi", full.summary["stderr"]))}


# a model's accuracy and bits differ between halves of one file by 1.1-1.4 times their stated error
# (the training's variance, which the folds' spread only partly sees; benchmarks/gate_calibration.py):
# they warn, and the cue table gates what they would catch
@step("V-information of the partial input", 0.3, [
    Measure("v_information.partial", "bits", "higher", True,
            "mean PVI of the partial input: the bits the artifact alone carries", warns=True),
    Measure("partial_input.accuracy", "accuracy", "higher", True,
            "cross-fitted accuracy of a model that reads the partial input only", warns=True),
    Measure("partial_input.lift", "accuracy", "higher", True, "partial-input accuracy above the majority class",
            warns=True),
], applies=lambda i: bool(i.settings["partial"]))
def _partial_input(i: Inputs) -> dict:
    part = i.pvi(i.settings["partial"])
    summary = part.summary
    i.settings["partial"] = summary["representation"]
    acc = summary["accuracy"]
    se = _fold_spread(part.table, "correct", _accuracy_se(acc, i.n))
    return {"v_information.partial": record("v_information.partial", summary["v_information"],
                                            _fold_spread(part.table, "pvi", summary["stderr"])),
            "partial_input.accuracy": record("partial_input.accuracy", acc, se),
            "partial_input.lift": record("partial_input.lift", acc - summary["majority"], se)}


# its error is binomial over examples, but the examples share one ensemble: halves of one file
# differ by 2-3 times that (benchmarks/gate_calibration.py), so it warns
@step("AFLite's predictable share", 0.45, [
    Measure("aflite.predictable_share", "share", "higher", True, "share of examples with AFLite's p̃ ≥ τ", warns=True),
], applies=lambda i: _labelled(i))
def _aflite_share(i: Inputs) -> dict:
    from ..aflite import AFLite
    from ..aflite.selection import passing

    s = i.settings
    X, y = i.represented
    # a training size that does not grow with the data: more of the same data must not make the models stronger
    s["train_size"] = train = min(int(DEFAULTS["train_size"]), len(y) // 2)
    fit = AFLite(n_partitions=int(s["m"]), train_size=train, slice_size=1, tau=float(s["tau"]),
                 target_size=len(y) - 1, random_state=int(s["seed"]), device=i.device).fit(X, y, cancel=i.cancel)
    scores = fit.trajectory_.phase_scores(0)
    scored = scores[np.isfinite(scores)]
    return {"aflite.predictable_share": _share(
        "aflite.predictable_share", int(passing(scored, float(s["tau"])).sum()), len(scored),
        f"share of examples with AFLite's p̃ ≥ τ = {float(s['tau']):g} (m = {int(s['m'])} linear models on the "
        f"representation, each trained on {train:,} examples)")}


# halves of SNLI split its premise groups between them: they differ by 1.07 times the clustered
# error and fail its line in 3 of 40 pairs (benchmarks/gate_calibration.py), so it warns
@step("near-duplicates", 0.6, [
    # warns: gated, it failed 4 of 80 pairs of halves (SNLI 3 of 40) on its own (docs/certificate.md)
    Measure("near_duplicates.within", "share", "higher", True, "share of examples with a near-duplicate in the split",
            warns=True),
], applies=lambda i: bool(i.dataset.text))
def _near_duplicates(i: Inputs) -> dict:
    from ..text.duplicates import near_duplicate_pairs

    pairs = near_duplicate_pairs(i.dataset, cancel=i.cancel)
    return {"near_duplicates.within": _clustered_share("near_duplicates.within", pairs, i.n)}


@step("possibly mislabelled examples", 0.7, [
    Measure("mislabelled.share", "share", "higher", False, "share of examples cleanlab flags as possibly mislabelled "
            "(out-of-sample probabilities of the training dynamics; left out when that model is right on fewer "
            "than 80 % of examples)"),
], applies=lambda i: _labelled(i))
def _mislabelled_share(i: Inputs) -> dict:
    from ..dynamics.cartography import training_dynamics

    s = i.settings
    X, y = i.represented
    dyn = training_dynamics(X, y, classes=i.dataset.classes, epochs=int(s["epochs"]), folds=int(s["folds"]),
                            random_state=int(s["seed"]), device=i.device, cancel=i.cancel)
    return {"mislabelled.share": _mislabelled(dyn.table)} if "label_issue" in dyn.table else {}


@step("cues on the evaluation split", 0.8, [
    Measure("transfer.cues_transferring", "features", "higher", True,
            "the split's label cues that give the labels away on the evaluation split too (a count: grows with n)",
            warns=True),
    Measure("transfer.partial_accuracy_eval", "accuracy", "higher", True,
            "accuracy on the evaluation split of a partial-input model trained on this split", warns=True),
    Measure("near_duplicates.across", "share", "higher", True,
            "share of evaluation examples with a near-duplicate in this split (binomial error: not yet measured by "
            "the calibration, so it warns)", warns=True),
], applies=lambda i: i.eval_dataset is not None)
def _transfer(i: Inputs) -> dict:
    from ..dynamics.transfer import cue_transfer

    s, out = i.settings, {}
    t = cue_transfer(i.dataset, i.eval_dataset, min_count=int(s["min_count"]), alpha=float(s["alpha"]),
                     spec=s["representation"], m=int(s["m"]), tau=float(s["tau"]), random_state=int(s["seed"]),
                     progress=span(i.progress, 0.8, 0.95), cancel=i.cancel).summary
    n_eval = int(t["eval_examples"])
    count = int(t["cues_transferring"])
    out["transfer.cues_transferring"] = record("transfer.cues_transferring", count, math.sqrt(max(count, 1)))
    accuracy = t["partial_input_accuracy_eval"]
    if accuracy == accuracy:
        out["transfer.partial_accuracy_eval"] = record(
            "transfer.partial_accuracy_eval", accuracy, _accuracy_se(accuracy, n_eval))
    out["near_duplicates.across"] = _share("near_duplicates.across",
                                           int(t["eval_examples_with_a_near_duplicate_in_train"]), n_eval)
    s["eval_dataset"] = {"fingerprint": i.eval_dataset.fingerprint}   # its name would make the bytes depend on a path
    return out


@step("", 0.95, [Measure("reviewers.alpha", "alpha", "lower", False, "Krippendorff's α of the team's reviewers (nominal)")],
      applies=lambda i: i.agreement is not None)
def _reviewers(i: Inputs) -> dict:
    low, high = i.agreement.alpha_interval
    spread = (high - low) / 3.92 if np.isfinite(low) and np.isfinite(high) else None
    return {"reviewers.alpha": record("reviewers.alpha", i.agreement.alpha, spread)}


# ------------------------------------------------------------------------------------------ certify

def certify(dataset, *, representation: Optional[str] = None, partial: Optional[str] = None, eval_dataset=None,
            agreement=None, family: Optional[str] = None, folds: Optional[int] = None, seed: Optional[int] = None,
            min_count: Optional[int] = None, alpha: Optional[float] = None, tau: Optional[float] = None,
            m: Optional[int] = None, epochs: Optional[int] = None, device: Optional[str] = None,
            name: Optional[str] = None, cache_dir=None, progress=None, cancel=None) -> dict:
    """The certificate of ``dataset`` (a `core.data.dataset.Dataset`): a dict that follows the schema.

    ``representation`` is Φ for PVI, AFLite and the training dynamics (for data without text, give
    one that reads it: ``embedding``, ``pixels``…); the z-statistics need text fields or feature
    columns and are left out without them; ``partial`` the partial
    input (default: TF-IDF/SVD of the last text field when there are two or more); ``eval_dataset``
    another split whose examples the dataset's cues are measured on; ``agreement`` a
    `core.team.agreement.Agreement` (the reviewers of a run in a team store); ``device``
    (`core.base.devices`: ``cuda``…) where Φ's truncated SVD, PVI's logistic models, AFLite's ridge
    family and the training dynamics compute; the measures are the same up to float32 rounding and
    the solvers' tolerance, so it is not a setting the gate compares. ``name`` is the dataset's name
    in the certificate (default none: the same data gives the same bytes whatever its file is called)."""
    from ..evaluation import default_partial_spec
    from ..representations import default_spec

    if dataset.pairs is None and dataset.label and dataset.table[dataset.label].nunique() > LABELS_MAX:
        raise InputError(f"{dataset.table[dataset.label].nunique():,} labels: a certificate measures each simple "
                         f"feature against each label, for at most {LABELS_MAX} labels (its cue table grows as "
                         "features × labels); certify a label column with fewer classes (group the rare ones).")
    given = {"representation": representation, "family": family, "folds": folds, "seed": seed,
             "min_count": min_count, "alpha": alpha, "tau": tau, "m": m, "epochs": epochs}
    s = {k: (DEFAULTS[k] if v is None else v) for k, v in given.items()}
    if representation is None:
        s["representation"] = default_spec(dataset)
    # preference pairs: the pair step measures their partial inputs (style only, responses only) by name
    s["partial"] = partial if partial is not None else None if dataset.pairs is not None else \
        default_partial_spec(dataset)
    if dataset.choices is not None:   # items are measured on their own inputs (the options, the position)
        if representation or partial or eval_dataset is not None:
            raise InputError("a certificate of multiple-choice items measures them on their own inputs (the options "
                             "alone, the position alone) and has no evaluation split yet: drop --representation, "
                             "--partial and --eval.")
        s["representation"], s["partial"] = None, None
    s["model_train"] = int(DEFAULTS["model_train"])
    i = Inputs(dataset, s, eval_dataset=eval_dataset, agreement=agreement, device=device, cache_dir=cache_dir,
               progress=progress, cancel=cancel)
    measures = {}
    with one_blas_thread():   # the same bytes on any machine, beside another job or not (`core.base.cores`)
        for st in STEPS:
            if not st.applies(i):
                continue
            if st.title:
                report(progress, st.at, st.title)
            measures.update(st.check(st.compute(i)))
            check_cancel(cancel)
    report(progress, 1.0, "certificate done")
    return validate({
        "certificate_format": FORMAT,
        "tool": {"name": "artifact-lens", "version": _version()},
        # the name only as given: the bytes depend on the data and the settings, not on the path as typed
        "dataset": {"name": str(name or ""), "fingerprint": dataset.fingerprint, "examples": i.n,
                    "labels": {str(k): int(v) for k, v in i.labels.items()}},
        "settings": {k: v for k, v in s.items() if v is not None},
        "measures": measures,
        **({"cues": i.cues} if i.cues is not None else {}),
    })
