"""The Map at scale (issue 13): every point up to the documented limit; above it a seeded sample
plus the selection, and the page says so."""
import json

import numpy as np
import pytest

from apptest_helpers import app, metrics, no_exceptions, page, texts
from artifact_lens.plots.aflite import map_points


def drawn(at):
    return map_points(json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0])


def test_every_point_is_drawn_up_to_the_limit_and_nothing_is_said(fresh_server):
    from artifact_lens.base.settings import settings

    at = app().run()
    at.switch_page(page("4_map")).run()
    no_exceptions(at)
    points = drawn(at)
    assert len(points) == 3000 and sorted(points["row"]) == list(range(3000))
    assert settings().map_points >= 100_000 and "Drawing" not in texts(at)


def test_above_the_limit_a_stable_sample_and_the_selection_are_drawn_and_the_page_says_so(fresh_server, monkeypatch):
    monkeypatch.setenv("ARTIFACT_LENS_MAP_POINTS", "1000")
    at = app().run()
    at.switch_page(page("4_map")).run()
    no_exceptions(at)
    first = drawn(at)
    assert len(first) == 1000 and first["id"].is_unique
    assert "Drawing 1,000 of 3,000 points" in texts(at) and "ARTIFACT_LENS_MAP_POINTS" in texts(at)
    title = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["title"]["text"]
    assert "1,000 of 3,000 points" in title
    # a selection of examples outside the sample: they are drawn too, and shown as selected
    ids = [f"nli-{i:05d}" for i in range(3000)]
    outside = sorted(set(ids) - set(first["id"]))[:25]
    sess = at.session_state["artifact_lens"]
    sess.map_selection, sess.map_selection_of = tuple(outside), sess.ds_key
    at.slider(key="w_target").set_value(0.9).run()   # a τ/n redraw: the same sample
    no_exceptions(at)
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0]
    again = map_points(spec)
    assert len(again) == 1025 and set(first["id"]) <= set(again["id"])
    assert sorted(again["id"].iloc[spec["selectedpoints"]]) == outside
    assert "Drawing 1,025 of 3,000 points" in texts(at)


@pytest.mark.parametrize("raw, expected", [("", 200_000), ("1", 1), ("5000", 5000)])
def test_the_limit_comes_from_the_environment(monkeypatch, raw, expected):
    from artifact_lens.dashboard.services import current, map_settings

    monkeypatch.setenv("ARTIFACT_LENS_MAP_POINTS", raw)
    assert map_settings.map_point_limit() == expected
    rows = map_settings.map_sample(10_000, keep=[3, 9_999])
    if map_settings.map_point_limit() >= 10_000:
        assert rows is None
    else:
        assert len(rows) <= map_settings.map_point_limit() + 2 and {3, 9_999} <= set(rows.tolist())
        assert np.array_equal(rows, map_settings.map_sample(10_000, keep=[3, 9_999]))   # seeded: the same each time


def test_a_selection_event_gives_rows_whatever_the_shape_of_customdata():
    from artifact_lens.plots.aflite import selected_rows

    event = {"selection": {"points": [{"customdata": 5}, {"customdata": [7, "x"]}, {"customdata": {"0": 9, "1": 0.3}},
                                      {"x": 1.0}, {"customdata": 5}]}}
    assert selected_rows(event) == [5, 7, 9] and selected_rows(None) == []


def spec_of(at) -> str:
    return at.get("plotly_chart")[0].proto.spec


def test_above_the_text_limit_the_hover_is_short_and_the_page_says_so(fresh_server, monkeypatch):
    at = app().run()
    at.switch_page(page("4_map")).run()
    points = json.loads(spec_of(at))["data"][0]
    assert "hovertext" in points and "ARTIFACT_LENS_MAP_TEXT_POINTS" not in texts(at)
    monkeypatch.setenv("ARTIFACT_LENS_MAP_TEXT_POINTS", "2999")
    at = app().run()
    at.switch_page(page("4_map")).run()
    no_exceptions(at)
    points = json.loads(spec_of(at))["data"][0]
    assert "hovertext" not in points and "hovertext" not in points["hovertemplate"]
    assert len(map_points(points)) == 3000 and points["x"]["dtype"] == "f4"
    assert "id and label only: above 2,999 points" in texts(at) and "ARTIFACT_LENS_MAP_TEXT_POINTS" in texts(at)


def test_below_the_text_limit_the_hover_shows_p_and_status_only_when_the_colours_follow_tau_and_n(fresh_server):
    at = app().run()
    at.switch_page(page("4_map")).run()
    by_label = spec_of(at)
    hover = json.loads(by_label)["data"][0]["hovertext"]
    assert hover and not any("p̃" in h for h in hover)          # the texts, not p̃ or the status
    at.slider(key="w_target").set_value(0.9).run()
    no_exceptions(at)
    assert spec_of(at) == by_label                               # so an n move sends nothing new
    at.selectbox(key="map_colour").set_value("retained").run()
    hover = json.loads(spec_of(at))["data"][0]["hovertext"]
    assert all(h.startswith("p̃ = ") for h in hover) and any("removed" in h for h in hover)


def select_on_the_chart(at, ids):
    """What the map's on_select callback keeps of a box drawn on the chart (the chart shows it)."""
    sess = at.session_state["artifact_lens"]
    sess.map_selection, sess.map_selection_of = tuple(ids), sess.ds_key
    at.session_state["map_figure_shows"] = tuple(ids)


def test_the_figure_is_sent_again_only_when_it_changes(fresh_server, monkeypatch):
    monkeypatch.setenv("ARTIFACT_LENS_MAP_TEXT_POINTS", "1000")   # the short hover: τ/n not in the figure
    at = app().run()
    at.switch_page(page("4_map")).run()
    first = spec_of(at)
    ids = sorted(map_points(json.loads(first)["data"][0])["id"])[:40]
    # a selection drawn on the chart: the same figure (Streamlit sends a reference; the chart keeps its box)
    select_on_the_chart(at, ids)
    at.run()
    no_exceptions(at)
    assert spec_of(at) == first and metrics(at)["Selected"] == "40"
    # n moves, coloured by label: nothing in the figure changed
    at.slider(key="w_target").set_value(0.9).run()
    assert spec_of(at) == first and metrics(at)["Selected"] == "40"
    # coloured by retained, n moves: a new figure, and it draws the kept selection itself
    at.selectbox(key="map_colour").set_value("retained").run()
    by_status = spec_of(at)
    assert by_status != first and len(json.loads(by_status)["data"][0]["selectedpoints"]) == 40
    at.slider(key="w_target").set_value(0.8).run()
    moved = json.loads(spec_of(at))["data"][0]
    assert spec_of(at) != by_status and len(moved["selectedpoints"]) == 40
    # back to the label, then a cleared selection: the figure changes even though it had no selection
    at.selectbox(key="map_colour").set_value("label").run()
    at.button(key="map_clear").click().run()
    cleared = spec_of(at)
    assert "selectedpoints" not in json.loads(cleared)["data"][0]
    select_on_the_chart(at, ids)
    at.run()
    assert spec_of(at) == cleared
    at.button(key="map_clear").click().run()
    assert spec_of(at) != cleared and "selectedpoints" not in json.loads(spec_of(at))["data"][0]


def test_a_large_selection_lists_a_bounded_page_of_rows_and_counts_them_all(fresh_server, monkeypatch):
    from apptest_helpers import frame_with
    from artifact_lens.dashboard.services import map_settings

    monkeypatch.setattr(map_settings, "MAP_LIST_ROWS", 50)
    at = app().run()
    at.switch_page(page("4_map")).run()
    ids = sorted(map_points(json.loads(spec_of(at))["data"][0])["id"])[:120]
    select_on_the_chart(at, ids)
    at.run()
    no_exceptions(at)
    listed = frame_with(at, "id", "retained")
    assert len(listed) == 50 and set(listed["id"].astype(str)) <= set(ids)
    assert metrics(at)["Selected"] == "120" and "Listing the first 50 of the 120 selected examples" in texts(at)
    counts = texts(at).split("Label counts in the selection: ")[1]
    assert sum(int(part.split(": ")[1].split()[0]) for part in counts.split(", ")[:3]) == 120
