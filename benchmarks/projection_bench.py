"""UMAP at scale (issue 13, item 3): `core.representations.projection.project` on 100k × 768, each step in a fresh process.

Prints one JSON line:

- ``cold``: a first projection of a synthetic 100k × 768 float32 matrix (20 Gaussian
  clusters) with the default parameters, nothing cached: no projection, no kNN graph,
  an empty ``NUMBA_CACHE_DIR`` (a machine's very first run): total seconds, the stages
  (PCA, import, kNN graph, layout), the PCA record, peak resident memory of the process.
  Target: ≤ 180 s on 2 cores.
- ``display_change``: the same matrix with ``min_dist=0.5, spread=1.5`` in another fresh
  process (numba's cache now filled by the first): the kNN graph comes from the cache
  (``knn_cached``), only the layout runs.
- ``app_lookup_seconds``: what the dashboard's Map page does for the default map
  (``project(..., only_cached=True)``), the cached 100k projection read back.
- ``numba``: ``import umap`` and a first small projection (3,000 × 50) in a fresh process
  with an empty ``NUMBA_CACHE_DIR`` (cold) and again with the same folder (warm). The kNN
  stage stays slow in both: pynndescent's ``nn_descent`` cannot be cached by numba.
- ``cluster_purity``: share of points whose nearest cluster centroid on the map is their own
  cluster (a sanity check that the map is a map).

Options: ``--n 100000``, ``--dim 768``, ``--skip-numba``.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, os, sys, time, warnings
warnings.filterwarnings("ignore")
t0 = time.perf_counter()
import numpy as np
from artifact_lens.representations.projection import project
args = json.loads(sys.argv[1])
X = np.load(args["X"], mmap_mode="r")
p = project(X, key=args["key"], cache_dir=args["cache"], only_cached=args.get("only_cached", False), **args["params"])
status = open("/proc/self/status").read().split("\n")
hwm = next((int(l.split()[1]) for l in status if l.startswith("VmHWM")), 0)
out = {"wall_seconds": round(time.perf_counter() - t0, 2), "peak_rss_mb": round(hwm / 1024)}
if p is not None:
    out.update(info=p.info, xy_file=args.get("xy"))
    if args.get("xy"):
        np.save(args["xy"], p.xy)
print("RESULT " + json.dumps(out, default=str))
"""


def child(X_path, key, cache, params, *, numba_dir=None, only_cached=False, xy=None) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("NUMBA_CACHE_DIR", None)
    if numba_dir is not None:
        env["NUMBA_CACHE_DIR"] = str(numba_dir)
    payload = json.dumps({"X": str(X_path), "key": key, "cache": str(cache), "params": params,
                          "only_cached": only_cached, "xy": None if xy is None else str(xy)})
    proc = subprocess.run([sys.executable, "-c", CHILD, payload], capture_output=True, text=True, env=env, cwd=ROOT)
    line = next((l for l in proc.stdout.splitlines() if l.startswith("RESULT ")), None)
    if line is None:
        raise RuntimeError(f"child failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return json.loads(line[len("RESULT "):])


def synthetic(n, d, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(20, d)).astype(np.float32)
    y = rng.integers(0, 20, n)
    X = centres[y]
    X += rng.normal(scale=0.6, size=(n, d)).astype(np.float32)
    return X, y


def purity(xy, y):
    centroids = np.array([xy[y == c].mean(axis=0) for c in np.unique(y)])
    nearest = np.argmin(((xy[:, None, :] - centroids[None]) ** 2).sum(-1), axis=1)
    return round(float((nearest == y).mean()), 4)


def summary(r):
    info = r["info"]
    return {"total_seconds": info["seconds"], "process_seconds": r["wall_seconds"], "stages": info.get("stages"),
            "pca": info.get("pca"), "knn_cached": info.get("knn", {}).get("cached"),
            "fitted_rows": info.get("fitted_rows"), "transformed_rows": info.get("transformed_rows"),
            "peak_rss_mb": r["peak_rss_mb"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=768)
    ap.add_argument("--skip-numba", action="store_true")
    args = ap.parse_args()
    out = {"n": args.n, "dim": args.dim, "cores": os.cpu_count(), "load_average_before": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory(prefix="projection-bench-") as tmp:
        tmp = Path(tmp)
        X, y = synthetic(args.n, args.dim)
        np.save(tmp / "X.npy", X)
        del X
        cache, key = tmp / "cache", f"bench:{args.n}x{args.dim}"
        defaults = {}
        numba_100k = tmp / "numba-100k"   # empty: the first run compiles
        r = child(tmp / "X.npy", key, cache, defaults, xy=tmp / "xy.npy", numba_dir=numba_100k)
        out["cold"] = summary(r)
        out["cluster_purity"] = purity(np.load(tmp / "xy.npy"), y)
        r = child(tmp / "X.npy", key, cache, {"min_dist": 0.5, "spread": 1.5}, xy=tmp / "xy2.npy",
                  numba_dir=numba_100k)
        out["display_change"] = summary(r)
        out["display_change"]["cluster_purity"] = purity(np.load(tmp / "xy2.npy"), y)
        t = time.perf_counter()
        r = child(tmp / "X.npy", key, cache, defaults, only_cached=True)
        out["app_lookup"] = {"found": r.get("info", {}).get("cache_hit"), "process_seconds": r["wall_seconds"]}
        from artifact_lens.representations.projection import project

        Xm = np.load(tmp / "X.npy", mmap_mode="r")
        t = time.perf_counter()
        hit = project(Xm, key=key, cache_dir=cache, only_cached=True)
        out["app_lookup_seconds"] = round(time.perf_counter() - t, 3)
        out["app_lookup"]["found_in_process"] = hit is not None and bool(hit.info["cache_hit"])
        if not args.skip_numba:
            small, _ = synthetic(3000, 50, seed=1)
            np.save(tmp / "small.npy", small)
            numba_dir = tmp / "numba"
            out["numba"] = {}
            for label in ("cold", "warm"):
                r = child(tmp / "small.npy", f"small-{label}", tmp / f"cache-{label}", {}, numba_dir=numba_dir)
                out["numba"][label] = {"process_seconds": r["wall_seconds"], "projection_seconds": r["info"]["seconds"],
                                       "stages": r["info"]["stages"]}
    out["load_average_after"] = os.getloadavg()[0]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
