"""The cartography's training (`core.dynamics.cartography.training_dynamics`) on each device present
(issue 32), side by side in one run.

Prints one JSON line per model: for each device found here (``numpy``: NumPy on the CPU, the
default; ``torch-cpu``; ``cuda``: PyTorch on the GPU; ``cupy``), the whole map's seconds
(``--rows`` × 768 vectors, 3 classes, ``--epochs`` epochs, ``--folds`` cross-fitting folds, batch
256, cleanlab off), the largest difference of its p(gold) from NumPy's and the share of examples
whose region agrees. Each device first trains on 2,000 rows untimed (imports, the CUDA context).

    python benchmarks/cartography_devices.py
    python benchmarks/cartography_devices.py --rows 1000000 --models linear,mlp --devices numpy,cuda
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.dynamics.cartography import training_dynamics  # noqa: E402

NAMES = {"numpy": None, "torch-cpu": "torch", "cuda": "cuda", "cupy": "cupy"}


def present() -> list:
    found = ["numpy"]
    if importlib.util.find_spec("array_api_compat") and importlib.util.find_spec("torch"):
        import torch

        found.append("torch-cpu")
        if torch.cuda.is_available():
            found.append("cuda")
    if importlib.util.find_spec("array_api_compat") and importlib.util.find_spec("cupy"):
        found.append("cupy")
    return found


def data(N: int, d: int = 768, classes: int = 3, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, N)
    X = rng.standard_normal((N, d), dtype=np.float32)
    X[:, :8] += y[:, None] * 0.3          # a weak signal: the map has all three regions
    return X, y


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=50_000)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--folds", type=int, default=2)
    ap.add_argument("--models", default="linear,mlp")
    ap.add_argument("--devices", help="comma-separated; default: every one present")
    args = ap.parse_args(argv)
    devices = args.devices.split(",") if args.devices else present()
    X, y = data(args.rows)
    warm_X, warm_y = data(2000, seed=1)
    for model in args.models.split(","):
        kw = dict(epochs=args.epochs, folds=args.folds, model=model, label_issues=False)
        out = {"bench": "cartography", "rows": args.rows, "d": X.shape[1], "model": model, "epochs": args.epochs,
               "folds": args.folds, "cpus": os.cpu_count()}
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
            if first is None:
                first = found
            row["max_abs_diff_p_gold"] = float(np.abs(found.gold_probs - first.gold_probs).max())
            row["regions_agree"] = round(float((found.table["region"] == first.table["region"]).mean()), 4)
            out[name] = row
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
