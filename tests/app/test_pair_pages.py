"""Preference pairs on the dashboard (issue 42), through AppTest: the pair demo loads and is said to
be pairs with its length bias, scores on the antisymmetric Φ, and every page either works on the
pairs (a pair is read side by side, the Features page shows the pair cue table) or says in one line
that it does not apply."""
import os
import tempfile
from pathlib import Path

import pytest

CACHE = Path(os.environ.setdefault("ARTIFACT_LENS_CACHE", str(Path(__file__).resolve().parents[2] / "test-artifacts" / "app-cache")))
os.environ["ARTIFACT_LENS_MAP"] = "pca"
os.environ["ARTIFACT_LENS_DATA_DIRS"] = os.pathsep.join([tempfile.gettempdir(), str(CACHE)])
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from streamlit.testing.v1 import AppTest  # noqa: E402

from apptest_helpers import metrics, no_exceptions, page, texts  # noqa: E402
from test_pages import wait_for_job  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def at():
    os.chdir(ROOT)
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180).run()
    no_exceptions(app)
    return app


def test_the_pair_demo_on_every_page(at):
    at.selectbox(key="demo_name").set_value("pairs")
    at.number_input(key="demo_size").set_value(600)
    at.button(key="load").click().run()
    no_exceptions(at)
    assert metrics(at)["Examples"] == "600"
    said = texts(at)
    assert "Preference pairs" in said and "standard shape" in said and "chosen response is the longer in" in said
    preview = [d.value for d in at.dataframe if {"prompt", "chosen", "rejected"} <= set(d.value.columns)]
    assert preview and len(preview[0]) == 500   # the first 500 rows
    assert at.selectbox(key=next(s.key for s in at.selectbox if str(s.key).startswith("rep_kind:"))).value == "pair-diff"
    at.button(key="build").click().run()
    wait_for_job(at)
    no_exceptions(at)
    at.switch_page(page("5_features")).run()
    no_exceptions(at)
    cue_table = next(d.value for d in at.dataframe if {"feature", "favours", "differ"} <= set(d.value.columns))
    planted = cue_table.set_index("feature").loc[["style:apologies", "style:list_items"]]
    assert planted["over_line"].all() and list(planted["favours"]) == ["rejected", "chosen"]
    at.switch_page(page("6_examples")).run()
    no_exceptions(at)
    at.selectbox(key="ex_pick").select_index(0).run()
    no_exceptions(at)
    shown = texts(at)
    assert "Chosen" in shown and "Rejected" in shown and "Prompt" in shown
    assert any("differs" in d.value.columns for d in at.dataframe)
    for name in ("2_filter", "3_predictability", "4_map", "7_export", "8_review", "10_evaluate", "13_dynamics"):
        at.switch_page(page(name)).run()
        no_exceptions(at)
    for name in ("11_create", "12_validate"):
        at.switch_page(page(name)).run()
        no_exceptions(at)
        assert "does not apply to preference pairs" in texts(at)
