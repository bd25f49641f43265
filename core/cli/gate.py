"""``artifact-lens gate``: certify a dataset and check it against a baseline in one command, what a
dataset repository's CI job and pre-commit hook run (the GitHub Action in ``action.yml`` and the
hook in ``.pre-commit-hooks.yaml`` call it). The same as ``certify`` then ``check``, with the same
exit statuses (docs/cli.md, "Exit status")."""
from __future__ import annotations

import tempfile
from pathlib import Path

from ..base.bounds import FOLDS
from ..base.errors import InputError
from .commands import command
from .common import add_dataset_args, device_from, load_from_args, print_messages, progress_bar


def cmd_gate(args) -> int:
    """One dataset (the Action's), or several (a pre-commit hook's staged files): each certified and
    checked against its baseline; the exit status is the worst of theirs."""
    files = list(args.dataset)
    if len(files) > 1 and args.out:
        raise InputError(f"--out keeps the reports of one dataset, and {len(files)} are given; run gate once per "
                         "file, each with its own --out.")
    baselines = [args.baseline or str(baseline_beside(file)) for file in files]
    for file, baseline in zip(files, baselines):   # every file's, before any is certified
        if not Path(baseline).is_file():
            raise InputError(f"{file} has no baseline certificate: {baseline} is not a file. Certify the "
                             f"committed version once (artifact-lens certify {file} --out {baseline}) and "
                             "commit it, or give --baseline.")
    worst = 0   # 0 passed, 1 the gate failed: the worst of the files'
    for file, baseline in zip(files, baselines):
        args.dataset, args.baseline = file, baseline
        if len(files) > 1 and not args.quiet:
            print(f"{file} (baseline {baseline}):")
        worst = max(worst, _gate_one(args))
    return worst


def baseline_beside(file) -> Path:
    """The baseline certificate a dataset file keeps beside it: ``data/train.jsonl`` ->
    ``data/train.certificate.json`` (what the pre-commit hook reads when no --baseline is given)."""
    path = Path(file)
    name = path.name[:-3] if path.name.lower().endswith(".gz") else path.name
    stem = Path(name).stem   # only the format's suffix goes: snli.train.jsonl and snli.dev.jsonl keep a baseline each
    return path.with_name((stem or name) + ".certificate.json")


def _gate_one(args) -> int:
    from ..certificate.schema import write_certificate
    from ..usecases.certificates import certify_dataset
    from .certificate import REPORTS, _check

    # --out is one folder output, written whole and moved into place at the end (the output policy)
    args.outputs.declare("--out", args.out, None, folder_ok=True)
    with tempfile.TemporaryDirectory(prefix="artifact-lens-gate-") as scratch:
        where = Path(args.outputs.path_for("--out")) if args.out else Path(scratch)
        where.mkdir(parents=True, exist_ok=True)
        for option in REPORTS:   # check's reports: asked for exactly when there is a folder to keep them
            setattr(args, option, bool(args.out))
        args.data, args.label_studio, args.review_run = args.dataset, None, None
        device = device_from(args)
        ds = load_from_args(args)
        print_messages(ds, args.quiet)
        with progress_bar("certificate", args.quiet) as bar:
            found = certify_dataset(ds, representation=args.representation, partial=args.partial,
                                    eval_dataset=_eval(args), folds=args.folds, seed=args.seed, device=device,
                                    cache_dir=args.cache_dir, progress=bar)
        write_certificate(found, where / "certificate.json")
        return _check(args, None, found, into=where)


def _eval(args):
    if not args.eval:
        return None
    from ..data.sources import load_dataset
    from .common import id_arg

    return load_dataset(args.eval, text=args.text, label=args.label, id=id_arg(args), features=args.feature,
                        config=args.config)


@command("gate", run=cmd_gate, items=True, help="certify a dataset and check it against a baseline (CI, pre-commit)",
         description="Certify DATASET and check the certificate against --baseline in one command: what a "
                     "dataset repository's CI job (the GitHub Action) and pre-commit hook run. With --out FOLDER, "
                     "the candidate certificate and the check's JSON, Markdown, JUnit XML and cue rows are written "
                     "there; without it, nothing but the verdict. Exit status 0 passed, 1 the gate failed, 2 a "
                     "damaged input, 3 an internal error.")
def _gate_options(p) -> None:
    from .arguments import SEED_MAX, Device, Whole
    from .commands import REPRESENTATION_HELP

    add_dataset_args(p, several="each against its own baseline, as a pre-commit hook passes the staged files")
    p.add_argument("--baseline", help="the certificate to check against (JSON, from certify; default: the one "
                   "beside each dataset, data/train.jsonl -> data/train.certificate.json)")
    p.add_argument("--representation", "-r", default=None, help=REPRESENTATION_HELP + "; the baseline's, as it was "
                   "certified")
    p.add_argument("--partial", help="the partial input's representation, as the baseline was certified")
    p.add_argument("--folds", type=Whole(*FOLDS.range), default=5, help="cross-fitting folds, as the baseline (default 5)")
    p.add_argument("--eval", help="an evaluation split whose examples the data's cues are measured on")
    p.add_argument("--rules", help="a TOML or YAML file of rules per measure: max_rise, max, min, ignore")
    p.add_argument("--out", help="a folder for the candidate certificate and the check's reports (created; default: "
                   "none kept)")
    p.add_argument("--fail-on", choices=("fail", "warn"), default="fail", help="exit 1 when a rule fails (default), "
                   "or when a measure warns too")
    p.add_argument("--github", action="store_true", help="GitHub annotations and step summary (automatic when "
                   "GITHUB_ACTIONS=true)")
    p.add_argument("--seed", type=Whole(0, SEED_MAX), default=0, help="the certificate's seed (default 0)")
    p.add_argument("--device", type=Device(), help="where AFLite's ridge family and the training dynamics compute "
                   "(default: $ARTIFACT_LENS_DEVICE, else the CPU)")
