"""Multiple-choice items in a real browser (issue 55): a BBQ file (one column per option and a gold
index) is loaded as a local path, read as items with the gold marked, scored by AFLite on its
options, its option cues shown on the Features page, one item read on the Examples page with its
gold marked, and the export downloads the kept items in
the shape they came in, which loads back as the same items.

Starts its own server whose Local path reads a temporary folder holding the file (written from
../shared/data/bbq_religion.jsonl; skipped where that file is absent)."""
import json
import re

import pytest

from conftest import BBQ, shared_file_app
from steps import count, go, load_path_and_score, pick_example, press

pytestmark = pytest.mark.e2e

ITEMS = 300


@pytest.fixture(scope="module")
def walk(tmp_path_factory, browser):
    yield from shared_file_app(tmp_path_factory, browser, "items_walk", BBQ, ITEMS, accept_downloads=True)


def test_load_read_an_item_score_and_export_in_its_shape(walk):
    page, path = walk
    load_path_and_score(page, path, ITEMS)
    go(page, "Data")
    page.wait_for_selector("text=Multiple")
    body = page.inner_text("body")
    assert "columns shape" in body and "Cohen" in body
    go(page, "Features")
    page.get_by_text("[option least like the stem]").first.wait_for(state="attached")   # a grid cell

    go(page, "Examples")   # one item read: its stem, its options with the gold marked
    picked = pick_example(page)   # the ids are the rows' numbers
    page.get_by_text("marks the gold option").first.wait_for()
    item = next(r for r in map(json.loads, path.read_text(encoding="utf-8").splitlines())
                if str(r["example_id"]) == picked)
    shown = "\n".join(page.locator('[data-testid="stText"]').all_inner_texts())
    gold = item[f"ans{item['label']}"]
    assert item["question"] in shown and f"✔ {gold}" in shown

    go(page, "Export")
    rows_to_export = count(page, "Rows to export")
    press(page, page.get_by_role("button", name="Prepare the file"))
    with page.expect_download() as info:
        page.get_by_role("button", name=re.compile(r"Download .*retained\.csv")).click()
    from artifact_lens.data.sources import load_dataset

    saved = path.parent.parent / info.value.suggested_filename   # (outside the server's data folder)
    info.value.save_as(saved)
    back = load_dataset(str(saved))
    assert len(back) == rows_to_export < ITEMS and back.choices.shape == "columns"   # detected: still a BBQ file
    header = open(saved, encoding="utf-8").readline().strip().replace('"', "").split(",")
    source = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert header == ["id", *source[0].keys()]
    by_id = {str(r["example_id"]): r for r in source}
    for item_id, row in back.written_rows().head(20).iterrows():
        assert row["ans0"] == by_id[str(row["example_id"])]["ans0"]
        assert json.loads(row["answer_info"]) == by_id[str(row["example_id"])]["answer_info"]
