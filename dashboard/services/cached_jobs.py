"""Background jobs of the dashboard's services, typed by what they compute.

`submit` is the one way a service starts background work: a `core.base.jobs.JobKey` names the
job, and asking again while it runs joins it. On top of it, work whose result every member
shares (`start`, `result`, `job`): its result is kept in the server's bounded cache under the
same key and in the result store on disk (`core.results.stores.Results.shared`), so asking again
joins the job or reads the result, after a restart too (z-filtering, consistency filtering,
training dynamics, cues across splits). Services whose results have a store of their own (runs,
evaluations, maps, quality components) submit through `submit` and keep them there."""
from __future__ import annotations

import logging

from core.base.jobs import Job, JobKey
from core.base.keys import digest
from dashboard.process.server import server

__all__ = ["submit", "start", "result", "job", "ended", "keep", "kept"]

log = logging.getLogger(__name__)


def submit(spec: JobKey, work, *, name: str) -> Job:
    """Start ``work(ctx)`` as the job ``spec``, or join that job while it runs."""
    if not isinstance(spec, JobKey):
        raise TypeError(f"a job is named by a JobKey (kind, digest, about), not {type(spec).__name__}")
    return server().jobs.submit(spec, work, name=name)


def _job_key(kind: str, key) -> JobKey:
    return JobKey(kind, digest(repr(key)))


def _file_key(kind: str, key) -> str:
    return f"{kind}-" + digest(repr(key), 24)


def _stored(kind: str, key):
    """The result on disk (None when absent or damaged: a damaged file is logged and recomputed)."""
    from core.results.files import read_result

    shared, name = server().results.shared, _file_key(kind, key)
    if not shared.path(name).exists():   # a page rerun asks each time: nothing stored is one stat, no listing
        return None
    found = shared.load_or_none(name, read_result)
    if found is not None:
        server().cache.put(kind, key, found)
    return found


def _store(kind: str, key, value, on_disk: bool = True):
    """Keep ``value`` in memory and (``on_disk``) on disk; a result the file format cannot hold stays in memory."""
    from core.results.files import write_result

    server().cache.put(kind, key, value)
    if not on_disk:
        return value
    try:
        server().results.shared.save(_file_key(kind, key), lambda fh: write_result(fh, value))
    except (ValueError, TypeError, OSError) as exc:   # e.g. a table Parquet cannot hold; a full disk
        log.warning("the %s result is kept in memory only (%s)", kind, exc)
    return value


def start(kind: str, name: str, key, compute, *, on_disk: bool = True) -> None:
    """Submit ``compute(ctx)`` as job ``name`` unless its result is kept (or it is running).
    ``on_disk=False``: a result the result store cannot hold (fitted models), kept in memory only."""
    if result(kind, key) is not None:
        return
    submit(_job_key(kind, key), lambda ctx: _store(kind, key, compute(ctx), on_disk), name=name)


def result(kind: str, key):
    """The kept result, or None (``key`` None: nothing asked yet)."""
    if key is None:
        return None
    found = server().cache.peek(kind, key)
    return found if found is not None else _stored(kind, key)


def keep(kind: str, key, value) -> None:
    """A small value every member and a restart see (e.g. the options of the last map computed)."""
    _store(kind, key, value)


kept = result


def job(kind: str, key):
    return None if key is None else server().jobs.get(str(_job_key(kind, key)))


def ended(found) -> None:
    """A finished job is forgotten (its result is kept; an error was shown once), so the page
    stops watching it."""
    server().jobs.forget(found.key)
