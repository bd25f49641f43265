"""Issue 63, items 1 and 2, as a curator meets them in a real Chromium.

- A file edited in place and loaded again shows the new content's numbers on every page, not the old
  file's rows, run or results; after a restart too.
- A teammate's link to an items run, a pair run and an NLI run opens that run (an items run had two
  keys, the URL's and the store's, and its link opened another dataset)."""
import re

import pytest

from conftest import AppServer, cue_pairs
from steps import count, go, load_path, load_path_and_score, wait_idle
from scale import patience  # noqa: E402

pytestmark = pytest.mark.e2e

SHARED = __import__("conftest").ROOT.parent / "shared" / "data"


def _page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(patience(180) * 1000)   # a bound that grows with the load, not a wait
    return context, pg


def _sidebar(pg) -> str:
    return pg.locator('[data-testid="stSidebar"]').inner_text()


def _reload_and_score(pg, path, n: int) -> None:
    """Load ``path`` again on the Data page (the same path, as a curator does after editing it): it
    reads ``n`` examples, scored as such, and the Filter page counts them."""
    go(pg, "Data")
    load_path(pg, path)
    assert count(pg, "Examples") == n
    pg.get_by_role("button", name="Build Φ and score with AFLite").click()
    pg.wait_for_selector(f'[data-testid="stSidebar"] >> text=/\\b{n} (examples|pairs|items)\\b/', timeout=120_000)
    wait_idle(pg)
    go(pg, "Filter")
    assert count(pg, "Retained") + count(pg, "Removed") == n


def _planted(folder, n):
    """``n`` rows of premise/hypothesis/label, "Indeed, " before four in five entailment hypotheses."""
    rows = []
    for i in range(n):
        label = ("entailment", "neutral", "contradiction")[i % 3]
        hyp = f"Someone {('sleeps', 'waits', 'runs')[i % 3]} {i % 11}"
        rows.append({"premise": f"A person number {i % 17} is walking.", "label": label,
                     "hypothesis": ("Indeed, " + hyp) if label == "entailment" and i % 5 else hyp})
    return rows


def test_an_edited_file_shows_its_new_numbers_after_a_reload_and_a_restart(browser, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    path = cue_pairs(data, "train", 300, lambda i: f"A person number {i % 17} is walking.",
                     ("nobody sleeps", "outdoors today", "for a contest"), ("contradiction", "entailment", "neutral"))
    app = AppServer(tmp_path, env={"ARTIFACT_LENS_DATA_DIRS": str(data)}).start()
    context, pg = _page(browser)
    try:
        pg.goto(app.url)
        load_path_and_score(pg, path, 300)
        go(pg, "Filter")
        assert count(pg, "Retained") + count(pg, "Removed") == 300

        import pandas as pd

        pd.DataFrame(_planted(data, 150)).to_csv(path, index=False)   # the same path, edited in place
        _reload_and_score(pg, path, 150)
        go(pg, "Examples")
        body = pg.locator("body").inner_text()
        shown = [int(m.replace(",", "")) for m in re.findall(r"(?:Retained|Removed): ([0-9,]+) matching", body)]
        assert sum(shown) == 150, body[:2000]
        go(pg, "Features")
        assert "indeed" in pg.locator("body").inner_text().lower()   # the planted cue is found

        pd.DataFrame(_planted(data, 120)).to_csv(path, index=False)
        context.close()
        app.restart()                                                  # a restart: memory empty, disk kept
        context, pg = _page(browser)
        pg.goto(app.url)
        pg.wait_for_selector("h1")
        wait_idle(pg)
        _reload_and_score(pg, path, 120)
    finally:
        context.close()
        app.stop()


def _files(folder):
    if not SHARED.exists():
        pytest.skip("../shared/data is not here (a fresh clone has no ../shared)")
    items = folder / "bbq.jsonl"
    items.write_text("".join((SHARED / "bbq_religion.jsonl").read_text().splitlines(keepends=True)[:240]))
    pairs = folder / "pairs.jsonl"
    pairs.write_text("".join((SHARED / "hh_harmless_pairs.jsonl").read_text().splitlines(keepends=True)[:200]))
    nli = cue_pairs(folder, "nli", 300, lambda i: f"A person number {i % 17} is walking.",
                    ("nobody sleeps", "outdoors today", "for a contest"), ("contradiction", "entailment", "neutral"))
    return {"items": (items, 240), "pairs": (pairs, 200), "nli": (nli, 300)}


def test_a_teammates_link_to_an_items_a_pair_and_an_nli_run_opens_that_run(browser, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    files = _files(data)
    app = AppServer(tmp_path, env={"ARTIFACT_LENS_DATA_DIRS": str(data)}).start()
    try:
        for kind, (path, n) in files.items():
            context, pg = _page(browser)
            pg.goto(app.url)
            pg.wait_for_selector("h1")
            wait_idle(pg)
            go(pg, "Data")
            load_path_and_score(pg, path, n)
            go(pg, "Filter")
            link = pg.url
            assert "run=" in link, link
            context.close()

            context, other = _page(browser)                      # a teammate opens the link
            other.goto(link)
            other.wait_for_selector("h1:has-text('Filter')")
            wait_idle(other)
            said = _sidebar(other)
            unit = {"items": "items", "pairs": "pairs"}.get(kind, "examples")   # the sidebar counts them by name
            assert f"{n} {unit}" in said and path.name in said, (kind, said)
            assert "not in workspace" not in other.locator("body").inner_text(), kind
            assert count(other, "Retained") + count(other, "Removed") == n, kind
            assert other.url.split("run=")[1].split("&")[0] == link.split("run=")[1].split("&")[0], kind
            context.close()
    finally:
        app.stop()
