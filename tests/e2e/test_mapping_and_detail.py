"""In a real browser: a file whose columns are not recognised is mapped on the Data page
before it loads, and one example opens in full on the Examples page (p̃ per phase, its
features, its nearest neighbours, "more like this")."""
import csv
import re
import time

import pytest

from steps import count, go, press, wait_idle

pytestmark = pytest.mark.e2e


def choose(page, key, option):
    """Pick ``option`` in the Streamlit select box (or multiselect) with widget key ``key``."""
    box = page.locator(f".st-key-{key} [role='combobox']").first
    box.click()
    box.fill(option)   # typing filters the list (a long list scrolls the option out of view)
    page.get_by_role("option", name=option, exact=True).click()
    page.keyboard.press("Escape")
    wait_idle(page)


def test_columns_are_mapped_in_the_page_before_loading(page, tmp_path):
    rows = [("claim", "verdict", "ref")] + [(f"statement {i} is {'false' if i % 2 else 'true'}",
                                             "refuted" if i % 2 else "supported", f"r{i}") for i in range(60)]
    path = tmp_path / "claims.csv"
    with open(path, "w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    page.get_by_text("Upload", exact=True).click()
    wait_idle(page)
    page.locator('input[type="file"]').set_input_files(str(path))
    wait_idle(page)
    page.get_by_role("button", name="Load", exact=True).click()
    page.wait_for_selector("text=choose the label column below")
    assert "--label" not in page.inner_text("body")                 # the app's words, not the CLI's
    page.wait_for_selector("text=The first 20 rows of claims.csv")   # the preview's caption
    choose(page, "mapping_label", "verdict")
    choose(page, "mapping_text", "claim")
    choose(page, "mapping_id", "ref")
    page.get_by_role("button", name="Load with these columns").click()
    page.wait_for_selector("text=Loaded dataset (not scored yet)")
    wait_idle(page)
    assert count(page, "Examples") == 60 and count(page, "Labels") == 2


def test_one_example_opens_in_full(page):
    go(page, "Examples")
    box = page.locator(".st-key-ex_pick [role='combobox']").first
    # The list closes on any scroll of the page, and the page scrolls once more a moment after the
    # box comes into view: open it mid-screen, take the first match by keyboard (ArrowDown opens the
    # list or moves to the next match, Enter takes the focused one), and again until one is taken.
    deadline = time.time() + 120
    while not re.fullmatch(r"nli-[0-9]+", box.input_value()):
        assert time.time() < deadline, f"no example taken from the list: {box.input_value()!r}"
        box.evaluate("el => el.scrollIntoView({block: 'center'})")
        box.click()
        box.fill("nli-")                   # the ids on the pages shown above
        box.press("ArrowDown")
        if box.get_attribute("aria-expanded") == "true" and box.get_attribute("aria-activedescendant"):
            box.press("Enter")
        wait_idle(page)
    page.wait_for_selector("text=p̃ phase by phase")
    page.wait_for_selector("text=Nearest neighbours in Φ")
    assert page.locator('[data-testid="stText"]').filter(has_text=re.compile(r"^id: nli-")).count() >= 1
    page.get_by_role("button", name=re.compile("More like this")).click()
    page.wait_for_selector("text=examples nearest to")
    wait_idle(page)
    press(page, page.get_by_role("button", name="Show all again"))
    assert page.get_by_text("examples nearest to").count() == 0

