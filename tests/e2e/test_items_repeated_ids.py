"""BBQ as its own release concatenates it, in a real browser (issue 64, items 10 and 11): two
categories in one file repeat ``example_id``. The Data page asks only for another id; numbering the
rows keeps the detection, so the file is read as items (it was read as "3 labels", Φ on the
question). Scored, its options-only baseline is on the Predictability page above chance, and its
certificate on the Evaluate page.

Starts its own server whose Local path reads a temporary folder holding the first rows of
../shared/data/bbq_religion.jsonl and of bbq_age.jsonl (skipped where they are absent)."""
import re

import pytest

from conftest import BBQ, BBQ_AGE, shared_file_app
from steps import go, key, metric, open_path, press, wait_idle

pytestmark = pytest.mark.e2e

ROWS = 150   # of each category: 300 items, ids 0…149 twice


@pytest.fixture(scope="module")
def walk(tmp_path_factory, browser):
    yield from shared_file_app(tmp_path_factory, browser, "items_repeated_ids", BBQ, ROWS, then=BBQ_AGE)


def test_repeated_ids_load_as_items_with_their_baselines_and_certificate(walk):
    page, path = walk
    open_path(page, path)
    page.wait_for_selector("text=choose another id column below")
    key(page, "mapping_id").wait_for()
    wait_idle(page)
    assert not key(page, "mapping_label").count()   # only the id is asked for
    page.get_by_role("button", name="Load with this id").click()
    page.wait_for_selector("text=Loaded dataset (not scored yet)")
    wait_idle(page)
    main = page.locator('[data-testid="stMain"]').inner_text()
    assert "choice-diff" in main and "300 items" in main.replace(",", ""), main[:600]

    page.get_by_role("button", name="Build Φ and score with AFLite").click()
    page.wait_for_selector(f'[data-testid="stSidebar"] >> text={2 * ROWS} items', timeout=120_000)
    wait_idle(page)

    go(page, "Predictability")
    press(page, page.get_by_role("button", name="Compute the baselines"))
    page.wait_for_selector("text=Options only: accuracy")
    options = float(metric(page, "Options only: accuracy").inner_text().split("±")[0])
    chance = float(metric(page, "chance").inner_text())
    assert options > chance + 0.1   # BBQ's "cannot be determined" option: 0.500 against 0.333

    go(page, "Evaluate")
    page.wait_for_selector("text=do not apply to multiple-choice items")
    press(page, page.get_by_role("button", name="Certify the dataset and this split"))
    page.get_by_text("mc.options_only.accuracy").first.wait_for(state="attached")   # a grid cell
    assert re.search(r"check (passed|failed)|within|gated", page.inner_text("body"))
