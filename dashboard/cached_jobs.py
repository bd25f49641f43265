"""Work whose result every member shares: a background job keyed by what it computes, its result
kept in the server's bounded cache under the same key, so asking again joins the job or reads the
result (z-filtering, consistency filtering, training dynamics, cues across splits)."""
from __future__ import annotations

import hashlib

from dashboard.server import server

__all__ = ["start", "result", "job", "ended"]


def _job_key(kind: str, key) -> str:
    return f"{kind}:" + hashlib.sha256(repr(key).encode()).hexdigest()[:16]


def start(kind: str, name: str, key, compute) -> None:
    """Submit ``compute(ctx)`` as job ``name`` unless its result is cached (or it is running)."""
    cache = server().cache
    if cache.peek(kind, key) is not None:
        return
    server().jobs.submit(_job_key(kind, key), lambda ctx: cache.put(kind, key, compute(ctx)), name=name)


def result(kind: str, key):
    """The cached result, or None (``key`` None: nothing asked yet)."""
    return None if key is None else server().cache.peek(kind, key)


def job(kind: str, key):
    return None if key is None else server().jobs.get(_job_key(kind, key))


def ended(found) -> None:
    """A finished job is forgotten (its result is in the cache; an error was shown once), so the
    page stops watching it."""
    server().jobs.forget(found.key)
