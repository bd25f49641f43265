"""Two people on one example in real browsers (issue 45, the team's walk, item 1): an annotator's
page serves an example; the owner decides on it in their own session; the annotator, from the
page that is now out of date, saves "Keep anyway" with a note about that example. Before, the
decision was stored on the next example of her queue (and became an override in the export);
now it is refused with a message that names the example, her note is kept on the page, and
nothing is written on any example."""
import re

import pytest

pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
from playwright.sync_api import expect  # noqa: E402

from conftest import TEAM_USERS  # noqa: E402
from steps import go, key, metric, press  # noqa: E402
from test_auth import served_id, sign_in  # noqa: E402

pytestmark = [pytest.mark.e2e, pytest.mark.auth,
              pytest.mark.filterwarnings("ignore::DeprecationWarning:authlib.*"),
              pytest.mark.filterwarnings("ignore::DeprecationWarning:oidc_provider_mock.*")]

OWNER, ANN1, _ = TEAM_USERS


def test_a_decision_from_a_stale_page_lands_on_no_other_example(team_app, browser):
    from artifact_lens.team.store import TeamStore

    app = team_app
    owner = sign_in(browser, app, OWNER, "owner")
    go(owner, "Review")
    key(owner, "rv_save_run").get_by_role("button").click()
    expect(metric(owner, "Reviewed")).to_have_text(re.compile(r"^0 of "))
    url = app.env["ARTIFACT_LENS_DB_URL"]
    with TeamStore(url) as store:
        ws = store.workspaces_of(OWNER)[0][0]
        store.set_role(ws, ANN1, "annotator", by=OWNER)
        run_id = store.run_id(ws, store.runs(ws, by=OWNER)["key"].iloc[0], by=OWNER)

    ann = sign_in(browser, app, ANN1, "annotator")
    go(ann, "Review")
    shown = served_id(ann)
    # the owner's queue serves the same head (one order by p̃): the owner decides on it first
    go(owner, "Review")
    expect(owner.locator('[data-testid="stText"]').filter(has_text=re.compile(r"^id: ")).first).to_have_text(
        re.compile(rf"^id: {re.escape(shown)}\n"))
    press(owner, key(owner, "rv_queue_submit").get_by_role("button"))
    expect(metric(owner, "Reviewed")).to_have_text(re.compile(r"^1 of "))

    # her page still shows it; she keeps it anyway, with a note about it
    key(ann, "rv_queue_decision").get_by_text("Keep anyway").click()
    key(ann, "rv_queue_note").locator("input").fill(f"my note is about example {shown}")
    press(ann, key(ann, "rv_queue_submit").get_by_role("button"))
    expect(ann.locator('[data-testid="stAlertContentError"]').filter(
        has_text="changed while you had it open")).to_be_visible()
    expect(ann.locator('[data-testid="stText"]').filter(
        has_text=f"note: my note is about example {shown}")).to_be_visible()
    with TeamStore(url) as store:
        everything = store.reviews(ws, run_id, by=OWNER, latest=False)
    assert everything[["example_id", "reviewer"]].values.tolist() == [[shown, OWNER]]   # nothing of hers, anywhere
    assert served_id(ann) != shown                                                      # her queue moved on
    expect(key(ann, "rv_queue_note").locator("input")).to_have_value("")               # with an empty form
