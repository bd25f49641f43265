"""Commands that read the team store: ``agreement`` (issue 22), the numbers the Review page shows."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from .common import finite
from ..base.errors import InputError
from ..base.settings import settings
from .arguments import SEED_MAX, Whole, add_knob
from .commands import command

__all__ = ["cmd_agreement", "agreement_report", "member_of"]


def _store(url: str):
    from ..team.store import TeamStore

    if url.startswith("sqlite:///") and not Path(url[len("sqlite:///"):]).expanduser().is_file():
        raise InputError(f"there is no team database at {url[len('sqlite:///'):]}; give the URL the dashboard uses "
                         "(ARTIFACT_LENS_DB_URL, e.g. sqlite:////srv/lens/team.sqlite or postgresql+psycopg://…).")
    return TeamStore(url)


def _workspace(store, name: str, email: str) -> int:
    found = [w for w, n, _ in store.workspaces_of(email) if n == name]
    if not found:
        mine = ", ".join(repr(n) for _, n, _ in store.workspaces_of(email)) or "none"
        raise InputError(f"{email} is not a member of a workspace named {name!r} (their workspaces: {mine}); check "
                         "--workspace and --as.")
    return found[0]


def member_of(args, what: str) -> tuple:
    """(the team store of ``--db``, the id of ``--workspace``, the e-mail of ``--as``) for a command that
    acts in a workspace; ``what`` (e.g. "reading the reviewers' α") names why, in the errors. The
    caller closes the store."""
    email = (args.as_ or settings().owner or "").strip().lower()
    if not email:
        raise InputError(f"say who is {what}: --as EMAIL (a member of the workspace), or set ARTIFACT_LENS_OWNER.")
    if not args.workspace:
        raise InputError(f"{what} needs the workspace: give --workspace (its name, as the Team page shows it).")
    store = _store(args.db or settings().db_url)
    try:
        return store, _workspace(store, args.workspace, email), email
    except BaseException:
        store.close()
        raise


def agreement_report(store, workspace_id: int, run_key: str, *, by: str, tau=None, target_size=None,
                     bootstrap: int = 1000, seed: int = 0) -> dict:
    """`core.usecases.agreement.run_agreement` of a workspace's run, read from the store as ``by``
    (the run's dataset reloaded from its record for the per-label and per-feature tables)."""
    from ..usecases.agreement import find_run, run_agreement

    ws = store.scoped(workspace_id, by)
    rec, run = find_run(ws, run_key)
    out = run_agreement(ws, rec["id"], run, reload=rec, tau=tau, target_size=target_size, bootstrap=bootstrap,
                        seed=seed)
    return dict(out, run=run_key, dataset=rec["dataset"])


def _table(frame: pd.DataFrame) -> str:
    return frame.to_string(index=False, float_format=lambda v: f"{v:.3f}") if frame is not None and len(frame) else "  –"


def _text(found: dict) -> str:
    a = found["agreement"]
    low, high = a.alpha_interval
    alpha = "undefined" if pd.isna(a.alpha) else f"{a.alpha:.3f}" + ("" if pd.isna(low) else f" [{low:.3f}, {high:.3f}]")
    lines = [f"Run {found['run']} ({found['dataset']}) at τ = {found['tau']:.2f}, n = {found['n']:,}; disputes: "
             f"{found['dispute_rule']}",
             f"{a.reviewers} reviewers, {a.examples_reviewed:,} examples reviewed ({a.examples_multi:,} twice or more), "
             f"{a.decisions:,} decisions",
             f"Krippendorff's α (nominal, keep/remove): {alpha}", "", "Reviewer pairs (Cohen's κ):", _table(a.pairs),
             "", "Per reviewer:", _table(a.per_reviewer)]
    if a.filter_overall is not None and a.filter_overall["examples"]:
        f = a.filter_overall
        lines += ["", f"The filter as a rater: the team's word agrees with it on {f['agreement']:.1%} of "
                      f"{f['examples']:,} examples (κ {f['kappa']:.3f}); kept what it removed: "
                      f"{f['kept_what_the_filter_removed']:,}, removed what it kept: {f['removed_what_the_filter_kept']:,}"]
    if a.filter_by_label is not None:
        lines += ["", "Per label:", _table(a.filter_by_label)]
    if a.filter_by_feature is not None:
        lines += ["", "Per artifact feature (highest z):", _table(a.filter_by_feature)]
    if found["best"] is not None:
        b = found["best"]
        lines += ["", f"The τ/n the team supports: τ = {b['tau']:.2f}, n = {b['n']:,} (agreement {b['agreement']:.1%}, "
                      f"κ {b['kappa']:.3f} on {b['examples']:,} examples; the same best in {b['stability']:.0%} of "
                      f"resamples, n between {b['n_range'][0]:,} and {b['n_range'][1]:,})"]
    lines += [f"note: {n}" for n in [*a.notes, *found["notes"]]]
    return "\n".join(lines)


def as_json(found: dict) -> dict:
    """The report as plain JSON (what ``--json`` prints and manifests hold)."""
    grid = found["grid"]
    return finite({"run": found["run"], "dataset": found["dataset"], "tau": found["tau"], "n": found["n"],
            "dispute_rule": found["dispute_rule"], **found["agreement"].to_dict(), "supported": found["best"],
            "supported_grid": None if grid is None else json.loads(grid.to_json(orient="records")),
            "notes_reading": found["notes"]})


def cmd_agreement(args) -> int:
    store, workspace, email = member_of(args, "asking")
    try:
        found = agreement_report(store, workspace, args.run, by=email, tau=args.tau, target_size=args.target_size,
                                 bootstrap=args.bootstrap, seed=args.seed)
    finally:
        store.close()
    print(json.dumps(as_json(found), indent=1, allow_nan=False) if args.json else _text(found))
    return 0


@command("agreement", run=cmd_agreement, help="how much a team's reviewers agree, with each other and with the filter",
         description="Read a workspace's reviews of a run from the team store and print Krippendorff's "
                     "alpha (with a bootstrap 95% interval), Cohen's kappa per reviewer pair, the filter "
                     "as a rater (overall, per label, per artifact feature) and the tau/n the team's "
                     "decisions support: the numbers the Review page shows.")
def _agreement_options(p) -> None:
    p.add_argument("--db", help="the team store's URL (default: $ARTIFACT_LENS_DB_URL, the dashboard's)")
    p.add_argument("--workspace", required=True, help="the workspace's name")
    p.add_argument("--run", required=True, help="the run's key (Team page)")
    p.add_argument("--as", dest="as_", metavar="EMAIL", help="who asks: a member of the workspace (default: "
                                                               "$ARTIFACT_LENS_OWNER)")
    add_knob(p, "tau", default=False, help="τ of the filter as a rater (default: the run's)")
    add_knob(p, "target_size", default=False, help="n of the filter as a rater (default: the run's)")
    p.add_argument("--bootstrap", type=Whole(0, 10 ** 5), default=1000, help="bootstrap resamples (default 1000)")
    p.add_argument("--seed", type=Whole(0, SEED_MAX), default=0)
    p.add_argument("--json", action="store_true", help="print everything as JSON")
