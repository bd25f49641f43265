"""Team review of one example (Examples, Map and Review pages), and the traffic-light column.

The decision is written by `core.team.store.TeamStore.review`, which checks the member's role
itself; the rules for lights and overrides are in `core.team.review`.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import streamlit as st

from artifact_lens.base.errors import InputError
from artifact_lens.base.escaping import direction_shown
from artifact_lens.base.lights import NOT_REVIEWED, badge
from artifact_lens.dashboard.services import current, run_view, pipelines, reviews
from artifact_lens.dashboard.widgets.formatting import plain
from artifact_lens.dashboard.widgets.choice_panels import item_read
from artifact_lens.dashboard.widgets.pair_panels import pair_side_by_side
from artifact_lens.dashboard.widgets.decision_form import save_button, show_outcome
from artifact_lens.dashboard.widgets.reruns import redraw
from artifact_lens.dashboard.services.team import member, view

#: the badge of each light, as text (never HTML): tables, captions and the map legend
BADGES = {"green": badge("green", "agreed"), "yellow": badge("yellow", "disputed / overridden"),
          "red": badge("red", "removed, not reviewed"), NOT_REVIEWED: badge(NOT_REVIEWED)}
DECISION_LABELS = {"agree": "Agree with the filter", "keep": "Keep anyway", "remove": "Remove anyway"}


def with_lights(tab, frame, run):
    """``frame`` (rows of `ExampleTable.browse`) with a ``review`` badge column, when the run
    is saved in the workspace (else unchanged)."""
    run_id = run_view.team_run_id(tab, run)
    if run_id is None:
        return frame.copy()
    light = reviews.lights(tab, run_id, frame["id"], frame["retained"])
    out = frame.copy()
    out.insert(1, "review", [BADGES[x] for x in light])
    return out


def save_run_offer(tab, run, key: str) -> Optional[int]:
    """The run's id in the workspace; if it is not saved there, an offer to save it (for
    those who may) and None."""
    run_id = run_view.team_run_id(tab, run)
    if run_id is not None:
        return run_id
    st.info("Reviews attach to runs saved in the workspace, where teammates see them; this run is not saved yet.")
    if member(tab).can("run filters") and st.button("Save this run to the workspace", key=f"{key}_save_run"):
        try:
            pipelines.save_to_workspace(tab, run)
            redraw()
        except InputError as exc:
            st.error(plain(exc))
    return None


def review_panel(tab, run, example_id: str, key: str, *, show_example: bool = True) -> None:
    """One example: its fields as text (unless the page shows them already), its light,
    its review history, and the review form."""
    run_id = save_run_offer(tab, run, key)
    ds = current.dataset(tab)
    table = run_view.table(tab, run)
    row = table.rows_of([example_id])[0]
    if row < 0:
        st.warning(plain(f"Example {example_id} is not in the current dataset."))
        return
    frame = table.browse(run_view.live_result(tab, run)).iloc[[row]]
    rec = frame.iloc[0]
    if show_example:
        st.markdown("**Example**")
        if ds.pairs is not None:
            st.text(f"pair {example_id}")
            pair_side_by_side(tab, example_id, key)
        elif ds.choices is not None:
            item_read(tab, ds, example_id, key)
        else:
            st.text(direction_shown(f"id: {example_id}\nlabel: {rec[ds.label]}"))
            for field in ds.text:
                st.text(direction_shown(f"{field}: {rec[field]}"))
        p = rec["predictability"]
        status = "retained" if rec["retained"] else f"removed at phase {int(rec['removed_at']) + 1}"
        st.text(f"p̃ = {p:.2f}, {status}" if not np.isnan(p) else f"not scored (warm-up), {status}")
        if rec.get("possibly_mislabelled", False):
            st.warning("Possibly mislabelled: the joint filter kept it (hard-to-learn in training dynamics, or flagged "
                       "by cleanlab); check its label.")
    if run_id is None:
        return
    for reason in reviews.flags_of(tab, run_id, example_id):
        st.info(plain(f"Sent to the front of the queue: {reason}. Check whether the example gives its label away "
                      "through it."))
    m = member(tab)
    seen = reviews.stamp(tab, run_id, example_id)   # read before what is shown: a decision landing meanwhile refuses the save
    light = reviews.lights(tab, run_id, [example_id], [bool(rec["retained"])])[0]
    st.text(f"review: {BADGES[light]}")
    history = view(tab).reviews(run_id, latest=False)
    history = history[history["example_id"] == str(example_id)]
    if len(history):
        st.dataframe(history[["created_at", "reviewer", "decision", "note"]], hide_index=True, key=f"{key}_history")
    if not m.can("review"):
        return
    show_outcome(f"{key}_submit", about=str(example_id))
    with st.form(f"{key}_form"):
        st.radio("Your decision", list(DECISION_LABELS), format_func=DECISION_LABELS.get, horizontal=True,
                 key=f"{key}_decision")
        st.text_input("Note (required to keep or remove anyway)", key=f"{key}_note")
        # bound now: the decision lands on this example, as it is shown now, or is refused
        save_button("Save review", key=f"{key}_submit", save=_save, args=(tab, run_id, str(example_id), seen),
                    fields={"decision": (f"{key}_decision", "agree"), "note": (f"{key}_note", "")}, about=str(example_id))


def _save(tab, run_id: int, example_id: str, seen: int, *, decision: str, note: str) -> str:
    reviews.review(tab, run_id, example_id, seen, decision, note)
    return f"Saved: {DECISION_LABELS[decision].lower()} on {example_id}"


def show_guidelines(tab) -> None:
    """The workspace's current review guidelines, as text (never rendered as Markdown or HTML)."""
    found = view(tab).guidelines()
    if found is None:
        return
    with st.expander(f"Review guidelines (version {found['id']}, by {found['created_by']}, "
                     f"{found['created_at']:%Y-%m-%d})"):
        st.text(found["text"])
