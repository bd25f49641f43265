"""AFLite on a Dask cluster against the same run in this process, side by side.

Prints one JSON line: a whole run (default 100k × 768, m = 64, t = 10 %, k = 1 %,
τ = 0, to 50 %, full dimension) from a ``.npy`` file, once in this process
(memory-mapped, ``--jobs`` threads) and once on a Dask cluster (a `LocalCluster` of
``--workers`` processes with one thread each, started here, or ``--scheduler
tcp://HOST:PORT``) with the vectors read lazily by the workers; the seconds of
each, their ratio (the issue's target: ≤ 2× at 100k) and whether the two retained
sets and all phase scores are equal (they must be).

    python benchmarks/dask_bench.py                      # 100k × 768 (~2 × 1 min)
    python benchmarks/dask_bench.py --rows 20000 --m 16  # a quick look
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from aflite_bench import embedding_like  # noqa: E402

from artifact_lens.aflite import AFLite  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=768)
    ap.add_argument("--m", type=int, default=64)
    ap.add_argument("--jobs", type=int, default=1, help="threads of the in-process run")
    ap.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes")
    ap.add_argument("--scheduler", default=None, help="an existing cluster, e.g. tcp://HOST:8786")
    args = ap.parse_args(argv)

    from distributed import Client, LocalCluster

    from artifact_lens.aflite.distributed import connect, load_array

    params = dict(n_partitions=args.m, train_size=0.1, slice_size=0.01, tau=0.0, target_size=0.5, max_dim=None)
    out = {"benchmark": "dask", "rows": args.rows, "dim": args.dim, "params": params,
           "load_avg_start": [round(x, 2) for x in os.getloadavg()]}
    with tempfile.TemporaryDirectory() as tmp:
        X, y = embedding_like(args.rows, args.dim, seed=1)
        path = Path(tmp) / "x.npy"
        np.save(path, X)
        del X
        t0 = time.perf_counter()
        local = AFLite(**params, n_jobs=args.jobs).fit(np.load(path, mmap_mode="r"), y)
        out["local_s"] = round(time.perf_counter() - t0, 2)
        out["local_threads"] = args.jobs

        if args.scheduler:
            client, cluster = connect(args.scheduler), None
        else:
            t0 = time.perf_counter()
            cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
            client = Client(cluster)
            out["cluster_start_s"] = round(time.perf_counter() - t0, 2)
        try:
            with client.as_current():
                t0 = time.perf_counter()
                remote = AFLite(**params, n_jobs=args.jobs).fit(load_array(path), y)
                out["dask_s"] = round(time.perf_counter() - t0, 2)
            out["execution"] = remote.to_record()["execution"]
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
    out["dask_over_local"] = round(out["dask_s"] / out["local_s"], 2)
    out["same_retained"] = bool(np.array_equal(local.retained_, remote.retained_))
    out["same_phase_scores"] = bool(np.array_equal(local.phase_scores_, remote.phase_scores_, equal_nan=True))
    out["phases"] = local.n_phases_
    out["targets"] = {"equal": out["same_retained"] and out["same_phase_scores"],
                      "overhead_<=2x": out["dask_over_local"] <= 2}
    out["load_avg_end"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
