"""The export command: a saved run's split written to a file or folder, with its manifest, card and
certificate, and pushed to the Hugging Face Hub when asked."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from ..base.errors import InputError
from ..base.settings import printable
from ..certificate.schema import certificate_bytes
from .common import load_from_args, print_messages, progress_bar
from ..exports.formats import described
from ..exports.writers import FORMATS
from .arguments import add_knob
from .commands import command
from .common import add_dataset_args

__all__ = ["cmd_export", "hub_token", "push_to_hub"]


def cmd_export(args) -> int:
    """Issue 14: a saved run's split, streamed to a file in chunks, with its manifest beside it."""
    from ..exports import writers as export
    from ..usecases.exports import export_saved_run, write_export

    fmt = args.format or export.format_of(args.out)
    if fmt is None:
        raise InputError(f"cannot tell the format from --out {Path(args.out).name}; end it in "
                         f"{export.formats.described()}, or pass --format.")
    args.outputs.declare("--out", args.out, (export.FORMATS[fmt].suffix,), folder_ok=export.FORMATS[fmt].folder)
    args.outputs.declare("the export's manifest", export.manifest_path(args.out), (".json",))
    if args.push_to_hub:
        hub_token(args.push_to_hub)   # offline or no token: say so before any work
    ds = load_from_args(args)
    print_messages(ds, args.quiet)
    quality = note = pairs = None
    if args.quality and ds.choices is not None:
        raise InputError("the quality components read labelled examples (a label per example, not an option per item): "
                         "drop --quality for multiple-choice items.")
    if args.quality:
        from ..quality import quality_scores
        from ..quality.pruning import quality_columns_note

        quality, note = quality_scores(ds, args.quality, cache_dir=args.cache_dir), quality_columns_note(args.quality)
    if args.drop_near_duplicates:
        from ..text.duplicates import near_duplicate_pairs

        pairs = near_duplicate_pairs(ds)
    out = export_saved_run(ds, args.run, which=args.which, fmt=fmt, tau=args.tau, target_size=args.target_size,
                           include_arrays=args.embeddings or fmt != "csv", extra={"command": args.command_line},
                           quality=quality, quality_note=note, duplicate_pairs=pairs)
    frame, manifest, summary = out.frame, out.manifest, out.summary
    if pairs is not None and not args.quiet:
        print(f"note: dropped {len(manifest['export']['near_duplicates']['dropped']):,} near-duplicates (one of "
              "each group kept).", file=sys.stderr)
    with progress_bar("export", args.quiet) as bar:   # a datasets folder (and a Hub push) carries its card and certificate
        carried = write_export(ds, out, args.outputs.path_for("--out"), fmt, certificate=not args.no_certificate,
                               carry=bool(args.push_to_hub), cache_dir=args.cache_dir, progress=bar)
    card, certificate = (carried.card, carried.certificate) if carried is not None else (None, None)
    if carried is not None and carried.note and not args.quiet:
        print(f"note: {carried.note}", file=sys.stderr)
    Path(args.outputs.path_for("the export's manifest")).write_text(json.dumps(manifest, indent=1, default=str))
    args.outputs.commit()
    if not args.quiet:
        print(f"{summary}; wrote {len(frame):,} rows ({args.which}) to {args.out}")
    if args.push_to_hub:
        push_to_hub(frame, card, args.push_to_hub, certificate=certificate)
        if not args.quiet:
            print(f"pushed the split and its card to https://huggingface.co/datasets/{args.push_to_hub}")
    return 0


@command("export", run=cmd_export, items=True, help="export a saved run's split (retained, removed, or all with scores) with its manifest",
         description=f"Write the split of a saved run ({', '.join(f.title for f in FORMATS.values())}), "
                     "streamed in chunks, with <name>.manifest.json beside it. Embeddings are left out of CSV unless "
                     "--embeddings is given (Parquet, JSONL and datasets folders keep them).")
def _export_options(p) -> None:
    add_dataset_args(p)
    p.add_argument("--run", required=True, help="a run .npz (the dashboard's run store: any τ/n it answers) or the manifest "
                                                "JSON of 'aflite --manifest' (the run as fitted; retained or removed)")
    p.add_argument("--which", default="retained", choices=["retained", "removed", "all"], help="split (default retained)")
    p.add_argument("--format", choices=list(FORMATS), help="default: from --out's ending "
                   "(a datasets folder carries a README.md dataset card)")
    p.add_argument("--push-to-hub", metavar="REPO_ID", help="also push the split and its dataset card to the Hugging "
                   "Face Hub (needs the network and a token; refused at once when HF_HUB_OFFLINE is set)")
    p.add_argument("--out", required=True, help=f"output: {described()}")
    add_knob(p, "tau", default=False, help="τ to export at (a run .npz only; default: the run's)")
    add_knob(p, "target_size", default=False, help="n to export at (a run .npz only; default: the run's)")
    p.add_argument("--embeddings", action="store_true", help="keep embedding and image columns in a CSV (as JSON text)")
    p.add_argument("--quality", metavar="SPEC", help="add the quality columns (7 DQI components, dqi, light) computed on "
                                                     "this representation, e.g. tfidf-svd:fields=hypothesis")
    p.add_argument("--drop-near-duplicates", action="store_true",
                   help="keep one example of each group of near-duplicates in the exported rows (the same wording in "
                        "every text field, Jaccard of character 4-grams ≥ 0.6); the manifest lists what was dropped")
    p.add_argument("--no-certificate", action="store_true", help="a datasets folder or a Hub push without certificate.json "
                   "(by default it carries the split's artifact certificate, and the card its headline numbers)")


def hub_token(repo_id: str) -> str:
    """The Hugging Face token to push with, or a clear error when offline or signed out."""
    import re

    from huggingface_hub.utils import HFValidationError, validate_repo_id

    try:   # the Hub's own rules ('..', '--', a leading or trailing '-' or '.', 96 characters), before any work
        if not re.fullmatch(r"[\w.-]+/[\w.-]+", repo_id):
            raise HFValidationError("not OWNER/NAME")
        validate_repo_id(repo_id)
    except HFValidationError as exc:
        raise InputError(f"--push-to-hub {repo_id!r} is not a Hub repository id ({str(exc).splitlines()[0][:120]}); "
                         "give OWNER/NAME, e.g. my-team/snli-filtered.") from None
    from ..data.sources import hub_offline

    if hub_offline():
        raise InputError("cannot push to the Hub: offline mode is on (HF_HUB_OFFLINE or HF_DATASETS_OFFLINE); unset it on a machine "
                         "that reaches huggingface.co, or export to a folder and upload it from there.")
    from huggingface_hub import get_token

    token = get_token()
    if not token:
        raise InputError("cannot push to the Hub: no Hugging Face token; run `hf auth login` or set HF_TOKEN, then "
                         "try again.")
    return token


def push_to_hub(frame, card, repo_id: str, certificate=None) -> None:
    """The split (as a `datasets.Dataset`), its card and its ``certificate.json`` to the dataset
    repository ``repo_id``."""
    import datasets
    from huggingface_hub import HfApi

    token = hub_token(repo_id)
    try:
        datasets.Dataset.from_pandas(frame, preserve_index=False).push_to_hub(repo_id, token=token)
        card.push_to_hub(repo_id, repo_type="dataset", token=token)
        if certificate is not None:
            HfApi(token=token).upload_file(path_or_fileobj=certificate_bytes(certificate), path_in_repo="certificate.json",
                                           repo_id=repo_id, repo_type="dataset")
    except Exception as exc:  # noqa: BLE001  (network, permissions: the files written locally stay)
        raise InputError(f"pushing to {repo_id} failed ({exc.__class__.__name__}: {printable(exc)}); the export on "
                         "disk is complete: fix what the message names (the network, the token's write access to "
                         "the repository) and push it again.") from None
