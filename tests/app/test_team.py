"""The team instance through streamlit's AppTest: sign-in gate, roles checked by the actions
themselves, reviews shared between members, traffic lights, overrides in the export.

Each test gets a fresh server (a new team database in a temporary folder). Sign-in itself
(OIDC in a real browser) is tested in tests/e2e/test_auth.py; here ``AppTest.user`` plays
the identity provider's answer.
"""
import io
import json

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from apptest_helpers import APP, AUTH, OWNER, app, metrics, no_exceptions, open_tab, page, texts

CURATOR, ANNOTATOR = "cur@team.org", "ann@team.org"


def test_before_sign_in_nothing_about_the_data_is_shown(fresh_server):
    for name in ("1_data", "2_filter", "6_examples", "7_export", "8_review", "9_team"):
        at = app(signed_out=True)
        at.switch_page(page(name)).run() if name != "1_data" else at.run()
        no_exceptions(at)
        assert at.button(key="sign_in").label == "Sign in"
        assert not at.dataframe and not at.metric and not at.sidebar.text
        assert "demo" not in texts(at) and "hypothesis" not in texts(at), name


def test_single_user_mode_says_so_and_owns_everything(fresh_server):
    at = app().run()
    no_exceptions(at)
    assert "Single-user mode" in " ".join(c.value for c in at.sidebar.caption)
    assert metrics(at)["Examples"] == "3,000"
    at.switch_page(page("9_team")).run()
    members = [d.value for d in at.dataframe if "role" in d.value.columns][0]
    assert members[["email", "role"]].values.tolist() == [["local", "owner"]]


def test_a_signed_in_member_without_a_role_is_told_whom_to_ask(fresh_server):
    at = app("stranger@else.org").run()
    no_exceptions(at)
    assert "no role in any workspace" in texts(at) and not at.dataframe
    assert at.button(key="sign_out")


def test_an_annotator_sees_no_actions_and_the_actions_refuse(fresh_server):
    from artifact_lens.team.store import NotAllowed
    from artifact_lens.dashboard.process.shared import server

    owner = app(OWNER).run()
    no_exceptions(owner)
    ws = server().team.workspaces_of(OWNER)[0][0]
    server().team.set_role(ws, ANNOTATOR, "annotator", by=OWNER)
    ann = app(ANNOTATOR).run()
    no_exceptions(ann)
    assert "annotator in default" in " ".join(t.value for t in ann.sidebar.text)
    assert not [b for b in ann.button if b.key == "load"] and "need a curator or owner" in texts(ann)
    # the Data page offers an annotator nothing they cannot do (issue 35, item 8): no "override here",
    # and the Φ section says which Φ the open run reads instead of standing empty
    assert [e.label for e in ann.expander if e.label.startswith("Column roles")] == ["Column roles (auto-detected)"]
    assert "The open run reads tfidf-svd:fields=hypothesis" in texts(ann)
    ann.switch_page(page("2_filter")).run()
    assert not [b for b in ann.button if b.key == "run_aflite"]
    assert "This run was computed" in texts(ann)        # where and how fast (issue 32)
    ann.switch_page(page("7_export")).run()
    assert not ann.get("download_button") and "exports need a curator or owner" in texts(ann)
    ann.switch_page(page("9_team")).run()
    assert not [b for b in ann.button if b.key in ("team_set_role", "team_delete", "team_ws_create", "team_remove")]
    # the actions themselves, called directly as a crafted request would
    with pytest.raises(NotAllowed, match="annotator"):
        server().team.set_role(ws, ANNOTATOR, "owner", by=ANNOTATOR)
    with pytest.raises(NotAllowed, match="annotator"):
        server().team.delete_dataset(ws, 1, by=ANNOTATOR)
    with pytest.raises(NotAllowed, match="annotator"):
        server().team.begin_run(ws, 1, "k", representation="r", params={}, seed=0, versions={}, by=ANNOTATOR)


def test_dashboard_actions_check_the_role_of_the_tab(fresh_server):
    """`pipelines.start`, `data_inputs.load_pending` and uploads refuse for an annotator even
    when called without the page's buttons."""
    script = """
import streamlit as st
from artifact_lens.team.store import NotAllowed
from artifact_lens.dashboard.services import data_inputs, pipelines, team
from artifact_lens.dashboard.state.browser import tab as this_tab
from artifact_lens.dashboard.state.session import Source
from artifact_lens.dashboard.widgets.sign_in import sign_in
tab = this_tab()
sign_in(tab)
out = []
for name, call in [("load", lambda: data_inputs.load_pending(tab, Source("demo:nli:n=300", {}, "x"))),
                   ("upload", lambda: data_inputs.save_upload(tab, "a.csv", b"a,b\\n1,2\\n")),
                   ("run", lambda: pipelines.start(tab, "k", "tfidf-svd", {})),
                   ("export", lambda: team.require(tab, "export"))]:
    try:
        call()
        out.append(name + ": allowed")
    except NotAllowed as exc:
        out.append(name + ": refused")
st.text("; ".join(out))
"""
    from artifact_lens.dashboard.process.shared import server

    app(OWNER).run()
    ws = server().team.workspaces_of(OWNER)[0][0]
    server().team.set_role(ws, ANNOTATOR, "annotator", by=OWNER)
    at = AppTest.from_string(script, default_timeout=60)
    at.secrets["auth"] = dict(AUTH)
    at.user = {"is_logged_in": True, "email": ANNOTATOR}
    at.run()
    no_exceptions(at)
    assert at.text[0].value == "load: refused; upload: refused; run: refused; export: refused"


def test_two_members_share_reviews_not_session_state(fresh_server, downloads):
    from artifact_lens.dashboard.process.shared import server

    owner = app(OWNER).run()
    no_exceptions(owner)
    ws = server().team.workspaces_of(OWNER)[0][0]
    server().team.set_role(ws, ANNOTATOR, "annotator", by=OWNER)
    server().team.set_review_settings(ws, reviews_per_example=2, by=OWNER)   # both review each example
    # the owner saves the demo run to the workspace from the Review page, then reviews its queue
    owner.switch_page(page("8_review")).run()
    owner.button(key="rv_save_run").click().run()
    no_exceptions(owner)
    first = _queue_head(owner)
    owner.radio(key="rv_queue_decision").set_value("keep")
    owner.text_input(key="rv_queue_note").input("a real contradiction, not an artifact")
    owner.button(key="rv_queue_submit").click().run()
    no_exceptions(owner)
    assert _queue_head(owner) != first                      # the queue moved on
    owner.switch_page(page("2_filter")).run()
    owner.slider(key="w_tau").set_value(0.9).run()          # the owner's own τ

    ann = app(ANNOTATOR).run()                              # opens the workspace's newest run
    no_exceptions(ann)
    ann.switch_page(page("2_filter")).run()
    assert ann.slider(key="w_tau").value == 0.75             # the owner's τ did not leak
    ann.switch_page(page("8_review")).run()
    no_exceptions(ann)
    assert _queue_head(ann) == first                        # the annotator has not reviewed it
    ann.radio(key="rv_queue_decision").set_value("agree")
    ann.button(key="rv_queue_submit").click().run()
    no_exceptions(ann)
    m = metrics(ann)
    assert m["Reviewed"].startswith("1 of") and m["🟡 disputed / overridden"] == "1"
    open_tab(ann, "Disagreements")
    dis = [d.value for d in ann.dataframe if "chosen" in d.value.columns][0]
    assert dis["example_id"].tolist() == [first] and dis["settled_by"].tolist() == [ANNOTATOR]   # the latest word
    assert dis["chosen"].item().startswith(f"{OWNER}: keep (") and f"{ANNOTATOR}: agree (" in dis["chosen"].item()

    # the owner's export applies the team's word: the latest decision (the annotator's "agree")
    owner.switch_page(page("7_export")).run()
    no_exceptions(owner)
    owner.button(key="exp_prepare").click().run()           # the file is built only when asked
    manifest = json.loads(downloads(owner.get("download_button")[1]))
    assert manifest["export"]["review_overrides"] == []      # "agree" came last: no override
    run_id = server().team.run_id(ws, server().team.runs(ws, by=OWNER)["key"].iloc[0], by=OWNER)
    server().team.review(ws, run_id, first, "remove", "duplicate", by=OWNER)   # the owner's later word
    owner.run()
    assert not [b for b in owner.get("download_button") if b.key == "dl_data"]           # the file made before the new review is gone
    owner.button(key="exp_prepare").click().run()
    frame = pd.read_csv(io.BytesIO(downloads(owner.get("download_button")[0])))
    manifest = json.loads(downloads(owner.get("download_button")[1]))
    (override,) = manifest["export"]["review_overrides"]
    assert override["example_id"] == first and override["reviewer"] == OWNER and override["decision"] == "remove"
    assert override["created_at"] and override["note"] == "duplicate"
    assert (first not in set(frame["id"].astype(str))) and override["changed"] == (override["filter"] == "retained")


def _queue_head(at) -> str:
    texts_ = [t.value for t in at.text if t.value.startswith("id: ")]
    assert texts_, "no example is served"
    return texts_[0].split("\n")[0][len("id: "):]


def _saved_demo(at):
    """Save the tab's current run (the demo) to its workspace; (workspace id, run id, run key)."""
    from artifact_lens.dashboard.process.shared import server

    at.switch_page(page("8_review")).run()
    at.button(key="rv_save_run").click().run()
    no_exceptions(at)
    team = server().team
    ws = team.workspaces_of(OWNER)[0][0]
    key = team.runs(ws, by=OWNER)["key"].iloc[0]
    return ws, team.run_id(ws, key, by=OWNER), key


def test_examples_page_reviews_with_lights_and_a_required_note(fresh_server):
    at = app(OWNER).run()
    _saved_demo(at)
    at.switch_page(page("6_examples")).run()
    no_exceptions(at)
    removed = [d.value for d in at.dataframe if "removed_at" in d.value.columns][0]
    assert set(removed["review"]) == {"🔴 removed, not reviewed"}
    target = str(removed["id"].iloc[0])
    at.selectbox(key="ex_pick").set_value(target).run()
    assert any(t.value.startswith(f"id: {target}\n") and f"label: {removed['label'].iloc[0]}" in t.value
               for t in at.text)
    at.radio(key="ex_review_decision").set_value("keep")
    at.button(key="ex_review_submit").click().run()
    assert any("needs a note" in e.value for e in at.error)              # nothing was written
    at.selectbox(key="ex_pick").set_value(target).run()
    at.radio(key="ex_review_decision").set_value("keep")
    at.text_input(key="ex_review_note").input("the premise really says so")
    at.button(key="ex_review_submit").click().run()
    no_exceptions(at)
    removed = [d.value for d in at.dataframe if "removed_at" in d.value.columns][0]
    assert removed.set_index("id").loc[target, "review"] == "🟡 disputed / overridden"
    assert (removed["review"] == "🔴 removed, not reviewed").sum() == len(removed) - 1


def test_map_colours_by_review_light(fresh_server):
    at = app(OWNER).run()
    _saved_demo(at)
    at.switch_page(page("4_map")).run()
    at.selectbox(key="map_colour").set_value("review").run()
    no_exceptions(at)
    fig = json.loads(at.get("plotly_chart")[0].proto.spec)   # parsed: with or without orjson, \u escapes or not
    legend = {t.get("name"): t.get("marker", {}).get("color") for t in fig["data"]}
    assert legend["review=🔴 removed, not reviewed"] == "#d1352b"


def test_saved_views_reopen_tau_and_n(fresh_server):
    at = app(OWNER).run()
    _saved_demo(at)
    at.switch_page(page("2_filter")).run()
    at.slider(key="w_tau").set_value(0.9)
    at.slider(key="w_target").set_value(0.7).run()
    at.text_input(key="view_name").input("strict")
    at.button(key="view_save").click().run()
    no_exceptions(at)
    at.slider(key="w_tau").set_value(0.8).run()
    at.button(key="view_open").click().run()
    no_exceptions(at)
    gen = at.session_state["artifact_lens"].knob_generation      # new slider keys: drawn afresh in the browser
    assert gen == 1 and at.slider(key=f"w_tau_{gen}").value == 0.9 and at.slider(key=f"w_target_{gen}").value == 0.7
    assert metrics(at)["Retained"] == "2,100"


def test_the_runs_list_names_each_run_with_the_tau_and_n_it_opens_at(fresh_server):
    """Issue 63, item 15: the runs list named runs by path only, without the τ/n they were left at."""
    at = app(OWNER).run()
    ws, run_id, key = _saved_demo(at)
    at.switch_page(page("2_filter")).run()
    at.slider(key="w_tau").set_value(0.9)
    at.slider(key="w_target").set_value(0.7).run()
    at.switch_page(page("9_team")).run()
    no_exceptions(at)
    runs = [d.value for d in at.dataframe if "status" in d.value.columns][0].set_index("key")
    assert runs.loc[key, "left_at"] == "τ 0.90, n 2,100"   # n as the Filter page holds it: 70 % of 3,000
    assert "τ 0.90, n 2,100" in at.selectbox(key="team_run_pick").format_func(key)


def test_an_interrupted_run_can_be_resumed_or_discarded(fresh_server):
    from artifact_lens.dashboard.process.shared import server

    at = app(OWNER).run()
    ws, run_id, key = _saved_demo(at)
    team = server().team
    from artifact_lens.results.runs import run_key
    from artifact_lens.dashboard.state.session import DEFAULT_PARAMS

    rec = team.run_record(ws, key, by=OWNER)
    dataset_id, spec = rec["dataset_id"], rec["representation"]
    # two runs a crash left "running": one with made-up parameters, one as the Filter page starts it
    team.begin_run(ws, dataset_id, "gone", representation=spec, params={}, seed=0, versions={}, by=OWNER)
    params = dict(DEFAULT_PARAMS, n_partitions=8)
    again = run_key(rec["fingerprint"], spec, params)
    team.begin_run(ws, dataset_id, again, representation=spec, params=params, seed=0, versions={}, by=OWNER)
    assert team.recover() == 2
    at.switch_page(page("9_team")).run()
    runs = [d.value for d in at.dataframe if "status" in d.value.columns][0]
    assert sorted(runs.loc[runs["status"] == "interrupted", "key"]) == sorted([again, "gone"])
    at.selectbox(key="team_run_pick").set_value("gone").run()
    at.button(key="team_discard").click().run()
    no_exceptions(at)
    assert "gone" not in set(team.runs(ws, by=OWNER)["key"])
    at.selectbox(key="team_run_pick").set_value(again).run()
    at.button(key="team_resume").click().run()
    no_exceptions(at)
    for job in server().jobs.running():
        job.wait(120)
    assert team.run_record(ws, again, by=OWNER)["status"] == "done"
    assert team.open_run(ws, again, by=OWNER).params["n_partitions"] == 8
    assert set(team.runs(ws, by=OWNER)["status"]) == {"done"}


def test_a_broken_secrets_file_or_missing_key_stops_with_a_clear_message(fresh_server, tmp_path, monkeypatch):
    secrets = tmp_path / "secrets.toml"
    secrets.write_text("[auth\nclient_id = 1\n")
    import streamlit
    from streamlit import config
    from streamlit.runtime.secrets import Secrets

    before = config.get_option("secrets.files")
    config.set_option("secrets.files", [str(secrets)])
    monkeypatch.setattr(streamlit, "secrets", Secrets())   # reads the files named above, once
    try:
        at = AppTest.from_file(APP, default_timeout=60).run()
    finally:
        config.set_option("secrets.files", before)
    shown = " ".join(e.value.replace("\\", "") for e in at.error)   # messages are Markdown-escaped
    assert "secrets file secrets.toml cannot be read" in shown and str(tmp_path) not in shown
    assert not at.dataframe and not at.metric and not at.exception
    # a readable [auth] section that lacks keys names them
    at = app("someone@team.org")
    at.secrets["auth"] = {"client_id": "c", "client_secret": "s"}
    at.run()
    assert any("lacks redirect_uri, cookie_secret, server_metadata_url" in e.value.replace("\\", "") for e in at.error)
    assert not at.dataframe and not at.metric


def test_a_teammate_opens_a_run_on_an_upload_after_the_upload_cache_is_gone(fresh_server, tmp_path):
    """An uploaded file is copied beside the team database when its run is saved, so the
    uploads folder (a bounded cache) can lose it and the workspace's run still opens."""
    import shutil

    from artifact_lens.base import paths
    from artifact_lens.dashboard.process.shared import server

    rows = pd.DataFrame({"premise": [f"a man number {i} sits" for i in range(240)],
                         "hypothesis": [("nobody sleeps" if i % 3 == 0 else f"someone {i} waits") for i in range(240)],
                         "label": [["contradiction", "neutral", "entailment"][i % 3] for i in range(240)]})
    script = f"""
import streamlit as st
from artifact_lens.dashboard.services import data_inputs, pipelines, team
from artifact_lens.dashboard.state.browser import tab as this_tab
from artifact_lens.dashboard.state.session import Source
from artifact_lens.dashboard.widgets.sign_in import sign_in
tab = this_tab()
sign_in(tab)
saved = data_inputs.save_upload(tab, "my pairs.csv", {rows.to_csv(index=False).encode()!r})
ds = data_inputs.load_pending(tab, Source(str(saved), {{}}, "my pairs.csv"))
pipelines.start(tab, tab.session.pending_key, "tfidf-svd:fields=hypothesis,dim=8", dict(n_partitions=4, train_size=0.2,
                slice_size=0.05, tau=0.0, target_size=0.5, model="ridge", strategy="greedy-slice", random_state=0),
                source=Source(str(saved), {{}}, "my pairs.csv"))
st.text("started")
"""
    at = AppTest.from_string(script, default_timeout=60)
    at.secrets["auth"] = dict(AUTH)
    at.user = {"is_logged_in": True, "email": OWNER}
    at.run()
    no_exceptions(at)
    for job in server().jobs.running():
        job.wait(120)
    team = server().team
    ws = team.workspaces_of(OWNER)[0][0]
    team.set_role(ws, ANNOTATOR, "annotator", by=OWNER)
    listed = team.runs(ws, by=OWNER)
    assert listed["dataset"].tolist() == ["my pairs.csv"] and listed["status"].tolist() == ["done"]
    shutil.rmtree(paths.cache_dir() / "uploads")             # the bounded uploads cache evicted it
    server.clear()                                           # and the server restarted (its memory is gone)
    ann = app(ANNOTATOR).run()                               # opens the workspace's newest run
    no_exceptions(ann)
    assert metrics(ann)["Examples"] == "240"
    assert "my pairs.csv" in " ".join(t.value for t in ann.sidebar.text)


def test_a_run_joined_from_another_workspace_is_saved_there_too(fresh_server):
    """Two curators of two workspaces start the same run: one job computes it, and both
    workspaces list it as done (the second tab joined the first one's job)."""
    from artifact_lens.dashboard.process.shared import server

    first = app(OWNER).run()
    team = server().team
    ws1 = team.workspaces_of(OWNER)[0][0]
    ws2 = team.create_workspace("second", by=OWNER)
    team.set_role(ws2, "cur2@team.org", "curator", by=OWNER)
    second = app("cur2@team.org").run()
    for at in (first, second):
        at.switch_page(page("2_filter")).run()
        at.select_slider(key="w_m").set_value(8)
        at.button(key="run_aflite").click().run()            # the same parameters: one job
        no_exceptions(at)
    assert len(server().jobs.running()) <= 1
    for job in server().jobs.running():
        job.wait(120)
    for at in (first, second):
        at.run()
        at.run()
    for ws, who in ((ws1, OWNER), (ws2, "cur2@team.org")):
        runs = team.runs(ws, by=who)
        assert runs["status"].tolist() == ["done"], (ws, runs)
        assert team.open_run(ws, runs["key"].iloc[0], by=who).params["n_partitions"] == 8


def test_an_owner_removes_a_member_from_the_team_page_and_they_lose_access_at_once(fresh_server):
    from artifact_lens.dashboard.process.shared import server

    owner = app(OWNER).run()
    ws = server().team.workspaces_of(OWNER)[0][0]
    server().team.set_role(ws, CURATOR, "curator", by=OWNER)
    cur = app(CURATOR).run()
    no_exceptions(cur)
    assert "curator in default" in " ".join(t.value for t in cur.sidebar.text)
    owner.switch_page(page("9_team")).run()
    owner.selectbox(key="team_remove_pick").set_value(CURATOR)
    owner.button(key="team_remove").click().run()   # not ticked: nothing happens
    assert any("Yes, remove them" in w.value for w in owner.warning)
    assert CURATOR in server().team.members(ws, by=OWNER)["email"].tolist()
    owner.selectbox(key="team_remove_pick").set_value(CURATOR)
    owner.checkbox(key="team_remove_sure").check()
    owner.button(key="team_remove").click().run()
    no_exceptions(owner)
    assert server().team.members(ws, by=OWNER)["email"].tolist() == [OWNER]
    cur.run()   # the removed curator's next click
    no_exceptions(cur)
    assert "no role in any workspace" in texts(cur) and not cur.dataframe
    # the last owner cannot remove themself: one message, the workspace keeps its owner
    owner.selectbox(key="team_remove_pick").set_value(OWNER)
    owner.checkbox(key="team_remove_sure").check()
    owner.button(key="team_remove").click().run()
    no_exceptions(owner)
    assert any("last owner" in e.value for e in owner.error)
    assert server().team.members(ws, by=OWNER)["role"].tolist() == ["owner"]


def test_the_dispute_rule_an_owner_sets_decides_whose_word_stands(fresh_server):
    from artifact_lens.dashboard.process.shared import server

    owner = app(OWNER).run()
    ws, run_id, _ = _saved_demo(owner)
    team = server().team
    team.set_role(ws, ANNOTATOR, "annotator", by=OWNER)
    first = _queue_head(owner)                                # the highest p̃: the filter removed it
    team.review(ws, run_id, first, "keep", "a real contradiction", by=OWNER)
    team.review(ws, run_id, first, "agree", by=ANNOTATOR)     # later, on the filter's side

    def disputes(at):
        at.switch_page(page("8_review")).run()
        open_tab(at, "Disagreements")
        no_exceptions(at)
        return [d.value for d in at.dataframe if "chosen" in d.value.columns][0]

    dis = disputes(owner)
    assert dis[["example_id", "filter", "team", "settled_by"]].values.tolist() == [[first, "removed", "remove", ANNOTATOR]]
    assert any("the latest decision stands" in c.value for c in owner.caption)
    owner.switch_page(page("9_team")).run()
    assert owner.radio(key="team_dispute_rule").value == "latest"
    owner.radio(key="team_dispute_rule").set_value("senior")
    owner.button(key="team_dispute_save").click().run()
    no_exceptions(owner)
    assert team.dispute_rule(ws, by=OWNER) == "senior"
    dis = disputes(owner)
    assert dis[["team", "settled_by"]].values.tolist() == [["keep", OWNER]]   # the owner's word over the annotator's
    assert any("an owner's or curator's decision stands" in c.value for c in owner.caption)
    ann = app(ANNOTATOR).run()
    ann.switch_page(page("9_team")).run()
    no_exceptions(ann)
    assert not [r for r in ann.radio if r.key == "team_dispute_rule"]   # only owners change the rule
    assert disputes(ann)["settled_by"].tolist() == [OWNER]


def test_a_link_opens_its_run_in_its_workspace_or_says_why_not(fresh_server):
    """Issue 35, item 5: a shared link to a run of a second workspace opens that run there for a
    member of both (not the default workspace's newest run); a member of the first only is told
    plainly that the link's workspace is not theirs."""
    from artifact_lens.dashboard.process.shared import server

    app(OWNER).run()   # the instance's first sign-in makes the default workspace
    team = server().team
    ws2 = team.create_workspace("second", by=OWNER)
    team.set_role(ws2, "cur2@team.org", "curator", by=OWNER)
    team.set_role(team.workspaces_of(OWNER)[0][0], "only-first@team.org", "annotator", by=OWNER)
    second = app("cur2@team.org").run()
    second.switch_page(page("2_filter")).run()
    second.select_slider(key="w_m").set_value(8)
    second.button(key="run_aflite").click().run()
    for job in server().jobs.running():
        job.wait(120)
    second.run()
    second.run()
    no_exceptions(second)
    key = team.runs(ws2, by="cur2@team.org")["key"].iloc[0]
    link = {k: v[0] if isinstance(v, list) else v for k, v in dict(second.query_params).items()}
    assert link["run"] == key and link["ws"] == str(ws2)
    for who, opens in ((OWNER, True), ("only-first@team.org", False)):
        at = app(who)
        for k, v in link.items():
            at.query_params[k] = v
        at.run()
        at.switch_page(page("2_filter")).run()
        no_exceptions(at)
        shown = texts(at)
        if opens:
            assert at.session_state["artifact_lens"].run_key == key and "second" in shown
        else:
            assert at.session_state["artifact_lens"].run_key != key
            assert "not a member of" in shown


def test_the_review_page_serves_a_new_cues_rows_first_with_their_reason(fresh_server):
    """Examples a curator sent to the front of the queue (`check --review-run`) head every member's
    queue, each shown with the cue it carries; once decided, the next one comes."""
    from artifact_lens.dashboard.process.shared import server

    owner = app(OWNER).run()
    ws, run_id, key = _saved_demo(owner)
    head = _queue_head(owner)
    run = server().team.open_run(ws, key, by=OWNER)
    order = pd.Series(run.predictability, index=[str(i) for i in run.ids]).dropna().sort_values()
    sent = [i for i in order.index if i != head][:2]   # among the least predictable: served last without this
    server().team.flag_for_review(ws, run_id, [{"example_id": sent[0], "reason": "new cue: indeed@hypothesis → entailment",
                                                "score": 9.0}, {"example_id": sent[1], "reason": "new cue: x → y",
                                                                "score": 5.0}], by=OWNER)
    owner.run()
    no_exceptions(owner)
    assert _queue_head(owner) == sent[0]   # the strongest cue first
    assert any("2 examples were sent to the front of the queue" in c.value for c in owner.caption)
    shown = [i.value.replace("\\", "") for i in owner.info]   # as Markdown renders it: escapes dropped
    assert any("Sent to the front of the queue" in v and "indeed@hypothesis → entailment" in v for v in shown), shown
    owner.radio(key="rv_queue_decision").set_value("agree")
    owner.button(key="rv_queue_submit").click().run()
    no_exceptions(owner)
    assert _queue_head(owner) == sent[1]
    assert any("x → y" in i.value for i in owner.info)
    owner.button(key="rv_clear_flags").click().run()   # the cue is fixed: the queue is served as before
    no_exceptions(owner)
    assert server().team.review_flags(ws, run_id, by=OWNER).empty and _queue_head(owner) not in sent
    assert not [b for b in owner.button if b.key == "rv_clear_flags"]


def test_creating_a_workspace_says_it_was_created(fresh_server):
    """Issue 53, item 14: "Create workspace" confirms, and the new workspace is the owner's."""
    from artifact_lens.dashboard.process.shared import server

    owner = app(OWNER).run()
    owner.switch_page(page("9_team")).run()
    no_exceptions(owner)
    owner.text_input(key="team_ws_name").set_value("annotation round 2")
    owner.button(key="team_ws_create").click().run()
    no_exceptions(owner)
    assert any("Workspace 'annotation round 2' created" in t.value for t in owner.toast), [t.value for t in owner.toast]
    assert "annotation round 2" in [w[1] for w in server().team.workspaces_of(OWNER)]
