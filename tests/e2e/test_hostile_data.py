"""A dataset whose labels and text are HTML, in a real Chromium: no chart turns them into
markup (no link, no image, no bold from the data in any plotly chart; the legend reads the
label's characters), and a box selection on the Map survives a change of n (issue 14).

Starts its own server (the Data page's Local path reads only inside ARTIFACT_LENS_DATA_DIRS,
here a temporary folder holding the CSV) and reuses the session's Chromium (`browser`)."""
import re
import time

import pytest

from conftest import AppServer, cue_pairs
from steps import count, keys, load_path_and_score, wait_for_map, wait_idle
from scale import patience  # noqa: E402

pytestmark = pytest.mark.e2e

LABELS = ("<b>contra</b>", '<a href="http://x.example/">entail</a>', "<img src=x onerror=alert(1)>")
CUES = ("<b>nobody</b> sleeps", "<a href='http://x.example/'>outdoors</a> today", "<img src=x onerror=alert(2)> for a contest")

# Inside every plotly chart: links (plotly turns <a href> into an SVG link), images or onerror
# handlers, bold text from the data (plotly turns <b> into a bold tspan); and the charts' text,
# to read the labels as characters. Page-wide: no link to x.example, no img with onerror.
INSPECT = """() => {
  const plots = [...document.querySelectorAll('.js-plotly-plot')];
  const out = {plots: plots.length, links: 0, imgs: 0, bold: 0, text: ''};
  for (const p of plots) {
    for (const el of p.querySelectorAll('*')) {
      const href = (el.getAttribute('href') || '') + (el.getAttributeNS('http://www.w3.org/1999/xlink', 'href') || '');
      if (el.localName === 'a' || href.includes('x.example')) out.links++;
      if (el.localName === 'img' || el.hasAttribute('onerror')) out.imgs++;
      // (titles are bold in streamlit's chart theme: only bold text made from the data counts)
      const bold = el.localName === 'b' || /bold/.test(el.getAttribute('style') || '');
      if (bold && /contra|entail|nobody|walking/.test(el.textContent)) out.bold++;
    }
    out.text += ' ' + p.textContent;
  }
  out.pageLinks = document.querySelectorAll('a[href*="x.example"]').length;
  out.pageImgs = document.querySelectorAll('img[onerror]').length;
  return out;
}"""


@pytest.fixture(scope="module")
def hostile_app(tmp_path_factory, browser):
    folder = tmp_path_factory.mktemp("hostile")
    data = folder / "data"
    data.mkdir()
    path = cue_pairs(data, "hostile", 360, lambda i: f"A person number {i % 17} is <i>walking</i>.", CUES, LABELS)
    app = AppServer(folder, env={"ARTIFACT_LENS_DATA_DIRS": str(data)}).start()
    yield app.url, path
    app.stop()


@pytest.fixture(scope="module")
def page(browser, hostile_app):
    url, path = hostile_app
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(patience(180) * 1000)   # a bound that grows with the load, not a wait
    pg.on("dialog", lambda d: (_dialogs.append(d.message), d.dismiss()))   # an alert() from data would land here
    pg.goto(url)
    load_path_and_score(pg, path, 360)
    yield pg
    context.close()


_dialogs = []


def go(page, title):
    page.locator('[data-testid="stSidebarNav"]').get_by_text(title, exact=True).click()
    page.wait_for_selector(f"h1:has-text('{title}')")
    wait_idle(page, timeout=120)          # Features computes its z-statistics first
    page.wait_for_selector(".js-plotly-plot", timeout=120_000)
    wait_idle(page)


def assert_charts_show_text(page, *must_read):
    seen = page.evaluate(INSPECT)
    assert seen["plots"] > 0
    assert seen["links"] == seen["imgs"] == seen["bold"] == 0, seen
    assert seen["pageLinks"] == seen["pageImgs"] == 0, seen
    for text in must_read:
        assert text in seen["text"], (text, seen["text"][:2000])
    assert not _dialogs
    return seen


def heading_count(page) -> int:
    heading = [h for h in page.locator("h3").all_inner_texts() if h.startswith("Selected examples")][0]
    return int(re.sub(r"[^0-9]", "", heading))


def test_filter_page_charts_show_labels_as_text(page):
    go(page, "Filter")
    assert_charts_show_text(page, *LABELS)          # the label balance's axis reads the labels


def test_map_shows_labels_as_text_and_keeps_a_selection_across_n(page):
    go(page, "Map")
    assert_charts_show_text(page, *(f"label={label}" for label in LABELS))   # the legend
    # a box over most of the map: the selected examples are listed
    wait_for_map(page)
    bb = page.locator(".js-plotly-plot .nsewdrag").first.bounding_box()
    page.mouse.move(bb["x"] + bb["width"] * 0.05, bb["y"] + bb["height"] * 0.05)
    page.mouse.down()
    page.mouse.move(bb["x"] + bb["width"] * 0.5, bb["y"] + bb["height"] * 0.5, steps=10)
    page.mouse.move(bb["x"] + bb["width"] * 0.6, bb["y"] + bb["height"] * 0.95, steps=10)
    page.mouse.up()
    deadline = time.time() + 30
    while time.time() < deadline and (not page.locator("h3:has-text('Selected examples')").count()
                                      or heading_count(page) == 0):
        page.wait_for_timeout(300)
    wait_idle(page)
    selected = heading_count(page)
    assert 0 < selected < 360
    retained = count(page, "Retained at this τ, n")
    # move n up with the keyboard: the chart is redrawn, the selection stays and its state follows
    slider = page.locator('[data-testid="stSlider"]').filter(has_text="n: target size").get_by_role("slider")
    slider.focus()
    keys(page, "ArrowRight", 30)
    wait_for_map(page, selected)                 # redrawn, the same points marked
    assert heading_count(page) == selected
    assert count(page, "Selected") == selected
    assert count(page, "Retained at this τ, n") > retained
    # the redrawn chart marks the same points as selected
    marked = page.evaluate("""() => {
        const gd = document.querySelector('.js-plotly-plot');
        return (gd.data[0].selectedpoints || []).length;
    }""")
    assert marked == selected
    assert_charts_show_text(page)


def test_features_page_charts_show_labels_and_fields_as_text(page):
    go(page, "Features")
    seen = assert_charts_show_text(page, f"{LABELS[0]} (z > z*)", f"{LABELS[1]} (z > z*)")
    assert "z* =" in seen["text"]
