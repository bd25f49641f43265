"""Reading the dashboard (issue 14): the Map keeps its selection while τ and n move, the
Features page leads with n-grams and counts only what its filters show, and a label has
one colour on every page."""
import json
import os
import tempfile
from pathlib import Path

import pytest

CACHE = Path(os.environ.setdefault("ARTIFACT_LENS_CACHE", str(Path(__file__).resolve().parents[2] / "test-artifacts" / "app-cache")))
os.environ["ARTIFACT_LENS_MAP"] = "pca"
os.environ["ARTIFACT_LENS_DATA_DIRS"] = os.pathsep.join([tempfile.gettempdir(), str(CACHE)])
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from streamlit.testing.v1 import AppTest  # noqa: E402

from artifact_lens.plots.aflite import map_points  # noqa: E402

from apptest_helpers import frame_with, metrics, no_exceptions, page  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def at():
    os.chdir(ROOT)
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180).run()
    no_exceptions(app)
    return app


def count(value: str) -> int:
    return int(value.replace(",", ""))


def charts(at):
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def test_map_selection_survives_tau_and_n(at):
    at.switch_page(page("4_map")).run()
    no_exceptions(at)
    assert "Selected" not in metrics(at)
    sess = at.session_state["artifact_lens"]
    # what the map's on_select callback keeps: the ids of a box selection (here: 40 examples)
    points = map_points(json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0])
    ids = sorted(points["id"])[:40]
    sess.map_selection, sess.map_selection_of = tuple(ids), sess.ds_key
    at.run()
    no_exceptions(at)
    m = metrics(at)
    assert count(m["Selected"]) == 40
    before = frame_with(at, "id", "retained").set_index("id")["retained"]
    assert sorted(before.index.astype(str)) == ids
    spec = charts(at)[0]["data"][0]
    assert len(spec["selectedpoints"]) == 40
    assert sorted(map_points(spec)["id"].iloc[spec["selectedpoints"]]) == ids
    # n moves (a fragment rerun redraws the chart): the same examples, their new retained state
    at.slider(key="w_target").set_value(0.95).run()
    no_exceptions(at)
    m = metrics(at)
    assert count(m["Selected"]) == 40
    after = frame_with(at, "id", "retained").set_index("id")["retained"]
    assert sorted(after.index.astype(str)) == ids
    assert after.sum() > before.sum() and count(m["Retained at this τ, n"]) == after.sum()
    assert len(charts(at)[0]["data"][0]["selectedpoints"]) == 40
    at.button(key="map_clear").click().run()
    assert "Selected" not in metrics(at) and "selectedpoints" not in charts(at)[0]["data"][0]


def test_features_lead_with_ngrams_and_count_only_what_the_filters_show(at):
    at.switch_page(page("5_features")).run()
    no_exceptions(at)
    first = charts(at)[0]
    # the first chart is the Gardner plot of n-grams: every point is a feature named n-gram@field
    feats = [c[1] for t in first["data"] if t.get("customdata") for c in t["customdata"]]
    assert feats and all("@" in f for f in feats)
    everything = metrics(at)
    assert count(everything["Shown (these filters)"]) == count(everything["Features tested"])
    at.multiselect(key="z_kinds").set_value(["overlap"])
    at.button(key="z_update").click().run()
    no_exceptions(at)
    m = metrics(at)
    assert m["Features tested"] == everything["Features tested"] and m["z*"] == everything["z*"]
    shown = count(m["Shown (these filters)"])
    assert 0 < shown < count(everything["Features tested"])
    assert count(m["Features shown"]) == shown        # the section of the other kinds says the same
    assert float(m["Largest z"]) == float(m["Largest z among them"]) < float(everything["Largest z"])
    assert "n-grams shown" not in m                   # the n-gram section is filtered out


def test_a_label_has_one_colour_on_every_page(at):
    seen = {}

    def note(name, colour):
        name = name.removeprefix("label=").removesuffix(" (z > z*)")
        if name in ("contradiction", "entailment", "neutral"):
            seen.setdefault(name, set()).add(colour.lower())

    at.switch_page(page("2_filter")).run()
    bars = [t for c in charts(at) for t in c["data"] if t.get("type") == "bar" and t.get("name") == "after"][0]
    for x, colour in zip(bars["x"], bars["marker"]["color"]):
        note(x, colour)
    at.switch_page(page("3_predictability")).run()
    for c in charts(at):
        for t in c["data"]:
            if t.get("type") in ("bar", "box"):
                note(t["name"], t["marker"]["color"])
    at.switch_page(page("4_map")).run()
    for t in charts(at)[0]["data"][1:]:
        note(t["name"], t["marker"]["color"])
    at.switch_page(page("5_features")).run()
    for t in charts(at)[0]["data"]:
        if isinstance(t.get("marker", {}).get("color"), str):
            note(t["name"], t["marker"]["color"])
    assert set(seen) == {"contradiction", "entailment", "neutral"}
    assert all(len(c) == 1 for c in seen.values()), seen
    assert len({next(iter(c)) for c in seen.values()}) == 3
