"""Command line: ``artifact-lens COMMAND ...`` (also installed as ``artifact-lens``).

Every command takes the same column options as `core.data.sources.load_dataset`. Bad
input prints one ``error: ...`` line naming the problem and the fix, exits with 2,
and leaves no partial output file (outputs are written to a temporary file and
renamed into place).

May import: every package of core (the command line is the top of the engine).
"""
from __future__ import annotations

import re
import shlex
import signal
import sys
import threading
from contextlib import nullcontext

from .commands import COMMANDS as _DECLARED
from .parser import build_parser
from .scoring import PhaseLog
from ..base.errors import Cancelled, InputError
from ..exports.outputs import Outputs
from ..base.settings import expand_path, printable_message, settings, using_cache

__all__ = ["COMMANDS", "PhaseLog", "build_parser", "main", "PASSED", "GATE_FAILED", "REFUSED", "INTERNAL_ERROR",
           "INTERRUPTED"]


#: every command's name, in the order the help lists them (each declared beside its function:
#: `core.cli.commands.command`)
COMMANDS = tuple(_DECLARED)

#: the exit statuses of every command (docs/cli.md, "Exit status"): 0 passed, 1 the gate failed (or
#: warned, with --fail-on warn), 2 usage, a damaged input or a refused run, 3 an internal error (a
#: bug), 130 interrupted. A CI job tells a failed gate from a broken run by them.
PASSED, GATE_FAILED, REFUSED, INTERNAL_ERROR, INTERRUPTED = 0, 1, 2, 3, 130


#: flags whose value is a path the command reads, and flags whose value is a representation
#: spec (which can name a vector file: ``file:path=…``)
_INPUT_FLAGS = {"dataset": "the dataset", "seed_dataset": "--seed-dataset", "run": "--run", "eval": "--eval",
                "baseline": "BASELINE", "candidate": "CANDIDATE", "rules": "--rules",
                "second_split": "--second-split", "eval_dataset": "the evaluation split", "data": "--data"}
_SPEC_FLAGS = {"representation": "--representation", "quality": "--quality", "partial": "--partial"}


def _inputs(args) -> list:
    """(flag, path) of every file or folder the command reads: no output may touch one."""
    from ..representations import spec_paths
    from ..data.source_files import files_read

    found = [(flag, path) for name, flag in _INPUT_FLAGS.items() if getattr(args, name, None)
             for path in (getattr(args, name) if isinstance(getattr(args, name), list) else [getattr(args, name)])]
    for flag, path in list(found):   # what a folder points at (symlinks, README data_files) is read too
        if isinstance(path, str) and not path.startswith("demo:"):
            found += [(flag, p) for p in files_read(path, limit=None)[0]]
    for name, flag in _SPEC_FLAGS.items():
        value = getattr(args, name, None)
        if isinstance(value, str):
            found += [(flag, p) for p in spec_paths(value)]
    return found


def _check_configuration(args):
    """Every ``ARTIFACT_LENS_*`` setting, and ``--cache-dir``: a folder (or a new one in an existing
    folder) that holds none of the data the command reads and lies inside none of it; the folder
    (None without ``--cache-dir``)."""
    cache = getattr(args, "cache_dir", None)
    if cache:
        folder = expand_path(cache, "--cache-dir")
        if folder.exists() and not folder.is_dir():
            raise InputError(f"--cache-dir {cache} is a file; give a folder (it is made if it does not exist).")
        if not folder.exists() and not folder.parent.is_dir():
            raise InputError(f"--cache-dir {cache}: the folder {folder.parent} does not exist; create it or choose "
                             "another cache folder.")
        for name, flag in _INPUT_FLAGS.items():
            given = getattr(args, name, None) if name != "run" else None   # a run file may be the tool's own, in its cache
            if isinstance(given, str) and not given.startswith("demo:"):
                read = expand_path(given, flag).resolve()
                home = folder.resolve()
                if home == read or home in read.parents or read in home.parents:
                    raise InputError(f"--cache-dir {cache} holds (or lies inside) {given}, which the command reads "
                                     f"({flag}); give a cache folder of its own so the tool writes nothing beside "
                                     "your data.")
        with using_cache(folder):
            settings()
        return folder
    settings()
    return None


def device_note(args):
    """A note when $ARTIFACT_LENS_DEVICE asks for a device that this command does not compute on (it has
    no --device: its models are scikit-learn's), so nobody reads a CPU result as a GPU one; None else."""
    device = settings().device
    if not device or device == "numpy" or hasattr(args, "device"):
        return None
    takes = [name for name, sub in _subparsers().items() if any("--device" in a.option_strings for a in sub._actions)]
    return (f"note: ARTIFACT_LENS_DEVICE={device} is not used by {args.command}: it computes on the CPU (a device "
            f"serves {', '.join(takes)}).")


def _subparsers() -> dict:
    import argparse

    found = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(found[0].choices) if found else {}


def main(argv=None) -> int:
    """Run one command: ``--cache-dir`` is the command's own cache (`core.base.settings.using_cache`),
    so the process's environment is never changed."""
    return _main(argv)


def _main(argv=None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:   # argparse printed the usage and one error line (2), or --help (0)
        return exc.code if isinstance(exc.code, int) else 2
    if not getattr(args, "command", None):
        parser.print_usage(sys.stderr)
        print("error: no command given; choose one of " + ", ".join(_DECLARED) + " (see artifact-lens --help).",
              file=sys.stderr)
        return 2
    try:   # configuration first: a bad setting or --cache-dir is one clear line before anything is done
        folder = _check_configuration(args)
    except InputError as exc:
        print(f"error: {printable_message(exc)}", file=sys.stderr)
        return 2
    with using_cache(folder) if folder is not None else nullcontext():
        note = device_note(args)
        if note:
            print(note, file=sys.stderr)
        return _run(args, argv)


#: keywords of the Python API that core's messages name -> (the command's attribute, its flag)
KEYWORD_FLAGS = {"slice_size": ("k", "--k"), "target_size": ("target_size", "--target-size"),
                 "train_size": ("train_size", "--train-size"), "n_partitions": ("m", "--m"),
                 "random_state": ("seed", "--seed"), "n_jobs": ("jobs", "--jobs")}


def as_typed(message: str, args) -> str:
    """``message`` with the Python keywords it names (``slice_size=0.01``) as the flags the user of
    this command types (``--k 0.01``), where the command has that flag."""
    for keyword, (dest, flag) in KEYWORD_FLAGS.items():
        if hasattr(args, dest) and keyword in message:
            message = re.sub(rf"\b{keyword}\b=?", lambda m: flag + (" " if m.group().endswith("=") else ""), message)
    return message


def _run(args, argv) -> int:
    # what manifests record as the command: the arguments given (a caller's list, or the shell's)
    args.command_line = "artifact-lens " + shlex.join(sys.argv[1:] if argv is None else [str(a) for a in argv])
    stop = threading.Event()

    def interrupt(signum, frame):   # SIGTERM (a kill, a scheduler) ends a command like Ctrl-C
        stop.set()
        raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGTERM, signal.SIGINT)}
    args.outputs = Outputs()
    try:
        args.outputs = Outputs(inputs=_inputs(args), stop=stop, note=lambda text: print(text, file=sys.stderr))
        return int(args.func(args) or 0)
    except InputError as exc:
        print(f"error: {printable_message(as_typed(str(exc), args))}", file=sys.stderr)
        return 2
    except OSError as exc:   # a read-only folder, a full disk, a path that turned into a folder
        where = args.outputs.describe(exc.filename) or exc.filename
        where = f" ({where})" if where else ""
        print(f"error: {exc.strerror or exc}{where}; check the path, its permissions and the free space, "
              "then run the command again.", file=sys.stderr)
        return 2
    except Cancelled:
        print("cancelled", file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        written = args.outputs.report()
        print("interrupted; " + (f"only these outputs were written: {written}" if written else "no output was written"),
              file=sys.stderr)
        return 130
    except Exception:   # a bug of the tool: never 0 (passed) nor 1 (the gate failed), which a CI job reads
        import traceback

        traceback.print_exc()
        print(f"error: artifact-lens {args.command} stopped on an internal error (a bug: please report it with the "
              f"traceback above); exit status {INTERNAL_ERROR}, not the gate's 0 or 1.", file=sys.stderr)
        return INTERNAL_ERROR
    finally:
        args.outputs.abort()   # temporaries of outputs not moved into place
        for sig, handler in previous.items():
            signal.signal(sig, handler)
