"""What every command shares: the dataset's column options, loading, progress bars, notes, and
the one CSV writer of the CLI (`write_table`)."""
from __future__ import annotations

import argparse
import contextlib
import math
import sys

from ..base.errors import InputError
from ..exports.safe_csv import write_csv


def add_dataset_args(p: argparse.ArgumentParser, several: str = "") -> None:
    """The dataset argument, -q and the column options; ``several``: the argument takes one or more
    datasets (a list), and this says what is done with each."""
    # SUPPRESS: a -q given before the command is not reset by the subcommand's default.
    p.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS, help="no progress bars or notes")
    from ..data.file_tables import INPUT_FORMATS

    what = (f"file ({'/'.join(INPUT_FORMATS)}, optionally .gz), save_to_disk folder, Hub name, or demo:nli / "
            "demo:circles / demo:digits")
    if several:
        p.add_argument("dataset", nargs="+", metavar="DATASET", help=f"one or more datasets, each a {what}; {several}")
    else:
        p.add_argument("dataset", help=what)
    add_column_args(p)


def add_column_args(p: argparse.ArgumentParser, of: str = "") -> None:
    """The options that say which column plays which role (``of``: whose data they read, in the
    group titles, for a command whose data is an option such as ``check --data``)."""
    g = p.add_argument_group(f"columns{of} (auto-detected when omitted)")
    g.add_argument("--text", help="text column(s), comma-separated, e.g. premise,hypothesis")
    g.add_argument("--label", help="label column")
    g.add_argument("--id", help="id column (default: a column named id, idx, uid, … if there is one, else the row number)")
    g.add_argument("--number-rows", action="store_true", help="number the rows as ids, even where a column named like an "
                   "id exists (one with duplicated or empty ids)")
    g.add_argument("--embedding", help="column holding precomputed vectors")
    g.add_argument("--image", help="column holding images")
    g.add_argument("--feature", action="append", default=None, help="a boolean/categorical column to use as a feature (repeatable)")
    g.add_argument("--config", help="Hub/datasets config name")
    g.add_argument("--split", help="split to load (e.g. validation)")
    g = p.add_argument_group(f"preference pairs{of} (docs/data.md; detected from chosen/rejected or response_a/"
                             "response_b/winner columns when no --label is given)")
    g.add_argument("--pairs", choices=["standard", "conversational", "implicit", "judged"],
                   help="read the rows as preference pairs of this shape")
    g.add_argument("--no-pairs", action="store_true", help="never read the rows as preference pairs")
    for role in ("prompt", "chosen", "rejected", "response-a", "response-b", "winner"):
        g.add_argument(f"--{role}-column", dest=f"pair_{role.replace('-', '_')}", metavar="COLUMN",
                       help=f"the pairs' {role.replace('-', ' ')} column")
    g = p.add_argument_group(f"multiple-choice items{of} (docs/data.md; detected from option columns such as ans0… "
                             "or A…D, or a list of choices, with an answer column, when no --label is given)")
    from ..data.choices import SHAPES

    g.add_argument("--choices", choices=SHAPES, help="read the rows as multiple-choice items of this shape")
    g.add_argument("--no-choices", action="store_true", help="never read the rows as multiple-choice items")
    g.add_argument("--option-columns", metavar="COLUMNS", help="the options: columns, comma-separated (ans0,ans1,ans2), "
                   "or one column holding each item's list of options")
    g.add_argument("--answer-column", metavar="COLUMN", help="the gold option: an index from 0, a letter, or a label")
    g.add_argument("--stem-columns", metavar="COLUMNS", help="the stem's fields, comma-separated (context,question)")


def id_arg(args):
    """What ``load_dataset(id=...)`` gets: False with --number-rows, else --id (None: detected)."""
    return False if getattr(args, "number_rows", False) else args.id


def load_from_args(args, source=None):
    """The dataset ``source`` (default: the command's DATASET) read with the command's column options."""
    from ..data.sources import load_dataset

    ds = load_dataset(
        args.dataset if source is None else source, text=args.text, label=args.label, id=id_arg(args),
        embedding=args.embedding,
        image=args.image, features=args.feature, config=args.config, split=args.split, **pair_args(args),
        **choice_args(args),
    )
    if ds.choices is not None and not getattr(args, "reads_items", False):
        from .commands import COMMANDS

        readers = ", ".join(c.name for c in COMMANDS.values() if c.items)
        raise InputError(f"{ds.name} holds multiple-choice items, which `{getattr(args, 'command', 'this command')}` "
                         f"does not measure yet (it would take the gold option's letter for a class); the commands for "
                         f"items are: {readers}. Give --no-choices to read the rows as labelled examples instead.")
    return ds


def pair_args(args) -> dict:
    """What ``load_dataset`` gets for preference pairs from --pairs, --no-pairs and the pairs' columns."""
    roles = ("prompt", "chosen", "rejected", "response_a", "response_b", "winner")
    columns = {r: getattr(args, f"pair_{r}") for r in roles if getattr(args, f"pair_{r}", None)}
    if getattr(args, "no_pairs", False):
        if getattr(args, "pairs", None) or columns:
            raise InputError("--no-pairs reads the rows as labelled examples: drop --pairs and the pairs' columns, "
                             "or drop --no-pairs.")
        return {"pairs": False}
    return {"pairs": getattr(args, "pairs", None), "pair_columns": columns or None}


def choice_args(args) -> dict:
    """What ``load_dataset`` gets for multiple-choice items from --choices, --no-choices and the items'
    columns."""
    def listed(value):
        return [c.strip() for c in value.split(",") if c.strip()] if value else None

    options = listed(getattr(args, "option_columns", None))
    columns = {"stem": listed(getattr(args, "stem_columns", None)),
               "options": options[0] if options and len(options) == 1 else options,
               "answer": getattr(args, "answer_column", None)}
    columns = {k: v for k, v in columns.items() if v}
    if getattr(args, "no_choices", False):
        if getattr(args, "choices", None) or columns:
            raise InputError("--no-choices reads the rows as labelled examples: drop --choices and the items' columns, "
                             "or drop --no-choices.")
        return {"choices": False}
    return {"choices": getattr(args, "choices", None), "choice_columns": columns or None}


@contextlib.contextmanager
def progress_bar(desc: str, quiet: bool):
    """Every command's progress bar: ``with progress_bar("PVI", args.quiet) as bar`` gives a
    ``progress`` callback (None when quiet), closed however the block ends."""
    from ..base.progress import TqdmProgress

    bar = None if quiet else TqdmProgress(desc)
    try:
        yield bar
    finally:
        if bar is not None:
            bar.close()


def print_messages(ds, quiet=False):
    if not quiet:
        for m in ds.messages:
            print(f"note: {m}", file=sys.stderr)


def representation_for(ds, spec, args):
    """Φ of ``ds`` by ``spec``, or by the dataset's default (`core.representations.default_spec`)."""
    from ..representations import default_spec, represent

    with progress_bar("represent", args.quiet) as bar:
        return represent(ds, spec or default_spec(ds), cache_dir=args.cache_dir, progress=bar)


def duration_text(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


def seconds_text(seconds: float) -> str:
    return f"{seconds:.1f} s" if seconds >= 1 else f"{seconds:.2f} s"


def describe_representation(rep, quiet: bool) -> None:
    """Say where Φ lives (a memory map is not process memory) and the representation's notes."""
    if quiet:
        return
    import numpy as np

    from ..base.memory import size_text

    info = rep.info or {}
    mapped = info.get("memory_mapped") or (rep.X.filename if isinstance(rep.X, np.memmap) else None)
    where = f"memory-mapped from {mapped} (page cache, not process memory)" if mapped else "in memory"
    print(f"representation: {rep.X.shape[0]:,} × {rep.X.shape[1]} float32 ({size_text(rep.X.nbytes)}), {where}",
          file=sys.stderr)
    for m in info.get("messages", []):
        print(f"note: {m}", file=sys.stderr)


def declare_csv(args, **flags):
    for flag, path in flags.items():
        args.outputs.declare("--" + flag, path, (".csv",))


def write_table(frame, path):
    """Every CSV the CLI writes: the safe writer (`core.exports.safe_csv`), to the transaction's temporary."""
    write_csv(frame, path, float_format="%.6g")


def with_ids(frame):
    return frame.rename_axis("id").reset_index()


def parse_pairs(text, what):
    """'a=1,b=2' (weights) or 'a=0.3:0.6' (thresholds) -> dict."""
    out = {}
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        key, eq, value = part.partition("=")
        try:
            if not eq:
                raise ValueError
            out[key.strip()] = tuple(float(v) for v in value.split(":")) if what == "--thresholds" else float(value)
        except ValueError:
            example = "dqi=0.4:0.6,label_tied=0.5:0.8" if what == "--thresholds" else "label_tied=2,word_overlap=1.5"
            raise InputError(f"{what} '{part}' should look like {example}.") from None
    return out


def quality_knobs(args) -> dict:
    return dict(min_count=args.min_count, nn_dim=None if args.nn_dim == 0 else args.nn_dim,
                weights=parse_pairs(args.weights, "--weights"), thresholds=parse_pairs(args.thresholds, "--thresholds"))


def finite(value):
    """``value`` with every non-finite number (an undefined κ, α or z) as None: strict JSON."""
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def device_from(args):
    """``--device``, else ``$ARTIFACT_LENS_DEVICE``, else None (the CPU); a library that is not
    installed, or no GPU, is said here, before any data is read."""
    from ..base.devices import namespace
    from ..base.settings import settings

    device = args.device or settings().device
    if device:
        namespace(device)
    return device
