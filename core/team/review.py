"""Team review of a filtered split: each example's standing, traffic lights, overrides, the queue.

Reviews come from the team store (`core.team.store.TeamStore.reviews`, each reviewer's latest
decision per example). Decisions: ``agree`` (with the filter), ``keep`` (keep anyway),
``remove`` (remove anyway).

The rules, in one place:

- **A decision's side** is keep or remove: ``keep`` and ``remove`` are their own side,
  ``agree`` takes the filter's (`side`). A ``remove`` on an example the filter removed
  agrees with the filter: it is not an override.
- **The team's word** on an example is settled by the workspace's dispute rule
  (`DISPUTE_RULES`): ``latest``, the latest decision anyone made; ``senior``, the latest
  decision of the most senior role that decided (an owner's or curator's word stands over an
  annotator's); or ``adjudication``, where reviewers who differ leave the filter's word until
  a curator or owner adjudicates. Under every rule an adjudication (recorded as such, with its
  note) settles the example. The disagreements view shows who chose what and when.
- **The queue** serves each reviewer the examples they have not decided on, each until it has
  the workspace's *reviews per example* (closest to it first).
- **Traffic lights** (paper 002, Fig. 1's colour coding): *green* = reviewed and every
  reviewer is on the filter's side; *yellow* = reviewers are on different sides, or the
  team's word overrides the filter; *red* = removed by the filter and not reviewed yet; no
  light = kept by the filter and not reviewed.
- **Overrides in the export**: ``keep`` puts an example in the retained split whatever the
  filter says, ``remove`` takes it out, ``agree`` follows the filter.
- **Agreement** (`agreement`, `supported_tau_n`, from `core.team.agreement`): how much reviewers
  agree with each other (Krippendorff's α, Cohen's κ) and with the filter, and which τ/n the
  team's decisions support.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

from .agreement import Agreement, agreement, side, supported_tau_n
from ..base.errors import InputError
from ..base import lights as lights_vocabulary

__all__ = ["AWAITING", "LIGHTS", "LIGHT_COLOURS", "standing", "lights", "apply_overrides", "reviewed_result", "queue",
           "QUEUE_ORDERS", "DISPUTE_RULES", "side", "disagreements", "to_adjudicate", "agreement", "Agreement", "supported_tau_n"]

#: review lights (`core.base.lights`): the three, and no light for an example nobody reviewed
LIGHTS = (*lights_vocabulary.LIGHTS, lights_vocabulary.NOT_REVIEWED)
#: colours of the badges and map points (the empty light is grey)
LIGHT_COLOURS = {k: lights_vocabulary.COLOURS[k] for k in LIGHTS}
QUEUE_ORDERS = ("predictability", "random")
#: how the team's word is settled when reviewers differ, in plain words (a workspace setting);
#: under every rule an adjudication (a curator's or owner's, recorded as such) settles an example
DISPUTE_RULES = {
    "latest": "the latest decision stands, whoever made it",
    "senior": "an owner's or curator's decision stands over an annotator's (the latest of the most senior role)",
    "adjudication": "a dispute stands until a curator or owner adjudicates it; meanwhile the filter's word holds",
}
#: who settled the team's word on a disputed example the adjudication rule leaves open
AWAITING = "(awaiting adjudication)"
#: seniority of each role under the ``senior`` rule (a reviewer no longer a member ranks lowest)
_SENIORITY = {"owner": 2, "curator": 2, "annotator": 1}


def _check_rule(rule: str) -> None:
    if rule not in DISPUTE_RULES:
        raise InputError(f"dispute rule {rule!r} is unknown; choose one of {', '.join(DISPUTE_RULES)}.")


def standing(latest: pd.DataFrame, *, rule: str = "latest", roles: Optional[dict] = None) -> pd.DataFrame:
    """Per reviewed example: the team's word under the dispute ``rule`` and every reviewer's decision.

    Parameters
    ----------
    latest : DataFrame
        Each reviewer's latest review per example, in the order they were made
        (``TeamStore.reviews(..., latest=True)``): columns ``example_id, reviewer,
        decision, note, created_at``.
    rule : str
        A key of `DISPUTE_RULES`.
    roles : dict, optional
        Reviewer e-mail -> role, for the ``senior`` rule.

    Returns
    -------
    DataFrame indexed by ``example_id`` with ``decision`` (the team's word), ``reviewer``,
    ``note`` and ``created_at`` of that decision, ``reviewers`` (how many), ``decisions``
    (the distinct decisions, sorted), ``chosen`` (who chose what and when, in order) and
    ``adjudicated`` (the word is a curator's or owner's adjudication: rows of ``kind``
    ``adjudication``, which settle an example under every rule).
    """
    _check_rule(rule)
    cols = ["decision", "reviewer", "note", "created_at", "reviewers", "decisions", "chosen", "adjudicated"]
    if latest is None or not len(latest):
        return pd.DataFrame(columns=cols, index=pd.Index([], name="example_id", dtype=str))
    frame = latest.assign(example_id=latest["example_id"].astype(str))
    kind = frame["kind"] if "kind" in frame else pd.Series("review", index=frame.index)
    adjudications = frame[kind.to_numpy() == "adjudication"]
    frame = frame[kind.to_numpy() != "adjudication"]
    out = _reviewers_word(frame, rule, roles) if len(frame) else pd.DataFrame(columns=cols[:-1])
    out["adjudicated"] = False
    if len(adjudications):   # the latest adjudication of an example is the team's word on it
        last = adjudications.groupby("example_id", sort=False).tail(1).set_index("example_id")
        new = last.index.difference(out.index)
        if len(new):
            out = pd.concat([out, pd.DataFrame({"reviewers": 0, "decisions": pd.Series([()] * len(new), index=new),
                                                "chosen": pd.Series([()] * len(new), index=new),
                                                "adjudicated": False}, index=new)])
        for col in ("decision", "reviewer", "note", "created_at"):
            out.loc[last.index, col] = last[col]
        out.loc[last.index, "adjudicated"] = True
    out.index.name = "example_id"
    out["adjudicated"] = out["adjudicated"].astype(bool)
    return out[cols]


def _reviewers_word(frame: pd.DataFrame, rule: str, roles: Optional[dict]) -> pd.DataFrame:
    """`standing` of the reviewers' own decisions (adjudications aside)."""
    if rule == "senior":
        rank = frame["reviewer"].map(lambda r: _SENIORITY.get((roles or {}).get(r), 0))
        frame = frame.assign(_rank=rank.to_numpy())
        top = frame.groupby("example_id")["_rank"].transform("max")
        deciding = frame[frame["_rank"] == top]
    else:
        deciding = frame
    last = deciding.groupby("example_id", sort=False).tail(1).set_index("example_id")
    grouped = frame.groupby("example_id")
    out = last[["decision", "reviewer", "note", "created_at"]].copy()
    out["reviewers"] = grouped.size().reindex(out.index).astype(int)
    out["decisions"] = grouped["decision"].agg(lambda d: tuple(sorted(set(d)))).reindex(out.index)
    chosen = pd.Series(list(zip(frame["reviewer"], frame["decision"], frame["created_at"])), index=frame.index)
    out["chosen"] = chosen.groupby(frame["example_id"]).agg(tuple).reindex(out.index)
    if rule == "adjudication":   # reviewers who differ leave the filter's word until someone adjudicates
        open_ = out["decisions"].map(len).to_numpy() > 1
        out.loc[open_, ["decision", "reviewer", "note"]] = ["agree", AWAITING, ""]
    return out


def _sides(stand: pd.DataFrame, ids, retained):
    """(the team's side, whether reviewers are on different sides, reviewed) per example of ``ids``."""
    s = stand.reindex(ids)
    reviewed = s["decision"].notna().to_numpy()
    team = np.array([side(d, r) if isinstance(d, str) else "" for d, r in zip(s["decision"], retained)], dtype=object)
    split = np.array([isinstance(ds, tuple) and len({side(d, r) for d in ds}) > 1
                      for ds, r in zip(s["decisions"], retained)], dtype=bool)
    return team, split, reviewed


def lights(ids, retained, stand: pd.DataFrame) -> np.ndarray:
    """The traffic light of each example (see the module docstring) as strings in `LIGHTS`."""
    ids = np.asarray(ids).astype(str)
    retained = np.asarray(retained, dtype=bool)
    out = np.where(retained, "", "red").astype(object)
    if len(stand):
        team, split, reviewed = _sides(stand, ids, retained)
        filter_side = np.where(retained, "keep", "remove")
        warn = split | (team != filter_side)
        out[reviewed] = np.where(warn[reviewed], "yellow", "green")
    return out.astype(str)


def disagreements(ids, retained, stand: pd.DataFrame) -> pd.DataFrame:
    """Examples whose reviewers are on different sides: ``example_id``, ``filter`` (what the
    filter did), ``chosen`` (each reviewer's decision and when, in order, as text), ``team``
    (the side that stands under the rule `standing` applied) and ``settled_by`` (whose decision
    that is)."""
    cols = ["example_id", "filter", "chosen", "team", "settled_by"]
    ids = np.asarray(ids).astype(str)
    retained = np.asarray(retained, dtype=bool)
    if not len(stand):
        return pd.DataFrame(columns=cols)
    team, split, _ = _sides(stand, ids, retained)
    rows = np.flatnonzero(split)
    s = stand.reindex(ids[rows])
    chosen = [", ".join(f"{who}: {d} ({pd.Timestamp(when):%Y-%m-%d %H:%M})" if not pd.isna(when) else f"{who}: {d}"
                        for who, d, when in c) for c in s["chosen"]]
    return pd.DataFrame({"example_id": ids[rows], "filter": np.where(retained[rows], "retained", "removed"),
                         "chosen": chosen, "team": team[rows], "settled_by": s["reviewer"].to_numpy()},
                        columns=cols).reset_index(drop=True)


def to_adjudicate(ids, retained, stand: pd.DataFrame, *, with_filter: bool = False) -> pd.DataFrame:
    """The adjudication queue: examples whose reviewers are on different sides (and, with
    ``with_filter``, those whose team word overrules the filter), not adjudicated yet, as
    `disagreements` rows plus ``reason``."""
    ids = np.asarray(ids).astype(str)
    retained = np.asarray(retained, dtype=bool)
    cols = ["example_id", "filter", "chosen", "team", "settled_by", "reason"]
    if not len(stand):
        return pd.DataFrame(columns=cols)
    team, split, reviewed = _sides(stand, ids, retained)
    adjudicated = stand["adjudicated"].reindex(ids).fillna(False).to_numpy(dtype=bool) \
        if "adjudicated" in stand else np.zeros(len(ids), bool)
    overrules = reviewed & (team != np.where(retained, "keep", "remove"))
    wanted = (split | (overrules if with_filter else False)) & ~adjudicated
    rows = np.flatnonzero(wanted)
    s = stand.reindex(ids[rows])
    chosen = [", ".join(f"{who}: {d}" for who, d, _ in c) for c in s["chosen"]]
    return pd.DataFrame({"example_id": ids[rows], "filter": np.where(retained[rows], "retained", "removed"),
                         "chosen": chosen, "team": team[rows], "settled_by": s["reviewer"].to_numpy(),
                         "reason": np.where(split[rows], "reviewers differ", "the team overrules the filter")},
                        columns=cols).reset_index(drop=True)


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
          limit: Optional[int] = None, counts: Optional[dict] = None, per_example: int = 1, first=()) -> np.ndarray:
    """Ids the reviewer has not reviewed yet, in the order they are served.

    ``order="predictability"`` serves the highest p̃ first (examples never scored last);
    ``"random"`` a shuffle fixed by ``seed`` (so a reviewer's queue does not jump around
    between page loads). With ``counts`` (example id -> reviewers who decided on it), an
    example is served until it has ``per_example`` reviewers (the workspace's reviews per
    example), those closest to it first, so the overlap the team asked for is reached early.
    Ids in ``first`` (a joint run's possibly mislabelled examples, `core.dynamics.joint`) come before
    all others, each group in that order.
    """
    if order not in QUEUE_ORDERS:
        raise InputError(f"queue order {order!r} is unknown; choose one of {', '.join(QUEUE_ORDERS)}.")
    if not isinstance(per_example, (int, np.integer)) or isinstance(per_example, bool) or per_example < 1:
        raise InputError(f"reviews per example must be a whole number of at least 1, not {per_example!r}.")
    ids = np.asarray(ids).astype(str)
    scores = np.asarray(scores, dtype=float)
    todo = ~np.isin(ids, np.asarray(list(reviewed_by_me), dtype=str))
    have = np.zeros(len(ids), dtype=int)
    if counts:
        have = pd.Series(counts, dtype=float).reindex(ids).fillna(0).to_numpy(dtype=int)
        todo &= have < per_example
    rows = np.flatnonzero(todo)
    if order == "predictability":
        key = np.where(np.isnan(scores[rows]), -np.inf, scores[rows])
        rows = rows[np.argsort(-key, kind="stable")]
    else:
        rows = np.random.default_rng(seed).permutation(rows)
    rows = rows[np.argsort(-have[rows], kind="stable")]   # closest to N reviewers first, in that order
    if len(first):
        rows = rows[np.argsort(~np.isin(ids[rows], np.asarray(first).astype(str)), kind="stable")]
    if limit is not None:
        rows = rows[:limit]
    return ids[rows]
