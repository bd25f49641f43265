"""The certificate commands (issue 34): ``certify`` writes a split's artifact certificate and
``check`` compares two, exiting 1 when a rule is broken, for a dataset's own CI."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from ..base.bounds import FOLDS
from ..base.errors import InputError
from ..base.escaping import md_code, md_text, terminal_text
from ..base.settings import settings
from ..base.words import counted
from ..certificate.gate import FAMILY_ALPHA, verdict
from ..certificate.rows import cue_rows
from .common import device_from, id_arg, load_from_args, print_messages, progress_bar, write_table
from ..aflite.knobs import KNOBS
from .arguments import Device, SEED_MAX, Whole, add_knob
from .commands import REPRESENTATION_HELP, command
from .common import add_column_args, add_dataset_args

__all__ = ["cmd_certify", "cmd_check", "comparison_text", "check_result", "check_markdown"]


def _agreement(args):
    """The reviewers' agreement on ``--run`` in a team store (``--db``, ``--workspace``, ``--as``), or None."""
    given = [f for f in ("db", "workspace", "run") if getattr(args, f)]
    if not given:
        return None
    if len(given) < 3 and not (set(given) == {"workspace", "run"} and settings().db_url):
        raise InputError("reviewers' α needs the team store: give --workspace and --run (and --db unless "
                         "ARTIFACT_LENS_DB_URL is set), or none of them.")
    from .team import agreement_report, member_of

    store, workspace, email = member_of(args, "asking for the reviewers' α")
    try:
        found = agreement_report(store, workspace, args.run, by=email, seed=args.seed)
    finally:
        store.close()
    return found["agreement"]


def cmd_certify(args) -> int:
    from ..certificate.schema import write_certificate
    from ..usecases.certificates import certify_dataset

    args.outputs.declare("--out", args.out, (".json",))
    device = device_from(args)   # asked for and absent: said here, before any work
    ds = load_from_args(args)
    print_messages(ds, args.quiet)
    other = None
    if args.eval:
        from ..data.sources import load_dataset

        other = load_dataset(args.eval, text=args.text, label=args.label, id=id_arg(args), features=args.feature,
                             config=args.config, split=args.eval_split)
    agreement = _agreement(args)
    with progress_bar("certificate", args.quiet) as bar:
        found = certify_dataset(ds, representation=args.representation, partial=args.partial, eval_dataset=other,
                                agreement=agreement, folds=args.folds, seed=args.seed, tau=args.tau,
                                device=device, name=args.name, cache_dir=args.cache_dir, progress=bar)
    write_certificate(found, args.outputs.path_for("--out"))
    args.outputs.commit()
    if not args.quiet:
        for name, m in found["measures"].items():
            value = "–" if m["value"] is None else f"{m['value']:.4g}"
            spread = "" if m["stderr"] is None else f" ± {m['stderr']:.2g}"
            print(f"  {name:40s} {value}{spread} {m['unit']}")
        if getattr(ds, "choices", None) is not None:   # an accuracy of items reads against it
            from ..data.choices import options_of

            print(f"  {'chance (a uniform guess among options)':40s} {float((1 / options_of(ds)[1]).mean()):.4g}")
        print(f"wrote the certificate of {counted(found['dataset']['examples'], ds.unit)} to {args.out}")
        degenerate = (found["measures"].get("pairs.degenerate") or {}).get("value")
        if degenerate:   # pairs that cannot teach a preference: said, not left to a model's warning
            pairs = found["dataset"]["examples"]
            print(f"note: {counted(round(degenerate * pairs), 'pair')} of {pairs:,} "
                  f"{'are' if round(degenerate * pairs) != 1 else 'is'} degenerate (both sides the same text, or a "
                  "side with no word): "
                  + ("no pair can teach a preference, so the models' measures read chance; "
                     if degenerate >= 1 else "") + "'artifact-lens info' lists them.", file=sys.stderr)
    return 0


@command("certify", run=cmd_certify, items=True, help="the artifact certificate of a split: one JSON a dataset's CI can gate on",
         description="Measure the split's artifacts, each with its uncertainty: the largest z and the "
                     "features over the Bonferroni line per label, partial-input accuracy against the "
                     "majority, V-information of the full and the partial input, AFLite's predictable "
                     "share, near-duplicates, possibly mislabelled examples; with --eval the cues that "
                     "carry to another split; with a team store the reviewers' α. Written as JSON that "
                     "follows core/certificate/certificate.schema.json (docs/certificate.md).")
def _certify_options(p) -> None:
    add_dataset_args(p)
    p.add_argument("--representation", "-r", default=None, help=REPRESENTATION_HELP)
    p.add_argument("--partial", help="the partial input's representation (default: tfidf-svd of the last text field)")
    p.add_argument("--eval", help="an evaluation split (same columns): the cues that carry to it, near-duplicates across")
    p.add_argument("--eval-split", help="split of --eval to load, when it is a Hub name or a folder of splits")
    p.add_argument("--db", help="a team store's URL, for the reviewers' α of --run (default: $ARTIFACT_LENS_DB_URL)")
    p.add_argument("--workspace", help="the workspace of --run in the team store")
    p.add_argument("--run", help="a run's key in the team store: its reviewers' α")
    p.add_argument("--as", dest="as_", metavar="EMAIL", help="who reads the store (default: $ARTIFACT_LENS_OWNER)")
    p.add_argument("--folds", type=Whole(*FOLDS.range), default=5, help="cross-fitting folds (default 5)")
    add_knob(p, "tau", help=f"τ of AFLite's predictable share (default {KNOBS['tau'].default})")
    p.add_argument("--seed", type=Whole(0, SEED_MAX), default=0)
    p.add_argument("--device", type=Device(), help="where Φ's SVD, PVI's logistic models, AFLite's ridge family and the "
                   "training dynamics compute: cuda, cuda:N, torch, cupy or array-api (default: $ARTIFACT_LENS_DEVICE, else "
                   "the CPU; the same measures, float32 rounding and the solvers' tolerance aside)")
    p.add_argument("--name", help="the dataset's name in the certificate (default none: the same data and settings give "
                   "the same bytes, whatever the file is called or where it is)")
    p.add_argument("--out", required=True, help="the certificate (.json)")


def comparison_text(table) -> str:
    """The table ``check`` prints: measure, before, after, change, allowed, verdict."""
    def number(v):
        return "–" if v is None or v != v else f"{v:.4g}"

    lines = [f"{'measure':40s} {'before':>10s} {'after':>10s} {'change':>10s} {'allowed':>10s}  within the rule?"]
    for r in table.itertuples(index=False):
        verdict = {"pass": "yes", "fail": "NO", "warn": "warn"}.get(r.status, "–")
        lines.append(f"{terminal_text(r.measure)[:40]:40s} {number(r.before):>10s} {number(r.after):>10s} "
                     f"{number(r.change):>10s} {number(r.allowed):>10s}  {verdict} ({terminal_text(r.why)})")
    return "\n".join(lines)


_MARK = {"pass": "✅", "fail": "❌", "warn": "⚠️"}


def check_result(table, fail_on: str = "fail") -> dict:
    """What ``check --json`` writes: whether it passed and its exit status under ``fail_on`` (what the
    command returns: with ``warn`` a warning fails it too), and per measure and per new or stronger
    cue, its status (pass, fail, warn, not gated), the threshold and the observed values."""
    def number(v):
        return None if v is None or v != v else float(v)

    cues, status = table.attrs.get("cues"), verdict(table).exit_status_on(fail_on)
    return {"passed": not status, "exit_status": status, "fail_on": fail_on, "family_alpha": FAMILY_ALPHA,
            "z_line": table.attrs["z"],
            "measures": [{"measure": r.measure, "status": r.status, "before": number(r.before),
                          "after": number(r.after), "change": number(r.change), "threshold": number(r.allowed),
                          "why": r.why} for r in table.itertuples(index=False)],
            "cues": [] if cues is None else [
                {"feature": c.feature, "label": c.label, "status": "fail", "support_before": c.support_before,
                 "share_before": c.share_before, "chance": c.chance, "support_after": int(c.support_after),
                 "share_after": c.share_after, "excess_before": c.excess_before, "excess_after": c.excess_after,
                 "test": c.test, "z": c.z, "line": c.line} for c in cues.itertuples(index=False)]}


def check_markdown(table, baseline: dict, candidate: dict, shown: int = 20, fail_on: str = "fail") -> str:
    """What ``check --markdown`` writes: a summary for a pull request's comment or a CI job's page
    (passed or failed under ``fail_on``, as the command's exit status says)."""
    result = check_result(table, fail_on)
    gated = [m for m in result["measures"] if m["status"] != "not gated"]

    def cell(v):
        return "–" if v is None else f"{v:.4g}"

    def name(text):   # a dataset's, a measure's or a feature's name: shown as typed, inert in a table
        return md_code(text)

    lines = [f"### Artifact certificate: {'passed' if result['passed'] else '**failed**'}", "",
             f"{name(candidate['dataset']['name'] or 'candidate')} ({counted(candidate['dataset']['examples'], 'example')}) "
             f"against {name(baseline['dataset']['name'] or 'baseline')} ({baseline['dataset']['examples']:,}); "
             f"{counted(table.attrs['tests'], 'gated test')}, at most "
             f"{FAMILY_ALPHA:.0%} false alarms in all (Bonferroni; docs/certificate.md).", "",
             "| measure | before | after | change | allowed | status |",
             "| --- | ---: | ---: | ---: | ---: | --- |"]
    for m in gated:
        lines.append(f"| {name(m['measure'])} | {cell(m['before'])} | {cell(m['after'])} | {cell(m['change'])} | "
                     f"{cell(m['threshold'])} | {_MARK[m['status']]} {md_text(m['why']) if m['status'] != 'pass' else 'pass'} |")
    if result["cues"]:
        lines += ["", f"**New or stronger cues** ({len(result['cues'])}; the share of the feature's examples with the "
                      "label, before → after, against the label's share of the data, and the rows it gives away "
                      "beyond chance per 1,000 examples):", "",
                  "| feature | label | before | after | chance | examples | beyond chance /1k | z |",
                  "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for c in result["cues"][:shown]:
            before = "absent" if c["share_before"] is None else f"{c['share_before']:.2f} of {c['support_before']:,}"
            lines.append(f"| {name(c['feature'])} | {md_text(c['label'])} | {before} | {c['share_after']:.2f} | "
                         f"{c['chance']:.2f} | {c['support_after']:,} | {1000 * c['excess_before']:.2f} → "
                         f"{1000 * c['excess_after']:.2f} | {c['z']:.1f} |")
        if len(result["cues"]) > shown:
            lines.append(f"\n… and {len(result['cues']) - shown} more (``--json``).")
    return "\n".join(lines) + "\n"


def cmd_check(args) -> int:
    for flag, ending in (("--json", ".json"), ("--markdown", ".md"), ("--rows", ".csv"), ("--junit", ".xml")):
        args.outputs.declare(flag, getattr(args, flag.lstrip("-")), (ending,))
    args.outputs.declare("--label-studio", args.label_studio, None, folder_ok=True)
    for flag, given in (("--rows", args.rows), ("--review-run", args.review_run), ("--label-studio", args.label_studio)):
        if given and not args.data:
            raise InputError(f"{flag} needs the candidate's examples that carry each new cue: give the candidate's "
                             "data with --data (the file it was certified from).")
    target = _review_target(args) if args.review_run else None   # a sender without the role is refused first
    try:
        return _check(args, target)
    finally:
        if target is not None:
            target["store"].close()


@command("check", run=cmd_check, items=True, help="compare two certificates; exit 1 when a measure of artifacts got worse",
         description="Compare a candidate certificate with a baseline, measure by measure and cue by "
                     "cue, and print before, after, change and whether each is within its rule. By "
                     "default no measure of artifact strength may get worse by more than its uncertainty, "
                     "and no cue (a simple feature that gives a label away) may be new or stronger beyond "
                     "its uncertainty; one Bonferroni line over all these tests keeps the chance that an "
                     "unchanged dataset fails at 5 % (docs/certificate.md). --rules sets thresholds per "
                     "measure. Exit status 1 when a rule is broken, 2 when the certificates cannot be "
                     "compared, 0 otherwise: a dataset repository's CI job.")
def _check_options(p) -> None:
    p.add_argument("baseline", metavar="BASELINE", help="the certificate to compare against (JSON)")
    p.add_argument("candidate", metavar="CANDIDATE", help="the new certificate (JSON)")
    p.add_argument("--rules", help="a TOML or YAML file of rules per measure: max_rise, max, min, ignore")
    p.add_argument("--json", help="also write the result as JSON (.json): per measure and per new cue its status "
                   "(pass, fail, not gated), threshold and values")
    p.add_argument("--markdown", help="also write a Markdown summary (.md) for a pull request's comment or a CI job's page")
    p.add_argument("--rows", help="write the candidate's examples that carry each new or stronger cue (.csv: id, label, "
                   "feature, cue_label, share_after, z); needs --data")
    p.add_argument("--data", help="the candidate's data (the file it was certified from), for --rows and --review-run")
    p.add_argument("--junit", help="also write the result as JUnit XML (.xml): one test case per gated measure and per "
                   "new or stronger cue, for any CI system's test report")
    p.add_argument("--github", action="store_true", help="print GitHub annotations (at most 10, the strongest new cue "
                   "first) and add the summary to $GITHUB_STEP_SUMMARY (automatic when GITHUB_ACTIONS=true)")
    p.add_argument("--fail-on", choices=("fail", "warn"), default="fail", help="exit 1 when a rule fails (default), "
                   "or when a measure warns too")
    p.add_argument("--label-studio", metavar="FOLDER", help="write the candidate's examples that carry each new cue "
                   "as a Label Studio project (created: label_config.xml and tasks.json, \"remove\" predicted with the "
                   "cue's strength as its score); needs --data")
    p.add_argument("--review-run", metavar="KEY", help="send the candidate's examples that carry each new cue to the "
                   "front of this run's review queue in the team store (the run scored --data, or the data a split of "
                   "it was exported from); needs --data, --workspace, and a curator or owner as --as")
    p.add_argument("--db", help="the team store's URL, for --review-run (default: $ARTIFACT_LENS_DB_URL)")
    p.add_argument("--workspace", help="the workspace of --review-run")
    p.add_argument("--as", dest="as_", metavar="EMAIL", help="who sends the rows (default: $ARTIFACT_LENS_OWNER)")
    add_column_args(p, " of --data: as the candidate was certified with")


def _to_github(table, baseline: dict, candidate: dict, fail_on: str) -> None:
    """The workflow's annotations on stdout, and the summary added to ``$GITHUB_STEP_SUMMARY`` (a file
    the runner made for it: appended to, as its protocol asks)."""
    from ..certificate.ci_reports import github_annotations, step_summary

    for line in github_annotations(table, fail_on):
        print(line)
    where = os.environ.get("GITHUB_STEP_SUMMARY")
    if where:
        with open(where, "a", encoding="utf-8") as fh:
            fh.write(step_summary(check_markdown(table, baseline, candidate, fail_on=fail_on)))


#: a check's reports by the option that asks for each, and their names in ``gate --out FOLDER``
REPORTS = {"json": "check.json", "markdown": "summary.md", "junit": "junit.xml", "rows": "cue-rows.csv"}


def _check(args, target, candidate=None, into=None) -> int:
    """``check`` once its outputs are declared: ``candidate`` a certificate already in hand (``gate``'s,
    not yet moved into place), else read from ``args.candidate``; ``into``: a folder (``gate``'s, not
    yet moved into place) where its reports are written under `REPORTS`' names, else each where its
    option says."""
    from ..certificate.gate import compare, read_rules
    from ..certificate.schema import read_certificate

    baseline = read_certificate(args.baseline)
    candidate = read_certificate(args.candidate) if candidate is None else candidate
    rules = read_rules(args.rules) if args.rules else {}
    table = compare(baseline, candidate, rules)
    said = verdict(table)
    data = _candidate_data(args, candidate) if args.rows or args.review_run or args.label_studio else None
    rows = cue_rows(data, table.attrs.get("cues")) if data is not None else None
    def path(option):
        return None if not getattr(args, option) else Path(into) / REPORTS[option] if into is not None else \
            Path(args.outputs.path_for(f"--{option}"))

    if args.rows:
        write_table(rows, path("rows"))
    if args.label_studio:
        _write_label_studio(Path(args.outputs.path_for("--label-studio")), data, rows)
    if args.json:
        path("json").write_text(json.dumps(check_result(table, args.fail_on), indent=1, allow_nan=False))
    if args.markdown:
        path("markdown").write_text(check_markdown(table, baseline, candidate, fail_on=args.fail_on), encoding="utf-8")
    if args.junit:
        from ..certificate.ci_reports import junit_xml

        path("junit").write_text(junit_xml(table, args.fail_on), encoding="utf-8")
    if target is not None:   # before the outputs are committed: a refused send leaves no file behind
        _send_rows(target, data, table.attrs.get("cues"), rows)
    args.outputs.commit()
    if not args.quiet:
        print(comparison_text(table))
        cues = table.attrs.get("cues")
        if cues is not None and len(cues):
            print("new or stronger cues (the share of the feature's examples with the label, before → after):")
            for c in cues.head(20).itertuples(index=False):
                before = "absent" if c.share_before is None or c.share_before != c.share_before else \
                    f"{c.share_before:.2f} of {int(c.support_before):,}"
                print(f"  {terminal_text(c.feature)[:40]:40s} → {terminal_text(c.label)[:20]:20s} {before} → {c.share_after:.2f} "
                      f"of {int(c.support_after):,} (chance {c.chance:.2f}; beyond chance {1000 * c.excess_before:.2f} → "
                      f"{1000 * c.excess_after:.2f} per 1k; z {c.z:.1f})")
    if baseline["dataset"]["fingerprint"] == candidate["dataset"]["fingerprint"] and not args.quiet:
        print("note: both certificates are of the same data.", file=sys.stderr)
    if args.github or os.environ.get("GITHUB_ACTIONS") == "true":
        _to_github(table, baseline, candidate, args.fail_on)
    if not said.passed:
        cues = table.attrs.get("cues")
        named = "" if cues is None or not len(cues) else "; new or stronger cues: " + ", ".join(
            f"{terminal_text(c.feature)[:40]} → {terminal_text(c.label)[:20]}" for c in cues.head(3).itertuples(index=False)) \
            + (f" and {len(cues) - 3:,} more" if len(cues) > 3 else "")
        print(f"check failed: {counted(len(said.failed), 'measure')} broke their rule: " + ", ".join(said.failed) + named,
              file=sys.stderr)
    elif said.exit_status_on(args.fail_on):
        print(f"check failed on a warning (--fail-on warn): {', '.join(said.warned)}", file=sys.stderr)
    if said.exit_status_on(args.fail_on):
        return said.exit_status_on(args.fail_on)
    if not args.quiet:
        print(f"check passed: {counted(table['ok'].eq(True).sum(), 'gated measure')} within their rules.")
    return 0


def _candidate_data(args, candidate: dict):
    """The candidate's data (``--data``), checked to be the data it was certified from (same fingerprint)."""
    data = load_from_args(args, args.data)
    if data.fingerprint != candidate["dataset"]["fingerprint"]:
        raise InputError(f"--data {Path(args.data).name} is not the data the candidate certificate was made from "
                         f"(fingerprint {data.fingerprint}, the certificate's {candidate['dataset']['fingerprint']}); "
                         "give that file, read with the column options it was certified with (--text, --label, "
                         "--feature, the pairs' options).")
    return data


def _write_label_studio(folder: Path, data, rows) -> None:
    """``label_config.xml`` and ``tasks.json`` (`core.exports.label_studio`): a project whose tasks are
    the examples that carry each new cue, "remove" predicted with the cue's strength."""
    from ..exports.label_studio import label_studio_config, label_studio_tasks

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "label_config.xml").write_text(label_studio_config(data), encoding="utf-8")
    (folder / "tasks.json").write_text(json.dumps(label_studio_tasks(data, rows), indent=1, ensure_ascii=False,
                                                  allow_nan=False), encoding="utf-8")


def _review_target(args) -> dict:
    """The team store, the sender's handle and ``--review-run``'s run, checked before any work: the
    sender may send (a curator or an owner) and the run is a finished one of the workspace."""
    from ..usecases.agreement import find_run
    from .team import member_of

    store, workspace, email = member_of(args, "sending rows to the review queue")
    try:
        ws = store.scoped(workspace, email)
        ws.require("flag for review")
        rec, run = find_run(ws, args.review_run)
    except BaseException:
        store.close()
        raise
    return {"store": store, "ws": ws, "record": rec, "run": run, "key": args.review_run}


def _send_rows(target: dict, data, cues, rows) -> None:
    """The candidate's examples that carry each new cue (``rows``), to the front of the run's review queue."""
    from ..usecases.review_queue import send_cue_rows

    if cues is None or not len(cues):
        print("no new or stronger cue: nothing was sent to the review queue.", file=sys.stderr)
        return
    sent = send_cue_rows(target["ws"], target["record"]["id"], target["run"], data, cues, reload=target["record"],
                         rows=rows)
    print(f"sent {counted(sent['examples'], 'example')} ({counted(sent['rows'], 'row')}, one per cue carried; {sent['new']:,} new to the "
          f"queue) to the front of run {terminal_text(target['key'])}'s review queue.", file=sys.stderr)
