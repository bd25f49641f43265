"""What the command line and the dashboard both do, written once.

The CLI parses arguments and prints; the dashboard submits jobs and shows them. Whatever
decides a result (which quality column a run removes by, and how that is recorded in the
run's key) lives here, so a run scored by one is found by the other.
"""
from __future__ import annotations

from typing import Mapping, Optional

import numpy as np

from core.errors import InputError

__all__ = ["quality_descriptor", "quality_components", "quality_column", "QUALITY_MIN_COUNT", "QUALITY_NN_DIM"]

#: the quality context's defaults (`core.quality.QualityContext.fit`), shared by both front ends
QUALITY_MIN_COUNT = 5
QUALITY_NN_DIM: Optional[int] = 64


def quality_descriptor(name: str, *, min_count: int = QUALITY_MIN_COUNT, nn_dim: Optional[int] = QUALITY_NN_DIM,
                       weights: Optional[Mapping] = None) -> dict:
    """What a quality-ordered run (paper 002) records as `core.runs.Run.quality`, part of its
    key: ``dqi`` or one component, and the knobs its values depend on. The representation is
    not in it: it is in the key already."""
    from core.quality import COMPONENTS, DEFAULT_WEIGHTS, DQI_COMPONENTS

    if name not in ("dqi", *COMPONENTS):
        raise InputError(f"quality {name!r} is not dqi or a component ({', '.join(COMPONENTS)}).")
    out = {"source": "core.quality", "name": name, "dqi_component": DQI_COMPONENTS.get(name, "combined"),
           "min_count": int(min_count), "nn_dim": None if nn_dim is None else int(nn_dim)}
    if name == "dqi":
        chosen = dict(DEFAULT_WEIGHTS) if weights is None else dict(weights)
        out["weights"] = {c: float(chosen.get(c, 0.0)) for c in COMPONENTS}
    return out


def quality_components(ds, rep, *, min_count: int = QUALITY_MIN_COUNT, nn_dim: Optional[int] = QUALITY_NN_DIM,
                       cache_dir=None, progress=None, cancel=None):
    """The per-example quality components of ``ds`` on Φ ``rep`` (float64, by id): what a
    quality-ordered run and the Quality page read."""
    from core.quality import COMPONENTS, quality_scores

    out = quality_scores(ds, representation=rep, min_count=int(min_count), nn_dim=nn_dim, cache_dir=cache_dir,
                         progress=progress, cancel=cancel)[list(COMPONENTS)]
    return out.astype(np.float64)


def quality_column(components, info: Mapping, ids) -> np.ndarray:
    """The values ``info`` (a `quality_descriptor`) names, aligned with ``ids``, from a table of
    the components (`core.quality.quality_scores` with ``info``'s knobs)."""
    from core.quality import combine, quality_for_aflite

    frame = components.assign(dqi=combine(components, info.get("weights"))) if info["name"] == "dqi" else components
    return quality_for_aflite(frame, info["name"], ids)
