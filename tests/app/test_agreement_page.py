"""The Review page's Agreement tab (issue 22) through AppTest: three members review the demo run
with known noise; the tab's α, its interval and the filter-as-rater κ are what `artifact-lens
agreement` prints for the same workspace and run, and "Use τ, n" moves the live τ/n there."""
import json

import numpy as np

from apptest_helpers import OWNER, app, metrics, no_exceptions, open_tab, page, wait_for_jobs

CURATOR, ANNOTATOR = "cur@team.org", "ann@team.org"


def manifest_button(at):
    return [b for b in at.get("download_button") if b.proto.label.startswith("Download the manifest")][0]


def team_of_three():
    """The owner's tab with the demo run saved to the workspace, a curator and an annotator added:
    (tab, team store, workspace id, run key, run id)."""
    from artifact_lens.dashboard.process.shared import server

    owner = app(OWNER).run()
    owner.switch_page(page("8_review")).run()
    owner.button(key="rv_save_run").click().run()
    team = server().team
    ws = team.workspaces_of(OWNER)[0][0]
    key = team.runs(ws, by=OWNER)["key"].iloc[0]
    team.set_role(ws, CURATOR, "curator", by=OWNER)
    team.set_role(ws, ANNOTATOR, "annotator", by=OWNER)
    return owner, team, ws, key, team.run_id(ws, key, by=OWNER)


def test_the_agreement_tab_says_what_the_cli_says(fresh_server, capsys, downloads):
    from artifact_lens.cli import main
    from artifact_lens.dashboard.process.shared import server

    owner, team, ws, key, run_id = team_of_three()
    run = server().store.get(key)
    rng = np.random.default_rng(3)
    rows = rng.choice(len(run.ids), 90, replace=False)
    for who, noise in ((OWNER, 0.05), (CURATOR, 0.15), (ANNOTATOR, 0.3)):
        for row in rows:
            flip = rng.random() < noise
            other = "remove" if run.retained[row] else "keep"
            team.review(ws, run_id, str(run.ids[row]), other if flip else "agree", "flipped" if flip else "", by=who)
    open_tab(owner, "Agreement")
    no_exceptions(owner)
    shown = metrics(owner)
    sess = owner.session_state["artifact_lens"]
    capsys.readouterr()
    assert main(["agreement", "--db", server().team.url, "--workspace", team.workspaces_of(OWNER)[0][1], "--run", key,
                 "--as", ANNOTATOR, "--json", "--tau", repr(float(sess.tau)), "--target-size", str(int(sess.target))
                 if float(sess.target) >= 1 else str(float(sess.target))]) == 0
    cli = json.loads(capsys.readouterr().out)
    low, high = cli["alpha_interval"]
    assert shown["Krippendorff's α"] == f"{cli['alpha']:.2f}" and shown["α, 95 % interval"] == f"{low:.2f} to {high:.2f}"
    assert shown["Reviewed twice or more"] == "90 of 90"
    assert shown["Team vs filter, κ"] == f"{cli['filter']['kappa']:.2f}"
    assert [d for d in owner.dataframe if "overruled_share" in d.value.columns]   # per label and per feature
    # the Team page: each reviewer's progress beside their agreement
    owner.switch_page(page("9_team")).run()
    no_exceptions(owner)
    table = [d.value for d in owner.dataframe if "agreement_with_filter" in d.value.columns][0].set_index("reviewer")
    assert table["reviewed"].to_dict() == {OWNER: 90, CURATOR: 90, ANNOTATOR: 90}
    per = {r["reviewer"]: r["agreement_with_filter"] for r in cli["per_reviewer"]}
    assert table["agreement_with_filter"].round(4).to_dict() == per
    # the export manifest and the evaluation report record it
    owner.switch_page(page("7_export")).run()
    record = json.loads(downloads(manifest_button(owner)))["export"]["review_agreement"]
    assert record["alpha"] == cli["alpha"] and record["examples_reviewed"] == 90
    assert record["filter_kappa"] == cli["filter"]["kappa"] and record["dispute_rule"] == "latest"
    owner.switch_page(page("10_evaluate")).run()
    owner.multiselect(key="eval_families").set_value(["logistic"])
    owner.text_input(key="eval_ks").input("1,5")
    owner.button(key="eval_run").click().run()
    wait_for_jobs(owner)
    report = downloads([b for b in owner.get("download_button") if b.proto.label.startswith("Download the HTML")][0])
    assert b"<h2>Team review</h2>" in report and f"{cli['alpha']:.3f}".encode() in report
    best = cli["supported"]
    owner.switch_page(page("2_filter")).run()                # offered on the Filter page too
    assert any(f"support τ = {best['tau']:.2f}, n = {best['n']:,}" in c.value for c in owner.caption)
    owner.switch_page(page("8_review")).run()
    open_tab(owner, "Agreement")
    owner.button(key="ag_use").click().run()
    no_exceptions(owner)
    sess = owner.session_state["artifact_lens"]
    assert (round(float(sess.tau), 2), int(sess.target)) == (round(best["tau"], 2), best["n"])


def test_blind_review_with_two_reviews_per_example_adjudication_and_guidelines(fresh_server, downloads):
    """An owner turns on blind review with N = 2 and writes guidelines on the Team page; an
    annotator sees them, and no one else's decision before deciding; the Agreement tab is the
    adjudicators'; a curator adjudicates a dispute; the export manifest records the settings,
    the guidelines versions and the adjudicated word."""
    from artifact_lens.dashboard.process.shared import server

    owner, team, ws, key, run_id = team_of_three()
    owner.switch_page(page("9_team")).run()
    owner.number_input(key="team_per_example").set_value(2)
    owner.checkbox(key="team_blind").check()
    owner.button(key="team_settings_save").click().run()
    owner.text_area(key="team_guidelines").input("Keep what a person would write.\n<b>Remove</b> giveaways.")
    owner.button(key="team_guidelines_save").click().run()
    no_exceptions(owner)
    assert team.review_settings(ws, by=OWNER) == {"dispute_rule": "latest", "reviews_per_example": 2, "blind": True}

    run = server().store.get(key)
    first = str(run.ids[0])
    team.review(ws, run_id, first, "keep", "a real one", by=CURATOR)     # the curator decided first
    ann = app(ANNOTATOR).run()
    ann.switch_page(page("8_review")).run()
    no_exceptions(ann)
    assert any(t.value == "Keep what a person would write.\n<b>Remove</b> giveaways." for t in ann.text)  # as text
    assert any("Review is blind" in c.value for c in ann.caption)
    head = [t.value for t in ann.text if t.value.startswith("id: ")][0].split("\n")[0][len("id: "):]
    assert head == first                                  # one review of two: served first, to reach N
    for tab in ("Your queue", "Disagreements", "Progress"):
        open_tab(ann, tab)
        decisions = [d.value for d in ann.dataframe if {"reviewer", "decision"} <= set(d.value.columns)
                     or {"chosen"} <= set(d.value.columns)]
        assert not [d for d in decisions if CURATOR in " ".join(map(str, d.to_numpy().ravel()))]   # nobody's decision
    # blind: her own progress only (a teammate's count tells which examples of the shared order they decided)
    assert not [d for d in ann.dataframe if "reviewed" in d.value.columns]
    assert any("your own progress only" in c.value for c in ann.caption)
    open_tab(ann, "Agreement")
    assert any("is for curators and owners" in i.value for i in ann.info)           # no Agreement for annotators
    open_tab(ann, "Your queue")
    ann.radio(key="rv_queue_decision").set_value("remove")
    ann.text_input(key="rv_queue_note").input("a giveaway word")
    ann.button(key="rv_queue_submit").click().run()
    # the curator adjudicates the dispute
    cur = app(CURATOR).run()
    cur.switch_page(page("8_review")).run()
    open_tab(cur, "Adjudication")
    table = [d for d in cur.dataframe if d.key.startswith("adj_table")][0]
    assert table.value["example_id"].tolist() == [first] and table.value["reason"].tolist() == ["reviewers differ"]
    team.adjudicate(ws, run_id, first, "remove", "the hypothesis gives it away", by=CURATOR)
    cur.run()
    assert not [d for d in cur.dataframe if d.key.startswith("adj_table")]
    owner.switch_page(page("7_export")).run()
    record = json.loads(downloads(manifest_button(owner)))["export"]
    assert record["review_settings"] == {"dispute_rule": "latest", "reviews_per_example": 2, "blind": True}
    assert [g["decisions"] for g in record["review_guidelines"]] == [3]
    (override,) = [o for o in record["review_overrides"] if o["example_id"] == first]
    assert override["reviewer"] == CURATOR and override["decision"] == "remove"


def test_one_page_counts_one_way_under_blind_review(fresh_server):
    """Issue 35, item 6: with blind review on, the owner's Review page counts every decision in its
    metrics and Disagreements, as its Agreement and Adjudication tabs do (they said 0 reviewed and 1
    dispute beside 15 reviewed and 4 disputes)."""
    from artifact_lens.dashboard.process.shared import server

    owner, team, ws, key, run_id = team_of_three()
    team.set_review_settings(ws, reviews_per_example=2, blind=True, by=OWNER)
    run = server().store.get(key)
    for i, example in enumerate(run.ids[:12]):
        team.review(ws, run_id, str(example), "agree", by=ANNOTATOR)
        team.review(ws, run_id, str(example), "keep" if i % 3 == 0 and not run.retained[i] else "agree",
                    "kept on purpose", by=CURATOR)
    owner.switch_page(page("8_review")).run()
    no_exceptions(owner)
    reviewed = int(metrics(owner)["Reviewed"].split(" of ")[0].replace(",", ""))
    open_tab(owner, "Disagreements")
    shown = [d.value for d in owner.dataframe if "chosen" in d.value.columns]
    disputes = len(shown[0]) if shown else 0
    open_tab(owner, "Agreement")
    assert metrics(owner)["Reviewed twice or more"] == f"12 of {reviewed}" and reviewed == 12
    open_tab(owner, "Adjudication")
    table = [d.value for d in owner.dataframe if d.key.startswith("adj_table")]
    differ = int((table[0]["reason"] == "reviewers differ").sum()) if table else 0
    assert disputes == differ > 0


def test_blind_review_shows_no_count_of_an_example_still_waiting_for_the_readers_own_decision(fresh_server):
    """Issue 63, item 4: before deciding on an example, the curator's Review page said "disputed /
    overridden 1" while the only decision in the run was the annotator's override on it. An example
    still waiting for the reader's own review counts as unreviewed on her page, adjudicator or not;
    once she has decided (or it is settled), it counts."""
    from artifact_lens.dashboard.process.shared import server

    owner, team, ws, key, run_id = team_of_three()
    team.set_review_settings(ws, reviews_per_example=2, blind=True, by=OWNER)
    from artifact_lens.dashboard.widgets.review_panel import BADGES

    run = server().store.get(key)
    example = str(run.ids[int(np.flatnonzero(~run.retained)[0])])
    team.review(ws, run_id, example, "keep", "I would keep it", by=ANNOTATOR)
    cur = app(CURATOR).run()
    cur.switch_page(page("8_review")).run()
    no_exceptions(cur)
    shown = metrics(cur)
    assert shown["Reviewed"].startswith("0 of ") and shown[BADGES["yellow"]] == "0", shown
    team.review(ws, run_id, example, "agree", by=CURATOR)
    cur.run()
    shown = metrics(cur)
    assert shown["Reviewed"].startswith("1 of ") and shown[BADGES["yellow"]] == "1", shown
