"""The team's agreement on one run (issues 22 and 43): ``artifact-lens agreement``, ``certify
--run`` (reviewers' α), the Review page's Agreement tab, an export's manifest and the evaluation
report all call `run_agreement`, which holds the rules: under blind review only those who
adjudicate read it (it shows how others decided) and every decision counts; disputes are settled
by the workspace's rule (with roles when the rule weighs them); the filter's keep/remove at τ/n
is a rater beside the team; per-label and per-feature tables only on the data the run was made on."""
from __future__ import annotations

from typing import Callable, Optional

from ..base.errors import InputError
from ..team.run_agreement import artifact_carriers, dispute_roles, team_agreement
from ..team.store import PERMISSIONS, NotAllowed

__all__ = ["run_agreement", "may_read", "find_run", "reload_run_dataset"]


def may_read(ws) -> bool:
    """Whether the member of the scoped handle ``ws`` may read the team's agreement: not under blind
    review unless they adjudicate."""
    return not ws.review_settings()["blind"] or ws.role() in PERMISSIONS["adjudicate"]


def find_run(ws, run_key: str) -> tuple:
    """(the run record, the `Run`) of a finished run of the workspace, or InputError listing some."""
    rec = ws.run_record(run_key)
    if rec is None or rec["status"] != "done":
        runs = ws.runs()
        done = ", ".join(runs.loc[runs["status"] == "done", "key"].head(5)) or "none"
        raise InputError(f"no finished run {run_key!r} in this workspace (finished runs: {done}); give a run key "
                         "from the Team page.")
    return rec, ws.open_run(run_key)


def reload_run_dataset(rec: dict, run) -> tuple:
    """(the run's dataset as its record names it, None) or (None, why not)."""
    from ..data.sources import load_dataset

    try:
        ds = load_dataset(rec["source"], **{k: v for k, v in (rec["roles"] or {}).items() if v not in (None, "", [])})
    except InputError as exc:
        return None, f"the run's dataset could not be read ({exc}): no per-label or per-feature tables."
    if ds.fingerprint != run.dataset_fingerprint:
        return None, "the run's dataset has changed since it was scored: no per-label or per-feature tables."
    return ds, None


def run_agreement(ws, run_id: int, run, *, dataset=None, reload: Optional[dict] = None,
                  carriers: Optional[Callable[[], dict]] = None, tau=None, target_size=None, bootstrap: int = 1000,
                  seed: int = 0) -> dict:
    """The team's agreement on ``run`` (run ``run_id`` of the scoped handle ``ws``) at τ/n (default the
    run's): `core.team.run_agreement.team_agreement` plus ``dispute_rule`` and ``notes``. ``dataset``
    is the run's data (for the per-label and per-feature tables); ``reload`` a run record to read it
    from instead; ``carriers`` the examples carrying the top artifact features (default: computed
    from ``dataset``; asked only once someone has reviewed). NotAllowed under blind review for a
    member who does not adjudicate."""
    review = ws.review_settings()
    rule, blind = review["dispute_rule"], bool(review["blind"])
    if not may_read(ws):
        raise NotAllowed(f"review in workspace {ws.workspace_id} is blind and {ws.by} is {ws.role()} there: the "
                         "team's agreement shows how others decided, so only curators and owners read it.")
    from ..team.review import standing

    notes = []
    if dataset is None and reload is not None:
        dataset, why = reload_run_dataset(reload, run)
        notes += [why] if why else []
    latest = ws.reviews(run_id, unblinded=blind)   # every decision counts (only adjudicators get here when blind)
    stand = standing(latest, rule=rule, roles=dispute_roles(ws, rule))
    features = None
    if dataset is not None and dataset.text and len(latest):
        features = carriers() if carriers is not None else _carriers(dataset)
    out = team_agreement(run, latest, stand, tau=tau, target_size=target_size,
                         labels=None if dataset is None else dataset.table[dataset.label], features=features,
                         bootstrap=bootstrap, seed=seed)
    return dict(out, dispute_rule=rule, notes=notes)


def _carriers(dataset) -> dict:
    from ..text.features import feature_matrix
    from ..zstats import compute_z

    return artifact_carriers(compute_z(dataset, min_count=5), feature_matrix(dataset))
