"""Send the rows that carry a new cue to a run's review queue (issue 44, item 2): ``artifact-lens
check --review-run`` and the Evaluate page's certificate section both call `send_cue_rows`, which
holds the rules: the rows are the ones `core.certificate.rows.cue_rows` lists for the cues `check`
named; they must be rows of the data the run scored (the same data, or a split of it whose rows
are the run's rows unchanged); each is sent with the cue it carries as the reason and the cue's z
as the strength the queue serves it by; the store checks the member's role and keeps one row per
example and cue."""
from __future__ import annotations

from typing import Optional

import pandas as pd

from ..base.errors import InputError
from ..certificate.rows import cue_rows

__all__ = ["send_cue_rows", "cue_reason"]

#: how much of a feature's name a reason quotes (the store keeps 500 characters)
_FEATURE_SHOWN = 200


def cue_reason(feature: str, label: str) -> str:
    """Why a row is sent: the cue it carries, as the Review page shows it."""
    return f"new cue: {str(feature)[:_FEATURE_SHOWN]} → {str(label)[:_FEATURE_SHOWN]} (artifact-lens check)"


def send_cue_rows(ws, run_id: int, run, dataset, cues: Optional[pd.DataFrame], *, full=None,
                  reload: Optional[dict] = None, rows: Optional[pd.DataFrame] = None) -> dict:
    """Send the examples of ``dataset`` that carry each cue of ``cues`` (`core.certificate.cues.cue_changes`)
    to the front of run ``run_id``'s review queue, as the member of the scoped handle ``ws``.
    ``dataset`` is the run's data or a split of it; to check a split's rows, ``full`` is the run's
    data, or ``reload`` its run record to read it from; ``rows``: ``cue_rows(dataset, cues)`` when the
    caller has made it already (it reads every example's features). Returns ``{"rows", "examples",
    "new"}``: rows sent (an example carrying two cues is two), distinct examples, and rows the queue
    did not have yet. InputError when there is nothing to send or the rows are not the run's."""
    rows = cue_rows(dataset, cues) if rows is None else rows
    if not len(rows):
        raise InputError("no new or stronger cue was named, so there are no rows to send to the review queue.")
    _check_rows_are_the_runs(dataset, run, full, reload)
    flags = pd.DataFrame({"example_id": rows["id"].astype(str),
                          "reason": [cue_reason(f, c) for f, c in zip(rows["feature"], rows["cue_label"])],
                          "score": rows["z"].astype(float)})
    new = ws.flag_for_review(run_id, flags)
    return {"rows": len(flags), "examples": int(flags["example_id"].nunique()), "new": int(new)}


def _check_rows_are_the_runs(dataset, run, full, reload) -> None:
    """``dataset`` is the data ``run`` scored, or rows of it unchanged (same id, label and texts)."""
    if dataset.fingerprint == run.dataset_fingerprint:
        return
    if full is None and reload is not None:
        from .agreement import reload_run_dataset

        full, why = reload_run_dataset(reload, run)
        if full is None:
            raise InputError(f"the rows cannot be checked against run {run.key}'s data: {why} Nothing was sent.")
    if full is None or full.fingerprint != run.dataset_fingerprint:
        raise InputError(f"the data given is not the data run {run.key} scored, nor known to be a split of it; give "
                         "that data (or the split exported from the run). Nothing was sent.")
    mine, theirs = _row_hashes(dataset), _row_hashes(full)
    differ = mine.index[mine.to_numpy() != theirs.reindex(mine.index).to_numpy()]
    if len(differ):
        raise InputError(f"{len(differ):,} rows of the data given are not run {run.key}'s rows as it scored them (the "
                         f"first: id {str(differ[0])[:80]!r}); give the run's data or a split exported from it. "
                         "Nothing was sent.")


def _row_hashes(ds) -> pd.Series:
    """Each example's id → a hash of its label and texts (the fingerprint's rows)."""
    frame = ds.table[[ds.label, *ds.text]].astype(str)
    hashes = pd.util.hash_pandas_object(frame, index=False)
    hashes.index = ds.table.index.astype(str)
    return hashes
