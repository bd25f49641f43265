"""The Dynamics page (issue 23) through AppTest: the cartography runs as a background job and the
map, the regions × AFLite table and the possibly-mislabelled list show it; an annotator sees the
map a curator computed but cannot start one."""
import json

from apptest_helpers import OWNER, app, no_exceptions, page, texts, wait_for_jobs

ANNOTATOR = "ann@team.org"


def test_map_the_training_dynamics_beside_aflite(fresh_server):
    from artifact_lens.dashboard.process.shared import server

    owner = app(OWNER).run()
    owner.switch_page(page("13_dynamics")).run()
    no_exceptions(owner)
    assert "No map of this dataset's training dynamics yet" in texts(owner)
    owner.number_input(key="dyn_epochs").set_value(4)
    owner.button(key="dyn_run").click().run()
    wait_for_jobs(owner)
    no_exceptions(owner)
    regions = [d.value for d in owner.dataframe if "removed share" in d.value.columns][0]
    run = server().store.get(owner.session_state["artifact_lens"].run_key)
    assert int(regions[["retained", "removed"]].to_numpy().sum()) == len(run.ids)
    fig = json.loads(owner.get("plotly_chart")[0].proto.spec)
    assert sum(len(t["x"]) if isinstance(t["x"], list) else 1 for t in fig["data"]) > 0
    assert any(d for d in owner.dataframe if "label_quality" in d.value.columns)   # the suspects' list
    owner.radio(key="dyn_colour").set_value("status").run()
    no_exceptions(owner)
    ws = server().team.workspaces_of(OWNER)[0][0]
    server().team.set_role(ws, ANNOTATOR, "annotator", by=OWNER)
    ann = app(ANNOTATOR).run()
    ann.switch_page(page("13_dynamics")).run()
    no_exceptions(ann)
    assert not [b for b in ann.button if b.key == "dyn_run"]
    shown = [d.value for d in ann.dataframe if "removed share" in d.value.columns][0]
    assert shown.to_numpy().tolist() == regions.to_numpy().tolist()        # the owner's map


def test_the_listed_examples_open_as_the_map_selection(fresh_server):
    """"Show these on the Map page": the possibly mislabelled list becomes the Map's selection (its
    list, counts and review panel)."""
    at = app().run()
    at.switch_page(page("13_dynamics")).run()
    at.number_input(key="dyn_epochs").set_value(4)
    at.button(key="dyn_run").click().run()
    wait_for_jobs(at)
    listed = [d.value for d in at.dataframe if "label_quality" in d.value.columns][0]
    at.button(key="dyn_to_map").click().run()
    no_exceptions(at)
    sess = at.session_state["artifact_lens"]
    assert set(sess.map_selection) == set(listed["id"]) and listed.shape[0]
    assert any(s.value == f"Selected examples: {len(listed):,}" for s in at.subheader)


def test_a_restart_keeps_the_map_a_curator_computed(fresh_server):
    """Issue 35, item 2: the map (and which options it was computed with) is in the result store,
    so after a server restart an annotator still sees it instead of "a curator can compute one"."""
    from artifact_lens.dashboard.process.shared import server

    owner = app(OWNER).run()
    owner.switch_page(page("13_dynamics")).run()
    owner.number_input(key="dyn_epochs").set_value(3)
    owner.button(key="dyn_run").click().run()
    wait_for_jobs(owner)
    regions = [d.value for d in owner.dataframe if "removed share" in d.value.columns][0]
    server().team.set_role(server().team.workspaces_of(OWNER)[0][0], ANNOTATOR, "annotator", by=OWNER)
    server().finish_stop()
    server.clear()   # the restart: a new server process state, the same cache folder and database
    ann = app(ANNOTATOR).run()
    ann.switch_page(page("13_dynamics")).run()
    no_exceptions(ann)
    assert "No map of this dataset's training dynamics yet" not in texts(ann)
    shown = [d.value for d in ann.dataframe if "removed share" in d.value.columns][0]
    assert shown.to_numpy().tolist() == regions.to_numpy().tolist()
    assert not server().jobs.running()   # read back, not recomputed


def test_the_map_is_trained_on_the_servers_device_and_says_so(fresh_server, monkeypatch):
    """Issue 32: with ``ARTIFACT_LENS_DEVICE`` set the cartography trains there (`array-api-strict`
    stands in for a GPU: the standard's namespace, no GPU needed); the page says where each map was
    trained, and a CPU map of the same options is not served for the device's (the device is part
    of the key)."""
    from artifact_lens.dashboard.process.shared import server

    at = app().run()
    at.switch_page(page("13_dynamics")).run()
    at.number_input(key="dyn_epochs").set_value(3)
    at.button(key="dyn_run").click().run()
    wait_for_jobs(at)
    assert "This map was trained on the CPU in" in texts(at)
    cpu = [d.value for d in at.dataframe if "removed share" in d.value.columns][0]
    monkeypatch.setenv("ARTIFACT_LENS_DEVICE", "array-api-strict")
    at.button(key="dyn_run").click().run()
    wait_for_jobs(at)
    no_exceptions(at)
    assert "This map was trained on array-api-strict in" in texts(at)
    strict = [d.value for d in at.dataframe if "removed share" in d.value.columns][0]
    assert strict.shape == cpu.shape and abs(strict.to_numpy() - cpu.to_numpy()).max() <= 0.02
    assert not server().jobs.running()
