"""Team: the workspace's runs (open, resume, discard), its datasets, members and roles."""
import streamlit as st

from artifact_lens.dashboard.services import current, pipelines, run_view, team
from artifact_lens.dashboard.widgets.page import start_page
from artifact_lens.dashboard.state.session import DEFAULT_PARAMS, Source
from artifact_lens.dashboard.services.team import member, view
from artifact_lens.dashboard.widgets.team_panels import act, owner_forms, reviewers_of_open_run

tab = start_page("Team", caption=(
    "Runs saved here open for every member without recomputing. Owners manage members and workspaces; "
    "curators load data, run filters, save views and export; annotators review."))
m = member(tab)
ws = view(tab)   # this member's read-only handle on their workspace


def resume(tab, rec: dict) -> None:
    """Start an interrupted or failed run again with its recorded dataset and parameters."""
    source = Source(rec["source"], dict(rec["roles"] or {}), rec["dataset"])
    ds_key, _ = current.load(tab, source)
    params = {k: v for k, v in rec["params"].items() if k in DEFAULT_PARAMS}
    pipelines.start(tab, ds_key, rec["representation"], {**DEFAULT_PARAMS, **params}, label="AFLite run (resumed)",
                    source=source, page="Team", quality=rec["params"].get("quality") or None,
                    joint=rec["params"].get("joint") or None)


st.subheader(f"Runs in {m.workspace}")
runs = ws.runs()
if not len(runs):
    st.caption("No runs saved here yet: score a dataset on the Data page (curators and owners).")
else:
    left_at = {k: run_view.live_label(tab, k) for k in runs["key"]}   # the τ and n this tab left each run at
    shown = runs.assign(params=runs["params"].map(lambda p: ", ".join(
        f"{k}={p[k]}" for k in ("n_partitions", "slice_size", "train_size", "model") if k in p)),
        left_at=runs["key"].map(left_at))
    st.dataframe(shown, hide_index=True, key="team_runs")
    labels = {k: f"{d} · {left_at[k]} · {s} · {who} · {when:%Y-%m-%d %H:%M} · {k[:8]}" for k, d, s, who, when in
              zip(runs["key"], runs["dataset"], runs["status"], runs["created_by"], runs["created_at"])}
    key = st.selectbox("Run", list(labels), format_func=labels.get, key="team_run_pick")
    if key is not None:
        rec = ws.run_record(key)
        c1, c2, c3 = st.columns(3)
        if rec["status"] == "done":
            if c1.button("Open this run", type="primary", key="team_open"):
                act(tab, pipelines.open_team_run, key)
        elif rec["status"] in ("interrupted", "failed") and m.can("run filters"):
            if c2.button("Resume (run it again)", key="team_resume"):
                act(tab, resume, rec)
            if c3.button("Discard", key="team_discard"):
                act(tab, team.discard_run, key)
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
                act(tab, team.delete_dataset, int(gone))

st.subheader("Members")
members = ws.members()
st.dataframe(members, hide_index=True, key="team_members")
reviewers_of_open_run(tab)
if m.can("manage members"):
    owner_forms(tab, ws, members)
