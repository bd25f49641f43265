"""A damaged stored run on a running server: named, never recomputed over, never deleted."""
from apptest_helpers import app, no_exceptions, page


def test_a_damaged_stored_run_is_named_on_every_page_and_left_on_disk(fresh_server):
    """The current run's file damaged on disk (and not in memory): every page says so (the page
    service reads the run; the widget every page draws first names the damage), the app keeps
    serving, and the file is left for the user to inspect."""
    from artifact_lens.dashboard.process.shared import server

    at = app().run()
    key = at.session_state["artifact_lens"].run_key
    path = server().store.path(key)
    path.write_bytes(b"not a run")
    server().cache.discard("run", key)
    for name in ("2_filter", "6_examples", "7_export"):
        at.switch_page(page(name)).run()
        no_exceptions(at)
        assert any("damaged" in str(e.value) for e in at.error), (name, [str(e.value) for e in at.error])
    assert path.read_bytes() == b"not a run"
