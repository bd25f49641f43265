"""The creator/validator loop of paper 002 §3.2 as two people in real browsers, on SNLI dev
(issue 21): the owner loads and scores SNLI dev; a creator writes three examples (one with an
obvious giveaway, which is red and says why in words) and the form clears after each; the
validator rejects one with a note and accepts two; the creator revises the rejected one; the
accepted examples join the dataset as a version that scores."""
import re
from pathlib import Path

import pytest

pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
from playwright.sync_api import TimeoutError as PlaywrightTimeout, expect  # noqa: E402

from conftest import TEAM_USERS, TeamApp  # noqa: E402
from steps import go, key, metric, press, wait_idle  # noqa: E402
from test_auth import SIDEBAR, sign_in  # noqa: E402
from scale import patience  # noqa: E402

pytestmark = [pytest.mark.e2e, pytest.mark.auth, pytest.mark.slow,
              pytest.mark.filterwarnings("ignore::DeprecationWarning:authlib.*"),
              pytest.mark.filterwarnings("ignore::DeprecationWarning:oidc_provider_mock.*")]

SNLI_DEV = Path(__file__).resolve().parents[3] / "shared" / "data" / "snli_dev.jsonl"
OWNER, CREATOR = TEAM_USERS[0], TEAM_USERS[1]


def long() -> float:
    """The bound (ms) on scoring SNLI dev: 300 s on a quiet 2-core machine, longer in proportion to
    the load when the wait starts (`scale.patience`); the tests wait on what the page shows."""
    return patience(300) * 1000


@pytest.fixture(scope="module")
def snli_app(idp, tmp_path_factory):
    if not SNLI_DEV.exists():
        pytest.skip(f"{SNLI_DEV} is absent")
    app = TeamApp(tmp_path_factory.mktemp("loop_app"), idp, owner=OWNER)
    app.env["ARTIFACT_LENS_DATA_DIRS"] = str(SNLI_DEV.parent)
    app.start()
    yield app
    app.stop()


def choose(page, name, option):
    """Pick ``option`` in selectbox ``name``; a click that lands during a rerun may not open the
    list, so open it again until the option shows."""
    wait_idle(page)
    box = key(page, name).get_by_role("combobox")
    for _ in range(6):
        box.click()
        choice = page.get_by_role("option", name=option, exact=True)
        try:
            choice.wait_for(timeout=10_000)
        except PlaywrightTimeout:
            page.keyboard.press("Escape")
            wait_idle(page)
            continue
        choice.click()
        wait_idle(page)
        expect(box).to_have_value(option)
        return
    raise AssertionError(f"the option {option!r} of {name} never showed")


def write(page, premise, hypothesis, label):
    """Choose the label, then type each field and commit it (Ctrl+Enter) before the next: a
    field typed while a rerun was pending could be lost on a busy machine."""
    choose(page, "cr_label", label)
    for field, text in (("premise", premise), ("hypothesis", hypothesis)):
        area = page.locator(f".st-key-cr_{field} textarea")
        area.fill(text)
        area.press("Control+Enter")
        wait_idle(page)
        expect(area).to_have_value(text)
    expect(page.get_by_text(re.compile(r"^Overall: "))).to_be_visible(timeout=long())
    wait_idle(page)
    # the feedback models may have been fitted in the background meanwhile (the first example after a
    # start): the page their end redrew kept what was written
    for field, text in (("premise", premise), ("hypothesis", hypothesis)):
        expect(page.locator(f".st-key-cr_{field} textarea")).to_have_value(text)


def submit(page):
    press(page, key(page, "cr_submit").get_by_role("button"))
    expect(page.get_by_text(re.compile(r"^Submitted as example"))).to_be_visible()
    expect(page.locator(".st-key-cr_hypothesis textarea")).to_have_value("")     # the form cleared
    expect(page.locator(".st-key-cr_premise textarea")).to_have_value("")


def submit_then_type_at_once(page, premise, hypothesis):
    """Issue 35, item 1: submit, then as soon as the form clears type the next example at a writer's
    speed without waiting on the app (premise, Tab, hypothesis, Ctrl+Enter): nothing typed is lost,
    and the message that the example was submitted stays."""
    key(page, "cr_submit").get_by_role("button").click()
    area = page.locator(".st-key-cr_premise textarea")
    expect(area).to_have_value("")
    area.click()
    page.keyboard.type(premise, delay=20)
    page.keyboard.press("Tab")
    page.keyboard.type(hypothesis, delay=20)
    page.keyboard.press("Control+Enter")
    wait_idle(page)
    expect(page.locator(".st-key-cr_premise textarea")).to_have_value(premise)
    expect(page.locator(".st-key-cr_hypothesis textarea")).to_have_value(hypothesis)
    expect(page.get_by_text(re.compile(r"^Submitted as example"))).to_be_visible()


def validate(page, decision, note=""):
    key(page, "va_decision").get_by_text(decision.capitalize(), exact=True).click()
    if note:
        key(page, "va_note").locator("input").fill(note)
    press(page, key(page, "va_submit").get_by_role("button"))


@pytest.fixture(scope="module")
def people():
    """The owner's and the creator's pages, signed in by the first steps and used by the next: the
    loop is three tests so that each has pytest's timeout to itself (one ran past it at load 6-20)."""
    return {}


def _signed_in(people, *who):
    missing = [w for w in who if w not in people]
    assert not missing, f"an earlier step of the loop did not finish: no {', '.join(missing)} page"
    return [people[w] for w in who]


def test_the_owner_scores_snli_dev_and_adds_a_creator(snli_app, browser, people):
    owner = sign_in(browser, snli_app, OWNER, "owner")
    owner.get_by_text("Local path", exact=True).click()
    wait_idle(owner)
    owner.get_by_role("textbox", name="File or folder").fill(str(SNLI_DEV))
    owner.get_by_role("button", name="Load", exact=True).click()
    owner.wait_for_selector("text=Loaded dataset (not scored yet)", timeout=long())
    wait_idle(owner)
    owner.get_by_role("button", name="Build Φ and score with AFLite").click()
    owner.wait_for_selector(f'{SIDEBAR} >> text=snli_dev.jsonl', timeout=long())
    expect(owner.locator(SIDEBAR).get_by_text("9,842 examples")).to_be_visible(timeout=long())
    go(owner, "Review")                                  # the run (and its dataset) is the workspace's: creation attaches to it
    expect(metric(owner, "Reviewed")).to_have_text(re.compile(r"^0 of "))
    go(owner, "Team")
    key(owner, "team_email").locator("input").fill(CREATOR)
    press(owner, key(owner, "team_set_role").get_by_role("button"))
    people["owner"] = owner


def test_the_creator_writes_and_the_owner_validates(snli_app, browser, people):
    owner, = _signed_in(people, "owner")
    creator = sign_in(browser, snli_app, CREATOR, "annotator")
    people["creator"] = creator
    go(creator, "Create")
    write(creator, "A man in a red coat is sitting on a bench in a snowy park.", "Nobody is sitting.", "contradiction")
    expect(creator.get_by_text("Overall: 🔴 red")).to_be_visible()
    tied = creator.get_by_text(re.compile(r"Giveaway words .*→ replace the marked words")).first
    expect(tied).to_be_visible()                                                  # why, in words
    submit_then_type_at_once(creator, "Two girls in yellow raincoats jump over puddles on a village road.",
                             "The girls are outside in the rain.")
    choose(creator, "cr_label", "entailment")
    expect(creator.get_by_text(re.compile(r"^Overall: "))).to_be_visible(timeout=long())
    wait_idle(creator)
    submit(creator)
    write(creator, "An old fisherman mends a green net beside his boat at dawn.",
          "The fisherman will sell his catch at the market later today.", "neutral")
    submit(creator)

    go(owner, "Validate")
    expect(metric(owner, "Waiting for you")).to_have_text("3")
    validate(owner, "reject", "'Nobody' gives the label away; say what the man does instead")
    expect(metric(owner, "Waiting for you")).to_have_text("2")
    validate(owner, "accept")
    expect(metric(owner, "Waiting for you")).to_have_text("1")
    validate(owner, "accept")
    expect(metric(owner, "Waiting for you")).to_have_text("0")


def test_the_rejected_one_is_revised_and_the_accepted_version_scores(people):
    owner, creator = _signed_in(people, "owner", "creator")
    go(creator, "Create")
    expect(key(creator, "cr_revise_pick").get_by_role("combobox")).to_have_value(
        re.compile(r"say what the man does instead$"))                           # the note reaches the creator
    press(creator, key(creator, "cr_revise").get_by_role("button"))
    expect(creator.locator(".st-key-cr_hypothesis textarea")).to_have_value("Nobody is sitting.")
    write(creator, "A man in a red coat is sitting on a bench in a snowy park.", "The man is standing in a line.",
          "contradiction")
    submit(creator)

    go(owner, "Validate")
    expect(metric(owner, "Waiting for you")).to_have_text("1")                   # the revision waits
    key(owner, "va_version").get_by_role("button").click()
    expect(owner.get_by_text(re.compile(r"^Loaded "))).to_be_visible(timeout=long())
    go(owner, "Data")
    owner.get_by_role("button", name="Build Φ and score with AFLite").click()
    expect(owner.locator(SIDEBAR).get_by_text("9,844 examples")).to_be_visible(timeout=long())   # original + 2 accepted
