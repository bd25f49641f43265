"""Create: write an example and see, as you write it, what a model could use instead of the task."""
import streamlit as st

from artifact_lens.base.errors import InputError
from artifact_lens.dashboard.services import creation
from artifact_lens.dashboard.widgets import feedback_panel
from artifact_lens.dashboard.widgets.formatting import plain
from artifact_lens.dashboard.widgets.job_panel import watch
from artifact_lens.dashboard.widgets.page import require_run, start_page
from artifact_lens.dashboard.widgets.review_panel import save_run_offer, show_guidelines
from artifact_lens.dashboard.services.team import member, view

tab = start_page("Create", caption=(
    "Paper 002 §3.2: write or revise an example and get feedback on its potential artifacts as you go — "
    "each quality component's light, the words that give the label away, what a model reading part of it "
    "predicts, near-duplicates — then submit it for validation."))
sess = tab.session
run, ds = require_run(tab)
if not ds.text:
    st.info("Creation needs a text dataset: load one on the Data page.")
    st.stop()
if ds.pairs is not None:
    st.info("Create writes new labelled examples with feedback; it does not apply to preference pairs yet.")
    st.stop()
if save_run_offer(tab, run, "cr") is None:
    st.stop()
m = member(tab)
ws = view(tab)   # this member's read-only handle on their workspace
show_guidelines(tab)

revising = sess.revising
said = sess.create_message
# one container, always drawn, holds the notices: the fields below keep their place on the page whether a
# notice shows or not (a field that moves is redrawn, and a browser briefly shows it twice)
with st.container():
    if said:   # kept until the next submission: a rerun that a writer's typing starts must not lose it
        (st.success if said[0] == "success" else st.error)(said[1])
    if revising:
        st.info(f"Revising your rejected example {revising}; submitting replaces it.")
# the fields first, before anything slow: the run after "Submit" clears them at once, so a writer who
# starts the next example right away types into the cleared fields, never into ones a late clear empties
# the first run after a submission that brings text: keys typed before its clear arrived follow the old text
if sess.create_cleared and any(st.session_state.get(key) for key in sess.create_cleared):
    for key, old in sess.create_cleared.items():
        st.session_state[key] = creation.without_cleared(st.session_state.get(key, ""), old)
    sess.create_cleared = None
with st.container(border=True):
    for field in ds.text:
        st.text_area(field, key=f"cr_{field}", height=80, placeholder=f"Write the {field}")
    label = st.selectbox("Label", ds.classes, key="cr_label")
example = {field: st.session_state.get(f"cr_{field}", "") for field in ds.text}
example[ds.label] = label
dataset_id = creation.workspace_dataset(tab, run)
ready = creation.feedback_ready(tab)   # False while its fit runs in the background: the fields stay usable
if not ready:
    st.caption("The feedback models of this dataset and Φ are being fitted (once per server). Keep writing: "
               "the feedback and the Submit button appear here when they are ready.")
    watch(tab, creation.context_job, "Fitting the feedback models", "cr_context", creation.context_ended)


def send(example: dict, label, fb: dict) -> None:
    # a callback: it runs before the page is drawn again, so the text areas can be cleared
    try:
        new = creation.submit(tab, dataset_id, {f: example[f] for f in ds.text}, label, fb, revising)
    except InputError as exc:
        sess.create_message = ("error", plain(exc))
        return
    sess.revising = None
    sess.create_cleared = {f"cr_{field}": example[field] for field in ds.text}
    for field in ds.text:
        st.session_state[f"cr_{field}"] = ""
    sess.create_message = ("success", f"Submitted as example {new}; a validator will accept or reject it. It is "
                                      "listed under \"Your examples\" below.")


if ready and all(v.strip() for v in example.values()):
    try:
        fb = creation.feedback(tab, example)
    except InputError as exc:
        st.warning(plain(exc))
    else:
        st.caption(f"Feedback in {fb['seconds'] * 1000:.0f} ms.")
        feedback_panel.show_feedback(tab, fb, key="cr_feedback")
        st.button("Submit for validation", type="primary", key="cr_submit", on_click=send, args=(example, label, fb))
elif ready:
    st.caption("Write every field to see the feedback (it updates when a field loses focus, or with Ctrl+Enter).")


def revise(row) -> None:
    # a callback: the text areas take the rejected example's text before they are drawn
    sess.revising = int(row["id"])
    for field in ds.text:
        st.session_state[f"cr_{field}"] = row["fields"].get(field, "")
    st.session_state["cr_label"] = row["label"]


st.subheader("Your examples")
mine = ws.submissions(dataset_id=dataset_id, creator=m.email)
if not len(mine):
    st.caption("None yet.")
else:
    shown = mine.assign(light=mine["feedback"].map(lambda f: feedback_panel.BADGE.get((f or {}).get("light"), "")),
                        **{f: mine["fields"].map(lambda d, f=f: d.get(f, "")) for f in ds.text})
    st.dataframe(shown[["id", "status", "light", *ds.text, "label", "decision", "note", "validator", "created_at"]],
                 hide_index=True, key="cr_mine")
    rejected = mine[mine["status"] == "rejected"]
    if len(rejected):
        pick = st.selectbox("Revise a rejected example", rejected["id"], key="cr_revise_pick",
                            format_func=lambda i: f"{i}: {rejected.set_index('id').loc[i, 'note']}")
        st.button("Revise it", key="cr_revise", on_click=revise,
                  args=(rejected.set_index("id").loc[pick].to_dict() | {"id": pick},))
