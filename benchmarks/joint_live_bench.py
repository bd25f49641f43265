"""Live τ/n answers of a joint-filter run (`core.dynamics.joint`: some rows protected), in milliseconds.

A 100k × 32 fit with 30 % of the rows protected (m = 8, t = 5 %, k = 1 %, τ = 0, to 50 %), then
40 ``retained_for`` calls at τ from 0.3 to 0.9 and n = 60 %; prints one JSON line.

    python benchmarks/joint_live_bench.py [--rows 100000] [--calls 40]
"""
import argparse
import json
import time

import numpy as np

from artifact_lens.aflite import AFLite

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--calls", type=int, default=40)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, args.rows)
    X = (rng.normal(size=(args.rows, 32)) + y[:, None] * 0.3 * (rng.random(args.rows) < 0.5)[:, None]).astype(np.float32)
    protected = rng.random(args.rows) < 0.3
    t = time.perf_counter()
    af = AFLite(n_partitions=8, train_size=0.05, slice_size=0.01, tau=0.0, target_size=0.5,
                max_dim=None).fit(X, y, protected=protected)
    fit_s = time.perf_counter() - t
    af.retained_for(tau=0.5)   # the first answer builds the per-phase arrays once
    t = time.perf_counter()
    for tau in np.linspace(0.3, 0.9, args.calls):
        af.retained_for(tau=float(tau), target_size=0.6)
    print(json.dumps({"benchmark": "joint_live", "rows": args.rows, "phases": af.n_phases_,
                      "fit_seconds": round(fit_s, 2),
                      "ms_per_live_answer": round((time.perf_counter() - t) / args.calls * 1000, 2)}))
