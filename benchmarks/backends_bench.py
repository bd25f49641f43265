"""AFLite's ridge family on each array backend present (issue 32), side by side in one run.

Prints one JSON line: for each size (``--sizes``, default 20000; the issue's are
20000,100000,1000000) and each backend found on this machine, the whole run's seconds
(768-d vectors, 3 classes, m = 64, t = 10 %, k = 1 %, τ = 0, to 50 %, full dimension; at
20k m = 16 and k = 10 %, as in the issue's table), the retained set's Jaccard with the CPU
engine's on the same data and seed, and the GPU memory a CUDA run peaked at. Each backend first
fits 2,000 rows untimed (imports, the CUDA context and the solver libraries' first calls).

Backends: ``numpy-1`` (the engine, one thread), ``numpy-all`` (the engine, every core),
``array-api`` (the backend code on NumPy), ``array-api-strict`` (on the standard's reference
namespace; slow, a check), ``torch-cpu``, ``cuda`` (PyTorch on the GPU),
``cupy``: each that imports here. ``--backends`` picks some.

    python benchmarks/backends_bench.py
    python benchmarks/backends_bench.py --sizes 20000,100000 --backends numpy-1,numpy-all,cuda
"""
from __future__ import annotations

import argparse
import cProfile
import importlib.util
import json
import os
import platform
import pstats
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from artifact_lens.aflite import AFLite  # noqa: E402


def present() -> list:
    found = ["numpy-1", "numpy-all"]
    if importlib.util.find_spec("array_api_compat"):
        found.append("array-api")
        if importlib.util.find_spec("torch"):
            import torch

            found.append("torch-cpu")
            if torch.cuda.is_available():
                found.append("cuda")
        if importlib.util.find_spec("cupy"):
            found.append("cupy")
    return found


SETTINGS = {"numpy-1": dict(n_jobs=1), "numpy-all": dict(n_jobs=-1), "array-api": dict(device="array-api"),
            "array-api-strict": dict(device="array-api-strict"), "torch-cpu": dict(device="torch"),
            "cuda": dict(device="cuda"), "cupy": dict(device="cupy")}


def data(N: int, d: int = 768, classes: int = 3, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, N)
    X = rng.normal(size=(N, d)).astype(np.float32)
    X[:, :16] += (y[:, None] * 0.25).astype(np.float32)   # a planted, partly predictable signal
    return X, y


def run(N: int, backends: list, profile: int = 0) -> dict:
    X, y = data(N)
    small = N <= 20000
    kw = dict(n_partitions=16 if small else 64, train_size=0.1, slice_size=0.1 if small else 0.01, tau=0.0,
              target_size=0.5, random_state=0, max_dim=None)
    out, ref = {}, None
    Xw, yw = data(2000, seed=1)
    for name in backends:
        peak = None
        try:   # untimed warm-up: imports, the CUDA context, the solver libraries' first calls
            AFLite(**{**kw, "n_partitions": 4}, **SETTINGS[name]).fit(Xw, yw)
        except Exception:  # noqa: BLE001  (the timed fit below reports the error)
            pass
        if name == "cuda":
            import torch

            torch.cuda.reset_peak_memory_stats()
        profiler = cProfile.Profile() if profile else None
        t = time.perf_counter()
        try:
            if profiler:
                profiler.enable()
            fitted = AFLite(**kw, **SETTINGS[name]).fit(X, y)
        except Exception as exc:  # noqa: BLE001  (a backend that fails is reported, the others still run)
            out[name] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
            continue
        finally:
            if profiler:
                profiler.disable()
        seconds = time.perf_counter() - t
        if profiler:   # where the time went, on stderr (the JSON line stays alone on stdout)
            print(f"--- {name}, N={N}: the {profile} costliest functions by own time", file=sys.stderr)
            pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(profile)
        if name == "cuda":
            import torch

            peak = round(torch.cuda.max_memory_allocated() / 2 ** 30, 2)
        elif name == "cupy":   # what CuPy's pool holds after the run: its peak, as the pool never gives back
            import cupy

            peak = round(cupy.get_default_memory_pool().total_bytes() / 2 ** 30, 2)
        kept = fitted.retained_
        if ref is None:
            ref = kept
        out[name] = {"seconds": round(seconds, 2), "jaccard_with_first": round(float((kept & ref).sum() / (kept | ref).sum()), 4),
                     **({"gpu_peak_gib": peak} if peak is not None else {})}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="20000", help="N values, comma-separated (default 20000)")
    ap.add_argument("--backends", help="comma-separated (default: every one present)")
    ap.add_argument("--profile", type=int, default=0, metavar="K",
                    help="profile each timed fit (cProfile; slower) and print its K costliest functions on stderr")
    args = ap.parse_args(argv)
    backends = args.backends.split(",") if args.backends else present()
    result = {"bench": "backends", "cpus": os.cpu_count(), "python": platform.python_version(),
              "numpy": np.__version__, "backends": backends}
    for N in (int(s) for s in args.sizes.split(",")):
        result[f"N={N}"] = run(N, backends, args.profile)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
