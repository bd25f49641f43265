"""``artifact-lens gate``: certify a dataset and check it against a baseline in one command, what a
dataset repository's CI job and pre-commit hook run (the GitHub Action in ``action.yml`` and the
hook in ``.pre-commit-hooks.yaml`` call it). The same as ``certify`` then ``check``, with the same
exit statuses (docs/cli.md, "Exit status")."""
from __future__ import annotations

import tempfile
from pathlib import Path

from .commands import command
from .common import add_dataset_args, device_from, load_from_args, print_messages, progress_bar

#: what ``gate --out FOLDER`` writes, by the ``check`` option that writes it
REPORTS = {"json": "check.json", "markdown": "summary.md", "junit": "junit.xml", "rows": "cue-rows.csv"}


def cmd_gate(args) -> int:
    from ..certificate.schema import write_certificate
    from ..usecases.certificates import certify_dataset
    from .certificate import _check

    folder = Path(args.out).expanduser() if args.out else None
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)   # (a folder it creates, or one that is there: its files are kept)
    with tempfile.TemporaryDirectory(prefix="artifact-lens-gate-") as scratch:
        where = folder if folder is not None else Path(scratch)
        args.candidate = str(where / "certificate.json")
        args.outputs.declare("the candidate certificate", args.candidate, (".json",))
        for option, name in REPORTS.items():   # check's own options, each a file of the folder
            setattr(args, option, str(folder / name) if folder is not None else None)
            args.outputs.declare(f"--{option}", getattr(args, option), (Path(name).suffix,))
        args.data, args.label_studio, args.review_run = args.dataset, None, None
        device = device_from(args)
        ds = load_from_args(args)
        print_messages(ds, args.quiet)
        with progress_bar("certificate", args.quiet) as bar:
            found = certify_dataset(ds, eval_dataset=_eval(args), seed=args.seed, device=device,
                                    cache_dir=args.cache_dir, progress=bar)
        write_certificate(found, args.outputs.path_for("the candidate certificate"))
        return _check(args, None, found)


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

    add_dataset_args(p)
    p.add_argument("--baseline", required=True, help="the certificate to check against (JSON, from certify)")
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
