"""Review: a queue of examples for each reviewer, where reviewers disagree, and who has done what."""
import streamlit as st

from artifact_lens.base.words import counted
from artifact_lens.team.review import DISPUTE_RULES, QUEUE_ORDERS
from artifact_lens.dashboard.services import current, run_view, reviews
from artifact_lens.dashboard.widgets.adjudication_panel import adjudication_tab
from artifact_lens.dashboard.widgets.decision_form import picked
from artifact_lens.dashboard.widgets.agreement_panel import agreement_tab
from artifact_lens.dashboard.widgets.formatting import metric_row
from artifact_lens.dashboard.widgets.page import require_run, start_page
from artifact_lens.dashboard.widgets.reruns import redraw
from artifact_lens.dashboard.widgets.review_panel import BADGES, review_panel, save_run_offer, show_guidelines
from artifact_lens.dashboard.services.team import member, view

tab = start_page("Review", caption=(
    "Agree with the filter, keep anyway or remove anyway (a note says why). Every decision is kept with "
    "who and when; a change of mind is a new decision. Lights: " + ", ".join(BADGES[k] for k in ("green", "yellow", "red"))
    + "."))
run, ds = require_run(tab)
run_id = save_run_offer(tab, run, "rv")
if run_id is None:
    st.stop()
m = member(tab)
ws = view(tab)   # this member's read-only handle on their workspace
frame = run_view.table(tab, run).browse(run_view.live_result(tab, run))
frame = frame[~frame["warmup"]]
# one view for the whole page: an adjudicator (curator, owner) counts every decision, blind or not, as the
# Agreement and Adjudication tabs do; a blind reviewer sees their own and those on examples they decided
everything = m.can("adjudicate")
latest = ws.reviews(run_id, unblinded=everything)
# blind: an example still waiting for this member's own review counts as unreviewed here, for an
# adjudicator too (its light would tell how teammates judged it)
waiting = reviews.waiting_for_me(tab, run_id, latest)
stand = reviews.standing(tab, run_id, unblinded=everything, hide=waiting)
light = reviews.lights(tab, run_id, frame["id"], frame["retained"], unblinded=everything, hide=waiting)
metric_row({
    "Reviewed": f"{stand.shape[0]:,} of {len(frame):,}",
    BADGES["green"]: f"{(light == 'green').sum():,}",
    BADGES["yellow"]: f"{(light == 'yellow').sum():,}",
    BADGES["red"]: f"{(light == 'red').sum():,}",
})

show_guidelines(tab)
settings = ws.review_settings()
# only the open tab runs (a saved review reruns the queue, not the agreement statistics: 1.6 of the 2 s a
# save took at 3,000 examples, benchmarks/review_save_bench.py); another tab computes when it is opened
tabs = st.tabs(["Your queue", "Disagreements", "Progress", "Agreement"]
               + (["Adjudication"] if m.can("adjudicate") else []), key="rv_tabs", on_change="rerun")
with tabs[0]:
    if tabs[0].open:
        order = st.radio("Serve", QUEUE_ORDERS, horizontal=True, key="rv_order",
                         format_func={"predictability": "highest p̃ first", "random": "random order"}.get)
        served = reviews.queue(tab, run, run_id, frame, order, latest)
        todo, mine, counts, n_per = served["todo"], served["mine"], served["counts"], served["per_example"]
        complete = sum(c >= n_per for c in counts.values())
        flagged = served["flagged"]
        st.caption(f"{counted(len(todo), 'example')} left for you; you reviewed {len(mine):,}. Each example is served until "
                   f"{n_per} reviewer{'s have' if n_per > 1 else ' has'} decided on it: {complete:,} of {len(frame):,} "
                   "have."
                   + (" Review is blind: others' decisions on an example show once you have decided on it."
                      if settings["blind"] else "")
                   + (f" {counted(flagged['example_id'].nunique(), 'example')} {'was' if flagged['example_id'].nunique() == 1 else 'were'} sent to the front of the queue (they carry "
                      "a new cue artifact-lens check named): they are served first."
                      if len(flagged) else "")
                   + (f" This joint run kept {len(run.review_first):,} possibly mislabelled examples (hard-to-learn or "
                      "flagged by cleanlab): they are served first." if run.joint else ""))
        if len(flagged) and m.can("flag for review") and st.button(
                f"Take the {flagged['example_id'].nunique():,} sent examples off the front of the queue (the cue is "
                "fixed)", key="rv_clear_flags"):
            reviews.clear_flags(tab, run_id)
            redraw()
        if len(todo):
            with st.container(border=True):
                review_panel(tab, run, str(todo[0]), key="rv_queue")
        else:
            st.success("You have reviewed every example of this run.")

with tabs[1]:
    if tabs[1].open:
        st.caption(f"When reviewers differ, {DISPUTE_RULES[settings['dispute_rule']]} (owners choose the rule on the "
                   "Team page). A decision on the filter's side (agree, or remove anyway on an example the filter removed) "
                   "is agreement, not an override.")
        dis = reviews.disagreements(tab, run_id, frame["id"], frame["retained"], unblinded=everything,
                                    hide=waiting)
        if not len(dis):
            st.caption("No example has reviewers on different sides.")
        else:
            shown = dis.merge(frame[["id", ds.label, *ds.text, "predictability"]], left_on="example_id",
                              right_on="id", how="left").drop(columns="id")
            chosen = picked(shown, key="rv_disputes", id_column="example_id")
            if chosen is not None:
                with st.container(border=True):
                    review_panel(tab, run, chosen, key="rv_dispute")

with tabs[2]:
    if tabs[2].open:
        done = reviews.progress(tab, run_id, latest, everything=everything, blind=settings["blind"])
        if not len(done):
            st.caption("Nobody has reviewed this run yet." if everything or not settings["blind"] else
                       "You have not reviewed this run yet.")
        else:
            st.dataframe(done, hide_index=True, key="rv_progress")
        if settings["blind"] and not everything:
            st.caption("Review is blind: your own progress only (teammates' progress would tell which examples they "
                       "have decided); curators and owners see everyone's.")

with tabs[3]:
    if tabs[3].open:
        agreement_tab(tab, run, run_id)
if m.can("adjudicate"):
    with tabs[4]:
        if tabs[4].open:
            adjudication_tab(tab, run, run_id, frame, ds)
