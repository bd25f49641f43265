"""Team review (`core.review` holds its rules): each reviewer's decisions on a run's examples,
with their history, progress, and the workspace's dispute rule.

Mixed into `core.store.TeamStore`; every method checks the member's role itself.
"""
from __future__ import annotations

import pandas as pd
from sqlalchemy import func, select

from core.errors import InputError
from core.review import DISPUTE_RULES
from core.store.models import DECISIONS, Review, Workspace

__all__ = ["ReviewsMixin", "EXAMPLE_ID_MAX"]

#: longest example id a review stores (its column's size)
EXAMPLE_ID_MAX = 200


class ReviewsMixin:
    def dispute_rule(self, workspace_id: int, *, by: str) -> str:
        """How the workspace settles reviewers who differ (a key of `core.review.DISPUTE_RULES`)."""
        self.require(workspace_id, by, "read")
        with self.Session() as s:
            return s.get(Workspace, workspace_id).dispute_rule

    def set_dispute_rule(self, workspace_id: int, rule: str, *, by: str) -> None:
        """Owners choose how disputes are settled; every review view follows at its next read."""
        self.require(workspace_id, by, "change settings")
        if rule not in DISPUTE_RULES:
            raise InputError(f"dispute rule {rule!r} is unknown; choose one of {', '.join(DISPUTE_RULES)}.")
        with self.Write.begin() as s:
            s.get(Workspace, workspace_id).dispute_rule = rule

    def review(self, workspace_id: int, run_id: int, example_id: str, decision: str, note: str = "", *,
               by: str) -> int:
        """Record one decision on one example (a new row: the history is kept)."""
        self.require(workspace_id, by, "review")
        if decision not in DECISIONS:
            raise InputError(f"decision {decision!r} is unknown; choose one of {', '.join(DECISIONS)}.")
        if decision != "agree" and not note.strip():
            raise InputError(f"overriding the filter ({decision}) needs a note that says why.")
        if len(str(example_id)) > EXAMPLE_ID_MAX:
            raise InputError(f"example id {str(example_id)[:40]!r}… is longer than {EXAMPLE_ID_MAX} characters, more "
                             "than reviews can store; give the dataset shorter ids (an id column).")
        with self.Write.begin() as s:
            if self._run_in(s, workspace_id, run_id).status != "done":
                raise InputError(f"run {run_id} is not finished; reviews attach to finished runs.")
            row = Review(run_id=run_id, example_id=str(example_id), decision=decision, note=note, reviewer=by.lower())
            s.add(row)
            s.flush()
            return row.id

    def reviews(self, workspace_id: int, run_id: int, *, by: str, latest: bool = True) -> pd.DataFrame:
        """Reviews of a run (``id, example_id, reviewer, decision, note, created_at``, in the
        order they were made); with ``latest`` only each reviewer's last decision on each example."""
        self.require(workspace_id, by, "read")
        with self.Session() as s:
            self._run_in(s, workspace_id, run_id)
            rows = s.execute(select(Review.id, Review.example_id, Review.reviewer, Review.decision, Review.note,
                                    Review.created_at).where(Review.run_id == run_id).order_by(Review.id)).all()
        frame = pd.DataFrame(rows, columns=["id", "example_id", "reviewer", "decision", "note", "created_at"])
        if latest and len(frame):
            frame = frame.drop_duplicates(["example_id", "reviewer"], keep="last")
        return frame.reset_index(drop=True)

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
        """Examples reviewed per reviewer (latest decisions)."""
        latest = self.reviews(workspace_id, run_id, by=by)
        return latest.groupby("reviewer").size().rename("reviewed").reset_index()
