"""Saving one review (issue 35, item 3): where a click's time goes.

Three figures, each the median of ``--saves`` reviews, in one run side by side:
- ``store_ms``: `TeamStore.review` alone (the role checked inside the write, the run's ids kept
  in memory after the first, one transaction) on SQLite;
- ``click_ms``: the Review page's whole rerun after "Save review" (AppTest: the script, the
  store write, the queue's next example drawn), the figure a reviewer feels;
- ``top``: the functions that take most of the click (cProfile, cumulative seconds per save).
``--busy N`` runs N CPU burners beside it (the loaded machine). Prints one JSON line.

    python benchmarks/review_save_bench.py [--saves 15] [--busy 2] [--data demo:nli:n=3000]
"""
from __future__ import annotations

import argparse
import cProfile
import json
import multiprocessing
import os
import pstats
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def _burn(stop):
    while not stop.is_set():
        sum(i * i for i in range(10_000))


def _store_ms(saves: int) -> float:
    from artifact_lens.representations import represent
    from artifact_lens.results.runs import fit_run
    from artifact_lens.data.sources import load_dataset
    from artifact_lens.team.store import TeamStore

    folder = tempfile.mkdtemp()
    with TeamStore(f"sqlite:///{folder}/team.sqlite", files=f"{folder}/files") as store:
        ws = store.workspace("bench", "o@x.org")
        ds = load_dataset("demo:nli:n=600")
        run = fit_run(ds, represent(ds, "tfidf-svd:fields=hypothesis,dim=8"), dict(n_partitions=4, target_size=0.5))
        run_id = store.save_run(ws, store.save_dataset(ws, ds, source="demo", roles={}, by="o@x.org"), run,
                                by="o@x.org")
        times = []
        for example in run.ids[:saves]:
            t0 = time.perf_counter()
            store.review(ws, run_id, str(example), "agree", by="o@x.org")
            times.append(time.perf_counter() - t0)
    return 1000 * statistics.median(times)


def _click_ms(saves: int, data: str):
    from streamlit.testing.v1 import AppTest

    root = os.path.join(os.path.dirname(__file__), "..")
    os.environ["ARTIFACT_LENS_CACHE"] = tempfile.mkdtemp()
    os.environ["ARTIFACT_LENS_MAP"] = "pca"
    at = AppTest.from_file(os.path.join(root, "app.py"), default_timeout=600).run()
    at.switch_page(os.path.join(root, "pages", "8_review.py")).run()
    save = [b for b in at.button if b.key == "rv_save_run"]
    if save:
        save[0].click().run()
    import streamlit.runtime.scriptrunner.script_runner as runner

    times, profile, plain = [], cProfile.Profile(), runner.exec_func_with_error_handling

    def profiled(func, ctx):   # the script runs in AppTest's own thread: profile it there
        profile.enable()
        try:
            return plain(func, ctx)
        finally:
            profile.disable()

    runner.exec_func_with_error_handling = profiled
    for _ in range(saves):
        submit = [b for b in at.button if b.key == "rv_queue_submit"]
        if not submit:
            break
        t0 = time.perf_counter()
        submit[0].click().run()
        times.append(time.perf_counter() - t0)
    runner.exec_func_with_error_handling = plain
    stats = pstats.Stats(profile)
    here = os.path.abspath(root)
    own = [(f"{os.path.relpath(f, here)}:{n}", ct / max(len(times), 1)) for (f, _, n), (_, _, _, ct, _)
           in stats.stats.items() if os.path.abspath(f).startswith(here) and "benchmarks" not in f]
    top = sorted(own, key=lambda x: -x[1])[:8]
    return 1000 * statistics.median(times), [(name, round(s, 3)) for name, s in top]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--saves", type=int, default=15)
    ap.add_argument("--busy", type=int, default=0, help="CPU burners beside the measurement")
    ap.add_argument("--data", default="demo:nli:n=3000")
    args = ap.parse_args()
    stop = multiprocessing.Event()
    burners = [multiprocessing.Process(target=_burn, args=(stop,), daemon=True) for _ in range(args.busy)]
    for b in burners:
        b.start()
    try:
        store_ms = _store_ms(args.saves)
        click_ms, top = _click_ms(args.saves, args.data)
    finally:
        stop.set()
        for b in burners:
            b.join(5)
    print(json.dumps({"benchmark": "review_save", "busy": args.busy, "saves": args.saves,
                      "store_ms_median": round(store_ms, 1), "click_ms_median": round(click_ms, 1),
                      "top_seconds_per_save": top}))


if __name__ == "__main__":
    main()
