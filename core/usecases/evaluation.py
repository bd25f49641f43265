"""What an evaluation report holds (issue 54: one rule for ``artifact-lens evaluate`` and the Evaluate
page). Beside the evaluation's own tables and figures, two sections, each when its input exists:

- **the artifact certificate**: the gate's comparison (`core.certificate.gate.compare`) of the whole
  dataset's certificate and the split's, at the evaluation's τ/n, when both were computed and can be
  compared (a split that lost a label cannot);
- **the team review**: the reviewers' agreement on the run at the evaluation's τ/n
  (`core.usecases.agreement.run_agreement`), when the run is reviewed and the reader may see it.

The page passes what its tab computed; the CLI computes the certificates with ``--certify`` and reads
the review with ``--workspace``. Both write the same report (`evaluation_report`, `write_report_files`).
"""
from __future__ import annotations

import math
from typing import Optional

import pandas as pd

from ..certificate.gate import compare, mismatches

__all__ = ["evaluate_split", "review_summary", "certificate_section", "evaluation_report", "write_report_files"]


def evaluate_split(dataset, rep, *, run_key: str, tau: float, n: int, retained_ids, history=None,
                   n_phases: Optional[int] = None, options=None, n_jobs: Optional[int] = None,
                   device: Optional[str] = None, progress=None, cancel=None):
    """The evaluation of a run's split at τ and n (`core.evaluation.suite.evaluate`), assembled once
    for ``artifact-lens evaluate`` and the Evaluate page: the split is given by the ids it keeps,
    matched to Φ's rows by id (never by position), and the context names the run and τ/n, which
    name the evaluation (`core.evaluation.suite.evaluation_key`)."""
    import numpy as np

    from ..evaluation import evaluate

    retained = np.isin(np.asarray(rep.ids).astype(str), np.asarray(retained_ids).astype(str))
    return evaluate(dataset, rep, retained, history=history, n_phases_chosen=n_phases, options=options,
                    context={"run_key": run_key, "tau": float(tau), "n": int(n)}, n_jobs=n_jobs, device=device,
                    progress=progress, cancel=cancel)


def review_summary(found: Optional[dict]) -> Optional[dict]:
    """What a report and an export's manifest record of the team's agreement (`run_agreement`'s
    result): α with its interval, reviewers, examples reviewed, the filter's κ, at which τ/n; None
    when nobody has reviewed."""
    if found is None:
        return None
    a = found["agreement"].to_dict()
    best = found["best"] and {k: (None if isinstance(v, float) and not math.isfinite(v) else v)
                              for k, v in found["best"].items()}
    return {"alpha": a["alpha"], "alpha_interval": a["alpha_interval"], "reviewers": a["reviewers"],
            "examples_reviewed": a["examples_reviewed"],
            "examples_reviewed_twice_or_more": a["examples_reviewed_twice_or_more"],
            "filter_kappa": (a["filter"] or {}).get("kappa"), "filter_agreement": (a["filter"] or {}).get("agreement"),
            "at": {"tau": found["tau"], "n": found["n"]}, "dispute_rule": found["dispute_rule"],
            "supported": best}


def certificate_section(certificates: Optional[dict]) -> Optional[pd.DataFrame]:
    """The gate's comparison of ``{"dataset": certificate, "split": certificate}`` (the dataset as
    the baseline, the split as the candidate, default rules), or None when either is missing or the
    two cannot be compared."""
    if not certificates or certificates.get("dataset") is None or certificates.get("split") is None:
        return None
    if mismatches(certificates["dataset"], certificates["split"]):
        return None
    return compare(certificates["dataset"], certificates["split"])


def _sections(certificates, review) -> dict:
    reviewed = review_summary(review)
    return {"certificate": certificate_section(certificates),
            "review": reviewed if reviewed and reviewed.get("examples_reviewed") else None}


def evaluation_report(ev, *, certificates: Optional[dict] = None, review: Optional[dict] = None,
                      images: Optional[dict] = None) -> str:
    """The HTML report of ``ev`` with the sections the module names (``review``: `run_agreement`'s
    result)."""
    from ..exports.report import html_report

    return html_report(ev, images, **_sections(certificates, review))


def write_report_files(ev, folder, *, figure_format: str = "png", certificates: Optional[dict] = None,
                       review: Optional[dict] = None) -> list:
    """``artifact-lens evaluate``'s folder (`core.exports.report.write_files`) with the same report."""
    from ..exports.report import write_files

    return write_files(ev, folder, figure_format=figure_format, **_sections(certificates, review))
