"""Near-duplicates in the dashboard: the dataset's pairs (`core.text.duplicates.near_duplicate_pairs`,
computed once per dataset and kept in the server's memory-bounded cache) and the rows an export
dropped (the Export page's option, `dashboard.widgets.export_panels`; the drop is `core.exports.plan`)."""
from __future__ import annotations

import pandas as pd

from artifact_lens.dashboard.services import current
from artifact_lens.text.duplicates import near_duplicate_pairs

__all__ = ["pairs", "dropped_rows"]


def pairs(tab, ds) -> pd.DataFrame:
    """The current dataset's near-duplicate pairs (``a, b, overlap``)."""
    return tab.server.cache.get_or_compute("near_duplicates", current.named(tab), lambda: near_duplicate_pairs(ds))


def dropped_rows(record: dict, ds) -> pd.DataFrame:
    """The rows an export's near-duplicate drop took out (``record``: the manifest's
    ``near_duplicates``), each beside the one kept in its place, with their text."""
    dropped = pd.DataFrame(record["dropped"], columns=["id", "kept"])
    text = ds.table[list(ds.text)].astype(str).set_axis(ds.table.index.astype(str))
    return dropped.join(text.add_prefix("dropped: "), on="id").join(text.add_prefix("kept: "), on="kept")
