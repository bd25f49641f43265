"""Team: the workspace's runs (open, resume, discard), its datasets, members and roles."""
import streamlit as st

from core.errors import InputError
from core.review import DISPUTE_RULES
from core.store import ROLES
from dashboard import current, pipelines
from dashboard.formatting import plain
from dashboard.page import start_page
from dashboard.session import DEFAULT_PARAMS, Source
from dashboard.team import create_workspace, member, scope

sess = start_page("Team", caption=(
    "Runs saved here open for every member without recomputing. Owners manage members and workspaces; "
    "curators load data, run filters, save views and export; annotators review."))
m = member()
ws = scope()   # this member's handle on their workspace


def act(fn, *args, **kwargs) -> None:
    """Run an action (each checks the role itself) and show its refusal as a message."""
    try:
        fn(*args, **kwargs)
    except InputError as exc:
        st.error(plain(exc))
        return
    st.rerun()


def resume(rec: dict) -> None:
    """Start an interrupted or failed run again with its recorded dataset and parameters."""
    source = Source(rec["source"], dict(rec["roles"] or {}), rec["dataset"])
    ds_key, _ = current.load(source)
    params = {k: v for k, v in rec["params"].items() if k in DEFAULT_PARAMS}
    pipelines.start(ds_key, rec["representation"], {**DEFAULT_PARAMS, **params}, label="AFLite run (resumed)",
                    source=source, page="Team", quality=rec["params"].get("quality") or None)


st.subheader(f"Runs in {m.workspace}")
runs = ws.runs()
if not len(runs):
    st.caption("No runs saved here yet: score a dataset on the Data page (curators and owners).")
else:
    shown = runs.assign(params=runs["params"].map(lambda p: ", ".join(
        f"{k}={p[k]}" for k in ("n_partitions", "slice_size", "train_size", "model") if k in p)))
    st.dataframe(shown, hide_index=True, key="team_runs")
    labels = {k: f"{d} · {s} · {who} · {when:%Y-%m-%d %H:%M} · {k[:8]}" for k, d, s, who, when in
              zip(runs["key"], runs["dataset"], runs["status"], runs["created_by"], runs["created_at"])}
    key = st.selectbox("Run", list(labels), format_func=labels.get, key="team_run_pick")
    if key is not None:
        rec = ws.run_record(key)
        c1, c2, c3 = st.columns(3)
        if rec["status"] == "done":
            if c1.button("Open this run", type="primary", key="team_open"):
                act(pipelines.open_team_run, key)
        elif rec["status"] in ("interrupted", "failed") and m.can("run filters"):
            if c2.button("Resume (run it again)", key="team_resume"):
                act(resume, rec)
            if c3.button("Discard", key="team_discard"):
                act(ws.discard_run, key)
        else:
            st.caption(f"This run is {rec['status']}.")

st.subheader("Datasets")
datasets = ws.datasets()
st.dataframe(datasets.drop(columns=["roles", "fingerprint"]), hide_index=True, key="team_datasets")
if len(datasets) and m.can("delete data"):
    with st.form("delete_form"):
        gone = st.selectbox("Remove a dataset from this workspace (its runs go with it; reviews are kept in the "
                            "database)", datasets["id"], key="team_delete_pick",
                            format_func=dict(zip(datasets["id"], datasets["name"])).get)
        sure = st.checkbox("Yes, remove it", key="team_delete_sure")
        if st.form_submit_button("Remove", key="team_delete"):
            if not sure:
                st.warning("Tick \"Yes, remove it\" first.")
            else:
                act(ws.delete_dataset, int(gone))

st.subheader("Members")
members = ws.members()
st.dataframe(members, hide_index=True, key="team_members")
if m.can("manage members"):
    with st.form("member_form", clear_on_submit=True):
        c1, c2 = st.columns([3, 1])
        email = c1.text_input("E-mail address (as the identity provider sends it)", key="team_email")
        role = c2.selectbox("Role", ROLES, index=ROLES.index("annotator"), key="team_role")
        if st.form_submit_button("Add or change", key="team_set_role"):
            if not email.strip():
                st.error("Type the member's e-mail address.")
            else:
                act(ws.set_role, email.strip(), role)
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
                act(ws.remove_member, leaving)
    rule = ws.dispute_rule()
    with st.form("dispute_form"):
        chosen = st.radio("When reviewers differ", list(DISPUTE_RULES), index=list(DISPUTE_RULES).index(rule),
                          format_func=DISPUTE_RULES.get, key="team_dispute_rule",
                          help="Decides the team's word on an example (its light and the exported split).")
        if st.form_submit_button("Save the rule", key="team_dispute_save") and chosen != rule:
            act(ws.set_dispute_rule, chosen)
    with st.form("workspace_form", clear_on_submit=True):
        name = st.text_input("New workspace (you become its owner)", key="team_ws_name")
        if st.form_submit_button("Create workspace", key="team_ws_create"):
            act(create_workspace, name)
