"""The team store: workspaces, members and roles, datasets, runs, saved views and reviews.

SQLAlchemy 2 over a SQLite file by default (no set-up) or PostgreSQL by URL
(``postgresql+psycopg://…``, extra ``postgres``). The schema is versioned with Alembic;
`TeamStore` upgrades it when it opens. Every write is one transaction. Large arrays
(run trajectories) are files beside the database whose SHA-256 is stored and checked
on load. Reviews are append-only, so the history of every decision is kept.

Roles, per workspace: **owner** (members and workspaces, and everything below),
**curator** (loads data, runs filters, saves views, exports, reviews), **annotator**
(reviews, reads). Every action checks the role itself (`TeamStore.require`): hiding a
button is not enough.
"""
from __future__ import annotations

import hashlib
import logging
import os
import re
from pathlib import Path
from typing import Optional

import pandas as pd
from sqlalchemy import create_engine, event, func, select
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import sessionmaker

from core import paths
from core.errors import InputError
from core.runs import CorruptRun, Run
from core.store.models import (DECISIONS, ROLES, DatasetRecord, Member, Review, RunRecord, SavedView, Workspace)

__all__ = ["TeamStore", "NotAllowed", "ROLES", "DECISIONS", "default_url", "PERMISSIONS"]

log = logging.getLogger("artifact_lens.store")

#: action -> roles allowed to do it
PERMISSIONS = {
    "manage members": ("owner",),
    "load data": ("owner", "curator"),
    "run filters": ("owner", "curator"),
    "save views": ("owner", "curator"),
    "export": ("owner", "curator"),
    "review": ("owner", "curator", "annotator"),
    "read": ("owner", "curator", "annotator"),
}


class NotAllowed(InputError):
    """The member's role does not allow this action."""


def default_url() -> str:
    """``$ARTIFACT_LENS_DB_URL``, else a SQLite file in the cache folder."""
    return os.environ.get("ARTIFACT_LENS_DB_URL") or f"sqlite:///{paths.cache_dir() / 'team.sqlite'}"


def _safe(url: str) -> str:
    """The URL without its password, for messages."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", url)


class TeamStore:
    """Open (and migrate) the team store.

    Parameters
    ----------
    url : str, optional
        SQLAlchemy URL; default `default_url`.
    files : path, optional
        Folder for the run files; default ``<sqlite folder>/team-files`` or the cache.
    """

    def __init__(self, url: Optional[str] = None, files=None):
        self.url = url or default_url()
        if self.url.startswith("sqlite:///"):
            Path(self.url[len("sqlite:///"):]).parent.mkdir(parents=True, exist_ok=True)
        default_files = (Path(self.url[len("sqlite:///"):]).parent if self.url.startswith("sqlite:///")
                         else paths.cache_dir()) / "team-files"
        self.files = Path(files) if files is not None else default_files
        try:
            self.engine = create_engine(self.url, pool_pre_ping=True)
            if self.engine.dialect.name == "sqlite":
                event.listen(self.engine, "connect", _sqlite_pragmas)
            self.migrate()
        except OperationalError as exc:
            raise InputError(f"cannot reach the database at {_safe(self.url)} ({str(exc.orig).strip().splitlines()[0]}); "
                             "check ARTIFACT_LENS_DB_URL and that the database server is running.") from None
        self.Session = sessionmaker(self.engine, expire_on_commit=False)

    def migrate(self) -> str:
        """Upgrade the schema to the newest revision; returns it."""
        from alembic import command
        from alembic.config import Config
        from alembic.runtime.migration import MigrationContext

        cfg = Config()
        cfg.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
        with self.engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")
            return MigrationContext.configure(conn).get_current_revision()

    # ------------------------------------------------------------------ workspaces and roles
    def workspace(self, name: str, owner: str) -> int:
        """The workspace ``name``; a new one makes ``owner`` its owner."""
        with self.Session.begin() as s:
            ws = s.scalar(select(Workspace).where(Workspace.name == name))
            if ws is None:
                ws = Workspace(name=name)
                s.add(ws)
                s.flush()
                s.add(Member(workspace_id=ws.id, email=owner.lower(), role="owner"))
            return ws.id

    def role_of(self, workspace_id: int, email: str) -> Optional[str]:
        with self.Session() as s:
            return s.scalar(select(Member.role).where(Member.workspace_id == workspace_id,
                                                       Member.email == email.lower()))

    def require(self, workspace_id: int, email: str, action: str) -> str:
        """The member's role if it allows ``action``; else `NotAllowed` naming what is needed."""
        role = self.role_of(workspace_id, email)
        allowed = PERMISSIONS[action]
        if role not in allowed:
            raise NotAllowed(f"{email} {'has no role' if role is None else f'is {role}'} in this workspace; "
                             f"to {action} one needs to be {' or '.join(allowed)} (ask an owner).")
        return role

    def set_role(self, workspace_id: int, email: str, role: str, *, by: str) -> None:
        self.require(workspace_id, by, "manage members")
        if role not in ROLES:
            raise InputError(f"role {role!r} is unknown; choose one of {', '.join(ROLES)}.")
        with self.Session.begin() as s:
            member = s.scalar(select(Member).where(Member.workspace_id == workspace_id, Member.email == email.lower()))
            if member is None:
                s.add(Member(workspace_id=workspace_id, email=email.lower(), role=role))
            else:
                if member.role == "owner" and role != "owner" and s.scalar(
                        select(func.count()).where(Member.workspace_id == workspace_id, Member.role == "owner")) == 1:
                    raise InputError(f"{email} is the last owner of this workspace; make someone else owner first.")
                member.role = role

    def members(self, workspace_id: int) -> pd.DataFrame:
        with self.Session() as s:
            rows = s.execute(select(Member.email, Member.role, Member.created_at)
                             .where(Member.workspace_id == workspace_id).order_by(Member.email)).all()
        return pd.DataFrame(rows, columns=["email", "role", "since"])

    # ------------------------------------------------------------------ datasets and runs
    def save_dataset(self, workspace_id: int, dataset, *, source: str, roles: dict, by: str) -> int:
        self.require(workspace_id, by, "load data")
        with self.Session.begin() as s:
            found = s.scalar(select(DatasetRecord).where(DatasetRecord.workspace_id == workspace_id,
                                                         DatasetRecord.fingerprint == dataset.fingerprint))
            if found is not None:
                return found.id
            rec = DatasetRecord(workspace_id=workspace_id, fingerprint=dataset.fingerprint, name=dataset.name,
                                source=str(source), roles=dict(roles), created_by=by.lower())
            s.add(rec)
            s.flush()
            return rec.id

    def save_run(self, workspace_id: int, dataset_id: int, run: Run, *, by: str) -> int:
        """Store a finished run: its file first (atomic), then its row (one transaction)."""
        self.require(workspace_id, by, "run filters")
        path = run.save(self.files / f"ws{workspace_id}" / f"{run.key}.npz")
        digest = _sha256(path)
        with self.Session.begin() as s:
            rec = s.scalar(select(RunRecord).where(RunRecord.workspace_id == workspace_id, RunRecord.key == run.key))
            if rec is None:
                rec = RunRecord(workspace_id=workspace_id, dataset_id=dataset_id, key=run.key,
                                representation=run.representation, params=run.params,
                                seed=run.record.get("seed"), versions=run.versions, created_by=by.lower())
                s.add(rec)
            rec.status, rec.file, rec.sha256 = "done", str(path), digest
            s.flush()
            return rec.id

    def open_run(self, workspace_id: int, key: str, *, by: str) -> Run:
        """A saved run, from its file, after checking its checksum (`CorruptRun` if it differs)."""
        self.require(workspace_id, by, "read")
        with self.Session() as s:
            rec = s.scalar(select(RunRecord).where(RunRecord.workspace_id == workspace_id, RunRecord.key == key))
        if rec is None or rec.status != "done":
            raise InputError(f"no finished run {key} in this workspace; choose one from the list of runs.")
        path = Path(rec.file)
        if not path.exists() or _sha256(path) != rec.sha256:
            raise CorruptRun(f"the file of run {key} ({path}) is missing or does not match its checksum; "
                             "restore it from a backup or run the filter again.")
        return Run.load(path)

    def runs(self, workspace_id: int) -> pd.DataFrame:
        """Runs with who made them and when, newest first."""
        with self.Session() as s:
            rows = s.execute(select(RunRecord.key, RunRecord.representation, RunRecord.status, RunRecord.created_by,
                                    RunRecord.created_at, RunRecord.params)
                             .where(RunRecord.workspace_id == workspace_id).order_by(RunRecord.created_at.desc())).all()
        return pd.DataFrame(rows, columns=["key", "representation", "status", "created_by", "created_at", "params"])

    def run_id(self, workspace_id: int, key: str) -> int:
        with self.Session() as s:
            found = s.scalar(select(RunRecord.id).where(RunRecord.workspace_id == workspace_id, RunRecord.key == key))
        if found is None:
            raise InputError(f"no run {key} in this workspace.")
        return found

    def save_view(self, workspace_id: int, run_id: int, name: str, tau: float, target_size: int, *, by: str) -> int:
        self.require(workspace_id, by, "save views")
        with self.Session.begin() as s:
            view = SavedView(run_id=run_id, name=name, tau=float(tau), target_size=int(target_size), created_by=by.lower())
            s.add(view)
            s.flush()
            return view.id

    # ------------------------------------------------------------------ reviews
    def review(self, workspace_id: int, run_id: int, example_id: str, decision: str, note: str = "", *,
               by: str) -> int:
        """Record one decision on one example (a new row: the history is kept)."""
        self.require(workspace_id, by, "review")
        if decision not in DECISIONS:
            raise InputError(f"decision {decision!r} is unknown; choose one of {', '.join(DECISIONS)}.")
        if decision != "agree" and not note.strip():
            raise InputError(f"overriding the filter ({decision}) needs a note that says why.")
        with self.Session.begin() as s:
            row = Review(run_id=run_id, example_id=str(example_id), decision=decision, note=note, reviewer=by.lower())
            s.add(row)
            s.flush()
            return row.id

    def reviews(self, run_id: int, *, latest: bool = True) -> pd.DataFrame:
        """Reviews of a run (``example_id, reviewer, decision, note, created_at``); with ``latest``
        only each reviewer's last decision on each example."""
        with self.Session() as s:
            rows = s.execute(select(Review.id, Review.example_id, Review.reviewer, Review.decision, Review.note,
                                    Review.created_at).where(Review.run_id == run_id).order_by(Review.id)).all()
        frame = pd.DataFrame(rows, columns=["id", "example_id", "reviewer", "decision", "note", "created_at"])
        if latest and len(frame):
            frame = frame.drop_duplicates(["example_id", "reviewer"], keep="last")
        return frame.reset_index(drop=True)

    def disagreements(self, run_id: int) -> pd.DataFrame:
        """Examples whose reviewers' latest decisions differ: ``example_id`` and the decisions."""
        latest = self.reviews(run_id)
        if not len(latest):
            return pd.DataFrame(columns=["example_id", "decisions"])
        grouped = latest.groupby("example_id")["decision"].agg(lambda d: sorted(set(d)))
        split = grouped[grouped.map(len) > 1]
        return pd.DataFrame({"example_id": split.index, "decisions": split.to_numpy()}).reset_index(drop=True)

    def progress(self, run_id: int) -> pd.DataFrame:
        """Examples reviewed per reviewer (latest decisions)."""
        latest = self.reviews(run_id)
        return latest.groupby("reviewer").size().rename("reviewed").reset_index()


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _sqlite_pragmas(dbapi_connection, _record):
    # WAL: readers do not block the writer; a busy timeout instead of "database is locked"
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()
