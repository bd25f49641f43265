"""One UMAP child process per server at a time: the next map waits for the slot, and can be cancelled."""
from streamlit.testing.v1 import AppTest


def _queue_a_map():
    import time

    import numpy as np
    import streamlit as st

    from artifact_lens.dashboard.services.pipelines import start_umap
    from artifact_lens.dashboard.state.browser import tab as this_tab

    tab = this_tab()
    srv = tab.server
    assert srv.map_slots.acquire(timeout=5)   # another map holds the only slot
    try:
        ds = type("DS", (), {"fingerprint": "f" * 16})()
        rep = type("Rep", (), {"X": np.zeros((50, 4), "float32"),
                                "ids": np.arange(50).astype(str), "spec": "toy"})()
        job = start_umap(tab, ds, rep)
        waiting, since = job.snapshot(), time.monotonic()
        while waiting["message"] != "waiting for another map to finish" and not job.done \
                and time.monotonic() - since < 120:   # a condition, not a fixed sleep: a busy machine starts it late
            time.sleep(0.02)
            waiting = job.snapshot()
        job.cancel()
        job.wait(5)
    finally:
        srv.map_slots.release()
    st.text(f"{waiting['status']}|{waiting['message']}|{job.status}")


def test_a_second_map_waits_for_the_slot_and_can_be_cancelled():
    at = AppTest.from_function(_queue_a_map, default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    status, message, final = at.text[0].value.split("|")
    assert status == "running" and message == "waiting for another map to finish" and final == "cancelled"


def _parallel_map():
    import numpy as np
    import streamlit as st

    from artifact_lens.representations.projection import project
    from artifact_lens.dashboard.services import current, map_settings
    from artifact_lens.dashboard.services.pipelines import start_umap
    from artifact_lens.dashboard.state.browser import tab as this_tab

    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(0, 1, (60, 6)), rng.normal(8, 1, (60, 6))]).astype("float32")
    ds = type("DS", (), {"fingerprint": "9" * 16})()   # a data key: hex digits
    rep = type("Rep", (), {"X": X, "ids": np.arange(len(X)).astype(str), "spec": "toy-parallel"})()
    job = start_umap(this_tab(), ds, rep)
    job.wait(600)
    key = map_settings.projection_key(ds, rep)
    seeded = project(X, rep.ids, key=key, method="umap", only_cached=True)
    fast = project(X, rep.ids, key=key, method="umap", only_cached=True, parallel=True)
    st.text(f"{job.status}|{job.name}|{seeded is None}|{fast is not None and fast.params.get('parallel') is True}"
            f"|{job.error}")


def test_a_server_set_to_umap_parallel_computes_the_parallel_map(fresh_server, monkeypatch):
    """Issue 32: ``ARTIFACT_LENS_MAP=umap-parallel`` makes the dashboard's background map the one on
    every core: cached as the parallel map, never under the seeded map's key."""
    monkeypatch.setenv("ARTIFACT_LENS_MAP", "umap-parallel")
    at = AppTest.from_function(_parallel_map, default_timeout=600).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.text[0].value == "done|UMAP on every core|True|True|None", at.text[0].value
