"""An export's options, applied in one order by the Export page and ``artifact-lens export``: the
quality columns (paper 002's components, ``dqi`` and its light) and one example kept of each group
of near-duplicates, with the manifest saying both and counting the rows that are left. The page
and the command therefore write the same file and manifest for the same choices."""
from __future__ import annotations

from typing import Optional

import pandas as pd

from .writers import add_quality_columns
from ..text.duplicates import drop_near_duplicates

__all__ = ["with_options"]


def with_options(frame: pd.DataFrame, manifest: dict, *, quality: Optional[pd.DataFrame] = None,
                 quality_note: Optional[dict] = None, duplicate_pairs: Optional[pd.DataFrame] = None) -> pd.DataFrame:
    """``frame`` (an export frame, `core.exports.writers.export_frame`) with the options applied,
    and ``manifest["export"]`` updated: ``quality`` (a `core.quality` table by id) adds its columns,
    recorded as ``quality_note`` (`core.quality.pruning.quality_columns_note`); ``duplicate_pairs``
    (the dataset's pairs, `core.text.duplicates.near_duplicate_pairs`) drops all but the first of each
    group among the frame's rows, recorded as ``near_duplicates``; ``rows`` counts what is left."""
    record = manifest["export"]
    if quality is not None:
        frame = add_quality_columns(frame, quality)
        record["quality_columns"] = quality_note
    if duplicate_pairs is not None:
        frame, record["near_duplicates"] = drop_near_duplicates(frame, duplicate_pairs)
    record["rows"] = int(len(frame))
    return frame
