"""The team's agreement on the current run (issue 22): `core.workflow.team_agreement` at the live
τ/n, with the workspace's dispute rule, the labels and the dataset's top artifact features; cached
by everything it depends on (a new review, the rule, a role under the ``senior`` rule, τ/n)."""
from __future__ import annotations

from core.workflow import artifact_carriers, team_agreement
from dashboard import current
from dashboard.server import server
from dashboard.team import scope

__all__ = ["of_run", "summary"]


def of_run(run, run_id: int, *, tau=None, n=None) -> dict:
    """``agreement``, ``grid``, ``best``, ``tau``, ``n`` (`core.workflow.team_agreement`) of the
    run's reviews at τ/n (default the live τ/n)."""
    ws = scope()
    stamp, rule = ws.review_stamp(run_id), ws.dispute_rule()
    roles = dict(ws.members()[["email", "role"]].itertuples(index=False)) if rule == "senior" else {}
    if tau is None or n is None:
        tau, n = current.live_values(run)
    ds = current.dataset()

    def compute():
        features = artifact_carriers(current.zstats(), current.feature_matrix()) if ds.text else None
        found = team_agreement(run, ws.reviews(run_id), current.review_standing(run_id), tau=tau, target_size=n,
                               labels=ds.table[ds.label], features=features)
        return dict(found, dispute_rule=rule)

    return server().cache.get_or_compute(
        "agreement", (run_id, stamp, rule, tuple(sorted(roles.items())), float(tau), int(n)), compute)


def summary(found: dict) -> dict:
    """What an export manifest and an evaluation report record of the team's agreement."""
    a = found["agreement"].to_dict()
    return {"alpha": a["alpha"], "alpha_interval": a["alpha_interval"], "reviewers": a["reviewers"],
            "examples_reviewed": a["examples_reviewed"],
            "examples_reviewed_twice_or_more": a["examples_reviewed_twice_or_more"],
            "filter_kappa": (a["filter"] or {}).get("kappa"), "filter_agreement": (a["filter"] or {}).get("agreement"),
            "at": {"tau": found["tau"], "n": found["n"]}, "dispute_rule": found["dispute_rule"],
            "supported": found["best"]}
