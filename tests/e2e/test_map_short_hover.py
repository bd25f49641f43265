"""The Map above ARTIFACT_LENS_MAP_TEXT_POINTS in a real browser (issue 13): a box selection and
n moves keep the chart the browser already drew (no resend, no redraw), the box stays drawn; a
new colouring redraws it with the selection kept, and so does an n move when the colours follow
n; a double-click on the chart clears it."""
import re

import pytest

from conftest import AppServer, cue_pairs
from steps import keys, load_path_and_score, wait_for_map, wait_idle
from scale import patience  # noqa: E402


@pytest.fixture(scope="module")
def page(tmp_path_factory, browser):
    folder = tmp_path_factory.mktemp("short_hover")
    data = folder / "data"
    data.mkdir()
    path = cue_pairs(data, "pairs", 400, lambda i: f"A person number {i % 17} is walking.",
                     ["nobody", "outdoors", "sleeping"], ["entailment", "neutral", "contradiction"])
    app = AppServer(folder, env={"ARTIFACT_LENS_DATA_DIRS": str(data), "ARTIFACT_LENS_MAP_TEXT_POINTS": "100"}).start()
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(patience(180) * 1000)   # a bound that grows with the load, not a wait
    pg.goto(app.url)
    load_path_and_score(pg, path, 400)
    yield pg
    context.close()
    app.stop()


def selected(page) -> int:
    heads = [h for h in page.locator("h3").all_inner_texts() if h.startswith("Selected examples")]
    return int(re.sub(r"[^0-9]", "", heads[0])) if heads else -1


def chart(page) -> dict:
    """The drawn chart: whether it is the one marked before (the same plot, not redrawn), and
    the points it shows as selected."""
    return page.evaluate("""() => { const gd = document.querySelector('.js-plotly-plot');
        return {marked: !!gd._lensMark, selected: (gd.data[0].selectedpoints || []).length,
                hovertext: 'hovertext' in gd.data[0]}; }""")


def test_a_selection_and_n_keep_the_drawn_chart_and_a_double_click_clears(page):
    page.locator('[data-testid="stSidebarNav"]').get_by_text("Map", exact=True).click()
    page.wait_for_selector("h1:has-text('Map')")
    page.wait_for_selector(".js-plotly-plot")
    wait_idle(page)
    assert "id and label only: above 100 points" in page.inner_text("body")
    assert chart(page)["hovertext"] is False
    page.evaluate("() => { document.querySelector('.js-plotly-plot')._lensMark = 1; }")
    bb = page.locator(".js-plotly-plot .nsewdrag").first.bounding_box()
    page.mouse.move(bb["x"] + bb["width"] * 0.05, bb["y"] + bb["height"] * 0.05)
    page.mouse.down()
    page.mouse.move(bb["x"] + bb["width"] * 0.6, bb["y"] + bb["height"] * 0.95, steps=10)
    page.mouse.up()
    page.wait_for_function("() => [...document.querySelectorAll('h3')].some(h => /Selected examples: [1-9]/.test(h.innerText))")
    wait_idle(page)
    count = selected(page)
    assert 0 < count < 400
    after_select = chart(page)
    assert after_select["marked"] and after_select["selected"] == count     # the same plot, the box still on it
    slider = page.locator('[data-testid="stSlider"]').filter(has_text="n: target size").get_by_role("slider")
    slider.focus()
    keys(page, "ArrowRight", 10)
    assert selected(page) == count and chart(page) == after_select          # coloured by label: nothing redrawn
    # another colouring: a new figure, drawn with the kept selection
    box = page.locator('[data-testid="stSelectbox"]').filter(has_text="Colour by")
    box.click()
    page.get_by_role("option", name="retained", exact=True).click()
    wait_idle(page)
    page.wait_for_function("() => !document.querySelector('.js-plotly-plot')._lensMark")   # a new figure
    wait_for_map(page, count)
    redrawn = chart(page)
    assert selected(page) == count and redrawn["selected"] == count and not redrawn["marked"]
    # coloured by retained, n moves: the knobs rerun only their part of the page, which sees that
    # the map's colours changed and redraws the map too, with the selection kept
    page.evaluate("() => { document.querySelector('.js-plotly-plot')._lensMark = 1; }")
    before = page.locator('[data-testid="stMetric"]').filter(has_text="Retained at this τ, n").inner_text()
    slider.focus()
    for _ in range(10):
        page.keyboard.press("ArrowLeft")
    page.wait_for_function("() => !document.querySelector('.js-plotly-plot')._lensMark")
    wait_idle(page)
    recoloured = chart(page)
    assert selected(page) == count and recoloured["selected"] == count
    assert page.locator('[data-testid="stMetric"]').filter(has_text="Retained at this τ, n").inner_text() != before
    # a new box on it, then a double-click: the selection is cleared
    bb = page.locator(".js-plotly-plot .nsewdrag").first.bounding_box()
    page.mouse.move(bb["x"] + bb["width"] * 0.1, bb["y"] + bb["height"] * 0.1)
    page.mouse.down()
    page.mouse.move(bb["x"] + bb["width"] * 0.9, bb["y"] + bb["height"] * 0.9, steps=10)
    page.mouse.up()
    page.wait_for_function(f"() => [...document.querySelectorAll('h3')].some(h => /Selected examples: [1-9]/.test(h.innerText) && h.innerText !== 'Selected examples: {count:,}')")
    wait_idle(page)
    assert 0 < selected(page) != count
    page.mouse.dblclick(bb["x"] + bb["width"] * 0.5, bb["y"] + bb["height"] * 0.5)
    page.wait_for_function("() => [...document.querySelectorAll('h3')].some(h => h.innerText === 'Selected examples: 0')")
