"""The server's memory at scale (issue 13): the cache counts what it holds, caps the many small
entries a slider makes, and sessions share one copy of Φ."""
import json

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from artifact_lens.dashboard.process.cache import KIND_LIMITS, BoundedCache, sizeof

from artifact_lens.base.keys import data_key


def K(name):
    """A key for a test's entry (the cache takes `core.base.keys` keys only)."""
    return data_key(repr(name))


def test_live_results_are_capped_in_number_and_never_push_out_the_dataset():
    cache = BoundedCache(budget=1 << 30)
    cache.put("dataset", K("d"), np.zeros(1000, np.float32))
    for i in range(5 * KIND_LIMITS["live"]):
        cache.get_or_compute("live", K(("run", 0.5 + i / 1000, 100)), lambda: {"retained": np.ones(10_000, bool)})
        cache.get_or_compute("dataset", K("d"), lambda: None)   # in use meanwhile
    live = [k for (kind, k) in cache._entries if kind == "live"]
    assert len(live) == KIND_LIMITS["live"]
    assert live[-1] == K(("run", 0.5 + (5 * KIND_LIMITS["live"] - 1) / 1000, 100))   # the newest are kept
    assert cache.peek("dataset", K("d")) is not None
    assert cache.stats()["by_kind"]["live"] == KIND_LIMITS["live"] * sizeof({"retained": np.ones(10_000, bool)})


def test_an_embedding_column_is_counted_by_its_vectors_once():
    X = np.random.default_rng(0).normal(size=(2000, 64)).astype(np.float32)
    views = pd.DataFrame({"label": ["a"] * 2000, "embedding": list(X)})       # views of one buffer (as Parquet gives)
    own = pd.DataFrame({"label": ["a"] * 2000, "embedding": [x.copy() for x in X]})
    text_only = sizeof(views[["label"]])
    headers = 2000 * 200   # each vector's array object
    assert X.nbytes <= sizeof(views) - text_only < X.nbytes + headers
    assert X.nbytes <= sizeof(own) - text_only < X.nbytes + headers
    # the same buffer in two cached objects of one entry is counted once
    assert sizeof([views, views["embedding"]]) < sizeof(views) + headers


def _one_tab():
    # inside streamlit (AppTest): what a page does for the current dataset's Φ
    import json

    import streamlit as st

    from artifact_lens.dashboard.services import current, pipelines, run_view
    from artifact_lens.dashboard.process.cache import sizeof
    from artifact_lens.dashboard.state.browser import tab as this_tab
    from artifact_lens.dashboard.state.session import Source

    tab = this_tab()
    source = Source("demo:nli:n=2000", {}, "demo")
    key, ds = current.load(tab, source)
    spec = current.check_spec("tfidf-svd:fields=hypothesis,dim=32", ds)
    params = dict(n_partitions=4, train_size=0.1, slice_size=0.05, tau=0.0, target_size=0.5, random_state=0)
    pipelines.apply_result(tab, pipelines.score(tab, None, key, ds, spec, params), params, source)
    run = run_view.run(tab)
    run_view.table(tab, run).browse(run_view.live_result(tab, run))
    X = current.representation(tab).X
    held = {k: sizeof(v) for k, v in st.session_state.items()}
    st.text(json.dumps({"x_id": id(X), "x_bytes": int(X.nbytes), "session_bytes": sum(held.values()),
                        "session_keys": sorted(held), "params": tab.session.params}))


def test_sessions_share_one_copy_of_the_representation(fresh_server):
    first = AppTest.from_function(_one_tab, default_timeout=120).run()
    second = AppTest.from_function(_one_tab, default_timeout=120).run()
    assert not first.exception and not second.exception
    a, b = (json.loads(at.text[0].value) for at in (first, second))
    assert a["x_id"] == b["x_id"]   # the server's cache hands every tab the same array
    # a tab's own state is small: keys and knobs, never Φ, the dataset or a figure
    assert a["session_bytes"] < a["x_bytes"] / 4 and b["session_bytes"] < 64_000, (a, b)


def test_drawing_figures_with_text_keeps_no_string_alive():
    """orjson (plotly's fast JSON engine, when installed) leaked every string of a numpy object
    array in a figure on every draw; the server hands plotly lists instead."""
    import gc
    import tracemalloc

    import plotly.graph_objects as go
    import plotly.io as pio

    import artifact_lens.dashboard.process.server  # noqa: F401  (installs the conversion)

    def draw(i):
        words = np.array([f"example {i}-{j} " + "x" * 40 for j in range(2000)], dtype=object)
        fig = go.Figure(go.Scattergl(x=np.arange(2000), y=np.arange(2000), text=words, customdata=np.c_[words, words]))
        spec = json.loads(pio.to_json(fig, validate=False))
        assert spec["data"][0]["text"][5] == f"example {i}-5 " + "x" * 40
        assert spec["data"][0]["customdata"][7][1] == f"example {i}-7 " + "x" * 40

    draw(0)
    tracemalloc.start()
    try:
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        for i in range(1, 11):
            draw(i)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 300_000, grown   # 10 draws of 6,000 strings of ~60 bytes would be ~4 MB
