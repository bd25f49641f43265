"""The team's agreement on one run (issue 22), assembled once for the CLI (``artifact-lens
agreement``) and the dashboard (the Review page, the manifest, the report): the reviews and their
standing under the workspace's dispute rule, the filter's keep/remove at τ/n as a rater, the
labels and the examples carrying the top artifact features."""
from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

from .agreement import agreement, side, supported_tau_n
from ..text.features import ids_with_feature

__all__ = ["team_agreement", "artifact_carriers", "dispute_roles", "ARTIFACT_FEATURES"]


def dispute_roles(ws, rule: str) -> dict:
    """email → role of a workspace's members when the dispute ``rule`` weighs roles (``senior``);
    empty otherwise (so a role change does not change what depends on the standing)."""
    return dict(ws.members()[["email", "role"]].itertuples(index=False)) if rule == "senior" else {}


#: how many of the most label-giving n-grams the filter-as-rater table looks at per feature
ARTIFACT_FEATURES = 8


def artifact_carriers(zs, fm, k: int = ARTIFACT_FEATURES) -> dict:
    """The ``k`` n-grams of highest z (the artifacts most likely to give a label away), each with
    the ids of the examples that carry it: what `core.team.agreement.agreement` takes as ``features``."""
    top = zs.table[zs.table["kind"] == "ngram"].drop_duplicates("feature").head(int(k))["feature"]
    found = {str(name): ids_with_feature(fm, name) for name in top}
    return {name: ids for name, ids in found.items() if len(ids)}


def team_agreement(run, reviews: pd.DataFrame, stand: pd.DataFrame, *, tau=None, target_size=None,
                   labels: Optional[pd.Series] = None, features: Optional[dict] = None, bootstrap: int = 1000,
                   seed: int = 0) -> dict:
    """The team's agreement on a run at τ/n (default the run's): ``agreement`` (a
    `core.team.agreement.Agreement`, the filter's keep/remove at that τ/n as a rater and the team's
    word from ``stand``, `core.team.review.standing` under the workspace's dispute rule), ``grid`` and
    ``best`` (`core.team.agreement.supported_tau_n`), ``tau`` and ``n``. ``reviews`` are each
    reviewer's latest decisions (`TeamStore.reviews`). What the Review page, the manifest, the
    report and ``artifact-lens agreement`` show."""
    live = run.result_for(tau=tau, target_size=target_size)
    tau_, n_ = run.trajectory.clamp(run.trajectory.tau if tau is None else tau,
                                    run.trajectory.n if target_size is None else target_size)
    ids = np.asarray(run.ids).astype(str)
    removed = pd.Series(~np.asarray(live["retained"], dtype=bool), index=ids)
    reviews = reviews[reviews["example_id"].astype(str).isin(removed.index)]   # warm-up examples are not scored
    team = None
    if len(stand):
        words = stand["decision"].reindex(removed.index.intersection(stand.index.astype(str)))
        team = pd.Series([side(d, not removed[i]) for i, d in words.items()], index=words.index, dtype=object)
    found = agreement(reviews, removed, team=team, labels=labels, features=features, bootstrap=bootstrap, seed=seed)
    grid = best = None
    if team is not None and len(team):
        grid, best = supported_tau_n(run, team, bootstrap=min(int(bootstrap), 200), seed=seed)
    return {"agreement": found, "grid": grid, "best": best, "tau": float(tau_), "n": int(n_)}
