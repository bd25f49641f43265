"""A shared server stays within its cache budget however many datasets its users switch through."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _fifty_switches(tab, switches: int) -> dict:
    """The dashboard's own services, as the pages call them, through ``switches`` datasets."""
    from artifact_lens.dashboard.services import current, run_view, pipelines
    from artifact_lens.dashboard.state.session import Source

    params = dict(n_partitions=8, train_size=0.1, slice_size=0.05, tau=0.0, target_size=0.3, random_state=0)
    cache = tab.server.cache
    worst, sources = 0, []
    for i in range(switches):
        source = Source(f"demo:nli:n={200 + 10 * i}", {}, f"demo {i}")
        key, ds = current.load(tab, source)
        spec = current.check_spec("tfidf-svd:fields=hypothesis,dim=8", ds)
        pipelines.apply_result(tab, pipelines.score(tab, None, key, ds, spec, params), params, source)
        run = run_view.run(tab)
        run_view.table(tab, run).browse(run_view.live_result(tab, run))   # what the Examples page holds
        worst = max(worst, cache.nbytes)
        sources.append(source)
    # the first dataset was evicted long ago: going back to it reloads it from its source
    key, first = current.load(tab, sources[0])
    return {"worst": worst, "budget": cache.budget, "evictions": cache.evictions, "entries": len(cache),
            "first_rows": len(first), "runs": len(tab.server.store.keys())}


def test_cache_stays_within_budget_over_fifty_switches(monkeypatch, tmp_path):
    from service_tabs import new_tab

    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("ARTIFACT_LENS_CACHE_MB", "2")
    monkeypatch.setenv("ARTIFACT_LENS_CACHE", str(tmp_path))
    monkeypatch.setenv("ARTIFACT_LENS_DB_URL", f"sqlite:///{tmp_path}/team.sqlite")
    monkeypatch.setenv("ARTIFACT_LENS_MAP", "pca")   # no UMAP child process per switch
    tab = new_tab()   # a fresh server that reads the budget above
    try:
        stats = _fifty_switches(tab, 50)
    finally:
        tab.server.finish_stop()
    assert stats["budget"] == 2 << 20
    assert stats["worst"] <= stats["budget"], stats
    assert stats["evictions"] > 0 and stats["runs"] == 50
    assert stats["first_rows"] == 200
