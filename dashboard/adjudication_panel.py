"""The Review page's Adjudication tab (curators and owners): the examples whose reviewers differ
(and, if asked, those where the team overrules the filter), not settled yet; pick one, read every
decision on it, and record the adjudicated decision with its note (`TeamStore.adjudicate`)."""
from __future__ import annotations

import streamlit as st

from core.base.errors import InputError
from dashboard import reviews
from dashboard.formatting import plain
from dashboard.reruns import redraw
from dashboard.review_panel import DECISION_LABELS
from dashboard.team import scope

__all__ = ["adjudication_tab"]


def adjudication_tab(run, run_id: int, frame, ds) -> None:
    with_filter = st.checkbox("Also examples where the team overrules the filter", key="adj_with_filter")
    todo = reviews.to_adjudicate(run_id, frame["id"], frame["retained"], with_filter=with_filter)
    st.caption(f"{len(todo):,} examples to adjudicate. An adjudication is recorded as such, with its note, and is "
               "the team's word on the example under every dispute rule; it does not count as a review in the "
               "reviewers' agreement.")
    if not len(todo):
        return
    shown = todo.merge(frame[["id", ds.label, *ds.text]], left_on="example_id", right_on="id", how="left")
    pick = st.dataframe(shown.drop(columns="id"), hide_index=True, key="adj_table", on_select="rerun",
                        selection_mode="single-row")
    if not pick.selection.rows:
        st.caption("Select an example to read every decision on it and settle it.")
        return
    example_id = str(shown["example_id"].iloc[pick.selection.rows[0]])
    history = scope().example_reviews(run_id, example_id, unblinded=True)
    st.dataframe(history[["created_at", "reviewer", "kind", "decision", "note"]], hide_index=True, key="adj_history")
    with st.form("adj_form", clear_on_submit=True):
        decision = st.radio("Adjudicated decision", list(DECISION_LABELS), format_func=DECISION_LABELS.get,
                            horizontal=True, key="adj_decision")
        note = st.text_input("Why this settles it (required)", key="adj_note")
        if st.form_submit_button("Record the adjudication", type="primary", key="adj_submit"):
            try:
                scope().adjudicate(run_id, example_id, decision, note)
            except InputError as exc:
                st.error(plain(exc))
            else:
                st.toast(f"Adjudicated {example_id}: {DECISION_LABELS[decision].lower()}")
                redraw()
