"""Where a CPU engine run's time goes, per thread count (issue 32: which part of a phase is serial).

Times, in the driver thread, each pass the ridge family hands to its threads (the block Gram
assembly, the m solves, the predictions, the downdates; each ``tasks:``/``map:`` entry is the
wall time the driver waited for it) and the serial steps around them (the plan, the selection,
the heap trim), for one whole 100k × 768 run (m = 64, t = 10 %, k = 1 %, τ = 0, to 50 %) at each
``--jobs`` value. A part whose time does not fall with the threads is what bounds the speed-up.
Prints one JSON line.

    python benchmarks/engine_sections.py --jobs 1,2
    python benchmarks/engine_sections.py --rows 20000 --jobs 1,16
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import artifact_lens.aflite.estimator as estimator  # noqa: E402
import artifact_lens.aflite.scorers as scorers  # noqa: E402
import artifact_lens.aflite.storage as storage  # noqa: E402
from artifact_lens.aflite import AFLite  # noqa: E402

SPENT: collections.Counter = collections.Counter()


def _timed_iter(label, it):
    t = time.perf_counter()
    for x in it:
        SPENT[label] += time.perf_counter() - t
        yield x
        t = time.perf_counter()
    SPENT[label] += time.perf_counter() - t


def _timed_call(label, fn):
    def call(*a, **k):
        t = time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            SPENT[label] += time.perf_counter() - t
    return call


def instrument() -> None:
    tasks, mapped = storage.LocalRows.tasks, storage.LocalRows.map
    storage.LocalRows.tasks = lambda self, fn, kw, common, cancel=None: _timed_iter(
        f"tasks:{fn.__name__}", tasks(self, fn, kw, common, cancel))
    storage.LocalRows.map = lambda self, fn, kw, common, cancel=None: _timed_iter(
        f"map:{fn.__name__}", mapped(self, fn, kw, common, cancel))
    for name in ("partition_plan", "select", "trim_heap"):
        setattr(estimator, name, _timed_call(name, getattr(estimator, name)))
    for name in ("score", "remove"):
        setattr(scorers.RidgeScorer, name, _timed_call(f"ridge.{name}", getattr(scorers.RidgeScorer, name)))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=100000)
    ap.add_argument("--jobs", default="1,2", help="n_jobs values, comma-separated")
    args = ap.parse_args(argv)
    instrument()
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, args.rows)
    X = rng.standard_normal(size=(args.rows, 768), dtype=np.float32)
    X[:, :16] += (y[:, None] * 0.25).astype(np.float32)
    out = {"bench": "engine_sections", "cpus": os.cpu_count(), "rows": args.rows, "load_avg": os.getloadavg()}
    for jobs in (int(j) for j in args.jobs.split(",")):
        SPENT.clear()
        t = time.perf_counter()
        AFLite(n_partitions=64, train_size=0.1, slice_size=0.01, tau=0.0, target_size=0.5, random_state=0,
               max_dim=None, n_jobs=jobs).fit(X, y)
        total = time.perf_counter() - t
        parts = {k: round(v, 2) for k, v in sorted(SPENT.items(), key=lambda kv: -kv[1])}
        out[f"n_jobs={jobs}"] = {"seconds": round(total, 2), **parts}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
