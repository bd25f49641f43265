"""One UMAP child process per server at a time: the next map waits for the slot, and can be cancelled."""
from streamlit.testing.v1 import AppTest


def _queue_a_map():
    import time

    import numpy as np
    import streamlit as st

    from dashboard.pipelines import start_umap
    from dashboard.server import server

    srv = server()
    assert srv.map_slots.acquire(timeout=5)   # another map holds the only slot
    try:
        ds = type("DS", (), {"fingerprint": "f" * 16})()
        rep = type("Rep", (), {"X": np.zeros((50, 4), "float32"),
                                "ids": np.arange(50).astype(str), "spec": "toy"})()
        job = start_umap(ds, rep)
        time.sleep(1.5)
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
