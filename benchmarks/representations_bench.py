"""Time each representation on the SNLI dev pairs, cold (built) and cached (read back).

Usage (from the project root)::

    python benchmarks/representations_bench.py [--data ../shared/data/snli_dev.jsonl] [--specs SPEC ...]

Prints one JSON line: rows, and per spec the shape, cold and cached seconds, and
the hypothesis-only / full accuracy a logistic regression reaches on Φ (3-fold),
a sanity check that the representation carries the label signal. The cache goes
to a fresh temporary folder, so "cold" really builds.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

DEFAULT_SPECS = [
    "tfidf-svd:fields=hypothesis,dim=128",
    "tfidf-svd:fields=premise+hypothesis,dim=128",
    "warmup:fields=hypothesis,fraction=0.1",
    "warmup:fields=premise+hypothesis,fraction=0.1",
    "glove:fields=hypothesis",
    "glove:fields=premise+hypothesis",
]


def main(argv=None) -> int:
    root = Path(__file__).resolve().parents[1]
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(root.parent / "shared" / "data" / "snli_dev.jsonl"))
    ap.add_argument("--specs", nargs="+", default=DEFAULT_SPECS)
    ap.add_argument("--no-accuracy", action="store_true", help="skip the logistic-regression sanity check")
    args = ap.parse_args(argv)

    from artifact_lens.representations import represent
    from artifact_lens.data.sources import load_dataset

    t0 = time.perf_counter()
    ds = load_dataset(args.data)
    load_s = time.perf_counter() - t0
    out = {"benchmark": "representations", "data": Path(args.data).name, "rows": len(ds),
           "load_seconds": round(load_s, 3), "cpus": os.cpu_count(), "python": platform.python_version(),
           "results": {}}
    with tempfile.TemporaryDirectory(prefix="al-bench-cache-") as cache:
        for spec in args.specs:
            t = time.perf_counter()
            rep = represent(ds, spec, cache_dir=cache)
            cold = time.perf_counter() - t
            t = time.perf_counter()
            again = represent(ds, spec, cache_dir=cache)
            warm = time.perf_counter() - t
            assert again.info["cached"] and np.array_equal(np.asarray(again.X), rep.X)
            row = {"shape": list(rep.X.shape), "excluded": len(rep.excluded_ids),
                   "cold_seconds": round(cold, 3), "cached_seconds": round(warm, 4)}
            if not args.no_accuracy:
                from sklearn.linear_model import LogisticRegression
                from sklearn.model_selection import cross_val_score

                y = ds.table.loc[list(rep.ids), ds.label].to_numpy()
                row["lr_3fold_accuracy"] = round(float(cross_val_score(
                    LogisticRegression(max_iter=1000), rep.X, y, cv=3).mean()), 4)
            out["results"][rep.spec] = row
            print(f"{rep.spec}: {row}", file=sys.stderr)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
