"""Every dashboard page through streamlit's AppTest: set the knobs, assert what changes.

Runs on the built-in NLI demo (3,000 examples, a 16-partition AFLite run that takes
about a second) with a temporary cache and the PCA map (UMAP is exercised in
tests/unit/test_projection.py and the browser test).
"""
import io
import json
import os
import tempfile
import time
from pathlib import Path

import pytest

CACHE = Path(os.environ.setdefault("ARTIFACT_LENS_CACHE", str(Path(__file__).resolve().parents[2] / "test-artifacts" / "app-cache")))
os.environ["ARTIFACT_LENS_MAP"] = "pca"
# the Data page reads local paths only inside these folders (the tests' files live in tmp)
os.environ["ARTIFACT_LENS_DATA_DIRS"] = os.pathsep.join([tempfile.gettempdir(), str(CACHE)])
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from apptest_helpers import frame_with, metrics, no_exceptions, page, wait_for_jobs  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")


@pytest.fixture
def at():
    os.chdir(ROOT)
    app = AppTest.from_file(APP, default_timeout=180).run()
    no_exceptions(app)
    return app


def browsers(at):
    """(retained, removed) tables of the Examples page: only the removed one has a removal phase."""
    frames = [d.value for d in at.dataframe if "predictability" in d.value.columns]
    kept = [f for f in frames if "removed_at" not in f.columns]
    gone = [f for f in frames if "removed_at" in f.columns]
    assert len(kept) == len(gone) == 1, [list(f.columns) for f in frames]
    return kept[0], gone[0]


def wait_for_job(at, timeout=120):
    """Let the background job finish, then rerun so its result becomes current."""
    from artifact_lens.dashboard.process.shared import server

    deadline = time.time() + timeout
    while time.time() < deadline:
        jobs = server().jobs.running()
        if not jobs:
            break
        time.sleep(0.2)
    assert not server().jobs.running(), "background job did not finish"
    at.run()
    at.run()  # the job panel applies the result and reruns the app
    no_exceptions(at)


# ---------------------------------------------------------------- Data
def test_opens_on_the_scored_demo(at):
    m = metrics(at)
    assert m["Examples"] == "3,000" and m["Labels"] == "3"
    sidebar = " ".join(t.value for t in at.sidebar.text)
    assert "demo:nli" in sidebar and "tfidf-svd:fields=hypothesis" in sidebar and "phases" in sidebar
    counts = frame_with(at, "examples")
    assert int(counts["examples"].sum()) == 3000


def test_bad_path_shows_error_and_keeps_the_run(at, tmp_path):
    at.radio(key="src_kind").set_value("Local path").run()
    at.text_input(key="src_path").input(str(tmp_path / "missing.csv"))
    at.button(key="load").click().run()
    no_exceptions(at)
    assert any("no file or folder" in e.value for e in at.error)
    assert metrics(at)["Examples"] == "3,000"
    bad = tmp_path / "bad.csv"
    bad.write_text("premise,hypothesis\nonly,two columns\n")  # no label column
    at.text_input(key="src_path").input(str(bad))
    at.button(key="load").click().run()
    assert any("choose the label column below" in w.value for w in at.warning)   # asked, not loaded
    at.switch_page(page("2_filter")).run()
    no_exceptions(at)
    assert metrics(at)["Retained"] == "1,500"  # the previous run is still in use


def test_local_paths_outside_the_allowed_folders_are_refused(at, monkeypatch):
    outside = Path("/etc/hostname")   # outside the tests' ARTIFACT_LENS_DATA_DIRS (the temp folder and the cache)
    at.radio(key="src_kind").set_value("Local path").run()
    at.text_input(key="src_path").input(str(outside))
    at.button(key="load").click().run()
    no_exceptions(at)
    assert any("outside the folders this server may read" in e.value for e in at.error)
    assert any("ARTIFACT\\_LENS\\_DATA\\_DIRS" in e.value for e in at.error)
    assert metrics(at)["Examples"] == "3,000"   # the current dataset is kept


@pytest.mark.parametrize("make", ["nul", "link", "readme"])
def test_paths_that_would_read_outside_or_cannot_exist_get_an_error(at, tmp_path, make):
    """A NUL byte, a folder with a link to an outside file, a README.md whose data_files point
    outside: each one message, the app running, the current dataset kept."""
    folder = tmp_path / "ds"
    folder.mkdir()
    if make == "link":
        (folder / "train.csv").symlink_to("/etc/hostname")
    elif make == "readme":
        (folder / "README.md").write_text("---\nconfigs:\n- config_name: default\n  data_files: /etc/*.conf\n---\n")
    text = f"{folder}\0.csv" if make == "nul" else str(folder)
    at.radio(key="src_kind").set_value("Local path").run()
    at.text_input(key="src_path").input(text)
    at.button(key="load").click().run()
    no_exceptions(at)
    expected = {"nul": "NUL byte", "link": "/etc/hostname", "readme": "outside the folders"}[make]
    assert any(expected in e.value for e in at.error), [e.value for e in at.error]
    assert metrics(at)["Examples"] == "3,000"


def test_error_messages_quoting_data_are_escaped_not_rendered(at, tmp_path):
    bad = tmp_path / "one_class.csv"
    bad.write_text("text,label\nhello,**bold** [link](http://x)\nworld,**bold** [link](http://x)\n")
    at.radio(key="src_kind").set_value("Local path").run()
    at.text_input(key="src_path").input(str(bad))
    at.button(key="load").click().run()
    no_exceptions(at)
    shown = [e.value for e in at.error if "single class" in e.value]
    assert shown, [e.value for e in at.error]
    # the label value is quoted with its Markdown escaped, so it shows as typed
    assert r"\*\*bold\*\* \[link\]\(http\:" in shown[0]


def test_direction_controls_in_the_data_are_shown_not_obeyed(at, tmp_path):
    """Issue 63, item 12: a hypothesis holding U+202E … U+202C ("deliberately" in a right-to-left
    override) displayed reversed, so a cell could read other than the data says. The Examples page's
    tables and its reading of one example show the controls by their code points."""
    rng = np.random.default_rng(0)
    n = 120
    labels = np.array(["yes", "no"])[rng.integers(0, 2, n)]
    frame = pd.DataFrame({"text": [f"{'sunny' if lab == 'yes' else 'rain'} day {i % 7} \u202edeliberately\u202c"
                                   for i, lab in enumerate(labels)], "label": labels})
    path = tmp_path / "bidi.csv"
    frame.to_csv(path, index=False)
    at.radio(key="src_kind").set_value("Local path").run()
    at.text_input(key="src_path").input(str(path))
    at.button(key="load").click().run()
    at.text_input(key="rep_custom").input("tfidf-svd:fields=text,dim=8")
    at.button(key="build").click().run()
    wait_for_job(at)
    at.switch_page(page("6_examples")).run()
    no_exceptions(at)
    tables = [d.value for d in at.dataframe if "text" in d.value.columns]
    assert tables and all("U+202Edeliberately" in str(v) and "\u202e" not in str(v)
                          for t in tables for v in t["text"])
    at.selectbox(key="ex_pick").select_index(0).run()
    read = " ".join(t.value for t in at.text)
    assert "U+202Edeliberately" in read and "\u202e" not in read


def test_load_a_csv_pick_columns_and_score_it(at, tmp_path):
    rng = np.random.default_rng(0)
    n = 240
    labels = np.array(["yes", "no"])[rng.integers(0, 2, n)]
    words = np.where(labels == "yes", "sunny bright", "rain cold")
    frame = pd.DataFrame({"uid": [f"u{i}" for i in range(n)],
                          "text": [f"{w} day {i % 7} <b>html</b>" if i % 3 else f"the day {i % 5}" for i, w in enumerate(words)],
                          "label": labels})
    path = tmp_path / "mine.csv"
    frame.to_csv(path, index=False)
    at.radio(key="src_kind").set_value("Local path").run()
    at.text_input(key="src_path").input(str(path))
    at.button(key="load").click().run()
    no_exceptions(at)
    assert metrics(at)["Examples"] == "240"
    assert any("not scored yet" in s.value for s in at.subheader)
    at.text_input(key="rep_custom").input("tfidf-svd:fields=text,dim=8")
    at.button(key="build").click().run()
    wait_for_job(at)
    sidebar = " ".join(t.value for t in at.sidebar.text)
    assert "mine.csv" in sidebar and "240 examples" in sidebar and "dim=8" in sidebar
    at.switch_page(page("2_filter")).run()
    no_exceptions(at)
    m = metrics(at)
    assert int(m["Retained"].replace(",", "")) + int(m["Removed"].replace(",", "")) == 240


def test_the_demo_menu_opens_on_the_demo_that_is_loaded(at):
    """Issue 63, item 15: the menu read "circles" while demo:nli was loaded, so pressing Load replaced it."""
    assert at.selectbox(key="demo_name").value == "nli"
    at.selectbox(key="demo_name").set_value("pairs")
    at.button(key="load").click().run()
    no_exceptions(at)
    assert at.selectbox(key="demo_name").value == "pairs"


@pytest.mark.parametrize("demo, size, examples", [("circles", 600, "600"), ("digits", None, "1,797")])
def test_non_text_demos_work_on_every_page(at, demo, size, examples):
    at.selectbox(key="demo_name").set_value(demo)  # form widgets: sent with the submit
    if size:
        at.number_input(key="demo_size").set_value(size)
    at.button(key="load").click().run()
    no_exceptions(at)
    assert metrics(at)["Examples"] == examples
    at.button(key="build").click().run()
    wait_for_job(at)
    assert f"{examples} examples" in " ".join(t.value for t in at.sidebar.text)
    for name in ("2_filter", "3_predictability", "4_map", "5_features", "6_examples", "7_export"):
        at.switch_page(page(name)).run()
        no_exceptions(at)
    if demo == "digits":  # image thumbnails in the example browsers
        at.switch_page(page("6_examples")).run()
        shown = [d.value for d in at.dataframe if "thumbnail" in d.value.columns]
        assert shown and all(str(v).startswith("data:image/png") for v in shown[0]["thumbnail"])


def test_the_pair_demo_on_every_page(at):
    """Preference pairs (issue 42): the pair demo is said to be pairs with its length bias, scores on the
    antisymmetric Φ, and every page works on the pairs (a pair read side by side, the pair cue table)
    or says in one line that it does not apply."""
    from apptest_helpers import texts

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
    # the tables read a pair as chosen and rejected, never by its seeded a/b sides (issue 53, item 14)
    listed = [d.value for d in at.dataframe if "predictability" in d.value.columns]
    assert listed and all({"prompt", "chosen", "rejected"} <= set(t.columns) for t in listed)
    assert not any({"response_a", "response_b", "preferred"} & set(t.columns) for t in listed)
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


def test_the_choices_demo_is_read_as_items_on_the_data_page(at):
    """Multiple-choice items (issue 55): the choices demo is said to be items, previewed with the gold
    marked, with where the gold sits and the option cue table, the planted cues over the line; it is
    not scored as a classification, so every other page keeps the run it had."""
    from apptest_helpers import texts

    at.selectbox(key="demo_name").set_value("choices")
    at.number_input(key="demo_size").set_value(600)
    at.button(key="load").click().run()
    no_exceptions(at)
    said = texts(at)
    assert "choice items" in said and "columns shape" in said and "Cohen" in said
    preview = next(d.value for d in at.dataframe if {"question", "A", "B", "C", "D"} <= set(d.value.columns))
    assert len(preview) == 500 and all(sum(str(v).startswith("✔ ") for v in row) == 1
                                       for row in preview[["A", "B", "C", "D"]].itertuples(index=False))
    position = next(d.value for d in at.dataframe if {"position", "share", "chance", "z"} <= set(d.value.columns))
    assert position.set_index("position").loc["A", "z"] > 5
    cues = next(d.value for d in at.dataframe if {"feature", "gold_most", "lift"} <= set(d.value.columns))
    assert cues.set_index("feature").loc["[longest option]", "over_line"]
    kind = next(s for s in at.selectbox if str(s.key).startswith("rep_kind:"))
    assert kind.value == "choice-diff" and kind.options == ["choice-diff: Multiple-choice items: each option's "
                                                            "TF-IDF + SVD and length, against its item's mean"]
    at.button(key="build").click().run()
    wait_for_job(at)
    no_exceptions(at)
    for name in ("2_filter", "3_predictability", "4_map", "6_examples", "7_export", "8_review"):
        at.switch_page(page(name)).run()
        no_exceptions(at)
    at.switch_page(page("5_features")).run()
    no_exceptions(at)
    cues = next(d.value for d in at.dataframe if {"feature", "gold_most", "lift"} <= set(d.value.columns))
    assert cues.set_index("feature").loc["[longest option]", "over_line"]
    at.switch_page(page("6_examples")).run()
    at.selectbox(key="ex_pick").select_index(0).run()
    no_exceptions(at)
    shown = [t.value for t in at.text]
    item = next(t for t in shown if t.startswith("item "))
    options = next(t for t in shown if t.startswith("A. ") or t.startswith("✔ A. ") or "\nB. " in t)
    assert "question:" in item and options.count("✔") == 1
    assert "marks the gold option" in texts(at)
    for name in ("13_dynamics", "11_create", "12_validate"):
        at.switch_page(page(name)).run()
        no_exceptions(at)
        assert "does not apply to multiple" in texts(at), name
    _items_baselines_and_certificate(at)


def _items_baselines_and_certificate(at) -> None:
    """Issue 64, item 11: the options-only and position-only baselines on the Predictability page,
    the figures `pvi` prints (the demo's planted cues put both above chance), and the certificate of
    the items on the Evaluate page."""
    from apptest_helpers import texts, wait_for_jobs

    at.switch_page(page("2_filter")).run()   # items by their name; no DQI, which reads labels as classes
    no_exceptions(at)
    assert "600 items" in " ".join(t.value for t in at.sidebar.text) and "labels" not in " ".join(
        t.value for t in at.sidebar.text)
    assert "does not apply to multiple-choice items" in texts(at)
    at.switch_page(page("3_predictability")).run()
    no_exceptions(at)
    at.button(key="choice_baselines_compute").click().run()
    wait_for_jobs(at)
    shown = metrics(at)
    options, chance = float(shown["Options only: accuracy"].split(" ± ")[0]), float(shown["chance"])
    assert options > chance + 0.1 and "Position only: accuracy" in shown and "Stem and options: accuracy" in shown
    at.switch_page(page("10_evaluate")).run()
    no_exceptions(at)
    assert "do not apply to multiple-choice items" in texts(at)
    at.button(key="cert_start").click().run()
    wait_for_jobs(at)
    measures = set(frame_with(at, "measure", "before", "after")["measure"])
    assert {"mc.options_only.accuracy", "mc.gold_position.max_share", "mc.degenerate"} <= measures


# ---------------------------------------------------------------- Filter
def test_filter_tau_and_n_are_live(at):
    at.switch_page(page("2_filter")).run()
    no_exceptions(at)
    assert metrics(at)["Retained"] == "1,500"
    at.slider(key="w_target").set_value(0.7).run()
    assert metrics(at)["Retained"] == "2,100"
    table = frame_with(at, "total", "retained", "share_after")
    assert int(table.loc["all", "retained"]) == 2100 and int(table.drop(index="all")["retained"].sum()) == 2100
    at.slider(key="w_target").set_value(0.5).run()
    before = int(metrics(at)["Retained"].replace(",", ""))
    at.slider(key="w_tau").set_value(0.99).run()
    after = int(metrics(at)["Retained"].replace(",", ""))
    assert after >= before
    # the knobs are shared: the Export page exports the same count
    at.switch_page(page("7_export")).run()
    assert metrics(at)["Rows to export"] == f"{after:,}"


def test_filter_warns_when_filtering_goes_below_chance(at):
    at.switch_page(page("2_filter")).run()
    assert not [i for i in at.info if "below chance" in i.value]  # the default τ = 0.75, n = 0.5
    at.slider(key="w_tau").set_value(0.0).run()
    at.slider(key="w_target").set_value(0.3).run()  # the demo run's deepest phases score below 1/3
    no_exceptions(at)
    assert [i for i in at.info if "below chance" in i.value]


def test_refit_runs_in_background_and_returns_instantly(at):
    from artifact_lens.dashboard.process.shared import server

    at.switch_page(page("2_filter")).run()
    at.select_slider(key="w_m").set_value(8)
    at.button(key="run_aflite").click().run()
    no_exceptions(at)
    wait_for_job(at)
    assert "m=8 " in " ".join(t.value for t in at.sidebar.text)
    n_runs = len(server().store.keys())
    at.select_slider(key="w_m").set_value(16)
    at.button(key="run_aflite").click().run()
    # the run with m = 16 is in the store: applied without a background job
    assert not server().jobs.running()
    assert "m=16 " in " ".join(t.value for t in at.sidebar.text)
    assert len(server().store.keys()) == n_runs


# ---------------------------------------------------------------- Predictability
def test_predictability_counts_follow_tau(at):
    at.switch_page(page("3_predictability")).run()
    no_exceptions(at)
    assert len(at.get("plotly_chart")) == 4
    counts = frame_with(at, "retained", "removed")
    assert int(counts["retained"].sum()) == 1500 and int(counts.to_numpy().sum()) == 3000
    at.slider(key="w_target").set_value(0.8).run()
    counts = frame_with(at, "retained", "removed")
    assert int(counts["retained"].sum()) == 2400


# ---------------------------------------------------------------- Map
def test_map_draws_webgl_points_with_row_ids(at):
    import json

    from artifact_lens.plots.aflite import map_points

    at.switch_page(page("4_map")).run()
    no_exceptions(at)
    fig = json.loads(at.get("plotly_chart")[0].proto.spec)
    traces = fig["data"]
    assert {t["type"] for t in traces} == {"scattergl"}
    # one trace of points (in a random draw order) and an empty legend entry per label
    points, legend = traces[0], traces[1:]
    drawn = map_points(points)
    assert len(drawn) == 3000 and [t["name"] for t in legend] == [
        "label=contradiction", "label=entailment", "label=neutral"]
    rows = drawn["row"].tolist()
    assert sorted(rows) == list(range(3000)) and rows[:50] != sorted(rows[:50])
    assert drawn["colour"].nunique() == 3
    at.selectbox(key="map_colour").set_value("predictability").run()
    fig = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert len(fig["data"]) == 1 and fig["data"][0]["marker"]["showscale"]
    at.selectbox(key="map_colour").set_value("retained").run()
    fig = json.loads(at.get("plotly_chart")[0].proto.spec)
    colours = map_points(fig["data"][0])["colour"]
    assert sorted(colours.value_counts()) == [1500, 1500]


# ---------------------------------------------------------------- Features
def test_features_pick_a_feature_and_z_filter(at):
    at.switch_page(page("5_features")).run()
    no_exceptions(at)
    m = metrics(at)
    assert float(m["Largest z"]) > float(m["z*"])
    at.selectbox(key="z_feature").set_value("nobody@hypothesis").run()
    no_exceptions(at)
    m = metrics(at)
    carrying = int(m["Examples with the feature"].replace(",", ""))
    removed = int(m["Removed by AFLite (at the live τ, n)"].replace(",", ""))
    assert carrying > 0 and 0 < removed <= carrying
    shown = frame_with(at, "id", "hypothesis", "retained")
    assert len(shown) == min(carrying, 500)
    assert shown["hypothesis"].str.lower().str.contains("nobody").all()
    at.number_input(key="zf_batch").set_value(300)
    at.button(key="run_zfilter").click().run()
    wait_for_jobs(at)   # a background job, like AFLite
    m = metrics(at)
    assert float(m["Largest z after"]) < float(m["Largest z before"])
    assert int(m["Accepted"].replace(",", "")) + int(m["Rejected"].replace(",", "")) == 3000


def test_consistency_filtering_threshold(at):
    from artifact_lens.dashboard.process.shared import server

    at.switch_page(page("5_features")).run()
    at.button(key="run_consistency").click().run()
    wait_for_jobs(at)
    low = int(metrics(at)["Dropped"].replace(",", ""))
    at.slider(key="cf_threshold").set_value(0.5)
    at.button(key="run_consistency").click().run()   # the same cross-fitting: a new threshold at once
    assert not server().jobs.running()
    high = int(metrics(at)["Dropped"].replace(",", ""))
    assert high > low


# ---------------------------------------------------------------- Examples
def test_examples_search_filter_and_pages(at):
    at.switch_page(page("6_examples")).run()
    no_exceptions(at)
    kept, gone = browsers(at)
    assert len(kept) == 25 and len(gone) == 25
    assert "removed_at" not in kept.columns and (gone["removed_at"] >= 0).all()
    at.text_input(key="ex_query").input("nobody").run()
    gone = browsers(at)[1]
    assert len(gone) and gone["hypothesis"].str.lower().str.contains("nobody").all()
    at.text_input(key="ex_query").input("").run()
    at.multiselect(key="ex_labels").set_value(["neutral"]).run()
    assert set(browsers(at)[0]["label"]) == {"neutral"}
    at.slider(key="ex_range").set_value((0.0, 0.5)).run()
    kept = browsers(at)[0]
    assert (kept["predictability"] <= 0.5).all()
    at.toggle(key="ex_asc").set_value(True).run()
    at.number_input(key="ex_page_retained").set_value(2).run()
    page2 = browsers(at)[0]
    assert page2["predictability"].is_monotonic_increasing and not set(page2["id"]) & set(kept["id"])


# ---------------------------------------------------------------- Export
def test_export_bytes_follow_the_knobs(at, downloads):
    at.switch_page(page("7_export")).run()
    no_exceptions(at)
    assert [b.proto.label for b in at.get("download_button")] == [   # nothing built yet
        "Download the manifest (JSON)", "Download the dataset card (README.md)"]
    assert any(m.value.startswith("**τ = 0.75, n = 1,500 (50 %) → 1,500 rows retained") for m in at.markdown)
    at.button(key="exp_prepare").click().run()
    data = downloads(at.get("download_button")[0])
    frame = pd.read_csv(io.BytesIO(data))
    assert len(frame) == 1500 and frame["id"].is_unique
    at.slider  # noqa: B018  (τ/n live on other pages; set n there and come back)
    at.switch_page(page("2_filter")).run()
    at.slider(key="w_target").set_value(0.6).run()
    at.switch_page(page("7_export")).run()
    assert not [b for b in at.get("download_button") if b.key == "dl_data"]   # the file of the old n is gone
    at.button(key="exp_prepare").click().run()
    frame = pd.read_csv(io.BytesIO(downloads(at.get("download_button")[0])))
    assert len(frame) == 1800
    at.radio(key="exp_which").set_value("all").run()
    at.radio(key="exp_fmt").set_value("jsonl").run()
    at.button(key="exp_prepare").click().run()
    lines = downloads(at.get("download_button")[0]).decode().strip().splitlines()
    assert len(lines) == 3000
    rows = pd.read_json(io.StringIO("\n".join(lines)), lines=True)
    assert int(rows["retained"].sum()) == 1800 and {"predictability", "removed_at", "warmup"} <= set(rows.columns)
    manifest = downloads(at.get("download_button")[1])
    assert b'"selection": "all"' in manifest and b'"target_size": 1800' in manifest
    manifest = json.loads(manifest)   # like the CLI's: the retained ids, and the dataset's own name
    assert sorted(manifest["retained_ids"]) == sorted(rows.loc[rows["retained"], "id"].astype(str))
    assert manifest["dataset"]["name"] == "demo:nli" and at.get("download_button")[0].proto.label.startswith(
        "Download demo_nli-all.jsonl")


def test_a_reload_or_shared_link_reopens_the_same_run_and_tau(at):
    at.switch_page(page("2_filter")).run()
    at.slider(key="w_tau").set_value(0.9).run()
    no_exceptions(at)
    kept = metrics(at)["Retained"]
    params = dict(at.query_params)
    assert params["tau"] in ("0.90", ["0.90"]) and params["run"]
    # a new session (a reload, or a colleague opening the link) on the same server
    again = AppTest.from_file(APP, default_timeout=180)
    for k, v in params.items():
        again.query_params[k] = v[0] if isinstance(v, list) else v
    again.run()
    again.switch_page(page("2_filter")).run()
    no_exceptions(again)
    assert again.slider(key="w_tau").value == pytest.approx(0.9)
    assert metrics(again)["Retained"] == kept


@pytest.mark.parametrize("field, value", [("run", "abc\x00def"), ("ds", "\x00"), ("spec", "tfidf\x01" + "x" * 5000)])
def test_a_damaged_link_opens_the_app_not_an_error_page(at, field, value):
    """A link whose run, dataset or Φ holds a NUL or control character (``%00`` typed into it), or is
    longer than a URL can be, is ignored: the app opens (on the demo) instead of an error page."""
    params = {k: v[0] if isinstance(v, list) else v for k, v in dict(at.query_params).items()}
    params[field] = value
    again = AppTest.from_file(APP, default_timeout=180)
    for k, v in params.items():
        again.query_params[k] = v
    again.run()
    no_exceptions(again)
    again.switch_page(page("2_filter")).run()
    no_exceptions(again)
    assert "Retained" in metrics(again)


def _reload(at, page_name):
    """A new session on the same server with ``at``'s URL, on ``page_name`` (a browser's F5)."""
    again = AppTest.from_file(APP, default_timeout=180)
    for k, v in dict(at.query_params).items():
        again.query_params[k] = v[0] if isinstance(v, list) else v
    again.run()
    again.switch_page(page(page_name)).run()
    no_exceptions(again)
    return again


def test_a_reload_keeps_the_maps_colouring_and_selection_and_the_examples_search(at):
    at.switch_page(page("4_map")).run()
    at.selectbox(key="map_colour").set_value("retained").run()
    chosen = ("nli-00003", "nli-00017", "nli-00042")
    at.session_state["artifact_lens"].map_selection = chosen       # what a box on the map keeps
    at.session_state["artifact_lens"].map_selection_of = at.session_state["artifact_lens"].ds_key
    at.run()
    again = _reload(at, "4_map")
    assert again.selectbox(key="map_colour").value == "retained"
    assert again.session_state["artifact_lens"].map_selection == chosen
    listed = [d.value for d in again.dataframe if "id" in d.value.columns and len(d.value) == 3]
    assert listed and sorted(listed[0]["id"].astype(str)) == sorted(chosen)
    again.button(key="map_clear").click().run()                     # cleared: the URL forgets it too
    assert "map_sel" not in dict(again.query_params)
    at.switch_page(page("6_examples")).run()
    at.text_input(key="ex_query").input("nobody").run()
    again = _reload(at, "6_examples")
    assert again.text_input(key="ex_query").value == "nobody"
    gone = [d.value for d in again.dataframe if "removed_at" in d.value.columns][0]
    assert len(gone) and gone["hypothesis"].str.lower().str.contains("nobody").all()


def test_n_survives_five_reloads_and_the_url_holds_it_as_a_count(at):
    """2,999 scored examples: a share on the slider's grid is not a whole count, and reading n
    back from the slider lost an example per reload (issue 21). Now the retained count and the
    URL are the same after five reloads."""
    at.number_input(key="demo_size").set_value(2999)
    at.button(key="load").click().run()
    at.button(key="build").click().run()
    wait_for_job(at)
    at.switch_page(page("2_filter")).run()
    at.slider(key="w_target").set_value(0.7).run()
    kept = metrics(at)["Retained"]
    params = {k: (v[0] if isinstance(v, list) else v) for k, v in dict(at.query_params).items()}
    assert params["n"] == str(round(0.7 * 2999))   # a count, not a share
    for _ in range(5):
        again = AppTest.from_file(APP, default_timeout=180)
        for k, v in params.items():
            again.query_params[k] = v
        again.run()
        again.switch_page(page("2_filter")).run()
        no_exceptions(again)
        assert metrics(again)["Retained"] == kept
        params = {k: (v[0] if isinstance(v, list) else v) for k, v in dict(again.query_params).items()}
        assert params["n"] == str(round(0.7 * 2999))


def test_sidebar_url_and_sliders_agree_on_every_page(at):
    at.switch_page(page("2_filter")).run()
    at.slider(key="w_target").set_value(0.63).run()   # a fragment rerun
    at.slider(key="w_tau").set_value(0.9).run()
    live = [t.value for t in at.sidebar.text if t.value.startswith("live:")]
    assert live == ["live: τ = 0.90, n = 1,890 (63 %)"], live
    assert dict(at.query_params)["n"] in ("1890", ["1890"])   # n as a count: a reload gives the same set
    at.switch_page(page("7_export")).run()   # a page without knobs keeps the view in the URL
    params = dict(at.query_params)
    assert params["run"] and params["tau"] in ("0.90", ["0.90"]) and params["n"] in ("1890", ["1890"])


def test_a_file_whose_columns_are_not_recognised_is_mapped_in_the_page(at, tmp_path):
    """Detection fails (no label/text names it knows): the page shows the columns and a
    preview, asks in its own words (no CLI flags), and loads with the chosen roles."""
    rows = pd.DataFrame({"claim": [f"statement number {i} is {'false' if i % 2 else 'true'}" for i in range(60)],
                         "verdict": ["refuted" if i % 2 else "supported" for i in range(60)],
                         "ref": [f"r{i}" for i in range(60)]})
    path = tmp_path / "claims.csv"
    rows.to_csv(path, index=False)
    at.radio(key="src_kind").set_value("Local path").run()
    at.text_input(key="src_path").input(str(path))
    at.button(key="load").click().run()
    no_exceptions(at)
    asked = " ".join(w.value for w in at.warning)
    assert "choose the label column below" in asked and "--" not in asked
    preview = frame_with(at, "claim", "verdict", "ref")
    assert len(preview) == 20 and preview["claim"].iloc[0] == "statement number 0 is true"
    at.button(key="mapping_load").click().run()                       # no label chosen yet
    assert any("Choose the label column" in e.value for e in at.error)
    at.selectbox(key="mapping_label").set_value("verdict")
    at.multiselect(key="mapping_text").set_value(["claim"])
    at.selectbox(key="mapping_id").set_value("ref")
    at.button(key="mapping_load").click().run()
    no_exceptions(at)
    assert metrics(at)["Examples"] == "60" and metrics(at)["Labels"] == "2"
    assert not [w for w in at.warning if "choose the label column" in w.value]
    roles = frame_with(at, "column", "role")
    assert dict(zip(roles["column"], roles["role"]))["verdict"] == "label"


def test_a_file_with_duplicate_ids_offers_another_id_column(at, tmp_path):
    """Issue 45, walk item 4: the error said "omit the Id column choice", but the column form was only
    offered when detection failed. Now the page asks, with the reason, and loads with rows numbered."""
    rows = pd.DataFrame({"id": [f"x{i % 30}" for i in range(60)], "premise": [f"p {i}" for i in range(60)],
                         "hypothesis": [f"h {i % 7}" for i in range(60)], "label": ["a", "b", "c"] * 20})
    path = tmp_path / "dup.csv"
    rows.to_csv(path, index=False)
    at.radio(key="src_kind").set_value("Local path").run()
    at.text_input(key="src_path").input(str(path))
    at.button(key="load").click().run()
    no_exceptions(at)
    assert any("choose another id column below, or (none)" in w.value for w in at.warning)
    assert any("30 duplicated ids" in c.value for c in at.caption)
    assert at.selectbox(key="mapping_id").value == "(none)"
    # only the id is asked for: the other roles stay as detected (issue 64, item 10)
    assert not [w for w in (*at.selectbox, *at.multiselect) if w.key in ("mapping_label", "mapping_text")]
    at.button(key="mapping_load").click().run()
    no_exceptions(at)
    assert metrics(at)["Examples"] == "60", [x.value for x in (*at.error, *at.warning, *at.caption)]
    roles = frame_with(at, "column", "role")
    assert dict(zip(roles["column"], roles["role"]))["label"] == "label"


def test_bbq_categories_concatenated_with_repeated_ids_load_as_items(at, tmp_path, bbq_path):
    """Issue 64, item 10: BBQ's categories concatenated, as its own release does, repeat
    ``example_id``; numbering the rows keeps the detection, so the file is read as items (it was
    read as 3 labels with Φ on the question), as ``--number-rows`` reads it."""
    rows = pd.read_json(bbq_path, lines=True)
    both = pd.concat([rows.head(60), rows.tail(60).assign(example_id=range(60))], ignore_index=True)
    path = tmp_path / "bbq_two.jsonl"
    both.to_json(path, orient="records", lines=True)
    at.radio(key="src_kind").set_value("Local path").run()
    at.text_input(key="src_path").input(str(path))
    at.button(key="load").click().run()
    no_exceptions(at)
    assert any("choose another id column below, or (none)" in w.value for w in at.warning)
    at.button(key="mapping_load").click().run()
    no_exceptions(at)
    shown = " ".join(str(x.value) for x in (*at.markdown, *at.caption, *at.info, *at.subheader))
    assert "Multiple" in shown and "3 labels" not in shown, shown[:400]
    assert metrics(at).get("Items") == "120", metrics(at)


def test_app_messages_name_app_controls_not_cli_flags():
    from artifact_lens.dashboard.widgets.formatting import app_words

    assert app_words("no rows with a usable label in column 'x'; check --label.") == \
        "no rows with a usable label in column 'x'; check the Label column choice."
    assert app_words("choose one with --config / config=.") == "choose one with the Config box."
    assert app_words("Name it with --label (label= in Python).") == "Name it with the Label column choice."
    assert app_words("a --labeled thing stays") == "a --labeled thing stays"


def test_examples_mark_hits_and_open_one_example_in_full(at):
    at.switch_page(page("6_examples")).run()
    at.text_input(key="ex_query").input("nobody").run()
    no_exceptions(at)
    gone = browsers(at)[1]
    assert gone["match"].str.contains("⟦nobody⟧", case=False).all()
    target = str(gone["id"].iloc[0])
    at.selectbox(key="ex_pick").set_value(target).run()
    no_exceptions(at)
    shown = " ".join(t.value for t in at.text)
    assert f"id: {target}" in shown and "hypothesis: " in shown and "premise: " in shown
    feats = frame_with(at, "feature", "z", "significant")
    assert "nobody@hypothesis" in set(feats["feature"]) and feats["z"].is_monotonic_decreasing
    near = frame_with(at, "similarity")
    assert len(near) == 10 and target not in set(near["id"]) and near["similarity"].is_monotonic_decreasing
    at.button(key="ex_detail_more").click().run()
    no_exceptions(at)
    at.text_input(key="ex_query").input("").run()
    kept, gone = browsers(at)
    listed = set(kept["id"]) | set(gone["id"])
    assert target in listed and len(listed) <= 51
    at.button(key="ex_like_clear").click().run()
    kept, gone = browsers(at)
    assert len(kept) == len(gone) == 25



def test_the_representation_inputs_and_spec_follow_the_chosen_kind(at):
    kind_key = next(s.key for s in at.selectbox if s.key and s.key.startswith("rep_kind:"))
    at.selectbox(key=kind_key).set_value("warmup").run()
    keys = {w.key for w in [*at.slider, *at.number_input, *at.text_input, *at.multiselect]}
    assert {"rep_dim", "rep_fraction"} <= keys and "rep_path" not in keys and "rep_model" not in keys
    at.slider(key="rep_fraction").set_value(0.2).run()
    assert at.code[0].value == "warmup:fields=hypothesis,dim=64,fraction=0.2"
    at.selectbox(key=kind_key).set_value("file").run()
    keys = {w.key for w in [*at.slider, *at.number_input, *at.text_input]}
    assert "rep_path" in keys and "rep_dim" not in keys and "rep_fraction" not in keys
    at.text_input(key="rep_path").input("vectors.npy").run()
    assert at.code[0].value == "file:path=vectors.npy"


def test_cached_results_say_when_they_were_computed():
    from artifact_lens.dashboard.widgets.formatting import made

    assert made({"seconds": 93.2, "computed_at": 1000.0, "cache_hit": True}, now=1010.0) == \
        "computed just now in 93.2 s, kept on disk for this Φ"
    assert made({"seconds": 93.2, "computed_at": 1000.0, "cache_hit": False}, now=1000.0 + 600) == \
        "computed 10 min ago in 93.2 s, kept on disk for this Φ"
    assert made({"cache_hit": True}) == "read from the disk cache"
