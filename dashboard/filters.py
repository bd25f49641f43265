"""z-filtering and consistency filtering of the current dataset (paper 004), run like AFLite: a
curator submits the form, the work runs as a background job on the jobs' backend (progress, Cancel, the page stays
usable), and the result is kept in the server's bounded cache by dataset and parameters, so
every member who asks for the same filter gets it without recomputing."""
from __future__ import annotations

import hashlib
from typing import Optional

from core.zstats import compute_z, consistency_filter, z_filter
from dashboard import current, team
from dashboard.server import server
from dashboard.session import session

__all__ = ["zfilter_start", "zfilter_result", "zfilter_job", "consistency_start", "consistency_result",
           "consistency_job", "after_consistency", "ended"]


def _job_key(kind: str, key) -> str:
    return f"{kind}:" + hashlib.sha256(repr(key).encode()).hexdigest()[:16]


def _start(kind: str, name: str, key, compute) -> None:
    cache = server().cache
    if cache.peek(kind, key) is not None:
        return
    server().jobs.submit(_job_key(kind, key), lambda ctx: cache.put(kind, key, compute(ctx)), name=name)


def ended(job) -> None:
    """A finished filter job is forgotten (its result is in the cache; an error was shown once),
    so the page stops watching it."""
    server().jobs.forget(job.key)


# ---------------------------------------------------------------------- z-filtering
def _zfilter_key() -> Optional[tuple]:
    sess = session()
    return (sess.ds_key, sess.zfilter_params) if sess.zfilter_params else None


def zfilter_start(params: tuple) -> None:
    """Start (or join) z-filtering with (batch size, k, min count, seed); curators and owners."""
    team.require("run filters")
    session().zfilter_params = tuple(params)
    ds, (batch, k, min_count, seed) = current.dataset(), params
    _start("zfilter", "z-filtering", _zfilter_key(), lambda ctx: ctx.offload(
        z_filter, ds, batch_size=batch, k=k, min_count=min_count, random_state=seed))


def zfilter_result():
    """The `core.zstats.ZFilterResult` of the session's last submitted form, or None while it runs."""
    key = _zfilter_key()
    return None if key is None else server().cache.peek("zfilter", key)


def zfilter_job():
    key = _zfilter_key()
    return None if key is None else server().jobs.get(_job_key("zfilter", key))


# ---------------------------------------------------------------------- consistency filtering
def _consistency_key() -> Optional[tuple]:
    sess = session()
    return (sess.ds_key, sess.consistency_params[1]) if sess.consistency_params else None


def consistency_start(threshold: float, folds: int) -> None:
    """Start (or join) the cross-fitting of consistency filtering (one per dataset and folds;
    the threshold is applied afterwards, at once)."""
    team.require("run filters")
    session().consistency_params = (float(threshold), int(folds))
    ds = current.dataset()
    _start("consistency", "consistency filtering", _consistency_key(), lambda ctx: ctx.offload(
        consistency_filter, ds, folds=int(folds)))


def consistency_result():
    """The `core.zstats.ConsistencyResult` at the session's threshold, or None while it runs."""
    key = _consistency_key()
    base = None if key is None else server().cache.peek("consistency", key)
    return None if base is None else base.with_threshold(session().consistency_params[0])


def consistency_job():
    key = _consistency_key()
    return None if key is None else server().jobs.get(_job_key("consistency", key))


def after_consistency(result, min_count: int, alpha: float):
    """z-statistics of the examples consistency filtering keeps (cached by dataset and knobs)."""
    kept = result.scores.index[result.scores["kept"].to_numpy()]
    ds = current.dataset()
    return current.cached("consistency-z", (session().consistency_params, int(min_count), float(alpha)),
                          lambda: compute_z(ds.subset(kept), min_count=int(min_count), alpha=float(alpha)))
