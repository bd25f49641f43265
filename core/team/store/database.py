"""How the team store reaches its database: the URL checked and turned into an engine (SQLite
with WAL and write locks taken at BEGIN; PostgreSQL with a pool and a connect timeout), every
problem one InputError with the URL printed without its password (`core.base.settings.printable`)."""
from __future__ import annotations

import logging
from pathlib import Path

from sqlalchemy import create_engine, event
from sqlalchemy.pool import NullPool

from ...base.errors import InputError
from .checks import check_text
from ...base.settings import printable, settings

__all__ = ["default_url", "engine_of", "CONNECT_TIMEOUT"]

log = logging.getLogger(__name__)


def default_url() -> str:
    """``$ARTIFACT_LENS_DB_URL``, else a SQLite file in the cache folder."""
    return settings().db_url


#: seconds a database server may take to accept a connection before the tool says so
CONNECT_TIMEOUT = 15
#: seconds a connection waits for SQLite's write lock before the store says the database is locked
_LOCK_WAIT_S = 120


def engine_of(url: str):
    """The engine of ``url``, or one InputError that names what is wrong with it and the fix (the
    URL printed without its password): not a URL, a driver that is not installed, no file."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    example = "sqlite:////srv/lens/team.sqlite or postgresql+psycopg://USER:PASSWORD@HOST/DB"
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        raise InputError(f"{printable(url)!r} is not a database URL; give one such as {example} (--db or "
                         "ARTIFACT_LENS_DB_URL).") from None
    if parsed.drivername.split("+")[0] == "sqlite":
        if not parsed.database or parsed.database == ":memory:":
            raise InputError(f"the SQLite URL {printable(url)!r} names no file (a team store must outlive the process); "
                             "give one such as sqlite:////srv/lens/team.sqlite.")
        if "\0" in parsed.database:
            raise InputError("the SQLite URL holds a NUL character; give a file path.")
        Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        # a connection per use (no pool to run dry under many writers); they queue on SQLite's
        # lock with a busy timeout instead of failing
        try:
            engine = create_engine(url, poolclass=NullPool, connect_args={"timeout": _LOCK_WAIT_S})
        except (NoSuchModuleError, ImportError) as exc:
            raise InputError(f"cannot open {printable(url)!r}: {printable(exc)}; use the plain sqlite:/// driver.") from None
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "begin", _sqlite_begin)
        event.listen(engine, "before_cursor_execute", _check_parameters)
        return engine
    args = {"connect_timeout": CONNECT_TIMEOUT} if parsed.drivername.split("+")[0] == "postgresql" else {}
    try:
        # a server thread per active session may hold a connection at once: a pool of 5 (the
        # default) timed out under 20 concurrent reviewers; PostgreSQL allows 100 by default
        engine = create_engine(url, pool_pre_ping=True, pool_size=20, max_overflow=20, pool_timeout=120,
                               connect_args=args)
    except NoSuchModuleError:
        raise InputError(f"{parsed.drivername!r} in {printable(url)!r} is not a database this tool knows; give "
                         f"{example}.") from None
    except ImportError as exc:
        raise InputError(f"the database driver for {printable(url)!r} is not installed ({exc.name or exc}); for "
                         "PostgreSQL install the postgres extra: pip install 'artifact-lens[postgres]' and use "
                         "postgresql+psycopg://.") from None
    event.listen(engine, "before_cursor_execute", _check_parameters)
    return engine


def _check_parameters(conn, cursor, statement, parameters, context, executemany) -> None:
    """Every string a statement sends, read or write, on both databases: PostgreSQL refuses a NUL
    character with a raw DataError (a run key, a workspace name or an e-mail typed or linked with
    one) where SQLite would store or look it up silently; one clear error for both."""
    # rows of a many-row statement, or one row; a batched INSERT (insertmanyvalues) sends one flat row
    many = executemany and isinstance(parameters, (list, tuple)) and parameters and isinstance(parameters[0], (dict, tuple, list))
    rows = parameters if many else [parameters]
    for row in rows or ():
        for value in (row.values() if isinstance(row, dict) else row or ()):
            if isinstance(value, str):
                check_text(value, "a value given to the team store")


def _sqlite_begin(conn) -> None:
    # writes take the write lock at BEGIN: two check-then-write transactions cannot interleave
    conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("write") else "BEGIN")


def _sqlite_pragmas(dbapi_connection, _record):
    # the driver must not begin transactions itself: `_sqlite_begin` does, choosing the lock
    dbapi_connection.isolation_level = None
    # WAL: readers do not block the writer; a busy timeout instead of "database is locked"
    # (the timeout first: switching a fresh file to WAL waits for the lock like any write)
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout={int(_LOCK_WAIT_S * 1000)}")
    _switch_to_wal(cursor)
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _switch_to_wal(cursor) -> None:
    """Put the file in WAL mode, waiting for the lock. SQLite answers ``PRAGMA journal_mode=WAL``
    with "database is locked" at once, without its busy handler, while another connection holds
    the write lock of a file still in rollback mode: a fresh file opened by twenty stores at once
    (CI under load). So the switch is retried, backing off, for as long as the busy timeout."""
    import sqlite3
    import time

    waited, pause = 0.0, 0.005
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or waited >= _LOCK_WAIT_S:
                raise
            log.debug("waiting for SQLite's write lock to switch the team store to WAL")
            time.sleep(pause)
            waited += pause
            pause = min(pause * 2, 0.1)
