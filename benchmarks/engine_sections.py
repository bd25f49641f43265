"""Where a CPU engine run's time goes, per thread count (issue 32: which part of a phase is serial).

Times, in the driver thread, each pass the ridge family hands to its threads (the block Gram
assembly, the m solves, the predictions, the downdates; each ``tasks:``/``map:`` entry is the
wall time the driver waited for it) and the serial steps around them (the plan, the selection,
the heap trim), for one whole 100k × 768 run (m = 64, t = 10 %, k = 1 %, τ = 0, to 50 %) at each
``--jobs`` value. A part whose time does not fall with the threads is what bounds the speed-up.
Prints one JSON line.

``--simulate T`` (issue 57, item 4: does the run hand T threads enough work?) also runs the fit on
one thread timing every task of every pass, and replays each pass on T threads as the engine's
pool schedules it (tasks in order, each to the first free thread): the seconds each pass and the
whole run would take on T threads that never contend for memory, and the speed-up that the tasks'
granularity allows. A machine with fewer cores than T can state it; only one with T cores can say
what memory bandwidth and clock speed leave of it.

    python benchmarks/engine_sections.py --jobs 1,2
    python benchmarks/engine_sections.py --rows 20000 --jobs 1,16
    python benchmarks/engine_sections.py --rows 100000 --jobs 1 --simulate 16
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


#: per pass (the task function's name): one list of task seconds per call (one call: one pass of a phase)
TASKS: dict = collections.defaultdict(list)


def record_tasks() -> None:
    """Time every task `storage.run_tasks` runs, by pass (the run must be on one thread)."""
    run_tasks = storage.run_tasks

    def timed(fn, kwargs, common, cancel, n_jobs):
        seconds, name = [], fn.__name__
        if name == "task" and fn.__closure__:   # `LocalRows.map`'s wrapper: named by the range function it runs
            cells = dict(zip(fn.__code__.co_freevars, (c.cell_contents for c in fn.__closure__)))
            name = f"map:{getattr(cells.get('fn'), '__name__', 'task')}"
        TASKS[name].append(seconds)

        def one(**kw):
            t = time.perf_counter()
            try:
                return fn(**kw)
            finally:
                seconds.append(time.perf_counter() - t)
        return run_tasks(one, kwargs, common, cancel, n_jobs)

    storage.run_tasks = timed


def makespan(seconds: list, threads: int) -> float:
    """The pass's wall time on ``threads`` threads taking the tasks in order, each to the first free."""
    import heapq

    free = [0.0] * threads
    for s in seconds:
        heapq.heappush(free, heapq.heappop(free) + s)
    return max(free)


def simulate(X, y, threads: int) -> dict:
    TASKS.clear()
    record_tasks()
    t = time.perf_counter()
    AFLite(n_partitions=64, train_size=0.1, slice_size=0.01, tau=0.0, target_size=0.5, random_state=0,
           max_dim=None, n_jobs=1).fit(X, y)
    total = time.perf_counter() - t
    passes, in_tasks, on_threads = {}, 0.0, 0.0
    for name, calls in TASKS.items():
        one = sum(sum(c) for c in calls)
        many = sum(makespan(c, threads) for c in calls)
        in_tasks, on_threads = in_tasks + one, on_threads + many
        passes[name] = {"tasks_per_pass": round(sum(len(c) for c in calls) / len(calls), 1),
                        "one_thread_s": round(one, 2), f"{threads}_threads_s": round(many, 2),
                        "speed_up": round(one / many, 2) if many else None}
    serial = total - in_tasks
    return {"threads": threads, "one_thread_s": round(total, 2), "serial_s": round(serial, 2),
            f"{threads}_threads_s": round(serial + on_threads, 2),
            "speed_up": round(total / (serial + on_threads), 2), "passes": passes}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=100000)
    ap.add_argument("--jobs", default="1,2", help="n_jobs values, comma-separated (none: only --simulate)")
    ap.add_argument("--simulate", type=int, default=0, metavar="T",
                    help="also replay a one-thread run's tasks on T threads (the granularity's speed-up)")
    args = ap.parse_args(argv)
    instrument()
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, args.rows)
    X = rng.standard_normal(size=(args.rows, 768), dtype=np.float32)
    X[:, :16] += (y[:, None] * 0.25).astype(np.float32)
    out = {"bench": "engine_sections", "cpus": os.cpu_count(), "rows": args.rows, "load_avg": os.getloadavg()}
    for jobs in (int(j) for j in args.jobs.split(",") if j):
        SPENT.clear()
        t = time.perf_counter()
        AFLite(n_partitions=64, train_size=0.1, slice_size=0.01, tau=0.0, target_size=0.5, random_state=0,
               max_dim=None, n_jobs=jobs).fit(X, y)
        total = time.perf_counter() - t
        parts = {k: round(v, 2) for k, v in sorted(SPENT.items(), key=lambda kv: -kv[1])}
        out[f"n_jobs={jobs}"] = {"seconds": round(total, 2), **parts}
    if args.simulate:
        out["simulated"] = simulate(X, y, args.simulate)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
