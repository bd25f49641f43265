"""The Evaluate page through streamlit's AppTest: options form, background job with progress and
Cancel, results stored with the run (a new tab and a restarted server read them), "use this n",
bad options, and the role check (annotators see stored results only)."""
import os
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from scale import patience
from apptest_helpers import AUTH, OWNER, app, metrics, no_exceptions, page, texts, wait_for_jobs

ANNOTATOR = "ann@team.org"


def small_options(at):
    at.multiselect(key="eval_families").set_value(["logistic"])
    at.text_input(key="eval_ks").input("1,5")
    at.slider(key="eval_step").set_value(0.25)


def test_evaluate_in_the_background_store_it_and_use_the_suggested_n(fresh_server):
    from artifact_lens.dashboard.process.shared import server

    at = app().run()
    at.switch_page(page("10_evaluate")).run()
    no_exceptions(at)
    assert "No evaluation of this run yet" in texts(at)
    # bad options: a message, no job
    at.text_input(key="eval_ks").input("1,five")
    at.button(key="eval_run").click().run()
    assert any("K must be whole numbers" in e.value for e in at.error)
    assert not server().jobs.running()
    small_options(at)
    at.button(key="eval_run").click().run()
    wait_for_jobs(at)
    m = metrics(at)
    assert m["Coarse action stops at"].endswith("%") and "Suggested n" in m
    said = [s.value.replace("\\", "") for s in at.success if s.value.startswith("The filtered split is")]
    assert said and "i.i.d. split" in said[0] and "majority label scores" in said[0]   # the verdict, in words
    table = [d.value for d in at.dataframe if "i.i.d. · full" in d.value.columns]
    # the demo's Φ reads the hypothesis only, as the partial input does: one table, and a caption that says so
    # (issue 35: the same table twice read as two results)
    assert len(table) == 1 and any("is the partial-input table" in c.value for c in at.caption)
    assert list(table[0].index) == ["logistic"] and "AFLite-filtered · random" in table[0].columns
    assert len(at.get("plotly_chart")) >= 4              # families, kNN, phases, coarse (no repeated partial-input figure)
    # "use this n": the session's live n, which the Filter page's slider starts from
    suggested = int(m["Suggested n"].replace(",", ""))
    button = at.button(key="eval_use_n")
    said_n = int(button.label.split("Use n = ")[1].split(" ")[0].replace(",", ""))
    button.click().run()
    target = at.session_state["artifact_lens"].target
    assert target == suggested == said_n     # one n on the page: the metric, the button and what it sets
    at.switch_page(page("2_filter")).run()
    no_exceptions(at)
    assert at.slider(key="w_target_1").value == pytest.approx(round(target / 3000, 2), abs=0.011)   # a fresh slider
    # a new tab, and a restarted server, read the stored evaluation: nothing is recomputed
    server.clear()
    other = app().run()
    other.switch_page(page("10_evaluate")).run()
    no_exceptions(other)
    assert metrics(other)["Suggested n"] == m["Suggested n"]
    assert not server().jobs.running() and "eval" not in other.session_state["artifact_lens"].jobs


def test_cancel_stops_the_evaluation_and_nothing_is_stored(fresh_server):
    from artifact_lens.dashboard.process.shared import server

    at = app().run()
    at.switch_page(page("10_evaluate")).run()
    at.checkbox(key="eval_synthetic").check()          # the slowest options: every family, circles too
    at.button(key="eval_run").click().run()
    no_exceptions(at)
    assert at.button(key="eval_run").disabled               # no second start while it runs …
    assert "The first evaluation of this run is running" in texts(at)   # … and no "no evaluation yet"
    other = app().run()                                     # a teammate's tab on the same server
    other.switch_page(page("10_evaluate")).run()
    assert other.button(key="eval_run").disabled and "is running" in texts(other)
    assert at.button(key="eval_cancel")
    at.button(key="eval_cancel").click().run()
    deadline = time.time() + patience(60)   # a bound that grows with the load: the wait is on the job
    while server().jobs.running() and time.time() < deadline:
        time.sleep(0.1)
    at.run()
    no_exceptions(at)
    assert "Evaluation cancelled" in texts(at)
    assert not list((Path(os.environ["ARTIFACT_LENS_CACHE"]) / "runs" / "evaluations").glob("*.json"))
    assert "No evaluation of this run yet" in texts(at)


def evaluated_by_the_owner_and_an_annotator():
    """The owner's tab after a small evaluation, and a new annotator's tab: (owner, annotator)."""
    from artifact_lens.dashboard.process.shared import server

    owner = app(OWNER).run()
    owner.switch_page(page("10_evaluate")).run()
    small_options(owner)
    owner.button(key="eval_run").click().run()
    wait_for_jobs(owner)
    ws = server().team.workspaces_of(OWNER)[0][0]
    server().team.set_role(ws, ANNOTATOR, "annotator", by=OWNER)
    return owner, app(ANNOTATOR).run()


def test_an_annotator_sees_stored_results_but_no_form_and_start_refuses(fresh_server):
    owner, ann = evaluated_by_the_owner_and_an_annotator()
    shown = metrics(owner)["Suggested n"]
    ann.switch_page(page("10_evaluate")).run()
    no_exceptions(ann)
    assert not [b for b in ann.button if b.key == "eval_run"] and "need a curator or owner" in texts(ann)
    assert metrics(ann)["Suggested n"] == shown          # the owner's stored evaluation
    script = """
import streamlit as st
from artifact_lens.team.store import NotAllowed
from artifact_lens.dashboard.services import current, run_view, team
from artifact_lens.dashboard.services import evaluation as evaluation_jobs
from artifact_lens.dashboard.widgets.page import start_page
tab = start_page("Probe")
try:
    evaluation_jobs.start(tab, run_view.run(tab), families=("logistic",))
    st.text("allowed")
except NotAllowed as exc:
    st.text("refused: " + str(exc))
"""
    probe = AppTest.from_string(script, default_timeout=120)
    probe.secrets["auth"] = dict(AUTH)
    probe.user = {"is_logged_in": True, "email": ANNOTATOR}
    probe.run()
    no_exceptions(probe)
    assert any(t.value.startswith("refused") for t in probe.text), [t.value for t in probe.text]


def test_an_evaluation_a_stop_cut_short_is_shown_and_runs_again(fresh_server):
    import json
    import subprocess
    import sys

    from artifact_lens.dashboard.process.shared import server
    from artifact_lens.dashboard.services import evaluation as evaluation_jobs
    from artifact_lens.dashboard.state.tab import Tab

    at = app().run()
    at.switch_page(page("10_evaluate")).run()
    sess = at.session_state["artifact_lens"]
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()                                             # a pid that is no longer alive
    store = evaluation_jobs.store(Tab(sess, server()))
    options = {"families": ["logistic"], "knn_ks": [1, 5], "coarse_step": 0.25}
    store.started("cut-short", run_key=sess.run_key, tau=0.8, n=1600, options=options)
    path = store.root / "started" / "cut-short.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "pid": gone.pid, "instance": "before the stop"}))
    at.run()
    no_exceptions(at)
    said = [w.value for w in at.warning if "was interrupted" in w.value]
    assert said and "τ = 0.80, n = 1,600" in said[0].replace("\\", "")
    at.button(key="eval_again_0").click().run()
    wait_for_jobs(at)
    no_exceptions(at)
    assert not [w for w in at.warning if "was interrupted" in w.value]
    assert metrics(at)["τ, n evaluated"] == "0.80, 1,600"     # its own τ/n, which the tab's knobs moved to
    assert (sess.tau, sess.target) == (0.8, 1600)


def test_a_teammate_at_another_tau_and_n_sees_the_stored_evaluation_with_its_own(fresh_server):
    """Issue 21: evaluations are listed at every τ/n they were computed at, not only the live one."""
    owner, ann = evaluated_by_the_owner_and_an_annotator()
    evaluated = metrics(owner)["τ, n evaluated"]
    ann.switch_page(page("2_filter")).run()
    ann.slider(key="w_tau").set_value(0.6).run()           # another τ than the evaluation's
    ann.switch_page(page("10_evaluate")).run()
    no_exceptions(ann)
    assert "No evaluation of this run yet" not in texts(ann)
    assert "τ = 0.60" in texts(ann)                          # the live split, said at the top
    assert metrics(ann)["τ, n evaluated"] == evaluated       # the stored one, with the τ/n it was made at
