"""The Map at scale (issue 13): every point up to the documented limit; above it a seeded sample
plus the selection, and the page says so."""
import json

import numpy as np
import pytest

from apptest_helpers import app, no_exceptions, page, texts
from core.aflite_plots import map_points


def drawn(at):
    return map_points(json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0])


def test_every_point_is_drawn_up_to_the_limit_and_nothing_is_said(fresh_server):
    from dashboard.current import MAP_POINTS

    at = app().run()
    at.switch_page(page("4_map")).run()
    no_exceptions(at)
    points = drawn(at)
    assert len(points) == 3000 and sorted(points["row"]) == list(range(3000))
    assert MAP_POINTS >= 100_000 and "Drawing" not in texts(at)


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


@pytest.mark.parametrize("raw, expected", [("", None), ("oops", None), ("0", 1), ("5000", 5000)])
def test_the_limit_comes_from_the_environment(monkeypatch, raw, expected):
    from dashboard import current

    monkeypatch.setenv("ARTIFACT_LENS_MAP_POINTS", raw)
    assert current.map_point_limit() == (current.MAP_POINTS if expected is None else expected)
    rows = current.map_sample(10_000, keep=[3, 9_999])
    if current.map_point_limit() >= 10_000:
        assert rows is None
    else:
        assert len(rows) <= current.map_point_limit() + 2 and {3, 9_999} <= set(rows.tolist())
        assert np.array_equal(rows, current.map_sample(10_000, keep=[3, 9_999]))   # seeded: the same each time


def test_a_selection_event_gives_rows_whatever_the_shape_of_customdata():
    from core.aflite_plots import selected_rows

    event = {"selection": {"points": [{"customdata": 5}, {"customdata": [7, "x"]}, {"customdata": {"0": 9, "1": 0.3}},
                                      {"x": 1.0}, {"customdata": 5}]}}
    assert selected_rows(event) == [5, 7, 9] and selected_rows(None) == []
