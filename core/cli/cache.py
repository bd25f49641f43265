"""The prune command: the computed results in the cache kept within a disk budget."""
from __future__ import annotations

import json
from pathlib import Path

from ..base.errors import InputError
from ..base.settings import settings
from .arguments import Real
from .commands import command

__all__ = ["cmd_prune"]


def cmd_prune(args) -> int:
    """Keep the computed results in the cache within a disk budget (`core.results.stores.Results.prune`)."""
    from ..base import paths
    from ..base.memory import size_text
    from ..results.stores import Results

    root = Path(args.cache_dir) if args.cache_dir else paths.cache_dir()
    budget = settings().results_mb if args.max_mb is None else args.max_mb
    if not root.is_dir():
        raise InputError(f"the cache folder {root} does not exist or is not a folder; give the folder with --cache-dir "
                         "(or $ARTIFACT_LENS_CACHE).")
    found = Results(root).prune(budget * 1e6)
    if args.json:
        print(json.dumps({"cache": str(root), "max_mb": budget, **found}))
    elif not args.quiet:
        print(f"pruned {root}: {found['outdated']:,} results of an older format and {found['least_recent']:,} least "
              f"recently used ones ({size_text(found['bytes_freed'])} freed); {size_text(found['bytes_left'])} of "
              f"results left (budget {size_text(budget * 1e6)}).")
    return 0


@command("prune", run=cmd_prune, help="keep the computed results in the cache within a disk budget",
         description="Delete the cache's computed results (runs, evaluations, quality tables, maps, "
                     "representations) of an older format, then the least recently used until they fit "
                     "--max-mb. Only folders the tool keeps results in, and only files named as it names "
                     "them, are touched. A starting dashboard server does the same with "
                     "ARTIFACT_LENS_RESULTS_MB.")
def _prune_options(p) -> None:
    p.add_argument("--max-mb", type=Real(0), help="disk budget in megabytes (default: $ARTIFACT_LENS_RESULTS_MB, 20000; "
                                                  "0 deletes every result)")
    p.add_argument("--json", action="store_true", help="print what was deleted and what is left as JSON")
