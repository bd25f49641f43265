"""Quality (DQI, paper 002) in the dashboard through streamlit's AppTest, on the 3,000-example demo:
the components computed in a background job (once per dataset and Φ, kept on disk), DQI-ordered
runs from the Filter page (their own key, the choice in the manifest, τ fixed by the run), the
plain vs quality-ordered comparison, the quality light column in Examples (beside the review
column), the Map's quality colourings in the light colours, quality columns in exports, and the
role check (annotators get a caption, not a button)."""
import io
import json

import numpy as np
import pandas as pd

from apptest_helpers import OWNER, app, frame_with, knobs, metrics, no_exceptions, page, texts, wait_for_jobs

ANNOTATOR = "ann@team.org"


def sidebar(at) -> str:
    return " ".join(t.value for t in at.sidebar.text)


def compute_quality(at, button="q_panel_compute"):
    at.button(key=button).click().run()
    no_exceptions(at)
    wait_for_jobs(at)


def expected_quality():
    """The components of the demo on the dashboard's Φ, computed directly by core.quality."""
    from artifact_lens.quality import quality_scores
    from artifact_lens.data.sources import load_dataset
    from artifact_lens.dashboard.state.session import DEFAULT_SPEC

    return quality_scores(load_dataset("demo:nli"), DEFAULT_SPEC, min_count=5, nn_dim=64)


def test_a_dqi_ordered_run_is_cached_apart_from_the_plain_one_and_recorded(fresh_server, downloads):
    from artifact_lens.dashboard.process.shared import server

    at = app().run()
    at.switch_page(page("2_filter")).run()
    no_exceptions(at)
    assert [b for b in at.button if b.key == "q_panel_compute"]          # not computed yet: offered
    compute_quality(at)
    assert any(t.value.startswith("Computed for 3,000 examples") for t in at.text)
    assert list((fresh_server / "runs" / "quality").glob("*.parquet"))   # kept on disk
    plain_key = at.session_state["artifact_lens"].run_key
    at.radio(key="w_order").set_value("dqi")
    at.slider(key="w_tau_q").set_value(0.75)
    at.button(key="run_aflite").click().run()
    wait_for_jobs(at)
    sess = at.session_state["artifact_lens"]
    assert sess.run_key != plain_key and "removal order: quality (dqi), τ = 0.75" in sidebar(at)
    assert sorted(server().store.keys()) == sorted([plain_key, sess.run_key])
    run = server().store.get(sess.run_key)
    assert run.quality["name"] == "dqi" and run.quality["weights"]["label_tied"] == 2.0
    assert run.trajectory.quality is not None and run.params["tau"] == 0.75
    # τ is the run's (no slider); n stays live
    assert not knobs(at, "w_tau")
    at.slider(key="w_target").set_value(0.7).run()
    assert metrics(at)["Retained"] == "2,100"
    # the manifest records the choice
    at.switch_page(page("7_export")).run()
    no_exceptions(at)
    manifest = json.loads(downloads(at.get("download_button")[0]))
    assert manifest["quality"]["name"] == "dqi" and manifest["aflite"]["removal_order"].startswith("quality")
    assert manifest["export"]["tau"] == 0.75 and manifest["run_key"] == sess.run_key
    # back to the plain order: the stored plain run, no new job, τ live again
    at.switch_page(page("2_filter")).run()
    at.radio(key="w_order").set_value("predictability")
    at.button(key="run_aflite").click().run()
    no_exceptions(at)
    assert not server().jobs.running() and at.session_state["artifact_lens"].run_key == plain_key
    assert "removal order" not in sidebar(at) and knobs(at, "w_tau")
    # another component is another run
    at.radio(key="w_order").set_value("component")
    at.selectbox(key="w_component").set_value("label_tied")
    at.button(key="run_aflite").click().run()
    wait_for_jobs(at)
    assert "removal order: quality (label_tied)" in sidebar(at) and len(server().store.keys()) == 3


def test_the_comparison_table_shows_plain_and_quality_ordered_with_stop_reasons(fresh_server):
    at = app().run()
    at.switch_page(page("2_filter")).run()
    at.slider(key="w_target").set_value(0.3).run()      # the run's deepest n: τ = 0.75 stops first
    at.button(key="cmp_run").click().run()              # the components are computed inside the job
    wait_for_jobs(at)
    table = frame_with(at, "set", "z_max", "partial_accuracy", "balance")
    assert table["set"].tolist() == ["full", "AFLite", "AFLite + dqi", "random (same n as AFLite)"]
    assert table.loc[0, "n"] == 3000
    assert table.set_index("set").loc["AFLite", "partial_accuracy"] < table.set_index("set").loc["full", "partial_accuracy"]
    assert any(c.value.startswith("Stop reasons: AFLite: ") for c in at.caption)
    early = [w.value.replace("\\", "") for w in at.warning if "stopped early" in w.value]   # Markdown-escaped
    kept = table.set_index("set")["n"]
    assert early and early[0] == (f"AFLite stopped early: fewer than k examples passed τ = 0.75, so it kept "
                                  f"{kept['AFLite']:,} examples instead of n = 900.")
    assert kept["AFLite"] > 900
    # stored: a new tab at the same settings shows it without a job
    from artifact_lens.dashboard.process.shared import server

    again = app().run()
    again.switch_page(page("2_filter")).run()
    again.slider(key="w_target").set_value(0.3).run()
    assert not server().jobs.running() and not [b for b in again.button if b.key == "cmp_run"]
    assert frame_with(again, "set", "z_max")["set"].tolist() == table["set"].tolist()


def test_examples_show_a_quality_light_next_to_the_review_light(fresh_server):
    from test_team import _saved_demo

    at = app(OWNER).run()
    _saved_demo(at)
    at.switch_page(page("6_examples")).run()
    no_exceptions(at)
    assert not [d for d in at.dataframe if "quality" in d.value.columns]
    compute_quality(at, "ex_quality_compute")
    removed = [d.value for d in at.dataframe if "removed_at" in d.value.columns][0]
    assert list(removed.columns[:3]) == ["id", "review", "quality"]
    assert set(removed["review"]) == {"🔴 removed, not reviewed"}
    expected = expected_quality().reindex(removed["id"].astype(str))
    badges = {"red": "🔴", "yellow": "🟡", "green": "🟢"}
    assert removed["quality"].tolist() == [f"{badges[l]} {v:.2f}" for l, v in zip(expected["light"], expected["dqi"])]
    # one example: each component's score and light
    target = str(removed["id"].iloc[0])
    at.selectbox(key="ex_pick").set_value(target).run()
    comps = frame_with(at, "component", "score", "light")
    assert comps["component"].tolist()[-1] == "dqi" and len(comps) == 8
    assert np.isclose(comps.set_index("component").loc["label_tied", "score"], expected.loc[target, "label_tied"])
    # the thresholds are knobs: green from 0 makes every light green
    at.switch_page(page("2_filter")).run()
    at.slider(key="qt_dqi").set_value((0.0, 0.0)).run()
    at.switch_page(page("6_examples")).run()
    removed = [d.value for d in at.dataframe if "removed_at" in d.value.columns][0]
    assert all(v.startswith("🟢") for v in removed["quality"])


def test_the_map_colours_by_quality_and_by_quality_light(fresh_server):
    from artifact_lens.team.review import LIGHT_COLOURS

    at = app().run()
    at.switch_page(page("4_map")).run()
    at.selectbox(key="map_colour").set_value("quality light").run()
    no_exceptions(at)
    fig = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert [t["name"] for t in fig["data"][1:]] == ["label=contradiction", "label=entailment", "label=neutral"]
    compute_quality(at, "map_quality_compute")
    fig = json.loads(at.get("plotly_chart")[0].proto.spec)
    expected = expected_quality()
    legend = {t["name"]: t["marker"]["color"] for t in fig["data"][1:]}
    present = sorted(set(expected["light"]))
    assert legend == {f"quality light={l}": LIGHT_COLOURS[l] for l in present}
    from artifact_lens.plots.aflite import map_points

    drawn = map_points(fig["data"][0])
    ids = drawn["id"].tolist()
    assert drawn["colour"].tolist() == [LIGHT_COLOURS[l] for l in expected["light"].reindex(ids)]
    at.selectbox(key="map_colour").set_value("quality").run()
    fig = json.loads(at.get("plotly_chart")[0].proto.spec)
    points = fig["data"][0]
    assert points["marker"]["showscale"] and np.allclose(map_points(points)["colour"].to_numpy(dtype=float),
                                                         expected["dqi"].reindex(ids))


def test_exports_add_the_quality_columns(fresh_server, downloads):
    from artifact_lens.quality import COMPONENTS

    at = app().run()
    at.switch_page(page("7_export")).run()
    assert not [c for c in at.checkbox if c.key == "exp_quality"]
    compute_quality(at, "exp_quality_offer_compute")
    at.button(key="exp_prepare").click().run()
    plain = pd.read_csv(io.BytesIO(downloads(at.get("download_button")[0])))
    assert "dqi" not in plain.columns and len(plain) == 1500
    at.checkbox(key="exp_quality").check().run()
    no_exceptions(at)
    assert not [b for b in at.get("download_button") if b.key == "dl_data"]           # the file without the columns is gone
    at.button(key="exp_prepare").click().run()
    frame = pd.read_csv(io.BytesIO(downloads(at.get("download_button")[0])), dtype={"id": str})
    assert list(frame.columns[-9:]) == [*COMPONENTS, "dqi", "light"] and len(frame) == 1500
    expected = expected_quality().reindex(frame["id"])
    assert np.allclose(frame["dqi"], expected["dqi"]) and frame["light"].tolist() == expected["light"].tolist()
    manifest = json.loads(downloads(at.get("download_button")[1]))
    assert manifest["export"]["quality_columns"]["columns"][-2:] == ["dqi", "light"]
    assert manifest["export"]["quality_columns"]["weights"]["label_tied"] == 2.0


def test_annotators_are_told_who_computes_quality(fresh_server):
    from artifact_lens.dashboard.process.shared import server

    owner = app(OWNER).run()
    ws = server().team.workspaces_of(OWNER)[0][0]
    server().team.set_role(ws, ANNOTATOR, "annotator", by=OWNER)
    ann = app(ANNOTATOR).run()
    ann.switch_page(page("6_examples")).run()
    no_exceptions(ann)
    assert not [b for b in ann.button if b.key.endswith("_compute")]
    assert "once a curator or owner computes the quality components" in texts(ann)
    owner.switch_page(page("6_examples")).run()
    compute_quality(owner, "ex_quality_compute")
    ann.run()
    assert [d for d in ann.dataframe if "quality" in d.value.columns]   # computed once, seen by the team


def test_the_cli_and_the_dashboard_give_a_quality_ordered_run_one_key_and_one_result(fresh_server, tmp_path):
    """The same DQI-ordered run scored on the Filter page and by `aflite --quality dqi`: one
    run key (core.quality.pruning's descriptor) and the same kept examples."""
    from artifact_lens.cli import main
    from artifact_lens.dashboard.process.shared import server

    at = app().run()
    at.switch_page(page("2_filter")).run()
    compute_quality(at)
    at.radio(key="w_order").set_value("dqi")
    at.slider(key="w_tau_q").set_value(0.75)
    at.button(key="run_aflite").click().run()
    wait_for_jobs(at)
    sess = at.session_state["artifact_lens"]
    run = server().store.get(sess.run_key)
    p = run.params
    assert main(["-q", "--cache-dir", str(tmp_path / "cli-cache"), "aflite", sess.source.source, "-r",
                 run.representation, "--m", str(p["n_partitions"]), "--k", str(p["slice_size"]), "--train-size",
                 str(p["train_size"]), "--tau", str(p["tau"]), "--target-size", str(p["target_size"]), "--model",
                 p["model"], "--strategy", p["strategy"], "--seed", str(p["random_state"]), "--quality", "dqi",
                 "--out", str(tmp_path / "scores.csv"), "--manifest", str(tmp_path / "run.json")]) == 0
    manifest = json.loads((tmp_path / "run.json").read_text())
    assert manifest["run_key"] == sess.run_key
    assert manifest["quality"] == run.quality
    kept = run.ids[run.result_for()["retained"]]
    assert sorted(manifest["retained_ids"]) == sorted(kept.tolist())
