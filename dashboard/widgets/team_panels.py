"""The Team page's owner forms (members, roles, the dispute rule, reviews per example, blind
review, guidelines, new workspaces), and each reviewer's progress beside their agreement on the
open run."""
from __future__ import annotations

import streamlit as st

from artifact_lens.base.errors import InputError
from artifact_lens.team.review import DISPUTE_RULES
from artifact_lens.team.store import ROLES
from artifact_lens.team.store.reviews import MAX_REVIEWS_PER_EXAMPLE
from artifact_lens.dashboard.services import agreement, current, run_view
from artifact_lens.dashboard.widgets.formatting import plain
from artifact_lens.dashboard.widgets.reruns import redraw
from artifact_lens.dashboard.services import team

__all__ = ["act", "owner_forms", "review_settings", "reviewers_of_open_run"]


def act(tab, fn, *args, done: str = "", **kwargs) -> None:
    """Run an action for this tab, ``fn(tab, ...)`` (each checks the role itself), and show its
    refusal as a message, or ``done`` once it is done (a toast outlives the redraw)."""
    try:
        fn(tab, *args, **kwargs)
    except InputError as exc:
        st.error(plain(exc))
        return
    if done:
        st.toast(plain(done))
    redraw()


def owner_forms(tab, ws, members) -> None:
    """Add, change or remove members, the dispute rule, a new workspace (owners)."""
    with st.form("member_form", clear_on_submit=True):
        c1, c2 = st.columns([3, 1])
        email = c1.text_input("E-mail address (as the identity provider sends it)", key="team_email")
        role = c2.selectbox("Role", ROLES, index=ROLES.index("annotator"), key="team_role")
        if st.form_submit_button("Add or change", key="team_set_role"):
            if not email.strip():
                st.error("Type the member's e-mail address.")
            else:
                act(tab, team.set_role, email.strip(), role)
    with st.form("remove_member_form"):
        leaving = st.selectbox("Remove a member (from their next click on, they see nothing of this workspace; "
                               "their reviews stay)", members["email"], index=None, key="team_remove_pick",
                               placeholder="Choose a member")
        sure = st.checkbox("Yes, remove them", key="team_remove_sure")
        if st.form_submit_button("Remove member", key="team_remove"):
            if leaving is None:
                st.error("Choose the member to remove.")
            elif not sure:
                st.warning("Tick \"Yes, remove them\" first.")
            else:
                act(tab, team.remove_member, leaving)
    rule = ws.dispute_rule()
    with st.form("dispute_form"):
        chosen = st.radio("When reviewers differ", list(DISPUTE_RULES), index=list(DISPUTE_RULES).index(rule),
                          format_func=DISPUTE_RULES.get, key="team_dispute_rule",
                          help="Decides the team's word on an example (its light and the exported split).")
        if st.form_submit_button("Save the rule", key="team_dispute_save") and chosen != rule:
            act(tab, team.set_dispute_rule, chosen)
    review_settings(tab, ws)
    with st.form("workspace_form", clear_on_submit=True):
        name = st.text_input("New workspace (you become its owner)", key="team_ws_name")
        if st.form_submit_button("Create workspace", key="team_ws_create"):
            act(tab, team.create_workspace, name, done=f"Workspace {name.strip()!r} created, with you as its owner: "
                "switch to it in the sidebar.")


def review_settings(tab, ws) -> None:
    """Owners: reviews per example, blind review and the review guidelines (a new version each time)."""
    now = ws.review_settings()
    with st.form("review_settings_form"):
        c1, c2 = st.columns(2)
        per = c1.number_input("Reviews per example (the queue serves an example until this many reviewers decided)",
                              1, MAX_REVIEWS_PER_EXAMPLE, int(now["reviews_per_example"]), key="team_per_example")
        blind = c2.checkbox("Blind review", bool(now["blind"]), key="team_blind",
                            help="A reviewer sees no one else's decision, light or note on an example before "
                                 "deciding on it.")
        if st.form_submit_button("Save the review settings", key="team_settings_save") and \
                (int(per), bool(blind)) != (now["reviews_per_example"], now["blind"]):
            act(tab, team.set_review_settings, reviews_per_example=int(per), blind=bool(blind))
    current_text = (ws.guidelines() or {}).get("text", "")
    with st.form("guidelines_form"):
        text = st.text_area("Review guidelines (shown as written on the Review and Create pages; every version is "
                            "kept, and the export manifest says which ones the decisions were made under)",
                            current_text, height=160, key="team_guidelines")
        if st.form_submit_button("Save the guidelines", key="team_guidelines_save") and text.strip() != current_text:
            act(tab, team.set_guidelines, text)
    history = ws.guidelines_history()
    if len(history) > 1:
        with st.expander(f"Earlier guidelines ({len(history) - 1})"):
            st.dataframe(history.iloc[:-1], hide_index=True, key="team_guidelines_history")


def reviewers_of_open_run(tab) -> None:
    """Each reviewer's progress on the open run beside their agreement with the others and
    with the filter (the Review page's Agreement tab has the rest)."""
    run = run_view.run(tab)
    run_id = run_view.team_run_id(tab, run) if run is not None else None
    if run_id is None or agreement.hidden(tab):
        return
    table = agreement.of_run(tab, run, run_id)["agreement"].per_reviewer
    st.subheader("Reviewers of the open run")
    if not len(table):
        st.caption("Nobody has reviewed the open run yet.")
        return
    percent = st.column_config.NumberColumn(format="percent")
    st.dataframe(table, hide_index=True, key="team_reviewers", column_config={
        "agreement_with_others": percent, "agreement_with_filter": percent,
        "kappa_with_filter": st.column_config.NumberColumn(format="%.3f")})
