"""The Review page's Adjudication tab (curators and owners): the examples whose reviewers differ
(and, if asked, those where the team overrules the filter), not settled yet; pick one, read every
decision on it, and record the adjudicated decision with its note (`TeamStore.adjudicate`)."""
from __future__ import annotations

import streamlit as st

from artifact_lens.base.words import counted
from artifact_lens.dashboard.services import reviews
from artifact_lens.dashboard.widgets.decision_form import picked, save_button, show_outcome
from artifact_lens.dashboard.widgets.review_panel import DECISION_LABELS
from artifact_lens.dashboard.services.team import view

__all__ = ["adjudication_tab"]


def adjudication_tab(tab, run, run_id: int, frame, ds) -> None:
    with_filter = st.checkbox("Also examples where the team overrules the filter", key="adj_with_filter")
    todo = reviews.to_adjudicate(tab, run_id, frame["id"], frame["retained"], with_filter=with_filter)
    st.caption(f"{counted(len(todo), 'example')} to adjudicate. An adjudication is recorded as such, with its note, and is "
               "the team's word on the example under every dispute rule; it does not count as a review in the "
               "reviewers' agreement.")
    if not len(todo):
        show_outcome("adj_submit", about="")
        return
    shown = todo.merge(frame[["id", ds.label, *ds.text]], left_on="example_id", right_on="id", how="left")
    example_id = picked(shown.drop(columns="id"), key="adj_table", id_column="example_id")
    if example_id is None:
        show_outcome("adj_submit", about="")
        st.caption("Select an example to read every decision on it and settle it.")
        return
    seen = reviews.stamp(tab, run_id, example_id, unblinded=True)   # read before the history: a decision landing meanwhile refuses the save
    history = view(tab).example_reviews(run_id, example_id, unblinded=True)
    st.caption(f"Example {example_id}: every decision on it.")
    st.dataframe(history[["created_at", "reviewer", "kind", "decision", "note"]], hide_index=True, key="adj_history")
    show_outcome("adj_submit", about=example_id)
    with st.form("adj_form"):
        st.radio("Adjudicated decision", list(DECISION_LABELS), format_func=DECISION_LABELS.get, horizontal=True,
                 key="adj_decision")
        st.text_input("Why this settles it (required)", key="adj_note")
        save_button("Record the adjudication", key="adj_submit", save=_save, args=(tab, run_id, example_id, seen),
                    fields={"decision": ("adj_decision", "agree"), "note": ("adj_note", "")}, about=example_id)


def _save(tab, run_id: int, example_id: str, seen: int, *, decision: str, note: str) -> str:
    reviews.adjudicate(tab, run_id, example_id, seen, decision, note)
    return f"Adjudicated {example_id}: {DECISION_LABELS[decision].lower()}"
