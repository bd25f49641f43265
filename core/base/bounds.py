"""The bounds of the settings beside AFLite's five knobs (`core.aflite.knobs` holds those), declared
once: the command line's argument types, the engine's checks and the dashboard's number inputs read
them, so the seed the Filter page takes is the seed `aflite --seed` takes (issue 65: 2³¹ − 1 on the
page, 2³² − 1 on the command line; the joint filter's epochs 2..100 on the page, 2..1000 in the CLI;
a spec's dim= unbounded in the CLI, 2..1024 on the Data page; z-filtering's batch 1..10⁹ against 10..10⁵).

Each `Bound` is a whole number in [low, high]; where a setting also takes one value below (training
dynamics' ``folds = 1``, in-sample), the caller says so with ``low`` of its own and this ``high``.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Bound", "BOUNDS", "SEED", "EPOCHS", "FOLDS", "MIN_COUNT", "DIM", "BATCH_SIZE"]


@dataclass(frozen=True)
class Bound:
    name: str     #: the setting (``seed``)
    low: int      #: the least value
    high: int     #: the largest value
    what: str     #: what it sets, as help text says it

    @property
    def range(self) -> tuple:
        """(low, high), as an argument type and a number input take them."""
        return self.low, self.high


#: a random seed: numpy's generators take up to 2³² − 1 (as scikit-learn's ``random_state``)
SEED = Bound("seed", 0, 2 ** 32 - 1, "random seed")
#: training epochs of the cartography models (the joint filter, training dynamics)
EPOCHS = Bound("epochs", 2, 1000, "training epochs")
#: cross-fitting folds (PVI, certificates, consistency filtering, training dynamics)
FOLDS = Bound("folds", 2, 100, "cross-fitting folds")

#: the least number of examples (items, pairs) a feature is seen in to be tested (the z-statistics,
#: the cue tables, z-filtering, the quality component label_tied); its default is each table's own
MIN_COUNT = Bound("min_count", 1, 10 ** 9, "least support of a tested feature")

#: the dimensions of a representation or of a reduction of one (a spec's ``dim=``, ``pixels``' PCA, the
#: neighbour search's principal axes, the map's PCA step): past a few thousand an SVD or a PCA costs
#: more than the matrix it stands for
DIM = Bound("dim", 1, 4096, "dimensions")
#: the candidates z-filtering weighs in one batch (a count; the command line also takes a fraction)
BATCH_SIZE = Bound("batch_size", 1, 10 ** 9, "candidates per batch")

BOUNDS = {b.name: b for b in (SEED, EPOCHS, FOLDS, MIN_COUNT, DIM, BATCH_SIZE)}
