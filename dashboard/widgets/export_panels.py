"""The Export page's longer panels: the near-duplicates option, and what a member who may not
export (any more) sees."""
from __future__ import annotations

from typing import Callable, Optional

import pandas as pd
import streamlit as st

from artifact_lens.base.errors import InputError
from artifact_lens.team.store import NotAllowed
from artifact_lens.dashboard.services import duplicates, exports
from artifact_lens.dashboard.widgets.formatting import plain
from artifact_lens.dashboard.widgets.reruns import redraw

#: seconds between the store's answers to "may this member still export?" while a file waits
ROLE_CHECK_S = 5.0


def near_duplicates_choice(tab, ds, key: str = "exp_dups") -> Optional[pd.DataFrame]:
    """The "drop near-duplicates" checkbox: the dataset's pairs when ticked (computed once per
    dataset), else None."""
    if not ds.text:
        return None
    if not st.checkbox("Drop near-duplicates (keep one of each group)", key=key,
                       help="Examples whose every text field shares most of its wording with another's (Jaccard "
                            "index of character 4-grams ≥ 0.6, core.text.duplicates): the first of each group in the "
                            "export stays; the manifest lists the others and the one kept in their place."):
        return None
    try:
        with st.spinner("Finding near-duplicates (once per dataset)"):
            return duplicates.pairs(tab, ds)
    except InputError as exc:
        st.error(plain(exc))
        return None


def dropped_shown(manifest: dict, ds, pairs: pd.DataFrame, key: str = "exp_dups") -> None:
    """How many rows the near-duplicate drop took out of the export, and which (beside the one kept)."""
    record = manifest["export"].get("near_duplicates")
    if record is None:
        return
    dropped = duplicates.dropped_rows(record, ds)
    st.caption(f"{len(pairs):,} near-duplicate pairs in the dataset, {record['pairs_in_selection']:,} within these "
               f"rows: {len(dropped):,} rows dropped.")
    if len(dropped):
        with st.expander(f"The {len(dropped):,} rows dropped and the one kept for each"):
            st.dataframe(dropped.head(1000), hide_index=True, key=f"{key}_table")


def refuse(tab, role: str) -> None:
    """The Export page of a member who may not export: said, with the file they had prepared
    (before a demotion) deleted and said so; the page stops here."""
    had = tab.session.export_file is not None
    exports.discard(tab)
    st.info(f"Your role here is {role}: exports need a curator or owner."
            + (" The file you had prepared was deleted when your role changed." if had else ""))
    st.stop()


def watch_role(allowed: Callable[[], object]) -> None:
    """While a prepared file waits for its download, ask the store every `ROLE_CHECK_S` seconds
    whether the member may still export, and rerun the page when not (it then says why the file
    went). A download button cannot speak when the store refuses its click: no rerun follows
    it, so that the page's other download buttons keep their files."""

    @st.fragment(run_every=ROLE_CHECK_S)
    def _watch():
        try:
            allowed()
        except NotAllowed:
            redraw()

    _watch()
