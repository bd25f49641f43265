"""Training dynamics of the current dataset on its Φ (issue 23), run like the other filters: a
curator submits the form, the cartography runs as a background job on the jobs' backend
(progress, Cancel), and its table is kept in the server's bounded cache by dataset, Φ and
options, so every member who asks for the same map gets it without recomputing."""
from __future__ import annotations

from typing import Optional

import numpy as np

from artifact_lens.base.devices import where
from artifact_lens.base.keys import ResultKey
from artifact_lens.base.settings import settings
from artifact_lens.dynamics.cartography import dataset_dynamics
from artifact_lens.dashboard.services import cached_jobs, current, team

__all__ = ["start", "result", "job", "ended", "where_it_ran", "borders", "select_on_map", "joint_choice"]


def _key(tab) -> Optional[ResultKey]:
    """The session's last submitted options, else the last ones anyone submitted for this dataset and
    Φ (so a teammate, an annotator too, sees the map a curator computed)."""
    sess = tab.session
    params = sess.dynamics_params or cached_jobs.kept(tab, cached_jobs.DYNAMICS_LAST, current.named(tab, sess.spec))
    return current.named(tab, sess.spec, params) if params else None


def start(tab, epochs: int, model: str, folds: int) -> None:
    """Start (or join) the cartography with these options; curators and owners. It trains on the
    server's device (``ARTIFACT_LENS_DEVICE``; a GPU's map differs from the CPU's by float32
    rounding, so the device is part of the map's key)."""
    team.require(tab, "run filters")
    sess = tab.session
    device = settings().device
    # a map on the CPU keeps the key it always had (maps computed before stay found)
    ran = where(device)
    sess.dynamics_params = (int(epochs), str(model), int(folds)) + ((ran,) if ran != "cpu" else ())
    cached_jobs.keep(tab, cached_jobs.DYNAMICS_LAST, current.named(tab, sess.spec), sess.dynamics_params)
    ds, rep = current.dataset(tab), current.representation(tab)
    cached_jobs.start(tab, cached_jobs.DYNAMICS, _key(tab), lambda ctx: ctx.offload(
        dataset_dynamics, ds, rep, epochs=int(epochs), model=str(model), folds=int(folds), device=device,
        n_jobs=ctx.cores))


def result(tab):
    """The `core.dynamics.cartography.Cartography` of the session's last submitted form, or None."""
    return cached_jobs.result(tab, cached_jobs.DYNAMICS, _key(tab))


def job(tab):
    return cached_jobs.job(tab, cached_jobs.DYNAMICS, _key(tab))


ended = cached_jobs.ended


def where_it_ran(found) -> str:
    """Where and how long the map was trained, in words ("trained on the CPU in 3.1 s")."""
    device = found.params.get("device", "cpu")
    seconds = found.params.get("seconds")
    return ("trained on the CPU" if device == "cpu" else f"trained on {device}") + (
        f" in {seconds:.1f} s" if seconds is not None else "")


def borders(found) -> tuple:
    """(variability at the ambiguous border, the confidence threshold) the regions were drawn with."""
    t, p = found.table, found.params
    return float(np.quantile(t["variability"], 1.0 - p["ambiguous_share"])), float(p["confidence_threshold"])


def select_on_map(tab, ids) -> None:
    """Make ``ids`` the Map page's selection (its list, counts and review panel)."""
    sess = tab.session
    sess.map_selection, sess.map_selection_of = tuple(str(i) for i in ids), sess.ds_key


def joint_choice(model: str, epochs: int, seed: int) -> dict:
    """What a joint run (training dynamics, then AFLite) records and keys by
    (`core.dynamics.joint.descriptor`)."""
    from artifact_lens.dynamics.joint import descriptor

    return descriptor(model=model, epochs=int(epochs), random_state=int(seed))
