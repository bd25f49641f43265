"""The artifact certificates of the current run's split (issue 34): the whole dataset's and the
split's at the live τ/n, computed together as a shared job (`dashboard.services.cached_jobs`), and the
gate's comparison of the two (`core.certificate.gate`): what ``artifact-lens check`` says of them."""
from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

from artifact_lens.certificate.gate import compare, verdict
from artifact_lens.base.errors import InputError
from artifact_lens.base.progress import span
from artifact_lens.usecases.certificates import certify_dataset, certify_split
from artifact_lens.usecases.review_queue import send_cue_rows
from artifact_lens.certificate.schema import certificate_bytes
from artifact_lens.dashboard.services import cached_jobs, current, run_view, team

__all__ = ["start", "result", "job", "ended", "comparison", "verdict_of", "files", "send_rows"]


def _key(tab, run, at: Optional[tuple] = None):
    tau, n = at or run_view.live_values(tab, run)
    return current.named(tab, run.key, float(tau), int(n))


def _kept(tab, run) -> np.ndarray:
    """The ids of the run's split at the live τ/n."""
    return run.kept_ids(run_view.live_result(tab, run))


def start(tab, run) -> None:
    """Certify the dataset and the run's split at the live τ/n (`core.usecases.certificates`: on the
    run's Φ, as the export's certificate); curators and owners."""
    team.require(tab, "run filters")
    ds, kept = current.dataset(tab), _kept(tab, run)
    whole_key = current.named(tab, run.key)
    known = cached_jobs.result(tab, cached_jobs.DATASET_CERTIFICATE, whole_key)

    def compute(ctx):
        # the dataset's certificate once per run, whatever τ/n its splits are certified at; each
        # certificate's steps named as its own, in its part of the bar (the dataset's "done" is not
        # the job's, and the split's steps never send the bar back)
        whole = known
        if whole is None:
            whole = ctx.offload(certify_dataset, ds, run=run,
                                progress=span(ctx.progress, 0.0, 0.5, "the dataset's certificate"))
            cached_jobs.keep(tab, cached_jobs.DATASET_CERTIFICATE, whole_key, whole)
        split = ctx.offload(_split, ds, kept, run,
                            progress=span(ctx.progress, 0.0 if known else 0.5, 1.0, "the split's certificate"))
        return {"dataset": whole, "split": split}

    cached_jobs.start(tab, cached_jobs.CERTIFICATES, _key(tab, run), compute)


def _split(ds, kept, run, progress=None, cancel=None) -> dict:
    found, why = certify_split(ds, kept, run=run, progress=progress, cancel=cancel)
    if found is None:
        raise InputError(f"the split at this τ/n cannot be certified: {why}")
    return found


def result(tab, run, at: Optional[tuple] = None) -> Optional[dict]:
    """``{"dataset": certificate, "split": certificate}`` at the live τ/n (or ``at``: (τ, n)), or None
    before it is computed."""
    return cached_jobs.result(tab, cached_jobs.CERTIFICATES, _key(tab, run, at))


def job(tab, run):
    return cached_jobs.job(tab, cached_jobs.CERTIFICATES, _key(tab, run))


ended = cached_jobs.ended


def comparison(found: dict) -> pd.DataFrame:
    """The gate's table (the dataset as the baseline, the split as the candidate; default rules)."""
    return compare(found["dataset"], found["split"])


def verdict_of(table: pd.DataFrame):
    """What the `comparison` says (`core.certificate.gate.verdict`: what ``check`` exits with)."""
    return verdict(table)


def files(found: dict) -> dict:
    """The two certificates as the files ``check`` reads: name → bytes."""
    return {"dataset.certificate.json": certificate_bytes(found["dataset"]),
            "split.certificate.json": certificate_bytes(found["split"])}


def send_rows(tab, run, cues: pd.DataFrame) -> dict:
    """The split's examples that carry each new or stronger cue of ``cues`` (the `comparison`'s, at the
    live τ/n), to the front of the run's review queue (`core.usecases.review_queue.send_cue_rows`:
    what ``check --review-run`` does); the run must be saved in the workspace, the member a curator
    or owner."""
    run_id = run_view.team_run_id(tab, run)
    if run_id is None:
        raise InputError("the review queue is a saved run's: save this run to the workspace first (Review page).")
    ds = current.dataset(tab)
    return send_cue_rows(team.scope(tab), run_id, run, ds.subset(_kept(tab, run)), cues, full=ds)
