"""Team review of a filtered split: each example's standing, traffic lights, overrides, the queue.

Reviews come from the team store (`core.store.TeamStore.reviews`, each reviewer's latest
decision per example). Decisions: ``agree`` (with the filter), ``keep`` (keep anyway),
``remove`` (remove anyway).

The rules, in one place:

- **The team's word** on an example is the latest decision any reviewer made on it
  (a later review by anyone settles a dispute; the disagreements view shows where
  reviewers still differ).
- **Traffic lights** (paper 002, Fig. 1's colour coding): *green* = reviewed and every
  reviewer agrees with the filter; *yellow* = reviewers disagree, or the team's word
  overrides the filter; *red* = removed by the filter and not reviewed yet; no light =
  kept by the filter and not reviewed.
- **Overrides in the export**: ``keep`` puts an example in the retained split whatever the
  filter says, ``remove`` takes it out, ``agree`` follows the filter.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

from core.errors import InputError
from core import lights as lights_vocabulary

__all__ = ["LIGHTS", "LIGHT_COLOURS", "standing", "lights", "apply_overrides", "reviewed_result", "queue",
           "QUEUE_ORDERS"]

#: review lights (`core.lights`): the three, and no light for an example nobody reviewed
LIGHTS = (*lights_vocabulary.LIGHTS, lights_vocabulary.NOT_REVIEWED)
#: colours of the badges and map points (the empty light is grey)
LIGHT_COLOURS = {k: lights_vocabulary.COLOURS[k] for k in LIGHTS}
QUEUE_ORDERS = ("predictability", "random")


def standing(latest: pd.DataFrame) -> pd.DataFrame:
    """Per reviewed example: the team's word and whether reviewers differ.

    Parameters
    ----------
    latest : DataFrame
        Each reviewer's latest review per example, in the order they were made
        (``TeamStore.reviews(..., latest=True)``): columns ``example_id, reviewer,
        decision, note, created_at``.

    Returns
    -------
    DataFrame indexed by ``example_id`` with ``decision`` (the team's word), ``reviewer``,
    ``note`` and ``created_at`` of that decision, ``reviewers`` (how many) and ``disputed``
    (their latest decisions differ).
    """
    cols = ["decision", "reviewer", "note", "created_at", "reviewers", "disputed"]
    if latest is None or not len(latest):
        return pd.DataFrame(columns=cols, index=pd.Index([], name="example_id", dtype=str))
    frame = latest.assign(example_id=latest["example_id"].astype(str))
    last = frame.groupby("example_id", sort=False).tail(1).set_index("example_id")
    grouped = frame.groupby("example_id")["decision"]
    out = last[["decision", "reviewer", "note", "created_at"]].copy()
    out["reviewers"] = grouped.size().reindex(out.index).astype(int)
    out["disputed"] = (grouped.nunique() > 1).reindex(out.index)
    return out


def lights(ids, retained, stand: pd.DataFrame) -> np.ndarray:
    """The traffic light of each example (see the module docstring) as strings in `LIGHTS`."""
    ids = np.asarray(ids).astype(str)
    retained = np.asarray(retained, dtype=bool)
    out = np.where(retained, "", "red").astype(object)
    if len(stand):
        s = stand.reindex(ids)
        reviewed = s["decision"].notna().to_numpy()
        warn = (s["disputed"].fillna(False).astype(bool) | (s["decision"].fillna("agree") != "agree")).to_numpy()
        out[reviewed] = np.where(warn[reviewed], "yellow", "green")
    return out.astype(str)


def apply_overrides(ids, retained, stand: pd.DataFrame):
    """(retained after the team's overrides, the overrides applied).

    The second value lists every example whose team word is ``keep`` or ``remove``:
    ``example_id, decision, reviewer, note, created_at, filter`` ("retained"/"removed")
    and ``changed`` (whether it changed the split).
    """
    ids = np.asarray(ids).astype(str)
    mask = np.asarray(retained, dtype=bool).copy()
    cols = ["example_id", "decision", "reviewer", "note", "created_at", "filter", "changed"]
    if not len(stand):
        return mask, pd.DataFrame(columns=cols)
    s = stand.reindex(ids)
    keep = (s["decision"] == "keep").to_numpy()
    remove = (s["decision"] == "remove").to_numpy()
    before = mask.copy()
    mask[keep] = True
    mask[remove] = False
    rows = np.flatnonzero(keep | remove)
    table = s.iloc[rows][["decision", "reviewer", "note", "created_at"]].reset_index(names="example_id")
    table["filter"] = np.where(before[rows], "retained", "removed")
    table["changed"] = before[rows] != mask[rows]
    return mask, table[cols]


def reviewed_result(run, live: dict, stand: pd.DataFrame):
    """(the live result with the team's overrides applied to ``retained``, the overrides as
    manifest records). ``live`` is ``run.result_for(tau, n)``; an example kept anyway has no
    removal phase, one removed anyway keeps its score."""
    mask, table = apply_overrides(run.ids, live["retained"], stand)
    out = dict(live, retained=mask)
    out["removed_at"] = np.where(mask, -1, np.asarray(live["removed_at"]))
    records = [{**r, "created_at": str(r["created_at"]), "changed": bool(r["changed"])}
               for r in table.to_dict("records")]
    return out, records


def queue(ids, scores, reviewed_by_me, *, order: str = "predictability", seed: int = 0,
          limit: Optional[int] = None) -> np.ndarray:
    """Ids the reviewer has not reviewed yet, in the order they are served.

    ``order="predictability"`` serves the highest p̃ first (examples never scored last);
    ``"random"`` a shuffle fixed by ``seed`` (so a reviewer's queue does not jump around
    between page loads).
    """
    if order not in QUEUE_ORDERS:
        raise InputError(f"queue order {order!r} is unknown; choose one of {', '.join(QUEUE_ORDERS)}.")
    ids = np.asarray(ids).astype(str)
    scores = np.asarray(scores, dtype=float)
    todo = ~np.isin(ids, np.asarray(list(reviewed_by_me), dtype=str))
    rows = np.flatnonzero(todo)
    if order == "predictability":
        key = np.where(np.isnan(scores[rows]), -np.inf, scores[rows])
        rows = rows[np.argsort(-key, kind="stable")]
    else:
        rows = np.random.default_rng(seed).permutation(rows)
    if limit is not None:
        rows = rows[:limit]
    return ids[rows]
