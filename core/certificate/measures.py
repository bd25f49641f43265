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
examples; z and the counts over the line grow with the data and are information only."""
from __future__ import annotations

import math
from importlib import metadata
from typing import Optional

import numpy as np

from core.base.progress import check_cancel, report, span
from core.certificate.cues import CUE_SUPPORT, cue_table
from core.certificate.registry import record
from core.certificate.schema import FORMAT, validate

__all__ = ["certify", "DEFAULTS", "per_label", "LABEL_IN_NAME_MAX"]

#: the most characters of a label a measure's name holds (the schema's bound)
LABEL_IN_NAME_MAX = 200

#: the settings a certificate is computed with unless given (recorded in the certificate)
DEFAULTS = {"representation": "tfidf-svd", "family": "logistic", "folds": 5, "seed": 0, "min_count": 5,
            "alpha": 0.01, "tau": 0.75, "m": 16, "train_size": 1000, "model_train": 3000, "epochs": 5}


def _share(name: str, hits: int, n: int, description: Optional[str] = None) -> dict:
    """A share measure with its binomial standard error (`record`)."""
    p = hits / n if n else float("nan")
    return record(name, p, math.sqrt(p * (1 - p) / n) if n else None, description=description)


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
    return record(name, p, se)


def per_label(measure: str, label) -> str:
    """The name of ``measure`` for one label, ``measure[label]``, for any label the tool accepts: ``%``
    and ``]`` are percent-encoded (``%25``, ``%5D``), and a label longer than the schema allows keeps
    its start and a hash of the whole, so two labels never share a name."""
    from core.base.keys import digest

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
    (`core.base.devices`: ``cuda``…) where AFLite's ridge family and the training dynamics compute
    (PVI's logistic models train on the CPU); the measures are the same up to float32 rounding, so
    it is not a setting the gate compares. ``name`` is the dataset's name in the certificate (default
    none: the same data gives the same bytes whatever its file is called)."""
    from core.aflite import AFLite
    from core.aflite.selection import passing
    from core.dynamics.cartography import training_dynamics
    from core.evaluation import default_partial_spec
    from core.evaluation.information import dataset_pvi
    from core.representations import represent
    from core.text.duplicates import near_duplicate_pairs
    from core.zstats import compute_z
    from core.zstats.statistics import bonferroni_threshold

    given = {"representation": representation, "family": family, "folds": folds, "seed": seed,
             "min_count": min_count, "alpha": alpha, "tau": tau, "m": m, "epochs": epochs}
    s = {k: (DEFAULTS[k] if v is None else v) for k, v in given.items()}
    s["partial"] = partial if partial is not None else default_partial_spec(dataset)
    measures, cues = {}, None
    n = len(dataset)
    labels = dataset.table[dataset.label].astype(str).value_counts().sort_index()

    if dataset.text or dataset.features:   # z-statistics read text fields and the columns a user names
        report(progress, 0.0, "z-statistics")
        # one pass down to the cue table's support (features seen twice or more, so that `check` knows a
        # cue the baseline had too rarely to test from one it never had); the z measures keep the
        # features `min_count` admits, under the Bonferroni line over those
        least = int(s["min_count"])
        zs = compute_z(dataset, min_count=min(least, CUE_SUPPORT), alpha=float(s["alpha"]), random_state=int(s["seed"]))
        cues = cue_table(zs, CUE_SUPPORT)
        table = zs.table[zs.table["n"] >= least]
        z_star = bonferroni_threshold(float(s["alpha"]), len(table) // max(len(zs.labels), 1))
        measures["zstats.z_max"] = record("zstats.z_max", table["z"].max() if len(table) else None, 1.0)
        for label in sorted(table["label"].astype(str).unique()):
            mine = table[table["label"].astype(str) == label]
            over = int((mine["z"] > z_star).sum())
            measures[per_label("zstats.z_max", label)] = record("zstats.z_max", mine["z"].max(), 1.0, label=label)
            measures[per_label("zstats.over_line", label)] = record(
                "zstats.over_line", over, math.sqrt(max(over, 1)), label=label,
                description=f"features over the Bonferroni line (z* = {z_star:.2f}) for {label}")
    check_cancel(cancel)
    measures["labels.majority_share"] = _share("labels.majority_share", int(labels.max()), n)

    report(progress, 0.15, "V-information of the full input")
    # the models train on at most `model_train` examples per fold: as strong on more data of the same kind
    cap = int(DEFAULTS["model_train"])
    s["model_train"] = cap
    full = dataset_pvi(dataset, s["representation"], family=s["family"], folds=int(s["folds"]), max_train=cap,
                       random_state=int(s["seed"]), cache_dir=cache_dir, cancel=cancel)
    measures["v_information.full"] = record("v_information.full", full.summary["v_information"],
                                            _fold_spread(full.table, "pvi", full.summary["stderr"]))
    s["representation"] = full.summary["representation"]
    if s["partial"]:
        report(progress, 0.3, "V-information of the partial input")
        part = dataset_pvi(dataset, s["partial"], family=s["family"], folds=int(s["folds"]), max_train=cap,
                           random_state=int(s["seed"]), cache_dir=cache_dir, cancel=cancel)
        summary = part.summary
        s["partial"] = summary["representation"]
        measures["v_information.partial"] = record("v_information.partial", summary["v_information"],
                                                   _fold_spread(part.table, "pvi", summary["stderr"]))
        acc = summary["accuracy"]
        se = _fold_spread(part.table, "correct", math.sqrt(acc * (1 - acc) / n))
        measures["partial_input.accuracy"] = record("partial_input.accuracy", acc, se)
        measures["partial_input.lift"] = record("partial_input.lift", acc - summary["majority"], se)

    report(progress, 0.45, "AFLite's predictable share")
    rep = represent(dataset, s["representation"], cache_dir=cache_dir, cancel=cancel)
    y = dataset.table[dataset.label].reindex(np.asarray(rep.ids).astype(str)).to_numpy()
    X = np.asarray(rep.X)
    # a training size that does not grow with the data: more of the same data must not make the models stronger
    s["train_size"] = train = min(int(DEFAULTS["train_size"]), len(y) // 2)
    fit = AFLite(n_partitions=int(s["m"]), train_size=train, slice_size=1, tau=float(s["tau"]),
                 target_size=len(y) - 1, random_state=int(s["seed"]), device=device).fit(X, y, cancel=cancel)
    scores = fit.trajectory_.phase_scores(0)
    scored = scores[np.isfinite(scores)]
    measures["aflite.predictable_share"] = _share(
        "aflite.predictable_share", int(passing(scored, float(s["tau"])).sum()), len(scored),
        f"share of examples with AFLite's p̃ ≥ τ = {float(s['tau']):g} (m = {int(s['m'])} linear models on the "
        f"representation, each trained on {train:,} examples)")

    report(progress, 0.6, "near-duplicates")
    if dataset.text:
        pairs = near_duplicate_pairs(dataset, cancel=cancel)
        measures["near_duplicates.within"] = _clustered_share("near_duplicates.within", pairs, n)

    report(progress, 0.7, "possibly mislabelled examples")
    dyn = training_dynamics(X, y, classes=dataset.classes, epochs=int(s["epochs"]), folds=int(s["folds"]),
                            random_state=int(s["seed"]), device=device, cancel=cancel)
    if "label_issue" in dyn.table:
        measures["mislabelled.share"] = _mislabelled(dyn.table)

    if eval_dataset is not None:
        from core.dynamics.transfer import cue_transfer

        report(progress, 0.8, "cues on the evaluation split")
        t = cue_transfer(dataset, eval_dataset, min_count=int(s["min_count"]), alpha=float(s["alpha"]),
                         spec=s["representation"], m=int(s["m"]), tau=float(s["tau"]), random_state=int(s["seed"]),
                         progress=span(progress, 0.8, 0.95), cancel=cancel).summary
        n_eval = int(t["eval_examples"])
        count = int(t["cues_transferring"])
        measures["transfer.cues_transferring"] = record("transfer.cues_transferring", count, math.sqrt(max(count, 1)))
        accuracy = t["partial_input_accuracy_eval"]
        if accuracy == accuracy:
            measures["transfer.partial_accuracy_eval"] = record(
                "transfer.partial_accuracy_eval", accuracy, math.sqrt(accuracy * (1 - accuracy) / max(n_eval, 1)))
        measures["near_duplicates.across"] = _share("near_duplicates.across",
                                                    int(t["eval_examples_with_a_near_duplicate_in_train"]), n_eval)
        s["eval_dataset"] = {"fingerprint": eval_dataset.fingerprint}   # its name would make the bytes depend on a path

    if agreement is not None:
        low, high = agreement.alpha_interval
        spread = (high - low) / 3.92 if np.isfinite(low) and np.isfinite(high) else None
        measures["reviewers.alpha"] = record("reviewers.alpha", agreement.alpha, spread)

    report(progress, 1.0, "certificate done")
    return validate({
        "certificate_format": FORMAT,
        "tool": {"name": "artifact-lens", "version": _version()},
        # the name only as given: the bytes depend on the data and the settings, not on the path as typed
        "dataset": {"name": str(name or ""), "fingerprint": dataset.fingerprint, "examples": n,
                    "labels": {str(k): int(v) for k, v in labels.items()}},
        "settings": {k: v for k, v in s.items() if v is not None},
        "measures": measures,
        **({"cues": cues} if cues is not None else {}),
    })
