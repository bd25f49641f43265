"""A shared server stays within its cache budget however many datasets its users switch through."""
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]


def _fifty_switches():
    # Runs inside streamlit (AppTest): the dashboard's own functions, as the pages call them.
    import json
    import os

    import streamlit as st

    from dashboard.services import current, pipelines
    from dashboard.process.server import server
    from dashboard.state.session import Source

    params = dict(n_partitions=8, train_size=0.1, slice_size=0.05, tau=0.0, target_size=0.3, random_state=0)
    cache = server().cache
    worst, sources = 0, []
    for i in range(int(os.environ["SWITCHES"])):
        source = Source(f"demo:nli:n={200 + 10 * i}", {}, f"demo {i}")
        key, ds = current.load(source)
        spec = current.check_spec("tfidf-svd:fields=hypothesis,dim=8", ds)
        pipelines.apply_result(pipelines.score(None, key, ds, spec, params), params, source)
        run = current.run()
        current.table(run).browse(current.live_result(run))   # what the Examples page holds
        worst = max(worst, cache.nbytes)
        sources.append(source)
    # the first dataset was evicted long ago: going back to it reloads it from its source
    key, first = current.load(sources[0])
    st.text(json.dumps({"worst": worst, "budget": cache.budget, "evictions": cache.evictions,
                        "entries": len(cache), "first_rows": len(first), "runs": len(server().store.keys())}))


def test_cache_stays_within_budget_over_fifty_switches(monkeypatch, tmp_path):
    import json

    from dashboard.process.server import server

    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("ARTIFACT_LENS_CACHE_MB", "2")
    monkeypatch.setenv("SWITCHES", "50")
    monkeypatch.setenv("ARTIFACT_LENS_CACHE", str(tmp_path))
    monkeypatch.setenv("ARTIFACT_LENS_MAP", "pca")   # no UMAP child process per switch
    server.clear()   # a fresh server that reads the budget above
    try:
        at = AppTest.from_function(_fifty_switches, default_timeout=300).run()
        assert not at.exception, [e.value for e in at.exception]
        stats = json.loads(at.text[0].value)
    finally:
        server.clear()
    assert stats["budget"] == 2 << 20
    assert stats["worst"] <= stats["budget"], stats
    assert stats["evictions"] > 0 and stats["runs"] == 50
    assert stats["first_rows"] == 200
