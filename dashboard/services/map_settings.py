"""How the Map page draws: how many points and hover texts, which map the server computes in the
background (`core.base.settings`), and the key its maps are cached under."""
from __future__ import annotations

from typing import Optional

import numpy as np

from artifact_lens.base.settings import settings


def map_point_limit() -> int:
    """The most points the Map draws (``$ARTIFACT_LENS_MAP_POINTS``, `core.base.settings`)."""
    return settings().map_points


def map_text_limit() -> int:
    """Above this many drawn points the hover shows id and label only (``$ARTIFACT_LENS_MAP_TEXT_POINTS``)."""
    return settings().map_text_points


#: the most selected examples the Map lists as rows (the counts above the list cover them all)
MAP_LIST_ROWS = 1_000


def map_sample(n: int, keep=()) -> Optional[np.ndarray]:
    """Rows the Map draws of ``n`` points: None (all) up to `map_point_limit`; above it a sample
    of that many, seeded so every redraw shows the same points, plus the rows in ``keep`` (the
    selection), in increasing order."""
    limit = map_point_limit()
    if n <= limit:
        return None
    sample = np.random.default_rng(0).choice(n, limit, replace=False)
    return np.union1d(sample, np.asarray(keep, dtype=np.int64))


def map_method() -> str:
    """The map the dashboard computes in the background: ``$ARTIFACT_LENS_MAP`` ("umap" by
    default, "umap-parallel" is UMAP too; tests and previews use "pca", which needs no background job)."""
    return "umap" if settings().map.startswith("umap") else settings().map


def map_parallel() -> bool:
    """Whether UMAP runs on every core (``ARTIFACT_LENS_MAP=umap-parallel``): faster, but umap-learn
    runs one thread whenever it is seeded, so such a map is not reproducible (cached apart)."""
    return settings().map == "umap-parallel"


def projection_key(ds, rep) -> str:
    """The projection cache's key of Φ, the one ``artifact-lens project`` writes under."""
    from artifact_lens.representations.projection import representation_key

    return representation_key(ds, rep)
