"""Team review (`core.team.review` holds its rules): each reviewer's decisions on a run's examples,
with their history, adjudications, progress, and the workspace's review settings (the dispute
rule, reviews per example, blind review) and guidelines.

Blind review is enforced here, not only on the page: in a blind workspace `reviews` gives a
member no one else's decision (or note) on an example they have not decided on, and
`example_reviews` refuses to. Adjudicators (curators and owners) read everything with
``unblinded=True``, a read that checks their role.

Mixed into `core.team.store.TeamStore`; every method checks the member's role itself.
"""
from __future__ import annotations


import math
import numbers
from typing import Optional

import pandas as pd
from sqlalchemy import delete, func, select

from .scoped import writes
from ...base.errors import InputError
from ..review import DISPUTE_RULES
from .checks import Changed, NotAllowed, check_text
from .models import DECISIONS, Guidelines, Review, ReviewFlag, Workspace, now

__all__ = ["ReviewsMixin", "EXAMPLE_ID_MAX", "MAX_REVIEWS_PER_EXAMPLE", "GUIDELINES_MAX", "NOTE_MAX", "REASON_MAX",
           "FLAGS_MAX"]

#: longest example id a review stores (its column's size)
EXAMPLE_ID_MAX = 200
#: the most reviewers a workspace can ask for per example
MAX_REVIEWS_PER_EXAMPLE = 20
#: longest guidelines text (characters)
GUIDELINES_MAX = 50_000
#: longest note on a decision (characters): a paragraph or two, not a pasted file
NOTE_MAX = 10_000
#: runs whose example ids a store keeps in memory (a reviewed run's ids are read from its file once)
RUN_IDS_KEPT = 8
#: longest reason an example is sent to the front of the queue for (its column's size)
REASON_MAX = 500
#: the most examples one call sends to the front of a queue (a cue's rows are hundreds, not a dataset)
FLAGS_MAX = 100_000
_COLUMNS = ["id", "example_id", "reviewer", "decision", "note", "created_at", "kind", "guidelines_id"]


class ReviewsMixin:
    # ------------------------------------------------------------------ settings
    def dispute_rule(self, workspace_id: int, *, by: str) -> str:
        """How the workspace settles reviewers who differ (a key of `core.team.review.DISPUTE_RULES`)."""
        self.require(workspace_id, by, "read")
        with self.Session() as s:
            return s.get(Workspace, workspace_id).dispute_rule

    @writes
    def set_dispute_rule(self, workspace_id: int, rule: str, *, by: str) -> None:
        """Owners choose how disputes are settled; every review view follows at its next read."""
        self.require(workspace_id, by, "change settings")
        if rule not in DISPUTE_RULES:
            raise InputError(f"dispute rule {rule!r} is unknown; choose one of {', '.join(DISPUTE_RULES)}.")
        with self._write_as(workspace_id, by, "change settings") as s:
            s.get(Workspace, workspace_id).dispute_rule = rule

    def review_settings(self, workspace_id: int, *, by: str) -> dict:
        """``dispute_rule``, ``reviews_per_example`` and ``blind`` of the workspace."""
        self.require(workspace_id, by, "read")
        with self.Session() as s:
            ws = s.get(Workspace, workspace_id)
            return {"dispute_rule": ws.dispute_rule, "reviews_per_example": int(ws.reviews_per_example),
                    "blind": bool(ws.blind)}

    @writes
    def set_review_settings(self, workspace_id: int, *, reviews_per_example: Optional[int] = None,
                            blind: Optional[bool] = None, by: str) -> None:
        """Owners set how many reviewers' decisions the queue gathers per example (1 to
        `MAX_REVIEWS_PER_EXAMPLE`) and whether review is blind."""
        self.require(workspace_id, by, "change settings")
        if reviews_per_example is not None and (isinstance(reviews_per_example, bool) or not isinstance(
                reviews_per_example, int) or not 1 <= reviews_per_example <= MAX_REVIEWS_PER_EXAMPLE):
            raise InputError(f"reviews per example must be a whole number from 1 to {MAX_REVIEWS_PER_EXAMPLE}, not "
                             f"{reviews_per_example!r}.")
        if blind is not None and not isinstance(blind, bool):
            raise InputError(f"blind review is on or off (True or False), not {blind!r}.")
        with self._write_as(workspace_id, by, "change settings") as s:
            ws = s.get(Workspace, workspace_id)
            if reviews_per_example is not None:
                ws.reviews_per_example = reviews_per_example
            if blind is not None:
                ws.blind = blind

    # ------------------------------------------------------------------ guidelines
    @writes
    def set_guidelines(self, workspace_id: int, text: str, *, by: str) -> int:
        """Owners write the review guidelines: a new version (the old ones are kept); its id."""
        self.require(workspace_id, by, "change settings")
        text = check_text(text, "the guidelines", GUIDELINES_MAX).strip()
        if not text:
            raise InputError("the guidelines are empty; write what reviewers should keep and remove, and why.")
        with self._write_as(workspace_id, by, "change settings") as s:
            row = Guidelines(workspace_id=workspace_id, text=text, created_by=by.lower())
            s.add(row)
            s.flush()
            return row.id

    def guidelines(self, workspace_id: int, *, by: str) -> Optional[dict]:
        """The current guidelines (``id, text, created_by, created_at``), or None."""
        found = self.guidelines_history(workspace_id, by=by)
        return None if not len(found) else found.iloc[-1].to_dict()

    def guidelines_history(self, workspace_id: int, *, by: str) -> pd.DataFrame:
        """Every version of the guidelines, oldest first."""
        self.require(workspace_id, by, "read")
        with self.Session() as s:
            rows = s.execute(select(Guidelines.id, Guidelines.text, Guidelines.created_by, Guidelines.created_at)
                             .where(Guidelines.workspace_id == workspace_id).order_by(Guidelines.id)).all()
        return pd.DataFrame(rows, columns=["id", "text", "created_by", "created_at"])

    # ------------------------------------------------------------------ decisions
    def _decide(self, workspace_id, run_id, example_id, decision, note, by, kind, seen) -> int:
        if decision not in DECISIONS:
            raise InputError(f"decision {decision!r} is unknown; choose one of {', '.join(DECISIONS)}.")
        if len(str(example_id)) > EXAMPLE_ID_MAX:
            raise InputError(f"example id {str(example_id)[:40]!r}… is longer than {EXAMPLE_ID_MAX} characters, more "
                             "than reviews can store; give the dataset shorter ids (an id column).")
        check_text(str(example_id), "the example id")
        check_text(note, "the note", NOTE_MAX)
        with self._write_as(workspace_id, by, "review" if kind == "review" else "adjudicate") as s:
            rec = self._run_in(s, workspace_id, run_id, lock=seen is not None)
            if rec.status != "done":
                raise InputError(f"run {run_id} is not finished; reviews attach to finished runs.")
            if str(example_id) not in self._run_ids(rec):
                raise InputError(f"example {str(example_id)[:80]!r} is not one of run {run_id}'s examples; decisions "
                                 "attach to the examples the run scored.")
            if seen is not None:   # the run's row is locked: no decision on it lands between this read and the write
                space = s.get(Workspace, workspace_id)
                blind = bool(space.blind) and kind == "review"
                newest = self._newest_decision(s, run_id, example_id, by if blind else None,
                                               int(space.reviews_per_example))
                if newest != seen:
                    raise Changed(f"example {str(example_id)[:80]!r} changed while you had it open: "
                                  f"{self._who_decided(s, run_id, example_id, seen, by)} since. Your decision was not "
                                  "saved; read the example again and save it if it still stands.")
            version = s.scalar(select(func.max(Guidelines.id)).where(Guidelines.workspace_id == workspace_id))
            row = Review(run_id=run_id, example_id=str(example_id), decision=decision, note=note, reviewer=by.lower(),
                         kind=kind, guidelines_id=version)
            s.add(row)
            s.flush()
            return row.id

    @staticmethod
    def _newest_decision(s, run_id: int, example_id: str, blind_for: Optional[str] = None, needed: int = 1) -> int:
        """The newest decision on the example that its reader sees: every one, or under blind review
        (``blind_for``: the member) none of the others' until they have decided on it (as `reviews`
        shows them), so a teammate's independent decision never refuses theirs. What a blind reviewer
        does see is whether the example is settled without her (``needed`` reviewers besides her, or
        an adjudication): then its newest decision, so a page served before it was settled is refused
        instead of overturning the reviewers who settled it."""
        on_it = (Review.run_id == run_id, Review.example_id == str(example_id))
        rows = select(func.max(Review.id)).where(*on_it)
        if blind_for is not None and s.scalar(rows.where(Review.reviewer == blind_for.lower())) is None:
            others = s.scalar(select(func.count(func.distinct(Review.reviewer))).where(*on_it, Review.kind == "review"))
            settled = others >= needed or s.scalar(select(func.count()).where(*on_it, Review.kind == "adjudication"))
            return int(s.scalar(rows) or 0) if settled else 0
        return int(s.scalar(rows) or 0)

    @staticmethod
    def _who_decided(s, run_id: int, example_id: str, seen: int, by: str) -> str:
        """Who decided on the example after the decision ``seen``: "you" or "a teammate", never a
        name or a decision (a blind reviewer learns no more than the queue's counts tell)."""
        names = s.scalars(select(Review.reviewer).where(Review.run_id == run_id, Review.example_id == str(example_id),
                                                        Review.id > int(seen))).all()
        if not names:
            return "its history is not the one you were shown"
        others = sum(n != by.lower() for n in names)
        return " and ".join(([f"{others} decision{'s' if others > 1 else ''} by teammates"] if others else [])
                            + (["a decision of yours (in another tab)"] if others < len(names) else [])) + " came"

    def example_stamp(self, workspace_id: int, run_id: int, example_id: str, *, by: str,
                      unblinded: bool = False) -> int:
        """The id of the newest decision (review or adjudication) on one example that the member sees,
        0 if none: what a page shows with an example, and gives back as ``seen`` with the decision made
        on it. In a blind workspace a member who has not decided on it sees none of the others'
        (adjudicators read every one ``unblinded``, as they adjudicate)."""
        self.require(workspace_id, by, "adjudicate" if unblinded else "read")
        with self.Session() as s:
            self._run_in(s, workspace_id, run_id)
            space = s.get(Workspace, workspace_id)
            blind = bool(space.blind) and not unblinded
            return self._newest_decision(s, run_id, example_id, by if blind else None, int(space.reviews_per_example))

    def _run_ids(self, rec) -> frozenset:
        """The ids the finished run ``rec`` scored (from its file, checksummed when saved), kept for the
        last `RUN_IDS_KEPT` runs: a run's ids never change, so a review reads no file after the first."""
        import threading
        from collections import OrderedDict

        import numpy as np

        key = (rec.id, rec.sha256)
        kept = self.__dict__.setdefault("_kept_run_ids", OrderedDict())
        lock = self.__dict__.setdefault("_kept_run_ids_lock", threading.Lock())
        with lock:
            if key in kept:
                kept.move_to_end(key)
                return kept[key]
        try:
            with np.load(rec.file, allow_pickle=False) as npz:
                ids = frozenset(npz["ids"].astype(str).tolist())
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise InputError(f"the file of run {rec.id} cannot be read ({exc}); restore the team files from a backup "
                             "or run the filter again.") from None
        with lock:
            kept[key] = ids
            while len(kept) > RUN_IDS_KEPT:
                kept.popitem(last=False)
        return ids

    # ------------------------------------------------------------------ served first
    @writes
    def flag_for_review(self, workspace_id: int, run_id: int, flags, *, by: str) -> int:
        """Send examples of a finished run to the front of every member's review queue, each with why
        (``flags``: rows with ``example_id``, ``reason`` and an optional ``score``, the strength that
        orders them: a DataFrame or dicts). All or nothing, in one transaction; an example already
        sent for the same reason is not sent twice (the database's unique index decides, so two
        curators sending the same rows at once add them once). The number of new rows."""
        self.require(workspace_id, by, "flag for review")
        rows = _flag_rows(flags)
        with self._write_as(workspace_id, by, "flag for review") as s:
            rec = self._run_in(s, workspace_id, run_id)
            if rec.status != "done":
                raise InputError(f"run {run_id} is not finished; examples are sent to the review of finished runs.")
            known = self._run_ids(rec)
            stray = [r["example_id"] for r in rows if r["example_id"] not in known]
            if stray:
                raise InputError(f"{len(stray):,} of the {len(rows):,} examples are not run {run_id}'s (the first: "
                                 f"{stray[0][:80]!r}); send the rows of the data the run scored. Nothing was sent.")
            return _insert_new(s, [dict(r, run_id=int(run_id), created_by=by.lower()) for r in rows])

    def review_flags(self, workspace_id: int, run_id: int, *, by: str) -> pd.DataFrame:
        """The examples sent to the front of the run's queue (``example_id, reason, score,
        created_by, created_at``), strongest first; an example sent for two reasons is two rows.
        Why an example was sent is no one's decision, so blind review shows it too."""
        self.require(workspace_id, by, "read")
        with self.Session() as s:
            self._run_in(s, workspace_id, run_id)
            rows = s.execute(select(ReviewFlag.example_id, ReviewFlag.reason, ReviewFlag.score, ReviewFlag.created_by,
                                    ReviewFlag.created_at).where(ReviewFlag.run_id == run_id)
                             .order_by(ReviewFlag.score.desc().nulls_last(), ReviewFlag.id)).all()
        return pd.DataFrame(rows, columns=["example_id", "reason", "score", "created_by", "created_at"])

    @writes
    def clear_review_flags(self, workspace_id: int, run_id: int, *, reason: Optional[str] = None, by: str) -> int:
        """Take examples off the front of the run's queue (those sent for ``reason``, or all): the
        cue is fixed, say. Decisions already made on them stay. The number of rows taken off."""
        self.require(workspace_id, by, "flag for review")
        if reason is not None:
            check_text(reason, "the reason", REASON_MAX)
        with self._write_as(workspace_id, by, "flag for review") as s:
            self._run_in(s, workspace_id, run_id)
            gone = s.execute(delete(ReviewFlag).where(ReviewFlag.run_id == run_id,
                                                      *(() if reason is None else (ReviewFlag.reason == reason,))))
            return int(gone.rowcount or 0)

    @writes
    def review(self, workspace_id: int, run_id: int, example_id: str, decision: str, note: str = "", *,
               by: str, seen: Optional[int] = None) -> int:
        """Record one decision on one example (a new row: the history is kept), under the
        workspace's current guidelines. ``seen``: the example's `example_stamp` when it was shown to
        the member; if another decision on it has been made since, nothing is written (`Changed`)."""
        self.require(workspace_id, by, "review")
        if decision != "agree" and not str(note).strip():
            raise InputError(f"overriding the filter ({decision}) needs a note that says why.")
        return self._decide(workspace_id, run_id, example_id, decision, note, by, "review", _stamp(seen))

    @writes
    def adjudicate(self, workspace_id: int, run_id: int, example_id: str, decision: str, note: str, *,
                   by: str, seen: Optional[int] = None) -> int:
        """A curator's or owner's decision that settles a dispute on one example, recorded as an
        adjudication (it is the team's word under every dispute rule; it is not a review, so it
        does not count in the reviewers' agreement). Always with a note. ``seen`` as in `review`."""
        self.require(workspace_id, by, "adjudicate")
        if not str(note).strip():
            raise InputError("an adjudication needs a note that says why this decision settles the dispute.")
        return self._decide(workspace_id, run_id, example_id, decision, note, by, "adjudication", _stamp(seen))

    def _review_rows(self, workspace_id: int, run_id: int, example_id: Optional[str] = None) -> pd.DataFrame:
        with self.Session() as s:
            self._run_in(s, workspace_id, run_id)
            query = select(Review.id, Review.example_id, Review.reviewer, Review.decision, Review.note,
                           Review.created_at, Review.kind, Review.guidelines_id).where(Review.run_id == run_id)
            if example_id is not None:
                query = query.where(Review.example_id == str(example_id))
            rows = s.execute(query.order_by(Review.id)).all()
            blind = bool(s.get(Workspace, workspace_id).blind)
        return pd.DataFrame(rows, columns=_COLUMNS), blind

    def reviews(self, workspace_id: int, run_id: int, *, by: str, latest: bool = True,
                unblinded: bool = False) -> pd.DataFrame:
        """Reviews and adjudications of a run (``id, example_id, reviewer, decision, note,
        created_at, kind, guidelines_id``, in the order they were made); with ``latest`` only each
        reviewer's last decision of each kind on each example. In a blind workspace only the
        member's own rows, and all rows of the examples the member has decided on; adjudicators
        (curators, owners) read every row with ``unblinded``."""
        self.require(workspace_id, by, "adjudicate" if unblinded else "read")
        frame, blind = self._review_rows(workspace_id, run_id)
        if blind and not unblinded and len(frame):
            mine = frame["reviewer"] == by.lower()
            frame = frame[mine | frame["example_id"].isin(frame.loc[mine, "example_id"])]
        if latest and len(frame):
            frame = frame.drop_duplicates(["example_id", "reviewer", "kind"], keep="last")
        return frame.reset_index(drop=True)

    def example_reviews(self, workspace_id: int, run_id: int, example_id: str, *, by: str,
                        unblinded: bool = False) -> pd.DataFrame:
        """The whole history of one example (the `reviews` columns). In a blind workspace a member
        who has not decided on it yet is refused (adjudicators may read it ``unblinded``)."""
        self.require(workspace_id, by, "adjudicate" if unblinded else "read")
        frame, blind = self._review_rows(workspace_id, run_id, example_id)
        if blind and not unblinded and not (frame["reviewer"] == by.lower()).any() and len(frame):
            raise NotAllowed(f"review in this workspace is blind: decide on example {str(example_id)[:40]!r} before "
                             "reading others' decisions on it.")
        return frame.reset_index(drop=True)

    def review_counts(self, workspace_id: int, run_id: int, *, by: str) -> dict:
        """Example id -> how many reviewers have decided on it (counts only: no decision is
        revealed, so the queue can gather reviews per example in a blind workspace too)."""
        self.require(workspace_id, by, "read")
        with self.Session() as s:
            self._run_in(s, workspace_id, run_id)
            rows = s.execute(select(Review.example_id, func.count(func.distinct(Review.reviewer)))
                             .where(Review.run_id == run_id, Review.kind == "review")
                             .group_by(Review.example_id)).all()
        return {str(e): int(n) for e, n in rows}

    def review_stamp(self, workspace_id: int, run_id: int, *, by: str) -> tuple:
        """(number of reviews, newest review id) of a run: reviews are append-only, so this
        names the state of its reviews (a cache key that changes with every new decision)."""
        self.require(workspace_id, by, "read")
        with self.Session() as s:
            self._run_in(s, workspace_id, run_id)
            count, newest = s.execute(select(func.count(Review.id), func.max(Review.id))
                                      .where(Review.run_id == run_id)).one()
        return int(count), int(newest or 0)

    def progress(self, workspace_id: int, run_id: int, *, by: str) -> pd.DataFrame:
        """Examples reviewed per reviewer (latest decisions; counts only, so blind review shows them)."""
        self.require(workspace_id, by, "read")
        with self.Session() as s:
            self._run_in(s, workspace_id, run_id)
            rows = s.execute(select(Review.reviewer, func.count(func.distinct(Review.example_id)))
                             .where(Review.run_id == run_id, Review.kind == "review")
                             .group_by(Review.reviewer).order_by(Review.reviewer)).all()
        return pd.DataFrame(rows, columns=["reviewer", "reviewed"])

    def guidelines_of_reviews(self, workspace_id: int, run_id: int, *, by: str) -> list:
        """Which guidelines versions the run's decisions were made under: ``[{version,
        created_at, created_by, decisions}]`` (version None: before any guidelines), for the manifest."""
        self.require(workspace_id, by, "read")
        with self.Session() as s:
            self._run_in(s, workspace_id, run_id)
            rows = s.execute(select(Review.guidelines_id, func.count(Review.id)).where(Review.run_id == run_id)
                             .group_by(Review.guidelines_id)).all()
            versions = {g.id: g for g in s.scalars(select(Guidelines).where(Guidelines.workspace_id == workspace_id))}
        out = []
        for version, count in sorted(rows, key=lambda r: (r[0] is not None, r[0] or 0)):
            g = versions.get(version)
            out.append({"version": version, "decisions": int(count),
                        "created_at": None if g is None else str(g.created_at),
                        "created_by": None if g is None else g.created_by})
        return out


def _flag_rows(flags) -> list:
    """``flags`` as checked dicts (example_id, reason, score); InputError naming the first bad row."""
    if isinstance(flags, pd.DataFrame):
        flags = flags.to_dict("records")
    try:
        rows = list(flags)
    except TypeError:
        raise InputError("the examples to send are rows with example_id, reason and score (a table or a list of "
                         f"dicts), not {type(flags).__name__}.") from None
    if not rows:
        raise InputError("there are no examples to send to the review queue.")
    if len(rows) > FLAGS_MAX:
        raise InputError(f"{len(rows):,} examples is more than one call sends ({FLAGS_MAX:,}); send the rows of "
                         "fewer cues at a time.")
    out, seen = [], set()
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or not {"example_id", "reason"} <= set(row):
            raise InputError(f"row {i} of the examples to send has no example_id and reason; each row needs both.")
        example_id = check_text(_as_id(row["example_id"]), f"row {i}'s example id", EXAMPLE_ID_MAX)
        reason = check_text(row["reason"], f"row {i}'s reason", REASON_MAX).strip()
        if not reason:
            raise InputError(f"row {i}'s reason is empty; say why the example is sent (e.g. the cue it carries).")
        score = row.get("score")
        if score is not None and not (isinstance(score, numbers.Real) and not isinstance(score, bool)):
            raise InputError(f"row {i}'s score is a number (the cue's strength) or empty, not {score!r}.")
        if score is not None and not math.isfinite(float(score)):
            if math.isnan(float(score)):
                score = None
            else:
                raise InputError(f"row {i}'s score is {score!r}; give a finite number or none.")
        if (example_id, reason) not in seen:   # the same row twice in one call is one row
            seen.add((example_id, reason))
            out.append({"example_id": example_id, "reason": reason, "score": None if score is None else float(score)})
    return out


def _as_id(value) -> str:
    """An example id as the run stores it (text; an integer id read from a CSV as a number too)."""
    if isinstance(value, bool) or value is None:
        raise InputError(f"an example id is text, not {value!r}.")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return value if isinstance(value, str) else str(value)


def _insert_new(s, rows: list) -> int:
    """Insert ``rows`` into review_flags, skipping those the unique index already holds (on either
    database: its own ON CONFLICT DO NOTHING); how many were new."""
    if s.bind.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert

    stamp = now()
    statement = insert(ReviewFlag).on_conflict_do_nothing(index_elements=["run_id", "example_id", "reason"])
    new = s.execute(statement.returning(ReviewFlag.id), [dict(r, created_at=stamp) for r in rows]).all()
    return len(new)


def _stamp(seen) -> Optional[int]:
    """``seen`` as a decision id (None: not checked)."""
    if seen is None:
        return None
    if isinstance(seen, bool) or not isinstance(seen, int) or seen < 0:
        raise InputError(f"seen should be the id of the newest decision the member was shown (a whole number, 0 for "
                         f"none), not {seen!r}.")
    return int(seen)
