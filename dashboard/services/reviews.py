"""The team's review of a run, for the Review page and its panels: each example's light, the
member's queue, where reviewers disagree and what is left to adjudicate, each read from the
reviews as this member may see them (`run_view.review_standing`; the rules are `core.team.review`)."""
from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

from artifact_lens.team import review as rules
from artifact_lens.team.store import DECISIONS
from artifact_lens.dashboard.services import current, run_view
from artifact_lens.dashboard.services.team import member, scope, seed_of

__all__ = ["standing", "lights", "disagreements", "to_adjudicate", "queue", "waiting_for_me", "progress", "overridden", "stamp", "review",
           "adjudicate", "flags_of", "clear_flags"]


def standing(tab, run_id: int, *, unblinded: bool = False, hide=frozenset()) -> pd.DataFrame:
    """`run_view.review_standing` without the examples in ``hide`` (`waiting_for_me`)."""
    stand = run_view.review_standing(tab, run_id, unblinded=unblinded)
    return stand[~stand.index.astype(str).isin(hide)] if hide else stand


def lights(tab, run_id: int, ids, retained, *, unblinded: bool = False, hide=frozenset()) -> np.ndarray:
    """The review light of each example (`core.team.review.lights`); those in ``hide`` as unreviewed."""
    return rules.lights(ids, retained, standing(tab, run_id, unblinded=unblinded, hide=hide))


def disagreements(tab, run_id: int, ids, retained, *, unblinded: bool = False, hide=frozenset()) -> pd.DataFrame:
    """The examples whose reviewers are on different sides (`core.team.review.disagreements`), but
    those in ``hide``."""
    return rules.disagreements(ids, retained, standing(tab, run_id, unblinded=unblinded, hide=hide))


def to_adjudicate(tab, run_id: int, ids, retained, *, with_filter: bool = False) -> pd.DataFrame:
    """What is left to adjudicate (every decision counts: adjudicators see them all)."""
    return rules.to_adjudicate(ids, retained, run_view.review_standing(tab, run_id, unblinded=True), with_filter=with_filter)


def queue(tab, run, run_id: int, frame: pd.DataFrame, order: str, latest: pd.DataFrame) -> dict:
    """The member's queue on ``frame`` (the run's scored rows): ``todo`` (ids in the order they are
    served: those sent to the front of the queue (a new cue's rows, `TeamStore.flag_for_review`) and
    a joint run's possibly mislabelled first, then by ``order``, each example until it has the
    workspace's reviews per example), ``mine`` (ids the member reviewed), ``counts`` (reviewers per
    example), ``per_example`` and ``flagged`` (the examples sent to the front, `TeamStore.review_flags`)."""
    m, ws = member(tab), scope(tab)
    mine = latest.loc[(latest["reviewer"] == m.email) & (latest["kind"] == "review"), "example_id"]
    counts, per_example = ws.review_counts(run_id), ws.review_settings()["reviews_per_example"]
    flagged = ws.review_flags(run_id)   # strongest first
    sent = flagged["example_id"].drop_duplicates().tolist()
    todo = rules.queue(frame["id"], frame["predictability"], set(mine), order=order, seed=seed_of(m.email),
                       counts=counts, per_example=per_example, first=[*sent, *run.review_first])
    if sent:   # the examples sent to the front are served strongest cue first
        rank = pd.Series(range(len(sent)), index=sent, dtype=float).reindex(todo).fillna(len(sent)).to_numpy()
        todo = todo[np.argsort(rank, kind="stable")]
    return {"todo": todo, "mine": mine, "counts": counts, "per_example": per_example, "flagged": flagged}


def waiting_for_me(tab, run_id: int, latest: pd.DataFrame) -> set:
    """In a blind workspace, the examples still waiting for the member's own review (not decided by
    them, fewer reviewers than the workspace asks for, not adjudicated): the teammates' decisions on
    them stay out of every count the member's Review page shows, adjudicators' included, or a light
    would tell how an example the member has yet to judge was judged. Empty when review is not blind."""
    ws = scope(tab)
    settings_ = ws.review_settings()
    if not settings_["blind"]:
        return set()
    m = member(tab)
    mine = set(latest.loc[latest["reviewer"] == m.email, "example_id"].astype(str))
    settled = set(latest.loc[latest["kind"] == "adjudication", "example_id"].astype(str))
    counts = ws.review_counts(run_id)
    return {e for e, n in counts.items() if n < settings_["reviews_per_example"]} - mine - settled


def flags_of(tab, run_id: int, example_id: str) -> list:
    """Why the example was sent to the front of the review queue: its reasons, strongest first."""
    flagged = scope(tab).review_flags(run_id)
    return flagged.loc[flagged["example_id"] == str(example_id), "reason"].tolist()


def progress(tab, run_id: int, latest: pd.DataFrame, *, everything: bool, blind: bool) -> pd.DataFrame:
    """Examples reviewed per reviewer with their latest decisions counted (``reviewer, reviewed,
    agree, keep, remove``), from ``latest`` (the reviews this member may read, `TeamStore.reviews`).
    A blind reviewer reads their own row only: a teammate's count would tell which examples of a
    shared queue order they decided, and their decisions on the rest are not this member's to count."""
    mine = latest[latest["kind"] == "review"]
    if blind and not everything:
        mine = mine[mine["reviewer"] == member(tab).email]
    counts = mine.pivot_table(index="reviewer", columns="decision", values="example_id", aggfunc="count",
                              fill_value=0).reindex(columns=list(DECISIONS), fill_value=0)
    counts.insert(0, "reviewed", counts.sum(axis=1))
    return counts.reset_index()[["reviewer", "reviewed", *DECISIONS]].astype({"reviewed": int})


def overridden(tab, run, live: dict) -> Optional[str]:
    """What the team's "keep anyway" and "remove anyway" change in the split at the live τ/n, in
    words, for the pages that count retained examples (the Export page applies them); None when the
    run is not in the workspace or no decision changes the split."""
    run_id = run_view.team_run_id(tab, run)
    if run_id is None:
        return None
    stand = run_view.review_standing(tab, run_id, unblinded=member(tab).can("adjudicate"))
    reviewed, records = rules.reviewed_result(run, live, stand)
    changed = [r for r in records if r["changed"]]
    if not changed:
        return None
    kept = sum(bool(r["filter"] == "removed") for r in changed)
    return (f"The team's reviews change {len(changed):,} of these decisions ({kept:,} kept anyway, "
            f"{len(changed) - kept:,} removed anyway): the exported split has {int(np.sum(reviewed['retained'])):,} "
            "examples (the Export page lists them).")


def stamp(tab, run_id: int, example_id: str, *, unblinded: bool = False) -> int:
    """The newest decision on one example this member sees (`TeamStore.example_stamp`): drawn with its
    form, given back with the decision, so the store refuses a decision made on a state that has
    changed since (``unblinded``: an adjudicator's, who sees every decision)."""
    return scope(tab).example_stamp(run_id, str(example_id), unblinded=unblinded)


def review(tab, run_id: int, example_id: str, seen: int, decision: str, note: str) -> None:
    """The member's decision on the example they were shown (the store checks the role, the note
    and that nothing was decided on it since ``seen``)."""
    scope(tab).review(run_id, str(example_id), decision, note, seen=seen)


def adjudicate(tab, run_id: int, example_id: str, seen: int, decision: str, note: str) -> None:
    """An adjudicator's decision on the example they picked, under the same check as `review`."""
    scope(tab).adjudicate(run_id, str(example_id), decision, note, seen=seen)


def clear_flags(tab, run_id: int) -> int:
    """Take every example sent to the front of the run's queue off it (curators and owners; the
    decisions made on them stay): how many rows."""
    return scope(tab).clear_review_flags(run_id)
