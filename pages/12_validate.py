"""Validate: accept or reject submitted examples with their feedback; the accepted ones become a dataset version."""
import streamlit as st

from artifact_lens.base.errors import InputError
from artifact_lens.quality import COMPONENTS
from artifact_lens.dashboard.services import creation
from artifact_lens.dashboard.widgets import feedback_panel
from artifact_lens.dashboard.widgets.formatting import metric_row, plain
from artifact_lens.dashboard.widgets.page import require_run, start_page
from artifact_lens.dashboard.widgets.decision_form import save_button, show_outcome
from artifact_lens.dashboard.widgets.review_panel import save_run_offer
from artifact_lens.dashboard.services.team import member, view

tab = start_page("Validate", caption=(
    "Paper 002 §3.2: validators accept or reject what creators wrote, seeing the same feedback; a rejection "
    "needs a note, which the creator sees on the Create page and can answer by revising."))
run, ds = require_run(tab)
if ds.pairs is not None:
    st.info("Validate reviews examples written on the Create page; it does not apply to preference pairs yet.")
    st.stop()
if save_run_offer(tab, run, "va") is None:
    st.stop()
m = member(tab)
ws = view(tab)   # this member's read-only handle on their workspace
dataset_id = creation.workspace_dataset(tab, run)
everything = ws.submissions(dataset_id=dataset_id)
waiting = everything[(everything["status"] == "submitted") & (everything["creator"] != m.email)]
metric_row({
    "Waiting for you": f"{len(waiting):,}",
    "Accepted": f"{int((everything['status'] == 'accepted').sum()):,}",
    "Rejected": f"{int((everything['status'] == 'rejected').sum()):,}",
})
if not m.can("validate"):
    st.info(f"Your role here is {m.role}: validation needs a curator or owner.")
    st.stop()

st.subheader("Next example")
if not len(waiting):
    show_outcome("va_submit", about="")
    st.caption("Nothing is waiting for you.")
else:
    sub = waiting.iloc[0]
    st.text("\n".join([f"example {sub['id']} by {sub['creator']}" + (f" (revises {int(sub['revises'])})"
                                                                      if sub["revises"] == sub["revises"] and sub["revises"] else ""),
                       *[f"{f}: {sub['fields'].get(f, '')}" for f in ds.text], f"label: {sub['label']}"]))
    with st.expander("The feedback the creator saw", expanded=True):
        feedback_panel.show_feedback(tab, sub["feedback"], key="va_feedback")
    show_outcome("va_submit", about=str(sub["id"]))
    with st.form("va_form"):
        st.radio("Decision", ["accept", "reject"], horizontal=True, key="va_decision",
                 format_func={"accept": "Accept", "reject": "Reject"}.get)
        st.text_input("Note to the creator (required to reject)", key="va_note")
        st.multiselect("Components you judge wrong (optional)", list(COMPONENTS), key="va_components")
        # bound now: the decision lands on the submission shown, or is refused if it was decided meanwhile
        save_button("Save decision", key="va_submit", save=creation.validate, args=(tab, int(sub["id"])),
                    fields={"decision": ("va_decision", "accept"), "note": ("va_note", ""),
                            "flagged": ("va_components", [])}, about=str(sub["id"]))

st.subheader("A new dataset version with the accepted examples")
accepted = int((everything["status"] == "accepted").sum())
if accepted and m.can("load data") and st.button(f"Add the {accepted} accepted examples to this dataset as a new "
                                                  "version", key="va_version"):
    try:
        source = creation.accepted_version(tab, dataset_id)
        st.success(plain(f"Loaded {source.label}: score, filter and export it from the Data page."))
    except InputError as exc:
        st.error(plain(exc))
elif not accepted:
    st.caption("None yet.")

st.subheader("Does feedback teach? (paper 002's H2)")
lights = ws.creator_lights()
if len(lights):
    st.dataframe(lights, hide_index=True, key="va_lights")
    st.caption("Per creator and day: how many examples were red, yellow or green when submitted.")
else:
    st.caption("No submissions yet.")
