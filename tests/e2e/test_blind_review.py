"""Blind review with two reviewers per example, by three people at once in real browsers
(issue 22): the owner turns it on from the Team page; the owner and two annotators take turns
from their queues; nobody sees another's decision, light or note on an example before deciding
on it; every example ends with two reviews; the owner's Agreement tab shows the α that
`artifact-lens agreement` prints for the same workspace, run and τ/n."""
import json
import re
import urllib.parse

import pytest

pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
from playwright.sync_api import expect  # noqa: E402

from conftest import TEAM_USERS  # noqa: E402
from steps import go, key, metric, press, wait_idle  # noqa: E402
from test_auth import served_id, sign_in, tables  # noqa: E402

pytestmark = [pytest.mark.e2e, pytest.mark.auth, pytest.mark.slow,
              pytest.mark.filterwarnings("ignore::DeprecationWarning:authlib.*"),
              pytest.mark.filterwarnings("ignore::DeprecationWarning:oidc_provider_mock.*")]

OWNER, ANN1, ANN2 = TEAM_USERS
ROUNDS = 4
#: who keeps anyway on which of their turns (the others agree with the filter)
KEEPS = {OWNER: set(), ANN1: {1}, ANN2: {0, 2}}


def decide(page, email, turn):
    served = served_id(page)
    if turn in KEEPS[email]:
        key(page, "rv_queue_decision").get_by_text("Keep anyway").click()
        key(page, "rv_queue_note").locator("input").fill("a person could write this")
    press(page, key(page, "rv_queue_submit").get_by_role("button"))
    expect(page.locator('[data-testid="stText"]').filter(has_text=re.compile(r"^id: ")).first).not_to_have_text(
        re.compile(rf"^id: {re.escape(served)}\b"))
    return served


def test_three_reviewers_blind_with_two_reviews_per_example(team_app, browser, capsys):
    from artifact_lens.cli import main
    from artifact_lens.team.store import TeamStore

    app = team_app
    owner = sign_in(browser, app, OWNER, "owner")
    go(owner, "Review")
    key(owner, "rv_save_run").get_by_role("button").click()
    expect(metric(owner, "Reviewed")).to_have_text(re.compile(r"^0 of "))
    url = app.env["ARTIFACT_LENS_DB_URL"]
    with TeamStore(url) as store:
        ws = store.workspaces_of(OWNER)[0][0]
        for email in (ANN1, ANN2):
            store.set_role(ws, email, "annotator", by=OWNER)
        run_key = store.runs(ws, by=OWNER)["key"].iloc[0]
    go(owner, "Team")
    key(owner, "team_per_example").locator("input").fill("2")
    key(owner, "team_blind").get_by_role("checkbox").check(force=True)
    cut = key(owner, "team_blind").evaluate(     # its label reads whole (it was cut off in a half column)
        "e => [e, ...e.querySelectorAll('*')].filter(x => (x.textContent || '').trim() && x.scrollWidth > x.clientWidth + 1)"
        ".map(x => [x.tagName, x.getAttribute('data-testid'), x.className, x.scrollWidth, x.clientWidth, x.innerText])")
    assert not cut, cut
    press(owner, key(owner, "team_settings_save").get_by_role("button"))
    with TeamStore(url) as store:
        assert store.review_settings(ws, by=OWNER) == {"dispute_rule": "latest", "reviews_per_example": 2,
                                                       "blind": True}

    pages = {OWNER: owner, ANN1: sign_in(browser, app, ANN1, "annotator"),
             ANN2: sign_in(browser, app, ANN2, "annotator")}
    for page in pages.values():
        go(page, "Review")
    decided = {email: [] for email in pages}
    for turn in range(ROUNDS):
        for email, page in pages.items():
            # the reviewer's turn starts on a fresh page (a decision made from a page drawn before the
            # others' turns lands on the example that page showed: issue 45)
            go(page, "Review")
            page.get_by_role("tab", name="Your queue").click()
            wait_idle(page)
            # blind: the served example shows no one's decision, note or light before one's own
            assert not [t for t in tables(page) if t and {"reviewer", "decision"} <= set(t[0])], tables(page)
            light = page.locator('[data-testid="stText"]').filter(has_text=re.compile(r"^review: ")).first
            expect(light).not_to_have_text(re.compile("agreed|disputed"))
            decided[email].append(decide(page, email, turn))
    with TeamStore(url) as store:
        counts = store.review_counts(ws, store.run_id(ws, run_key, by=OWNER), by=OWNER)
    assert sorted(counts.values()) == [2] * (len(pages) * ROUNDS // 2)    # every example served ends with two

    go(owner, "Review")
    owner.get_by_role("tab", name="Agreement", exact=True).click()
    wait_idle(owner)
    expect(metric(owner, "Reviewed twice or more")).to_have_text(f"{len(counts)} of {len(counts)}")
    shown = metric(owner, "Krippendorff's α").inner_text()
    interval = metric(owner, "α, 95 % interval")
    shown_interval = interval.inner_text()
    assert interval.evaluate("e => [e, ...e.querySelectorAll('*')].every(x => x.scrollWidth <= x.clientWidth + 1)"), \
        "the interval is cut off"
    query = urllib.parse.parse_qs(urllib.parse.urlparse(owner.url).query)
    capsys.readouterr()
    assert main(["agreement", "--db", url, "--workspace", "default", "--run", run_key, "--as", OWNER, "--json",
                 "--tau", query["tau"][0], "--target-size", query["n"][0]]) == 0
    cli = json.loads(capsys.readouterr().out)
    low, high = cli["alpha_interval"]
    assert shown == ("–" if cli["alpha"] is None else f"{cli['alpha']:.2f}"), (shown, cli["alpha"])
    assert shown_interval == ("–" if low is None else f"{low:.2f} to {high:.2f}"), (shown_interval, cli["alpha_interval"])
    assert cli["examples_reviewed_twice_or_more"] == len(counts) and cli["reviewers"] == 3
    # an annotator gets no agreement while review is blind
    pages[ANN1].get_by_role("tab", name="Agreement", exact=True).click()
    expect(pages[ANN1].get_by_text("is for curators and owners")).to_be_visible()
    for page in pages.values():
        page.context.close()
    assert "Traceback" not in app.log_tail(200_000), app.log_tail()
