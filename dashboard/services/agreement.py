"""The team's agreement on the current run (issue 22): `core.team.run_agreement.team_agreement` at the live
τ/n, with the workspace's dispute rule, the labels and the dataset's top artifact features; cached
by everything it depends on (a new review, the rule, a role under the ``senior`` rule, τ/n)."""
from __future__ import annotations

from artifact_lens.team.run_agreement import artifact_carriers, dispute_roles
from artifact_lens.usecases.agreement import may_read, run_agreement
from artifact_lens.usecases.evaluation import review_summary
from artifact_lens.dashboard.services import current, run_view
from artifact_lens.dashboard.services.team import scope

__all__ = ["of_run", "hidden", "manifest_record", "few_reviews", "chance_agreement", "FEW_REVIEWS"]

#: below this many reviewed examples, the τ/n the team supports is said to rest on too few
FEW_REVIEWS = 30


def hidden(tab) -> bool:
    """Whether the team's agreement is withheld from this member: review is blind and they do
    not adjudicate (the statistics would show others' decisions)."""
    return not may_read(scope(tab))


def of_run(tab, run, run_id: int, *, tau=None, n=None) -> dict:
    """``agreement``, ``grid``, ``best``, ``tau``, ``n`` (`core.team.run_agreement.team_agreement`) of the
    run's reviews at τ/n (default the live τ/n). Every review counts: in a blind workspace only
    adjudicators may ask (`hidden`)."""
    ws = scope(tab)
    stamp, rule = ws.review_stamp(run_id), ws.review_settings()["dispute_rule"]
    roles = dispute_roles(ws, rule)
    if tau is None or n is None:
        tau, n = run_view.live_values(tab, run)

    def compute():   # the per-feature table reads the session's cached z-statistics
        return run_agreement(ws, run_id, run, dataset=current.dataset(tab), tau=tau, target_size=n,
                             carriers=lambda: artifact_carriers(current.zstats(tab), current.feature_matrix(tab)))

    return tab.server.cache.get_or_compute(
        "agreement", run_view.reviews_key(run_id, stamp, rule, sorted(roles.items()), float(tau), int(n)), compute)


def manifest_record(tab, run, run_id: int) -> dict:
    """What an export's manifest says of the team's review: ``review_agreement`` (`summary`),
    ``review_settings`` (reviews per example, blind, dispute rule) and ``review_guidelines``
    (which guidelines versions the decisions were made under). Empty for a member from whom a
    blind review withholds it (annotators cannot export anyway)."""
    if hidden(tab):
        return {}
    ws = scope(tab)
    return {"review_agreement": review_summary(of_run(tab, run, run_id)), "review_settings": ws.review_settings(),
            "review_guidelines": ws.guidelines_of_reviews(run_id)}


def few_reviews(best: dict) -> str:
    """How many reviewed examples the supported τ/n rests on, and a warning when they are few."""
    n = int(best["examples"])
    return (f"It rests on {n:,} reviewed example{'s' if n != 1 else ''}" + (
        f": too few to lean on (fewer than {FEW_REVIEWS}); review more before moving τ/n by it." if n < FEW_REVIEWS
        else "."))


def chance_agreement(overall: dict):
    """The agreement of team and filter expected by chance, from the observed agreement and κ
    (κ = (p_o − p_e) / (1 − p_e)); None where κ is undefined. It is why 78 % agreement can sit
    beside κ ≈ 0: when both keep nearly everything, chance alone agrees that often."""
    p_o, kappa = (overall or {}).get("agreement"), (overall or {}).get("kappa")
    if p_o is None or kappa is None or not (kappa == kappa) or kappa >= 1:
        return None
    return (p_o - kappa) / (1 - kappa)
