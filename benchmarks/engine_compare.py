"""The AFLite engine of this tree against a base git ref, side by side in one run.

Each tree (the base ref exported with ``git archive``, and the working tree) is timed
in its own subprocess, interleaved (base, new, base, new, …) so machine noise hits
both alike, after a small warm-up fit (imports are not timed). The JSON line gives the
median seconds per workload and tree, the ratio new / base, and whether both trees
returned the same retained set (``same_result``, checked on every repeat). When both
20k runs ran, ``full_over_pca256`` gives each tree's full-dimension time over its
PCA-256 time (issue 13's target: ≤ 3).

Workloads (``embedding_like`` data from aflite_bench.py, 3 classes):

- ``run_20k_768``: a whole run, 20k × 768, m = 16, t = 10 %, k = 10 %, τ = 0, to 50 %
  with the PCA-256 step (``max_dim=256``, given explicitly: the default was 256 up to
  2026-11 and is 768 since, i.e. full dimension at 768-d);
- ``run_20k_768_full``: the same with ``max_dim=None`` (all 768 dimensions);
- ``run_100k_768_full``: issue 13's 100k run, 100k × 768, m = 64, t = 10 %, k = 1 %,
  τ = 0, to 50 %, all 768 dimensions, ``n_jobs=2`` (the base ref must know ``n_jobs``:
  0a60be6 or later);
- ``logistic_4k_64``: family "logistic", 4k × 64, m = 8, k = 5 %, to 50 %;
- ``retained_for_100k``: median of 200 ``retained_for`` calls at random τ/n on a
  100k × 256 run (m = 16, k = 1 %, to 50 %), in milliseconds; ``same_result``
  compares all 200 answers.

Run from the project root::

    python benchmarks/engine_compare.py                 # base 72425c7 (before the core/aflite package)
    python benchmarks/engine_compare.py --base HEAD~3 --repeats 5
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Runs inside each tree's subprocess: argv = [tree, workload]; prints {"seconds", "mask"}.
WORKER = r"""
import hashlib, json, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
import core   # each tree's library by its folder (core/ imports itself relatively, so any tree reads so)
from core.aflite import AFLite   # first, so aflite_bench's own import finds this tree's core
assert core.__file__.startswith(sys.argv[1]), (core.__file__, sys.argv[1])
sys.path.append(sys.argv[3])
from aflite_bench import embedding_like
name = sys.argv[2]
if name == "retained_for_100k":
    X, y = embedding_like(100_000, 256)
    af = AFLite(n_partitions=16, train_size=0.1, slice_size=0.01, tau=0.0, target_size=0.5).fit(X, y)
    rng = np.random.default_rng(0)
    times, digest = [], hashlib.sha256()
    for _ in range(200):
        tau, n = float(rng.uniform(0, 1)), float(rng.uniform(0.5, 0.95))
        t = time.perf_counter(); mask = af.retained_for(tau, n); times.append(time.perf_counter() - t)
        digest.update(mask.tobytes())   # every answer takes part in the correctness check
    seconds, mask = float(np.median(times)), np.frombuffer(digest.digest(), np.uint8)
else:
    N, d, fam, m, k = {"run_20k_768": (20_000, 768, "ridge", 16, 0.1), "run_20k_768_full": (20_000, 768, "ridge", 16, 0.1),
                       "run_100k_768_full": (100_000, 768, "ridge", 64, 0.01),
                       "logistic_4k_64": (4_000, 64, "logistic", 8, 0.05)}[name]
    X, y = embedding_like(N, d, seed=1 if N == 100_000 else 0)   # aflite_bench's full100k data
    kw = {"max_dim": None} if name.endswith("_full") else {"max_dim": 256} if fam == "ridge" else {}
    if N == 100_000:
        kw["n_jobs"] = 2
    # warm-up: the base tree imports scikit-learn/scipy lazily inside fit; keep imports out of the timing
    AFLite(n_partitions=2, train_size=0.1, slice_size=0.1, tau=0.0, target_size=0.5, model=fam).fit(X[:400], y[:400])
    t = time.perf_counter()
    af = AFLite(n_partitions=m, train_size=0.1, slice_size=k, tau=0.0, target_size=0.5, model=fam, **kw).fit(X, y)
    seconds = time.perf_counter() - t
    mask = af.retained_
print(json.dumps({"seconds": seconds, "mask": hashlib.sha256(np.asarray(mask).tobytes()).hexdigest()[:16]}))
"""

WORKLOADS = ("run_20k_768", "run_20k_768_full", "run_100k_768_full", "logistic_4k_64", "retained_for_100k")


def export_ref(ref: str, into: Path) -> Path:
    """The ``core`` folder of ``ref``, extracted into ``into`` (nothing of it is committed)."""
    data = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "core"], check=True, capture_output=True).stdout
    tar = into / "core.tar"
    tar.write_bytes(data)
    with tarfile.open(tar) as fh:
        fh.extractall(into, filter="data")
    return into


def run(tree: Path, workload: str) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", PYTHONPATH="")
    out = subprocess.run([sys.executable, "-c", WORKER, str(tree), workload, str(ROOT / "benchmarks")],
                         check=True, capture_output=True, text=True, env=env, cwd=str(tree))
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default="72425c7", help="git ref to compare against (default 72425c7)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", default=",".join(WORKLOADS), help="comma-separated workloads")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="engine-compare-") as tmp:
        base = export_ref(args.base, Path(tmp))
        trees = {"base": base, "new": ROOT}
        out = {"benchmark": "engine_compare", "base": args.base,
               "new": subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                                     capture_output=True, text=True).stdout.strip() + "+worktree",
               "repeats": args.repeats, "workloads": {}}
        t0 = time.perf_counter()
        for workload in args.only.split(","):
            seconds = {"base": [], "new": []}
            masks = {}
            for _ in range(args.repeats):
                for name, tree in trees.items():
                    result = run(tree, workload)
                    seconds[name].append(result["seconds"])
                    masks.setdefault(name, set()).add(result["mask"])
            med = {name: statistics.median(v) for name, v in seconds.items()}
            scale, unit = (1000, "ms") if workload.startswith("retained_for") else (1, "s")
            out["workloads"][workload] = {
                f"base_{unit}": round(med["base"] * scale, 4), f"new_{unit}": round(med["new"] * scale, 4),
                "new_over_base": round(med["new"] / med["base"], 3), "same_result": len(masks["base"] | masks["new"]) == 1}
        w = out["workloads"]
        if "run_20k_768" in w and "run_20k_768_full" in w:
            out["full_over_pca256"] = {tree: round(w["run_20k_768_full"][f"{tree}_s"] / w["run_20k_768"][f"{tree}_s"], 2)
                                       for tree in ("base", "new")}
        out["seconds"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
