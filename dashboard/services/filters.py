"""z-filtering and consistency filtering of the current dataset (paper 004), run like AFLite: a
curator submits the form, the work runs as a background job on the jobs' backend (progress, Cancel, the page stays
usable), and the result is kept in the server's bounded cache by dataset and parameters, so
every member who asks for the same filter gets it without recomputing."""
from __future__ import annotations

from typing import Optional

from artifact_lens.base.keys import ResultKey
from artifact_lens.zstats import compute_z, consistency_filter, z_filter
from artifact_lens.dashboard.services import current, team
from artifact_lens.dashboard.services.cached_jobs import CONSISTENCY, ZFILTER, ended, job, result, start

__all__ = ["zfilter_start", "zfilter_result", "zfilter_job", "consistency_start", "consistency_result",
           "consistency_job", "after_consistency", "ended"]


# ---------------------------------------------------------------------- z-filtering
def _zfilter_key(tab) -> Optional[ResultKey]:
    sess = tab.session
    return current.named(tab, sess.zfilter_params) if sess.zfilter_params else None


def zfilter_start(tab, params: tuple) -> None:
    """Start (or join) z-filtering with (batch size, k, min count, seed); curators and owners."""
    team.require(tab, "run filters")
    tab.session.zfilter_params = tuple(params)
    ds, (batch, k, min_count, seed) = current.dataset(tab), params
    start(tab, ZFILTER, _zfilter_key(tab), lambda ctx: ctx.offload(
        z_filter, ds, batch_size=batch, k=k, min_count=min_count, random_state=seed))


def zfilter_result(tab):
    """The `core.zstats.ZFilterResult` of the session's last submitted form, or None while it runs."""
    return result(tab, ZFILTER, _zfilter_key(tab))


def zfilter_job(tab):
    return job(tab, ZFILTER, _zfilter_key(tab))


# ---------------------------------------------------------------------- consistency filtering
def _consistency_key(tab) -> Optional[ResultKey]:
    sess = tab.session
    return current.named(tab, sess.consistency_params[1]) if sess.consistency_params else None


def consistency_start(tab, threshold: float, folds: int) -> None:
    """Start (or join) the cross-fitting of consistency filtering (one per dataset and folds;
    the threshold is applied afterwards, at once)."""
    team.require(tab, "run filters")
    tab.session.consistency_params = (float(threshold), int(folds))
    ds = current.dataset(tab)
    start(tab, CONSISTENCY, _consistency_key(tab), lambda ctx: ctx.offload(
        consistency_filter, ds, folds=int(folds)))


def consistency_result(tab):
    """The `core.zstats.ConsistencyResult` at the session's threshold, or None while it runs."""
    base = result(tab, CONSISTENCY, _consistency_key(tab))
    return None if base is None else base.with_threshold(tab.session.consistency_params[0])


def consistency_job(tab):
    return job(tab, CONSISTENCY, _consistency_key(tab))


def after_consistency(tab, result, min_count: int, alpha: float):
    """z-statistics of the examples consistency filtering keeps (cached by dataset and knobs)."""
    kept = result.scores.index[result.scores["kept"].to_numpy()]
    ds = current.dataset(tab)
    return current.cached(tab, "consistency-z", (tab.session.consistency_params, int(min_count), float(alpha)),
                          lambda: compute_z(ds.subset(kept), min_count=int(min_count), alpha=float(alpha)))
