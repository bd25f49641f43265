"""Near-duplicates in the dashboard: the dataset's pairs (`core.text.duplicates.near_duplicate_pairs`,
computed once per dataset and kept in the server's memory-bounded cache) and the Export page's
"drop one of each" option with the pairs it acts on."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from core.base.errors import InputError
from core.text.duplicates import drop_near_duplicates, near_duplicate_pairs
from dashboard.formatting import plain
from dashboard.server import server
from dashboard.session import session


def pairs(ds) -> pd.DataFrame:
    """The current dataset's near-duplicate pairs (``a, b, overlap``)."""
    return server().cache.get_or_compute("near_duplicates", session().ds_key, lambda: near_duplicate_pairs(ds))


def export_option(frame: pd.DataFrame, ds, key: str = "exp_dups"):
    """The "drop near-duplicates" checkbox over ``frame`` (rows to export, with ``id``): the frame
    to export and the manifest record (None when not ticked), with the pairs shown beside it."""
    if not ds.text:
        return frame, None
    if not st.checkbox("Drop near-duplicates (keep one of each group)", key=key,
                       help="Examples whose every text field shares most of its wording with another's (Jaccard "
                            "index of character 4-grams ≥ 0.6, core.text.duplicates): the first of each group in the "
                            "export stays; the manifest lists the others and the one kept in their place."):
        return frame, None
    try:
        with st.spinner("Finding near-duplicates (once per dataset)"):
            found = pairs(ds)
    except InputError as exc:
        st.error(plain(exc))
        return frame, None
    kept, record = drop_near_duplicates(frame, found)
    dropped = pd.DataFrame(record["dropped"], columns=["id", "kept"])
    st.caption(f"{len(found):,} near-duplicate pairs in the dataset, {record['pairs_in_selection']:,} within these "
               f"rows: {len(dropped):,} rows dropped.")
    if len(dropped):
        with st.expander(f"The {len(dropped):,} rows dropped and the one kept for each"):
            text = ds.table[list(ds.text)].astype(str).set_axis(ds.table.index.astype(str))
            shown = dropped.join(text.add_prefix("dropped: "), on="id").join(text.add_prefix("kept: "), on="kept")
            st.dataframe(shown.head(1000), hide_index=True, key=f"{key}_table")
    return kept, record
