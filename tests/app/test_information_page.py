"""V-usable information in the dashboard (issue 34): a curator computes each example's PVI on the
Predictability page (a shared background job), which then shows it per label and against p̃; an
annotator sees the same result but cannot start one; the Examples page lists PVI as a column."""
import json

from apptest_helpers import OWNER, app, metrics, no_exceptions, page, texts, wait_for_jobs

ANNOTATOR = "ann@team.org"


def test_pvi_on_the_predictability_and_examples_pages(fresh_server):
    from artifact_lens.dashboard.process.shared import server

    owner = app(OWNER).run()
    owner.switch_page(page("3_predictability")).run()
    no_exceptions(owner)
    owner.button(key="pvi_compute").click().run()
    wait_for_jobs(owner)
    shown = metrics(owner)
    assert "V-information of Φ" in shown and "V-information of the partial input" in shown
    assert float(shown["V-information of the partial input"].split()[0]) > 0   # the demo's planted cues carry bits
    # both with their interval, the partial input named, no metric cut short (issue 45, walk item 7)
    assert all(" ± " in shown[k] and shown[k].endswith(" bits") for k in ("V-information of Φ",
                                                                        "V-information of the partial input"))
    assert "Majority-class accuracy" in shown and any("the partial input is" in c.value for c in owner.caption)
    titles = [json.loads(c.proto.spec)["layout"].get("title", {}).get("text") for c in owner.get("plotly_chart")]
    assert {"PVI on Φ, per label", "PVI of the partial input, per label", "PVI against p̃"} <= set(titles)
    per_label = [d.value for d in owner.dataframe if "pvi_mean" in d.value.columns][0]
    assert per_label["examples"].sum() > 0

    owner.switch_page(page("6_examples")).run()
    no_exceptions(owner)
    assert any("pvi" in d.value.columns and "pvi_partial" in d.value.columns for d in owner.dataframe)

    ws = server().team.workspaces_of(OWNER)[0][0]
    server().team.set_role(ws, ANNOTATOR, "annotator", by=OWNER)
    ann = app(ANNOTATOR).run()
    ann.switch_page(page("3_predictability")).run()
    no_exceptions(ann)
    assert not [b for b in ann.button if b.key == "pvi_compute"]
    assert metrics(ann)["V-information of Φ"] == shown["V-information of Φ"]


def test_an_annotator_is_told_who_can_compute_it(fresh_server):
    from artifact_lens.dashboard.process.shared import server

    app(OWNER).run()   # the owner's first sign-in makes the workspace
    ws = server().team.workspaces_of(OWNER)[0][0]
    server().team.set_role(ws, ANNOTATOR, "annotator", by=OWNER)
    ann = app(ANNOTATOR).run()
    ann.switch_page(page("3_predictability")).run()
    no_exceptions(ann)
    assert "curators and owners can" in texts(ann)
