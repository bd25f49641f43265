"""The stores of computed results under one cache root (`core.base.result_store`), named once for the
dashboard's server and the command line, and pruning them (a starting server; ``artifact-lens
prune``)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..base.result_store import ResultStore, prune
from ..evaluation import EvaluationStore
from ..representations.projection import maps
from ..representations.common import fitted_store, stores as representation_stores
from .runs import RunStore

__all__ = ["Results"]

#: the format of the dashboard's quality tables and plain-vs-quality comparisons
QUALITY_FORMAT = 1
#: the format of the team's shared results (`core.results.files`)
SHARED_FORMAT = 1


@dataclass
class Results:
    """Every store of computed results under ``root`` (a cache folder)."""

    root: Path

    def __post_init__(self):
        self.root = Path(self.root)
        results = self.root / "runs"
        self.runs = RunStore(results)
        self.evaluations = EvaluationStore(results / "evaluations")
        self.quality_tables = ResultStore(results / "quality", suffix=".parquet", format=QUALITY_FORMAT,
                                            what="quality table")
        self.comparisons = ResultStore(results / "quality", suffix=".json", format=QUALITY_FORMAT,
                                         what="quality comparison")
        self.maps = maps(self.root)
        #: what the team's background jobs computed (z- and consistency filtering, training dynamics,
        #: cues across splits): kept across restarts like runs and evaluations (`core.results.files`)
        self.shared = ResultStore(results / "shared", suffix=".zip", format=SHARED_FORMAT, what="computed result")

    def stores(self) -> list:
        """Every `ResultStore`, the Φs of each dataset folder included."""
        reps = self.root / "representations"   # one folder per dataset
        folders = sorted(d for d in reps.iterdir() if d.is_dir()) if reps.is_dir() else []
        return [self.runs.files, self.evaluations.files, self.quality_tables, self.comparisons, self.maps, self.shared,
                *(s for d in folders for s in (*representation_stores(d), fitted_store(d)))]

    def prune(self, max_bytes) -> dict:
        """`core.base.result_store.prune` of every store: older formats, then the least recently used until
        they hold at most ``max_bytes``; counts, bytes freed and ``bytes_left``."""
        stores = self.stores()
        out = prune(stores, max_bytes)
        out["bytes_left"] = sum(s.nbytes() for s in stores)
        return out
