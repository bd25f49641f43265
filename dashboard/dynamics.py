"""Training dynamics of the current dataset on its Φ (issue 23), run like the other filters: a
curator submits the form, the cartography runs as a background job on the jobs' backend
(progress, Cancel), and its table is kept in the server's bounded cache by dataset, Φ and
options, so every member who asks for the same map gets it without recomputing."""
from __future__ import annotations

import hashlib
from typing import Optional

import numpy as np

from core import workflow
from dashboard import current, team
from dashboard.server import server
from dashboard.session import session

__all__ = ["start", "result", "job", "ended", "borders"]


def _key() -> Optional[tuple]:
    """The session's last submitted options, else the last ones anyone submitted for this dataset and
    Φ (so a teammate, an annotator too, sees the map a curator computed)."""
    sess = session()
    params = sess.dynamics_params or server().cache.peek("dynamics_last", (sess.ds_key, sess.spec))
    return (sess.ds_key, sess.spec, params) if params else None


def _job_key(key) -> str:
    return "dynamics:" + hashlib.sha256(repr(key).encode()).hexdigest()[:16]


def start(epochs: int, model: str, folds: int) -> None:
    """Start (or join) the cartography with these options; curators and owners."""
    team.require("run filters")
    sess = session()
    sess.dynamics_params = (int(epochs), str(model), int(folds))
    key = _key()
    cache = server().cache
    cache.put("dynamics_last", (sess.ds_key, sess.spec), sess.dynamics_params)
    if cache.peek("dynamics", key) is not None:
        return
    ds, rep = current.dataset(), current.representation()
    server().jobs.submit(_job_key(key), lambda ctx: cache.put("dynamics", key, ctx.offload(
        workflow.cartography, ds, rep, epochs=int(epochs), model=str(model), folds=int(folds))),
        name="Training dynamics")


def result():
    """The `core.cartography.Cartography` of the session's last submitted form, or None."""
    key = _key()
    return None if key is None else server().cache.peek("dynamics", key)


def job():
    key = _key()
    return None if key is None else server().jobs.get(_job_key(key))


def ended(found) -> None:
    server().jobs.forget(found.key)


def borders(found) -> tuple:
    """(variability at the ambiguous border, the confidence threshold) the regions were drawn with."""
    t, p = found.table, found.params
    return float(np.quantile(t["variability"], 1.0 - p["ambiguous_share"])), float(p["confidence_threshold"])
