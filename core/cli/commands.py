"""Every command of the CLI, declared once beside its function (`command`): its name, its one-line
help and description, the options it takes (a function of its parser) and the function that runs it.
The parser (`core.cli.parser.build_parser`), `COMMANDS`, ``docs/cli.md`` and the reflection tests
read them from `COMMANDS`, so a new command is one declaration in the module that holds it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..base.bounds import DIM, MIN_COUNT
from ..base.registry import Registry
from .arguments import Whole

__all__ = ["Command", "COMMANDS", "command", "REPRESENTATION_HELP", "quality_args"]


@dataclass(frozen=True)
class Command:
    name: str
    run: Callable        #: ``run(args) -> exit status``
    declare: Callable    #: ``declare(parser)`` adds the command's options
    help: str = ""
    description: str = ""
    #: reads multiple-choice items (`core.data.choices`) as items; the others refuse them, rather than
    #: treating the gold option's letter as a class
    items: bool = False


#: name → command, in the order the help lists them
COMMANDS = Registry("command")


def command(name: str, *, run: Callable, help: str = "", description: str = "", items: bool = False) -> Callable:
    """Declare the function it decorates as the options of the command ``name``, run by ``run``
    (``items``: it reads multiple-choice items)."""
    def declare(options: Callable) -> Callable:
        COMMANDS.add(name, Command(name, run, options, help, description, items))
        return options
    return declare


#: what -r means where it is left out (`core.representations.default_spec`)
REPRESENTATION_HELP = ("representation spec (default: tfidf-svd over all text fields; pair-diff for preference "
                       "pairs)")


def quality_args(p) -> None:
    """The quality components' options (``quality`` and ``feedback``)."""
    p.add_argument("--representation", "-r", default=None, help=REPRESENTATION_HELP)
    p.add_argument("--min-count", type=Whole(*MIN_COUNT.range), default=5, help="n-grams seen fewer times get no z (default 5)")
    p.add_argument("--nn-dim", type=Whole(*DIM.range, allowed=(0,), meaning="0: exact"), default=64, help="principal axes of Φ for the neighbour search (default 64; 0 = exact)")
    p.add_argument("--weights", help="weights of the combined score, e.g. label_tied=2,word_overlap=1.5")
    p.add_argument("--thresholds", help="traffic-light thresholds (red below:green from), e.g. dqi=0.4:0.6")
