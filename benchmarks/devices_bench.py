"""What trains on a device beside AFLite (issue 32), on each device present, side by side in one run:
the cartography's models (`core.dynamics.cartography.training_dynamics`) and the evaluation's
linear families (`core.models.on_device`).

Prints one JSON line per part: for each device found here (``numpy``: the CPU, the default;
``torch-cpu``; ``cuda``: PyTorch on the GPU; ``cupy``), the seconds and how far its answer is from
the CPU's. ``cartography`` (per model): ``--rows`` × 768 vectors, 3 classes, ``--epochs`` epochs,
``--folds`` folds, batch 256, cleanlab off; the largest difference of p(gold) and the share of
regions that agree. ``linear`` (per family, logistic and svm): one fit on 80 % of the rows,
predicting the rest (the CPU is scikit-learn's LogisticRegression or LinearSVC, on one BLAS
thread); the share of predictions that agree. Each device first runs
on 2,000 rows untimed (imports, the CUDA context).

    python benchmarks/devices_bench.py
    python benchmarks/devices_bench.py --rows 1000000 --devices numpy,cuda
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from artifact_lens.base.cores import one_blas_thread  # noqa: E402
from artifact_lens.dynamics.cartography import training_dynamics  # noqa: E402
from artifact_lens.evaluation.models import fit_predict  # noqa: E402
from backends_bench import present as backends_present  # noqa: E402  (this folder is on sys.path)

NAMES = {"numpy": None, "torch-cpu": "torch", "cuda": "cuda", "cupy": "cupy", "array-api": "array-api",
         "array-api-strict": "array-api-strict"}


def present() -> list:
    """The CPU, then each device library present (found as `backends_bench.present` finds them)."""
    return ["numpy"] + [name for name in backends_present() if name in ("torch-cpu", "cuda", "cupy")]


def data(N: int, d: int = 768, classes: int = 3, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, N)
    X = rng.standard_normal((N, d), dtype=np.float32)
    X[:, :8] += y[:, None] * 0.3          # a weak signal: the map has all three regions
    return X, y


def cartography(X, y, devices, model, args) -> dict:
    kw = dict(epochs=args.epochs, folds=args.folds, model=model, label_issues=False)
    out = {"bench": "cartography", "rows": len(X), "d": X.shape[1], "model": model, "epochs": args.epochs,
           "folds": args.folds, "cpus": os.cpu_count()}
    warm_X, warm_y = data(2000, seed=1)
    first = None
    for name in devices:
        try:
            training_dynamics(warm_X, warm_y, device=NAMES[name], **{**kw, "epochs": 2})
            t = time.perf_counter()
            found = training_dynamics(X, y, device=NAMES[name], **kw)
            row = {"seconds": round(time.perf_counter() - t, 2)}
        except Exception as exc:  # noqa: BLE001  (a device that is not there: said, the others still run)
            out[name] = {"error": f"{type(exc).__name__}: {exc}"}
            continue
        first = found if first is None else first
        row["max_abs_diff_p_gold"] = float(np.abs(found.gold_probs - first.gold_probs).max())
        row["regions_agree"] = round(float((found.table["region"] == first.table["region"]).mean()), 4)
        out[name] = row
    return out


def linear(X, y, devices, family) -> dict:
    train = np.arange(len(y)) % 5 != 0
    out = {"bench": family, "rows": len(X), "d": X.shape[1], "cpus": os.cpu_count()}
    warm_X, warm_y = data(2000, seed=1)
    first = None
    for name in devices:
        try:
            with one_blas_thread() if name == "numpy" else contextlib.nullcontext():
                fit_predict(family, warm_X, warm_y, warm_X, 0, device=NAMES[name])
            t = time.perf_counter()
            with one_blas_thread() if name == "numpy" else contextlib.nullcontext():
                pred, note = fit_predict(family, X[train], y[train], X[~train], 0, device=NAMES[name])
            row = {"seconds": round(time.perf_counter() - t, 2), "note": note}
        except Exception as exc:  # noqa: BLE001
            out[name] = {"error": f"{type(exc).__name__}: {exc}"}
            continue
        first = pred if first is None else first
        row["predictions_agree"] = round(float((pred == first).mean()), 4)
        out[name] = row
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=50_000)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--folds", type=int, default=2)
    ap.add_argument("--models", default="linear,mlp", help="the cartography's models")
    ap.add_argument("--parts", default="cartography,logistic,svm")
    ap.add_argument("--devices", help="comma-separated; default: every one present")
    args = ap.parse_args(argv)
    devices = args.devices.split(",") if args.devices else present()
    X, y = data(args.rows)
    parts = args.parts.split(",")
    if "cartography" in parts:
        for model in args.models.split(","):
            print(json.dumps(cartography(X, y, devices, model, args)), flush=True)
    for family in ("logistic", "svm"):
        if family in parts:
            print(json.dumps(linear(X, y, devices, family)), flush=True)


if __name__ == "__main__":
    main()
