"""Dashboard response benchmark: prints one JSON line.

- ``tau_redraw_ms`` / ``n_redraw_ms``: what the Filter page's live fragment computes
  when τ or n moves at N examples (retained_for from the trajectory, the per-label
  summary, the per-phase table, the live example columns, the balance figure as
  JSON), median over several values; the ≤ 300 ms target.
- ``apptest_tau_rerun_ms``: a real AppTest rerun of the Filter page after moving τ
  on the 3,000-example start-up demo (the whole page script, not only the fragment).
- ``umap_seconds``: UMAP of Φ at N (cold, no cache; numba kernels cached on disk),
  ``umap_cached_ms``: the same projection read back from the cache.

Usage: ``python benchmarks/dashboard_bench.py [--n 20000] [--no-umap]``
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def switches(count: int) -> dict:
    """Resident memory and cache bytes after ``count`` dataset/representation switches of one
    server (the way the Data page switches), with the default cache budget."""
    from streamlit.testing.v1 import AppTest

    def script():
        import json
        import os
        import resource

        import streamlit as st

        from artifact_lens.dashboard.services import current, pipelines, run_view
        from artifact_lens.dashboard.state.browser import tab as this_tab
        from artifact_lens.dashboard.state.session import Source

        def rss_mb():
            with open("/proc/self/status") as fh:
                return next(int(line.split()[1]) for line in fh if line.startswith("VmRSS")) / 1024

        params = dict(n_partitions=16, train_size=0.1, slice_size=0.02, tau=0.0, target_size=0.3, random_state=0)
        tab = this_tab()
        before = rss_mb()
        specs = ["tfidf-svd:fields=hypothesis,dim=64", "tfidf-svd:fields=premise+hypothesis,dim=32"]
        for i in range(int(os.environ["BENCH_SWITCHES"])):
            source = Source(f"demo:nli:n={5000 + 500 * (i % 25)}", {}, "")
            key, ds = current.load(tab, source)
            spec = current.check_spec(specs[i // 25 % 2], ds)
            pipelines.apply_result(tab, pipelines.score(tab, None, key, ds, spec, params), params, source)
            run = run_view.run(tab)
            run_view.table(tab, run).browse(run_view.live_result(tab, run))
        stats = tab.server.cache.stats()
        st.text(json.dumps({"rss_before_mb": round(before), "rss_after_mb": round(rss_mb()),
                            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                            "cache_mb": round(stats["bytes"] / 2**20, 1), "cache_budget_mb": stats["budget"] >> 20,
                            "cache_entries": stats["entries"], "evictions": stats["evictions"]}))

    os.environ["BENCH_SWITCHES"] = str(count)
    os.environ["ARTIFACT_LENS_MAP"] = "pca"   # no UMAP per switch: the figure is the server's own memory
    t = time.perf_counter()
    at = AppTest.from_function(script, default_timeout=3600).run()
    figures = json.loads(at.text[0].value)
    figures["switches"] = count
    figures["switch_seconds"] = round(time.perf_counter() - t, 1)
    return {"memory_after_switches": figures}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--no-umap", action="store_true")
    ap.add_argument("--switches", type=int, default=50, help="dataset/representation switches for the memory figure")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="dash-bench-")
    os.environ["ARTIFACT_LENS_CACHE"] = tmp
    os.environ.setdefault("NUMBA_CACHE_DIR", str(Path.home() / ".cache" / "artifact-lens" / "numba"))

    import numpy as np
    import pandas as pd

    from artifact_lens.plots.aflite import bias_per_phase, label_balance
    from artifact_lens.data.demos import make_nli
    from artifact_lens.representations import represent
    from artifact_lens.results.runs import fit_run
    from artifact_lens.aflite.summaries import label_summary, phase_frame, phases_run
    from artifact_lens.results.tables import ExampleTable

    out = {"n": args.n}
    ds = make_nli(n=args.n, random_state=0)
    t = time.perf_counter()
    rep = represent(ds, "tfidf-svd:fields=hypothesis,dim=64", cache_dir=False)
    out["represent_seconds"] = round(time.perf_counter() - t, 2)
    params = dict(n_partitions=16, train_size=0.1, slice_size=0.02, tau=0.0, target_size=0.3, random_state=0)
    t = time.perf_counter()
    run = fit_run(ds, rep, params)
    out["aflite_seconds"] = round(time.perf_counter() - t, 2)
    out["phases"] = run.n_phases
    table = ExampleTable(ds, run)
    labels = ds.table[ds.label].reindex(pd.Index(run.ids)).to_numpy()

    def redraw(tau, n):
        result = run.result_for(tau=tau, target_size=n)
        mask = result["retained"]
        summary = label_summary(labels, mask)
        phases = phase_frame(run, mask)
        live = table.browse(result)
        label_balance(summary).to_json()
        bias_per_phase(phases, phases_run(phases)).to_json()
        return int(mask.sum()), len(phases), len(live)

    redraw(0.5, 0.5)  # warm-up
    times = []
    for tau in np.linspace(0.5, 1.0, 11):
        t = time.perf_counter()
        redraw(float(tau), 0.5)
        times.append((time.perf_counter() - t) * 1000)
    out["tau_redraw_ms"] = round(statistics.median(times), 1)
    out["tau_redraw_ms_max"] = round(max(times), 1)
    times = []
    for n in np.linspace(0.3, 0.9, 11):
        t = time.perf_counter()
        redraw(0.75, float(n))
        times.append((time.perf_counter() - t) * 1000)
    out["n_redraw_ms"] = round(statistics.median(times), 1)
    t = time.perf_counter()
    run.retained_for(tau=0.8, target_size=0.6)
    out["retained_for_ms"] = round((time.perf_counter() - t) * 1000, 2)

    # A real Streamlit rerun of the Filter page (AppTest) after moving τ, on the start-up demo.
    os.environ["ARTIFACT_LENS_MAP"] = "pca"
    os.chdir(ROOT)
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300).run()
    at.switch_page("pages/2_filter.py").run()
    times = []
    for tau in (0.8, 0.85, 0.9, 0.95, 1.0):
        t = time.perf_counter()
        at.slider(key="w_tau").set_value(tau).run()
        times.append((time.perf_counter() - t) * 1000)
    out["apptest_tau_rerun_ms"] = round(statistics.median(times), 1)
    out["apptest_n"] = 3000
    out.update(switches(args.switches))

    if not args.no_umap:
        from artifact_lens.representations.projection import project

        key = f"{ds.fingerprint}:{rep.spec}"
        t = time.perf_counter()
        proj = project(rep.X, rep.ids, key=key, method="umap", cache_dir=tmp)
        out["umap_seconds"] = round(time.perf_counter() - t, 1)
        out["umap_info"] = {k: v for k, v in proj.info.items() if k != "seconds"}
        t = time.perf_counter()
        project(rep.X, rep.ids, key=key, method="umap", cache_dir=tmp)
        out["umap_cached_ms"] = round((time.perf_counter() - t) * 1000, 1)
        t = time.perf_counter()
        project(rep.X, rep.ids, key=key, method="pca", cache_dir=tmp)
        out["pca_seconds"] = round(time.perf_counter() - t, 2)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
