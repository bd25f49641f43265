"""Preference pairs in a real browser (issue 42): a pair file (HH-RLHF transcripts, the implicit
shape) is loaded as a local path and scored, one pair is read side by side, τ moves, and the
export downloads the kept pairs in the shape they came in, which loads back as the same pairs.

Starts its own server whose Local path reads a temporary folder holding the file (written from
../shared/data/hh_harmless_pairs.jsonl; skipped where that file is absent)."""
import json
import re

import pytest
from playwright.sync_api import expect

from conftest import hh_pairs_app
from steps import count, go, keys, load_path_and_score, pick_example, press

pytestmark = pytest.mark.e2e

PAIRS = 300


@pytest.fixture(scope="module")
def walk(tmp_path_factory, browser):
    yield from hh_pairs_app(tmp_path_factory, browser, "pairs_walk", PAIRS, accept_downloads=True)


def test_load_read_a_pair_move_tau_and_export_in_its_shape(walk):
    page, path = walk
    load_path_and_score(page, path, PAIRS)
    page.wait_for_selector("text=Preference pairs")
    assert "implicit shape" in page.inner_text("body")

    go(page, "Examples")
    picked = pick_example(page)   # the ids are the rows' numbers
    # the detail's headings, written as such (the tables above have "chosen" and "rejected" columns too)
    page.get_by_text("Chosen", exact=True).first.wait_for()
    page.get_by_text("Rejected", exact=True).first.wait_for()
    pair = int(picked)
    chosen_turn = json.loads(path.read_text(encoding="utf-8").splitlines()[pair])["chosen"].rsplit("Assistant:", 1)[1]
    shown = page.locator('[data-testid="stText"]').all_inner_texts()
    assert any(chosen_turn.strip()[:40] in t for t in shown), "the chosen response is not on the page"

    go(page, "Filter")
    before = count(page, "Retained")
    tau = page.locator(".st-key-w_tau").get_by_role("slider")
    tau.focus()
    keys(page, "Home")                                   # τ to its lowest: at least as many removed
    expect(tau).not_to_have_attribute("aria-valuetext", "0.75")
    kept = count(page, "Retained")
    assert kept <= before

    go(page, "Export")
    rows_to_export = count(page, "Rows to export")
    assert rows_to_export == kept
    press(page, page.get_by_role("button", name="Prepare the file"))
    with page.expect_download() as info:
        page.get_by_role("button", name=re.compile(r"Download .*retained\.csv")).click()
    from artifact_lens.data.sources import load_dataset

    saved = path.parent.parent / info.value.suggested_filename   # (outside the server's data folder)
    info.value.save_as(saved)
    back = load_dataset(str(saved))
    assert len(back) == rows_to_export and back.pairs.shape == "implicit"   # detected: still an HH file
    header = open(saved, encoding="utf-8").readline()
    assert header.strip().replace('"', "").split(",") == ["id", "chosen", "rejected"]
