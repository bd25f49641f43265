"""Creation with feedback (paper 002 §3.2, Fig. 1): creators submit examples with the feedback
they saw; validators accept or reject them (a note is compulsory on reject); a creator
revises a rejected example as a new submission that replaces it (history kept).
Accepted examples of a dataset form a new dataset version.

Mixed into `core.team.store.TeamStore`; every method checks the member's role itself.
"""
from __future__ import annotations


from typing import Optional

import pandas as pd
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from .scoped import writes
from ...base import paths
from ...base.errors import InputError
from ...base.keys import digest
from ...base.lights import LIGHTS
from .checks import Changed, check_text
from .models import VALIDATIONS, DatasetRecord, Submission, Validation, now
from .reviews import NOTE_MAX

__all__ = ["SubmissionsMixin", "near_copy_of"]

#: the label's column in the table of earlier submissions (a name no text field has)
_LABEL = "\x00label"


def near_copy_of(earlier, fields: dict, label: str) -> Optional[str]:
    """Why (fields, label) may not be submitted beside ``earlier`` (rows of id, fields, label), or
    None: the same text sent twice, or one word of it changed with the same label
    (`core.text.duplicates.DuplicateIndex`)."""
    from ...text.duplicates import DuplicateIndex

    if not earlier:
        return None
    table = pd.DataFrame([{f: (d or {}).get(f, "") for f in fields} for _, d, _ in earlier],
                         index=[str(i) for i, _, _ in earlier]).assign(**{_LABEL: [str(x) for _, _, x in earlier]})
    near = DuplicateIndex(table, list(fields), label=_LABEL).near({**fields, _LABEL: label}, k=1)
    if not near:
        return None
    shared = ("the same words but one, and the same label" if near[0]["how"] == "one word" else
              f"{near[0]['overlap']:.0%} of the wording shared in every field")
    return (f"this example is a near-duplicate of submission {near[0]['id']} ({shared}); change it, or revise that one "
            "if it was rejected.")



class SubmissionsMixin:
    @writes
    def submit(self, workspace_id: int, dataset_id: int, fields: dict, label: str, feedback: dict, *, by: str,
               revises: Optional[int] = None) -> int:
        """Store a new example (fields, label) with the feedback snapshot it was written
        against; ``revises`` names the creator's own rejected submission it replaces. Refused
        (InputError naming the earlier one) when it nearly duplicates a submission of the same
        dataset (`near_copy_of`): the check runs inside the write with the dataset's row locked, so
        two near-copies sent at once cannot both land."""
        self.require(workspace_id, by, "create")
        fields = {str(k): str(v) for k, v in dict(fields).items()}
        if not fields or not any(v.strip() for v in fields.values()):
            raise InputError("the example has no text; write its fields before submitting.")
        if not str(label).strip():
            raise InputError("the example has no label; choose one before submitting.")
        try:
            with self._write_as(workspace_id, by, "create") as s:
                self._in_workspace(s, DatasetRecord, dataset_id, workspace_id, "dataset")
                # submissions of one dataset queue here (PostgreSQL; SQLite's writes are serial)
                s.execute(select(DatasetRecord.id).where(DatasetRecord.id == dataset_id).with_for_update())
                earlier = s.execute(select(Submission.id, Submission.fields, Submission.label).where(
                    Submission.dataset_id == dataset_id, Submission.id != (revises or 0))).all()
                refusal = near_copy_of(earlier, fields, str(label))
                if refusal:
                    raise InputError(refusal)
                if revises is not None:
                    old = self._in_workspace(s, Submission, revises, workspace_id, "submission")
                    if old.creator != by.lower():
                        raise InputError(f"submission {revises} is not one of yours in this workspace.")
                    # conditional: of two revisions at once, one changes the row and the other finds it revised
                    if s.execute(update(Submission).where(Submission.id == revises, Submission.status == "rejected")
                                 .values(status="revised")).rowcount != 1:
                        s.refresh(old)
                        raise InputError(f"submission {revises} is {old.status}; only a rejected example is revised.")
                row = Submission(workspace_id=workspace_id, dataset_id=dataset_id, creator=by.lower(), fields=fields,
                                 label=str(label), feedback=dict(feedback or {}), status="submitted", revises=revises,
                                 created_at=now())
                s.add(row)
                s.flush()
                return row.id
        except IntegrityError:   # the unique index on `revises`: another revision won
            raise InputError(f"submission {revises} was revised already.") from None

    @writes
    def validate(self, workspace_id: int, submission_id: int, decision: str, note: str = "", *, by: str,
                 components: Optional[dict] = None) -> int:
        """Accept or reject a submitted example (a reject needs a note: the creator learns
        from it). Validators do not validate their own examples."""
        self.require(workspace_id, by, "validate")
        if decision not in VALIDATIONS:
            raise InputError(f"decision {decision!r} is unknown; choose one of {', '.join(VALIDATIONS)}.")
        check_text(note, "the note", NOTE_MAX)
        if decision == "reject" and not note.strip():
            raise InputError("a rejection needs a note that tells the creator what to change.")
        try:
            with self._write_as(workspace_id, by, "validate") as s:
                sub = self._in_workspace(s, Submission, submission_id, workspace_id, "submission")
                if sub.creator == by.lower():
                    raise InputError("you wrote this example; another validator decides on it.")
                # conditional: of two validators at once, one decides and the other finds it decided
                if s.execute(update(Submission).where(Submission.id == submission_id, Submission.status == "submitted")
                             .values(status="accepted" if decision == "accept" else "rejected")).rowcount != 1:
                    s.refresh(sub)
                    raise Changed(f"submission {submission_id} is {sub.status} already (decided since it was shown "
                                  "to you); your decision was not saved.")
                row = Validation(submission_id=submission_id, validator=by.lower(), decision=decision,
                                 note=note.strip(), components=dict(components or {}), created_at=now())
                s.add(row)
                s.flush()
                return row.id
        except IntegrityError:   # the unique index: one decision per submission
            raise Changed(f"submission {submission_id} was decided already (since it was shown to you); your "
                          "decision was not saved.") from None

    def submissions(self, workspace_id: int, *, by: str, dataset_id: Optional[int] = None,
                    creator: Optional[str] = None, status: Optional[str] = None) -> pd.DataFrame:
        """Submissions with their latest decision (oldest first): ``id, dataset_id, creator,
        fields, label, feedback, status, revises, created_at, validator, decision, note``."""
        self.require(workspace_id, by, "read")
        q = select(Submission).where(Submission.workspace_id == workspace_id)
        if dataset_id is not None:
            q = q.where(Submission.dataset_id == dataset_id)
        if creator is not None:
            q = q.where(Submission.creator == creator.lower())
        if status is not None:
            q = q.where(Submission.status == status)
        cols = ["id", "dataset_id", "creator", "fields", "label", "feedback", "status", "revises", "created_at"]
        with self.Session() as s:
            subs = s.scalars(q.order_by(Submission.id)).all()
            ids = [x.id for x in subs]
            last = {}
            if ids:
                for v in s.scalars(select(Validation).where(Validation.submission_id.in_(ids)).order_by(Validation.id)):
                    last[v.submission_id] = (v.validator, v.decision, v.note)
        rows = [[getattr(x, c) for c in cols] + list(last.get(x.id, (None, None, None))) for x in subs]
        return pd.DataFrame(rows, columns=cols + ["validator", "decision", "note"])

    def accepted_examples(self, workspace_id: int, dataset_id: int, *, by: str) -> pd.DataFrame:
        """The accepted examples of a dataset as a table (``id`` = ``sub-<n>``, the fields,
        ``label``, ``creator``): the rows of its next dataset version."""
        subs = self.submissions(workspace_id, by=by, dataset_id=dataset_id, status="accepted")
        if not len(subs):
            return pd.DataFrame(columns=["id", "label", "creator"])
        table = pd.DataFrame(list(subs["fields"]))
        table.insert(0, "id", [f"sub-{i}" for i in subs["id"]])
        table["label"] = subs["label"].to_numpy()
        table["creator"] = subs["creator"].to_numpy()
        return table

    @writes
    def save_version(self, workspace_id: int, dataset_id: int, table: pd.DataFrame, *, by: str) -> str:
        """Keep a new version of a workspace's dataset (``table``: its rows and its accepted
        examples, `core.team.versions.with_accepted`) as a Parquet file in the store's folder,
        named by the dataset and the table's content (the same version is one file); its path,
        which the Data page loads like any other source."""
        self.require(workspace_id, by, "load data")
        with self.Session() as s:
            self._in_workspace(s, DatasetRecord, dataset_id, workspace_id, "dataset")
        content = digest(pd.util.hash_pandas_object(table.astype(str), index=False).to_numpy().tobytes(), 12)
        path = self.files / f"ws{workspace_id}" / "data" / f"version-{int(dataset_id)}-{content}.parquet"
        if not path.exists():
            paths.atomic_write(path, lambda fh: table.to_parquet(fh, index=False))
        return str(path)

    def creator_lights(self, workspace_id: int, *, by: str) -> pd.DataFrame:
        """Per creator and day, how many submissions were red, yellow and green overall when
        submitted: whether feedback teaches creators (paper 002's H2)."""
        subs = self.submissions(workspace_id, by=by)
        if not len(subs):
            return pd.DataFrame(columns=["creator", "day", *LIGHTS])
        light = subs["feedback"].map(lambda f: (f or {}).get("light", ""))
        frame = pd.DataFrame({"creator": subs["creator"], "day": pd.to_datetime(subs["created_at"]).dt.date,
                              "light": light})
        counts = frame.pivot_table(index=["creator", "day"], columns="light", aggfunc="size", fill_value=0)
        return counts.reindex(columns=list(LIGHTS), fill_value=0).reset_index()
