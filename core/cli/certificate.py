"""The certificate commands (issue 34): ``certify`` writes a split's artifact certificate and
``check`` compares two, exiting 1 when a rule is broken, for a dataset's own CI."""
from __future__ import annotations

import sys

from core.base.errors import InputError
from core.base.settings import settings
from core.cli.common import id_arg, load_from_args, print_messages, progress_bar

__all__ = ["cmd_certify", "cmd_check", "comparison_text"]


def _agreement(args):
    """The reviewers' agreement on ``--run`` in a team store (``--db``, ``--workspace``, ``--as``), or None."""
    given = [f for f in ("db", "workspace", "run") if getattr(args, f)]
    if not given:
        return None
    if len(given) < 3 and not (set(given) == {"workspace", "run"} and settings().db_url):
        raise InputError("reviewers' α needs the team store: give --workspace and --run (and --db unless "
                         "ARTIFACT_LENS_DB_URL is set), or none of them.")
    from core.cli.team import _store, _workspace, agreement_report

    email = (args.as_ or settings().owner or "").strip().lower()
    if not email:
        raise InputError("say who is asking for the reviewers' α: --as EMAIL (a member of the workspace), or set "
                         "ARTIFACT_LENS_OWNER.")
    store = _store(args.db or settings().db_url)
    try:
        found = agreement_report(store, _workspace(store, args.workspace, email), args.run, by=email, seed=args.seed)
    finally:
        store.close()
    return found["agreement"]


def cmd_certify(args) -> int:
    from core.certificate.schema import write_certificate
    from core.usecases.certificates import certify_dataset

    args.outputs.declare("--out", args.out, (".json",))
    ds = load_from_args(args)
    print_messages(ds, args.quiet)
    other = None
    if args.eval:
        from core.data.sources import load_dataset

        other = load_dataset(args.eval, text=args.text, label=args.label, id=id_arg(args), features=args.feature,
                             config=args.config, split=args.eval_split)
    agreement = _agreement(args)
    bar = progress_bar("certificate", args.quiet)
    try:
        found = certify_dataset(ds, representation=args.representation, partial=args.partial, eval_dataset=other,
                                agreement=agreement, folds=args.folds, seed=args.seed, tau=args.tau,
                                cache_dir=args.cache_dir, progress=bar)
    finally:
        if bar:
            bar.close()
    write_certificate(found, args.outputs.path_for("--out"))
    args.outputs.commit()
    if not args.quiet:
        for name, m in found["measures"].items():
            value = "–" if m["value"] is None else f"{m['value']:.4g}"
            spread = "" if m["stderr"] is None else f" ± {m['stderr']:.2g}"
            print(f"  {name:40s} {value}{spread} {m['unit']}")
        print(f"wrote the certificate of {found['dataset']['examples']:,} examples to {args.out}")
    return 0


def comparison_text(table) -> str:
    """The table ``check`` prints: measure, before, after, change, allowed, verdict."""
    def number(v):
        return "–" if v is None or v != v else f"{v:.4g}"

    lines = [f"{'measure':40s} {'before':>10s} {'after':>10s} {'change':>10s} {'allowed':>10s}  within the rule?"]
    for r in table.itertuples(index=False):
        verdict = "–" if r.ok is None else ("yes" if r.ok else "NO")
        lines.append(f"{r.measure[:40]:40s} {number(r.before):>10s} {number(r.after):>10s} {number(r.change):>10s} "
                     f"{number(r.allowed):>10s}  {verdict} ({r.why})")
    return "\n".join(lines)


def cmd_check(args) -> int:
    from core.certificate.gate import compare, read_rules
    from core.certificate.schema import read_certificate

    baseline, candidate = read_certificate(args.baseline), read_certificate(args.candidate)
    rules = read_rules(args.rules) if args.rules else {}
    table = compare(baseline, candidate, rules)
    broken = table[table["ok"] == False]   # noqa: E712  (None: not gated)
    if not args.quiet:
        print(comparison_text(table))
    if baseline["dataset"]["fingerprint"] == candidate["dataset"]["fingerprint"] and not args.quiet:
        print("note: both certificates are of the same data.", file=sys.stderr)
    if len(broken):
        print(f"check failed: {len(broken)} measure(s) broke their rule: " + ", ".join(broken["measure"]),
              file=sys.stderr)
        return 1
    if not args.quiet:
        print(f"check passed: {int(table['ok'].eq(True).sum())} gated measures within their rules.")
    return 0
