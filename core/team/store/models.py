"""The team store's tables (SQLAlchemy 2). Large arrays live in files beside the database;
rows hold their paths and checksums. Reviews are append-only: a change of mind is a new row."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Optional

from sqlalchemy import JSON, Boolean, DateTime, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint, false
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

ROLES = ("owner", "curator", "annotator")
DECISIONS = ("agree", "keep", "remove")   # agree with the filter, keep anyway, remove anyway
REVIEW_KINDS = ("review", "adjudication")
RUN_STATUSES = ("running", "done", "interrupted", "failed")
SUBMISSION_STATUSES = ("submitted", "accepted", "rejected", "revised")   # revised: a newer version replaced it
VALIDATIONS = ("accept", "reject")


def now() -> datetime:
    return datetime.now(timezone.utc)


class Base(DeclarativeBase):
    pass


class Workspace(Base):
    __tablename__ = "workspaces"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    #: how reviewers who differ are settled (`core.team.review.DISPUTE_RULES`)
    dispute_rule: Mapped[str] = mapped_column(String(20), default="latest", server_default="latest")
    #: the queue serves an example until it has this many reviewers' decisions
    reviews_per_example: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    #: a reviewer sees no one else's decision on an example before deciding on it (the store enforces it)
    blind: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class Member(Base):
    __tablename__ = "members"
    __table_args__ = (UniqueConstraint("workspace_id", "email"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id"))
    email: Mapped[str] = mapped_column(String(320))
    role: Mapped[str] = mapped_column(String(20))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class DatasetRecord(Base):
    __tablename__ = "datasets"
    __table_args__ = (UniqueConstraint("workspace_id", "fingerprint"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id"))
    fingerprint: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(500))
    source: Mapped[str] = mapped_column(Text)
    roles: Mapped[dict] = mapped_column(JSON, default=dict)          # the column mapping
    created_by: Mapped[str] = mapped_column(String(320))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    deleted_at: Mapped[Optional[datetime]] = mapped_column(DateTime(timezone=True), nullable=True)
    deleted_by: Mapped[Optional[str]] = mapped_column(String(320), nullable=True)


class RunRecord(Base):
    __tablename__ = "runs"
    __table_args__ = (UniqueConstraint("workspace_id", "key"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id"))
    dataset_id: Mapped[int] = mapped_column(ForeignKey("datasets.id"))
    key: Mapped[str] = mapped_column(String(64))
    representation: Mapped[str] = mapped_column(Text)
    params: Mapped[dict] = mapped_column(JSON)
    seed: Mapped[Optional[int]] = mapped_column(Integer, nullable=True)
    versions: Mapped[dict] = mapped_column(JSON, default=dict)
    status: Mapped[str] = mapped_column(String(20), default="running", index=True)
    file: Mapped[Optional[str]] = mapped_column(Text, nullable=True)       # the trajectory, beside the database
    sha256: Mapped[Optional[str]] = mapped_column(String(64), nullable=True)
    created_by: Mapped[str] = mapped_column(String(320))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    updated_at: Mapped[Optional[datetime]] = mapped_column(DateTime(timezone=True), nullable=True)
    #: while running: the process at work on it (host:pid:token) and until when its lease holds
    holder: Mapped[Optional[str]] = mapped_column(String(200), nullable=True)
    lease_until: Mapped[Optional[datetime]] = mapped_column(DateTime(timezone=True), nullable=True)


class SavedView(Base):
    __tablename__ = "views"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id"))
    name: Mapped[str] = mapped_column(String(200))
    tau: Mapped[float] = mapped_column(Float)
    target_size: Mapped[int] = mapped_column(Integer)
    created_by: Mapped[str] = mapped_column(String(320))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class Review(Base):
    __tablename__ = "reviews"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id"), index=True)
    example_id: Mapped[str] = mapped_column(String(200), index=True)
    decision: Mapped[str] = mapped_column(String(20))
    note: Mapped[str] = mapped_column(Text, default="")
    reviewer: Mapped[str] = mapped_column(String(320))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    #: ``review`` (a reviewer's decision) or ``adjudication`` (a curator's or owner's, settling a dispute)
    kind: Mapped[str] = mapped_column(String(20), default="review", server_default="review")
    #: the workspace's review guidelines when the decision was made (None: there were none)
    guidelines_id: Mapped[Optional[int]] = mapped_column(Integer, nullable=True)


class ReviewFlag(Base):
    """An example a curator sent to the front of a run's review queue, and why: e.g. it carries a
    new cue `check` named (its z as ``score``). The same example for the same reason is one row
    (a unique index: sending the rows again adds nothing)."""

    __tablename__ = "review_flags"
    __table_args__ = (UniqueConstraint("run_id", "example_id", "reason", name="ux_review_flags_run_example_reason"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id"), index=True)
    example_id: Mapped[str] = mapped_column(String(200))
    reason: Mapped[str] = mapped_column(String(500))
    score: Mapped[Optional[float]] = mapped_column(Float, nullable=True)
    created_by: Mapped[str] = mapped_column(String(320))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class Guidelines(Base):
    """One version of a workspace's review guidelines (text, shown as text; never rendered)."""

    __tablename__ = "guidelines"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id"), index=True)
    text: Mapped[str] = mapped_column(Text)
    created_by: Mapped[str] = mapped_column(String(320))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class Submission(Base):
    """An example a creator wrote (paper 002 §3.2), with the feedback it was written against."""

    __tablename__ = "submissions"
    __table_args__ = (Index("ix_submissions_dataset_status", "dataset_id", "status"),
                      Index("ux_submissions_revises", "revises", unique=True))   # one revision per rejection
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id"))
    dataset_id: Mapped[int] = mapped_column(ForeignKey("datasets.id"))
    creator: Mapped[str] = mapped_column(String(320))
    fields: Mapped[dict] = mapped_column(JSON)                 # field name -> text
    label: Mapped[str] = mapped_column(String(200))
    feedback: Mapped[dict] = mapped_column(JSON)               # the snapshot shown when it was submitted
    status: Mapped[str] = mapped_column(String(20))
    revises: Mapped[Optional[int]] = mapped_column(ForeignKey("submissions.id"), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class Validation(Base):
    """A validator's decision on a submission (append-only; a reject carries a note)."""

    __tablename__ = "validations"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    __table_args__ = (Index("ux_validations_submission_id", "submission_id", unique=True),)   # one decision each
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id"))
    validator: Mapped[str] = mapped_column(String(320))
    decision: Mapped[str] = mapped_column(String(20))
    note: Mapped[str] = mapped_column(Text, default="")
    components: Mapped[dict] = mapped_column(JSON, default=dict)   # optional decision per quality component
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
