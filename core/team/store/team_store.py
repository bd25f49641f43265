"""`TeamStore`: the store's implementation (the package `core.team.store` says what it holds)."""
from __future__ import annotations

import contextlib
import logging
import math
import numbers
import os
import socket
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Optional

import pandas as pd
from sqlalchemy import event, func, select, text
from sqlalchemy.exc import DatabaseError, IntegrityError, OperationalError
from sqlalchemy.orm import sessionmaker

from ...base import paths
from ...base.errors import InputError
from ...base.keys import digest
from ...results.runs import CorruptRun, Run
from .models import (Base, DECISIONS, ROLES, RUN_STATUSES, DatasetRecord, Member, RunRecord, SavedView,
                     Workspace, now)
from .checks import NotAllowed, check_strings, check_text
from .database import default_url, engine_of
from .scoped import Scoped, writes
from .reviews import ReviewsMixin
from .submissions import SubmissionsMixin
from ...base.settings import printable, settings

__all__ = ["TeamStore", "NotAllowed", "ROLES", "DECISIONS", "RUN_STATUSES", "default_url", "PERMISSIONS",
           "DEFAULT_WORKSPACE", "LOCAL_USER", "LOCAL_WORKSPACE", "file_sha256"]

log = logging.getLogger("artifact_lens.store")

#: action -> roles allowed to do it
PERMISSIONS = {
    "manage members": ("owner",),
    "delete data": ("owner", "curator"),
    "load data": ("owner", "curator"),
    "run filters": ("owner", "curator"),
    "save views": ("owner", "curator"),
    "export": ("owner", "curator"),
    "review": ("owner", "curator", "annotator"),
    "create": ("owner", "curator", "annotator"),      # write examples with feedback (paper 002 §3.2)
    "validate": ("owner", "curator"),
    "adjudicate": ("owner", "curator"),             # settle a dispute between reviewers, read blind reviews
    "flag for review": ("owner", "curator"),        # send examples (a new cue's rows) to the front of the queue
    "read": ("owner", "curator", "annotator"),
    "change settings": ("owner",),
}


#: this process as the holder of the runs it computes: a restarted server can reuse a pid (pid 1 in
#: a container), never the token
HOLDER = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"

#: the workspace a fresh instance's first owner gets
DEFAULT_WORKSPACE = "default"
#: longest workspace or view name (their columns' size: PostgreSQL refuses longer, SQLite would not)
_NAME_MAX = 200
_EMAIL_MAX = 320
#: single-user mode (no sign-in configured): this user owns the workspace "local". Not an
#: e-mail address, so no one signs in as it.
LOCAL_USER, LOCAL_WORKSPACE = "local", "local"


class TeamStore(ReviewsMixin, SubmissionsMixin):
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
        default_files = (Path(self.url[len("sqlite:///"):]).parent if self.url.startswith("sqlite:///")
                         else paths.cache_dir()) / "team-files"
        self.files = Path(files) if files is not None else default_files
        self.engine = engine_of(self.url)
        try:
            self.migrate()
        except OperationalError as exc:
            reason = printable(str(exc.orig).strip().splitlines()[0] if str(exc.orig).strip() else type(exc.orig).__name__)
            raise InputError(f"cannot reach the database at {printable(self.url)} ({reason}); check ARTIFACT_LENS_DB_URL "
                             "and that the database server is running.") from None
        except DatabaseError as exc:   # a file that is not a database, a server that is not one
            self.engine.dispose()
            raise InputError(f"{printable(self.url)} is not a team database this tool can open "
                             f"({printable(str(exc.orig).strip()[:200])}); give the URL of the team store, or a "
                             "new file name for a new one.") from None
        # reads, and writes: every write is one transaction that takes SQLite's write lock at
        # its start (BEGIN IMMEDIATE), so a check inside it cannot be overtaken by another writer
        self.Session = sessionmaker(self.engine, expire_on_commit=False)
        self.Write = sessionmaker(self.engine.execution_options(write=True), expire_on_commit=False)
        for maker in (self.Session, self.Write):
            event.listen(maker, "before_flush", check_strings)

    def scoped(self, workspace: int, email: str):
        """This store as the member ``email``'s handle on ``workspace`` (`core.team.store.scoped.Scoped`:
        a binding, not a check; the store checks the role at each call)."""
        return Scoped(self, workspace, email)

    def close(self) -> None:
        """Close the store's pooled connections (a process that opens stores one after another,
        such as a test run, would otherwise keep each one's idle connections to the server)."""
        self.engine.dispose()

    def __enter__(self) -> "TeamStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def migrate(self) -> str:
        """Upgrade the schema to the newest revision; returns it."""
        from alembic import command
        from alembic.config import Config
        from alembic.runtime.migration import MigrationContext

        from alembic.util.exc import CommandError

        cfg = Config()
        cfg.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
        # one migrating process at a time: SQLite's write lock (BEGIN IMMEDIATE), PostgreSQL's
        # advisory lock for this transaction; the others wait, then find the schema at head
        with self.engine.execution_options(write=True).begin() as conn:
            if conn.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(74604311)"))
            cfg.attributes["connection"] = conn
            cfg.attributes["metadata"] = Base.metadata
            try:
                command.upgrade(cfg, "head")
            except CommandError as exc:
                found = MigrationContext.configure(conn).get_current_revision()
                raise InputError(f"the team database at {printable(self.url)} is at schema revision {found!r}, which this "
                                 f"Artifact Lens does not know ({exc}): it was made by a newer Artifact Lens. Upgrade "
                                 "artifact-lens, or point ARTIFACT_LENS_DB_URL at another database.") from None
            return MigrationContext.configure(conn).get_current_revision()

    # ------------------------------------------------------------------ workspaces and roles
    @writes
    def workspace(self, name: str, owner: str) -> int:
        """The workspace ``name``; a new one makes ``owner`` its owner."""
        with self.Write.begin() as s:
            ws = s.scalar(select(Workspace).where(Workspace.name == name))
            if ws is None:
                ws = Workspace(name=name)
                s.add(ws)
                s.flush()
                s.add(Member(workspace_id=ws.id, email=owner.lower(), role="owner"))
            return ws.id

    @writes
    def bootstrap(self, email: str, *, owner: Optional[str] = None) -> None:
        """Called at each sign-in. With an ``owner`` setting that address owns the default
        workspace (created, or promoted if a member already); without one, the first person
        to sign in to a fresh instance (no signed-in members yet) owns it. Of two first
        sign-ins at once, the unique workspace name lets exactly one win."""
        with self.Session() as s:
            others = s.scalar(select(func.count()).select_from(Member).where(Member.email != LOCAL_USER))
        if owner is None and others:
            return
        try:
            ws = self.workspace(DEFAULT_WORKSPACE, owner=owner or email)
        except IntegrityError:
            log.info("another sign-in created the default workspace first")
            return
        if owner is not None:
            with self.Write.begin() as s:
                member = s.scalar(select(Member).where(Member.workspace_id == ws, Member.email == owner.lower()))
                if member is None:
                    s.add(Member(workspace_id=ws, email=owner.lower(), role="owner"))
                elif member.role != "owner":
                    member.role = "owner"

    def workspaces_of(self, email: str) -> list:
        """``[(workspace_id, name, role), ...]`` of the member, by name."""
        with self.Session() as s:
            rows = s.execute(select(Workspace.id, Workspace.name, Member.role).join(Member)
                             .where(Member.email == email.lower()).order_by(Workspace.name)).all()
        return [tuple(r) for r in rows]

    @writes
    def create_workspace(self, name: str, *, by: str) -> int:
        """A new workspace owned by ``by``, who must own a workspace already."""
        name = name.strip()
        if not name:
            raise InputError("give the new workspace a name.")
        if len(name) > _NAME_MAX:
            raise InputError(f"a workspace name has at most {_NAME_MAX} characters ({len(name)} given); shorten it.")
        if not any(role == "owner" for _, _, role in self.workspaces_of(by)):
            raise NotAllowed(f"{by} owns no workspace; only owners create workspaces (ask an owner).")
        taken = InputError(f"a workspace called {name!r} exists already; choose another name.")
        try:
            with self.Write.begin() as s:   # the unique name decides a race between two owners
                if s.scalar(select(Workspace.id).where(Workspace.name == name)) is not None:
                    raise taken
                ws = Workspace(name=name)
                s.add(ws)
                s.flush()
                s.add(Member(workspace_id=ws.id, email=by.lower(), role="owner"))
                return ws.id
        except IntegrityError:
            raise taken from None

    def role_of(self, workspace_id: int, email: str) -> Optional[str]:
        check_text(email, "the e-mail address", _EMAIL_MAX)
        if not _valid_id(workspace_id):
            return None
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

    @writes
    def set_role(self, workspace_id: int, email: str, role: str, *, by: str) -> None:
        self.require(workspace_id, by, "manage members")
        if role not in ROLES:
            raise InputError(f"role {role!r} is unknown; choose one of {', '.join(ROLES)}.")
        if not 3 <= len(email.strip()) <= _EMAIL_MAX or "@" not in email:
            raise InputError(f"{email[:80]!r} is not an e-mail address (at most {_EMAIL_MAX} characters); type the "
                             "address the identity provider sends.")
        email = check_text(email.strip(), "the e-mail address", _EMAIL_MAX)
        with self._write_as(workspace_id, by, "manage members", members=True) as s:
            member = s.scalar(select(Member).where(Member.workspace_id == workspace_id, Member.email == email.lower()))
            if member is None:
                s.add(Member(workspace_id=workspace_id, email=email.lower(), role=role))
            else:
                if member.role == "owner" and role != "owner" and self._owners(s, workspace_id) == 1:
                    raise InputError(f"{email} is the last owner of this workspace; make someone else owner first.")
                member.role = role

    @writes
    def remove_member(self, workspace_id: int, email: str, *, by: str) -> None:
        """Take ``email`` out of the workspace (owners only): from the next request on they can
        read, review and export nothing in it. The last owner cannot be removed."""
        self.require(workspace_id, by, "manage members")
        email = check_text(str(email).strip(), "the e-mail address", _EMAIL_MAX).lower()
        with self._write_as(workspace_id, by, "manage members", members=True) as s:
            member = s.scalar(select(Member).where(Member.workspace_id == workspace_id, Member.email == email))
            if member is None:
                raise InputError(f"{email} is not a member of this workspace.")
            if member.role == "owner" and self._owners(s, workspace_id) == 1:
                raise InputError(f"{email} is the last owner of this workspace; make someone else owner first.")
            s.delete(member)

    @contextlib.contextmanager
    def _write_as(self, workspace_id: int, by: str, action: str, *, members: bool = False):
        """One write transaction in which ``by``'s role is checked for ``action`` before anything is
        written: the member's row is read with a share lock (PostgreSQL; SQLite's write transactions
        are serial already), so a demotion or removal lands wholly before the check, and is refused
        here, or waits until this write has committed. ``members``: lock the workspace's members first
        (a change of roles), so two owners demoting each other are serialised, never deadlocked."""
        with self.Write.begin() as s:
            if members:
                self._lock_members(s, workspace_id)
            role = s.scalar(select(Member.role).where(Member.workspace_id == workspace_id,
                                                      Member.email == str(by).lower()).with_for_update(read=True))
            if role not in PERMISSIONS[action]:
                raise NotAllowed(f"{by} {'has no role' if role is None else f'is {role}'} in this workspace now; to "
                                 f"{action} one needs to be {' or '.join(PERMISSIONS[action])} (ask an owner).")
            yield s

    @staticmethod
    def _lock_members(s, workspace_id: int) -> None:
        """Serialise changes to a workspace's members: the workspace row is locked on PostgreSQL
        (SQLite's write transactions are serial already), so "at least one owner" is checked
        and written with no other change in between."""
        s.execute(select(Workspace.id).where(Workspace.id == workspace_id).with_for_update())

    @staticmethod
    def _owners(s, workspace_id: int) -> int:
        return s.scalar(select(func.count()).where(Member.workspace_id == workspace_id, Member.role == "owner"))

    def members(self, workspace_id: int, *, by: str) -> pd.DataFrame:
        self.require(workspace_id, by, "read")
        with self.Session() as s:
            rows = s.execute(select(Member.email, Member.role, Member.created_at)
                             .where(Member.workspace_id == workspace_id).order_by(Member.email)).all()
        return pd.DataFrame(rows, columns=["email", "role", "since"])

    # ------------------------------------------------------------------ datasets and runs
    @writes
    def save_dataset(self, workspace_id: int, dataset, *, source: str, roles: dict, by: str,
                     name: Optional[str] = None) -> int:
        """Record a dataset (by fingerprint: saving it again returns the same id, and brings
        back one that was removed); ``name`` is its name for people (default its own)."""
        self.require(workspace_id, by, "load data")
        with self._write_as(workspace_id, by, "load data") as s:
            found = s.scalar(select(DatasetRecord).where(DatasetRecord.workspace_id == workspace_id,
                                                         DatasetRecord.fingerprint == dataset.fingerprint))
            if found is not None:
                found.deleted_at = found.deleted_by = None
                return found.id
            rec = DatasetRecord(workspace_id=workspace_id, fingerprint=dataset.fingerprint, name=name or dataset.name,
                                source=str(source), roles=dict(roles), created_by=by.lower())
            s.add(rec)
            s.flush()
            return rec.id

    @writes
    def keep_file(self, workspace_id: int, path, *, by: str) -> str:
        """A copy of an uploaded file beside the database (the server's upload cache may evict
        it), so the workspace's runs can always reload their dataset; its path. Only files in
        the upload folder are kept: no other file of the server is copied into team files."""
        self.require(workspace_id, by, "load data")
        path = Path(path)
        uploads = (paths.cache_dir() / "uploads").resolve()
        if uploads not in path.resolve().parents or not path.is_file():
            raise NotAllowed(f"{path.name} is not an uploaded file; only uploads are copied into the team files.")
        dest = self.files / f"ws{workspace_id}" / "data" / path.name
        if not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            paths.atomic_write(dest, lambda fh: fh.write(path.read_bytes()))
        return str(dest)

    def datasets(self, workspace_id: int, *, by: str) -> pd.DataFrame:
        """The workspace's datasets (not deleted): ``id, name, source, roles, fingerprint, created_by, created_at``."""
        self.require(workspace_id, by, "read")
        with self.Session() as s:
            rows = s.execute(select(DatasetRecord.id, DatasetRecord.name, DatasetRecord.source, DatasetRecord.roles,
                                    DatasetRecord.fingerprint, DatasetRecord.created_by, DatasetRecord.created_at)
                             .where(DatasetRecord.workspace_id == workspace_id, DatasetRecord.deleted_at.is_(None))
                             .order_by(DatasetRecord.created_at.desc())).all()
        return pd.DataFrame(rows, columns=["id", "name", "source", "roles", "fingerprint", "created_by", "created_at"])

    @writes
    def delete_dataset(self, workspace_id: int, dataset_id: int, *, by: str) -> None:
        """Hide a dataset and its runs from the workspace. Nothing is erased: the rows, run
        files and reviews stay (a backup restores by clearing ``deleted_at``)."""
        self.require(workspace_id, by, "delete data")
        with self._write_as(workspace_id, by, "delete data") as s:
            rec = self._in_workspace(s, DatasetRecord, dataset_id, workspace_id, "dataset")
            rec.deleted_at, rec.deleted_by = now(), by.lower()

    @writes
    def begin_run(self, workspace_id: int, dataset_id: int, key: str, *, representation: str, params: dict,
                  seed: Optional[int], versions: dict, by: str) -> int:
        """Record a run as started (status "running"), held by this process with a lease its
        server renews (`renew_leases`); a run whose lease runs out is marked interrupted by any
        server on the database (`recover`). A run that is done already is left as it is."""
        self.require(workspace_id, by, "run filters")
        with self._write_as(workspace_id, by, "run filters") as s:
            self._in_workspace(s, DatasetRecord, dataset_id, workspace_id, "dataset")
            rec = s.scalar(select(RunRecord).where(RunRecord.workspace_id == workspace_id, RunRecord.key == key))
            if rec is None:
                rec = RunRecord(workspace_id=workspace_id, dataset_id=dataset_id, key=key, representation=representation,
                                params=params, seed=seed, versions=versions, created_by=by.lower(), status="running")
                s.add(rec)
            elif rec.status != "done":
                rec.status, rec.created_by, rec.created_at = "running", by.lower(), now()
            if rec.status == "running":
                rec.holder, rec.lease_until = HOLDER, now() + timedelta(seconds=settings().run_lease)
            rec.updated_at = now()
            s.flush()
            return rec.id

    @writes
    def save_run(self, workspace_id: int, dataset_id: int, run: Run, *, by: str) -> int:
        """Store a finished run: its file first (atomic, checksummed), then its row (one
        transaction). A crash between the two leaves a file and no "done" row: never a row
        that points at a missing or partial file."""
        self.require(workspace_id, by, "run filters")
        with self.Session() as s:
            self._in_workspace(s, DatasetRecord, dataset_id, workspace_id, "dataset")
            rec = s.scalar(select(RunRecord).where(RunRecord.workspace_id == workspace_id, RunRecord.key == run.key))
            if rec is not None and rec.status == "done":
                return rec.id
        path = run.save(self.files / f"ws{workspace_id}" / f"{run.key}.npz")
        checksum = file_sha256(path)
        with self._write_as(workspace_id, by, "run filters") as s:
            self._in_workspace(s, DatasetRecord, dataset_id, workspace_id, "dataset")
            rec = s.scalar(select(RunRecord).where(RunRecord.workspace_id == workspace_id, RunRecord.key == run.key))
            if rec is None:
                rec = RunRecord(workspace_id=workspace_id, dataset_id=dataset_id, key=run.key,
                                representation=run.representation, params=run.params,
                                seed=run.record.get("seed"), versions=run.versions, created_by=by.lower())
                s.add(rec)
            rec.status, rec.file, rec.sha256, rec.updated_at = "done", str(path), checksum, now()
            rec.holder = rec.lease_until = None
            s.flush()
            return rec.id

    @writes
    def end_run(self, workspace_id: int, key: str, status: str, *, by: str) -> None:
        """Mark a run that did not finish: "failed" (an error) or "interrupted" (cancelled)."""
        self.require(workspace_id, by, "run filters")
        if status not in ("failed", "interrupted"):
            raise InputError(f"a run ends as failed or interrupted, not {status!r}.")
        with self._write_as(workspace_id, by, "run filters") as s:
            rec = s.scalar(select(RunRecord).where(RunRecord.workspace_id == workspace_id, RunRecord.key == key))
            if rec is not None and rec.status == "running":
                rec.status, rec.updated_at = status, now()
                rec.holder = rec.lease_until = None

    @writes
    def renew_leases(self) -> int:
        """The heartbeat: extend the lease of every run this process holds (how many). Its
        server calls it every third of ``ARTIFACT_LENS_RUN_LEASE``."""
        until = now() + timedelta(seconds=settings().run_lease)
        with self.Write.begin() as s:
            held = s.scalars(select(RunRecord).where(RunRecord.status == "running", RunRecord.holder == HOLDER)).all()
            for rec in held:
                rec.lease_until = until
            return len(held)

    @writes
    def recover(self, *, own: bool = True) -> int:
        """Mark "interrupted" every running run whose process is gone: its lease ran out (a
        crash, a kill, a stop; no heartbeat since) or it has none (a row from before leases);
        with ``own`` (a server's start) also the runs this process held, which a previous server
        of the same process left, and the half-written run files of dead writers are swept. Runs
        another live server holds are left alone. How many."""
        if own:   # at a start only: the heartbeat does not walk the run files every beat
            swept = paths.remove_stale_temporaries(self.files, recursive=True)   # half-written run files
            if swept:
                log.info("removed %d temporary file(s) of interrupted writes in %s", swept, self.files)
        moment = now()
        with self.Write.begin() as s:
            running = s.scalars(select(RunRecord).where(RunRecord.status == "running")).all()
            stale = [rec for rec in running if _status_seen(rec.status, rec.lease_until, moment) == "interrupted"
                     or (own and rec.holder == HOLDER)]
            for rec in stale:
                rec.status, rec.updated_at = "interrupted", moment
                rec.holder = rec.lease_until = None
            if stale:
                log.warning("%d run(s) were interrupted (their process is gone): %s", len(stale),
                            ", ".join(r.key for r in stale))
            return len(stale)

    @writes
    def discard_run(self, workspace_id: int, key: str, *, by: str) -> None:
        """Forget an interrupted or failed run (a finished run is kept: reviews point at it)."""
        self.require(workspace_id, by, "run filters")
        with self._write_as(workspace_id, by, "run filters") as s:
            rec = s.scalar(select(RunRecord).where(RunRecord.workspace_id == workspace_id, RunRecord.key == key))
            if rec is None:
                raise InputError(f"no run {key} in this workspace.")
            status = _status_seen(rec.status, rec.lease_until, now())
            if status not in ("interrupted", "failed"):
                raise InputError(f"run {key} is {status}; only interrupted or failed runs can be discarded.")
            s.delete(rec)

    def run_record(self, workspace_id: int, key: str, *, by: str) -> Optional[dict]:
        """The run's row with its dataset's source and column mapping (to reopen it), or None."""
        self.require(workspace_id, by, "read")
        with self.Session() as s:
            row = s.execute(select(RunRecord, DatasetRecord).join(DatasetRecord, RunRecord.dataset_id == DatasetRecord.id)
                            .where(RunRecord.workspace_id == workspace_id, RunRecord.key == key,
                                   DatasetRecord.deleted_at.is_(None))).first()
        if row is None:
            return None
        run, ds = row
        return {"id": run.id, "key": run.key, "status": _status_seen(run.status, run.lease_until, now()),
                "representation": run.representation,
                "params": run.params, "created_by": run.created_by, "created_at": run.created_at,
                "dataset_id": ds.id, "dataset": ds.name, "source": ds.source, "roles": ds.roles,
                "fingerprint": ds.fingerprint}

    def open_run(self, workspace_id: int, key: str, *, by: str) -> Run:
        """A saved run, from its file, after checking its checksum (`CorruptRun` if it differs)."""
        self.require(workspace_id, by, "read")
        with self.Session() as s:
            rec = s.scalar(select(RunRecord).join(DatasetRecord, RunRecord.dataset_id == DatasetRecord.id)
                           .where(RunRecord.workspace_id == workspace_id, RunRecord.key == key,
                                  DatasetRecord.deleted_at.is_(None)))
        if rec is None or rec.status != "done":
            raise InputError(f"no finished run {key} in this workspace; choose one from the list of runs.")
        path = Path(rec.file)
        if not path.exists() or file_sha256(path) != rec.sha256:
            raise CorruptRun(f"the file of run {key} ({path.name}) is missing or does not match its checksum; "
                             "restore the team files from a backup or run the filter again.")
        return Run.load(path)

    def runs(self, workspace_id: int, *, by: str) -> pd.DataFrame:
        """Runs of the workspace's datasets with who made them and when, newest first."""
        self.require(workspace_id, by, "read")
        with self.Session() as s:
            rows = s.execute(select(RunRecord.key, DatasetRecord.name, RunRecord.representation, RunRecord.status,
                                    RunRecord.created_by, RunRecord.created_at, RunRecord.params, RunRecord.lease_until)
                             .join(DatasetRecord, RunRecord.dataset_id == DatasetRecord.id)
                             .where(RunRecord.workspace_id == workspace_id, DatasetRecord.deleted_at.is_(None))
                             .order_by(RunRecord.created_at.desc(), RunRecord.id.desc())).all()
        moment = now()
        rows = [(*r[:3], _status_seen(r[3], r[7], moment), *r[4:7]) for r in rows]
        return pd.DataFrame(rows, columns=["key", "dataset", "representation", "status", "created_by", "created_at",
                                           "params"])

    def run_id(self, workspace_id: int, key: str, *, by: str) -> int:
        self.require(workspace_id, by, "read")
        with self.Session() as s:
            found = s.scalar(select(RunRecord.id).where(RunRecord.workspace_id == workspace_id, RunRecord.key == key))
        if found is None:
            raise InputError(f"no run {key} in this workspace.")
        return found

    @writes
    def save_view(self, workspace_id: int, run_id: int, name: str, tau: float, target_size: int, *, by: str) -> int:
        self.require(workspace_id, by, "save views")
        if not name.strip():
            raise InputError("give the view a name.")
        if len(name.strip()) > _NAME_MAX:
            raise InputError(f"a view name has at most {_NAME_MAX} characters ({len(name.strip())} given); shorten it.")
        if isinstance(tau, bool) or not isinstance(tau, numbers.Real) or not 0 <= tau <= 1:
            raise InputError(f"a view's τ is a number from 0 to 1, not {tau!r}.")
        if isinstance(target_size, bool) or not isinstance(target_size, numbers.Real) or not (
                math.isfinite(target_size) and target_size == int(target_size) and 1 <= target_size <= 2 ** 62):
            raise InputError(f"a view's n is a whole number of examples (at least 1), not {target_size!r}.")
        with self._write_as(workspace_id, by, "save views") as s:
            if self._run_in(s, workspace_id, run_id).status != "done":   # else discard_run would hit the view's key
                raise InputError(f"run {run_id} is not finished; views attach to finished runs.")
            view = SavedView(run_id=run_id, name=name.strip(), tau=float(tau), target_size=int(target_size),
                             created_by=by.lower())
            s.add(view)
            s.flush()
            return view.id

    def views(self, workspace_id: int, run_id: int, *, by: str) -> pd.DataFrame:
        """Saved views of a run: ``id, name, tau, target_size, created_by, created_at``, newest first."""
        self.require(workspace_id, by, "read")
        with self.Session() as s:
            self._run_in(s, workspace_id, run_id)
            rows = s.execute(select(SavedView.id, SavedView.name, SavedView.tau, SavedView.target_size,
                                    SavedView.created_by, SavedView.created_at)
                             .where(SavedView.run_id == run_id).order_by(SavedView.id.desc())).all()
        return pd.DataFrame(rows, columns=["id", "name", "tau", "target_size", "created_by", "created_at"])

    @staticmethod
    def _run_in(s, workspace_id: int, run_id: int, *, lock: bool = False) -> RunRecord:
        """The run, checked to belong to the workspace and to a dataset it still holds (an id
        from another workspace, or of a removed dataset, is refused). ``lock``: its row is locked
        for this transaction (PostgreSQL; SQLite's write transactions are serial already), so a
        check of its decisions holds until the write commits."""
        rec = s.get(RunRecord, run_id, with_for_update=True if lock else None) if _valid_id(run_id) else None
        if rec is None or rec.workspace_id != workspace_id or s.get(DatasetRecord, rec.dataset_id).deleted_at:
            raise InputError(f"no run {run_id} in this workspace; choose one from the list of runs.")
        return rec

    @staticmethod
    def _in_workspace(s, model, record_id, workspace_id: int, what: str):
        """The one way an id from a caller becomes a row: it must be a row of ``model`` in the
        caller's workspace (and not removed); anything else is "no such …" (an id of another
        workspace is not told apart from a missing one)."""
        rec = s.get(model, record_id) if _valid_id(record_id) else None
        if rec is None or rec.workspace_id != workspace_id or getattr(rec, "deleted_at", None) is not None:
            raise InputError(f"no {what} {record_id} in this workspace; choose one from the list.")
        return rec

    # ------------------------------------------------------------------ reviews


def _valid_id(value) -> bool:
    """A row id as the databases store it (a 32-bit positive integer; a larger one would be a
    raw DataError on PostgreSQL)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 2 ** 31


def _status_seen(status: str, lease_until: Optional[datetime], moment: datetime) -> str:
    """A run's status as every reader sees it: "running" only while its lease holds. A run
    whose process died reads as interrupted at once, whether or not a live server has marked
    it yet (a server's heartbeat starts with its first page session, and every server may be gone)."""
    if status == "running" and (lease_until is None or _aware(lease_until) < moment):
        return "interrupted"
    return status


def _aware(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes (stored in UTC); PostgreSQL aware ones."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


def file_sha256(path: Path) -> str:
    """The whole SHA-256 of a file (64 hex digits), read in 1 MB blocks."""
    with open(path, "rb") as fh:
        return digest(iter(lambda: fh.read(1 << 20), b""), 64)
