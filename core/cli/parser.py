"""The argument parser: one subcommand per declared command (`core.cli.commands.COMMANDS`), typed
numbers (`core.cli.arguments`) and one-line errors."""
from __future__ import annotations

import argparse

# the modules that declare the commands, in the order the help lists them
from . import scoring, analysis, publishing, maps, cache, certificate, gate, team, ui, docs  # noqa: F401
from .commands import COMMANDS
from ..exports.outputs import POLICY


class _Parser(argparse.ArgumentParser):
    """argparse with the CLI's one-line errors: ``error: argument --tau: …`` and where to look,
    without the usage block (subcommands inherit the class)."""

    def error(self, message):
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")



def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="artifact-lens",
        description="Artifact Lens: find and filter dataset artifacts (AFLite, z-statistics).",
    )
    parser.add_argument("--cache-dir", help="cache folder for representations (default: $ARTIFACT_LENS_CACHE or ~/.cache/artifact-lens)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bars or notes")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for cmd in COMMANDS.values():   # each declared beside its function (`core.cli.commands.command`)
        p = sub.add_parser(cmd.name, help=cmd.help, description=cmd.description)
        cmd.declare(p)
        if not any(a.dest == "quiet" for a in p._actions):   # every command takes -q, after its name too (docs/cli.md)
            p.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                           help="no progress bars or notes")
        p.set_defaults(func=cmd.run, reads_items=cmd.items)

    for command in sub.choices.values():   # every command that writes says what happens to an existing output
        if any(a.dest == "out" for a in command._actions):
            command.epilog = "Outputs: " + POLICY + " Nothing a command reads is ever written."
    return parser
