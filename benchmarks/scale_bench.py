"""AFLite on 1M × 768 embeddings memory-mapped from a .npy (issue 13, item 4).

Generates once (cached in ``--dir``) a float32 ``.npy`` of ``--rows`` × ``--dim`` standard
normal vectors and a Parquet dataset (id, label: 3 classes) in which 30 % of the rows carry a
learnable artifact (their vector is shifted along a direction of their label), then runs, in a
fresh process, the whole CLI command a curator would type:

    artifact-lens aflite labels.parquet --label label --id id --text text -r file:path=emb.npy \\
        --m 64 --k 0.01 --tau 0 --target-size 0.5 --out scores.csv --manifest run.json

(full dimension: the engine's default ``max_dim`` keeps all 768 columns). A thread in that
process samples ``/proc/self/status`` every 50 ms: ``RssAnon`` (anonymous memory: what the
process allocated), ``RssFile`` (file pages mapped in: the memory map, shared with the page
cache) and ``VmRSS``; ``VmHWM`` is the kernel's peak of ``VmRSS`` (file pages included). The
bound is ``RssAnon`` ≤ 1× the matrix's size. ``--mode engine`` runs only
``AFLite(...).fit(np.load(emb, mmap_mode="r"), y)`` instead of the CLI (no dataset, no outputs).

Prints one JSON line: wall seconds, fit seconds, per-phase seconds (min/median/max and the
list), |S| at the end, peak RssAnon/RssFile/VmRSS, VmHWM, the bound and whether it held.

    python benchmarks/scale_bench.py [--rows 1000000] [--dim 768] [--m 64] [--k 0.01]
        [--target 0.5] [--mode cli|engine] [--dir /tmp/artifact-lens-scale]

The data generation (chunks drawn on every core) is not timed in the run; the page cache is
warm when the file was just written or read (the run reads the file several times per phase, so
a cold first read adds one disk pass).

Issue 57, item 3 (AFLite at 10M on a device): ``--dtype float16`` writes the vectors as float16
(10M × 768 is 15 GB on disk), ``--device cuda`` (or ``cupy``, ``array-api``…) fits on that device
in engine mode, the memory map streamed to it in chunks, and the figures gain the device's peak
memory. ``--compare R`` then draws R rows at random (seeded) from the same file and fits them on
the CPU engine (every core) and on the device, with the retained sets' Jaccard and both times:

    python benchmarks/scale_bench.py --rows 10000000 --dtype float16 --mode engine --device cuda \
        --compare 1000000
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ARTIFACT_SHARE = 0.3     # rows whose vector carries their label's direction
ARTIFACT_SHIFT = 1.5      # their shift along a unit direction (the noise has variance 1 per column)
CHUNK = 65536


def data_paths(folder: Path, rows: int, dim: int, seed: int, dtype: str = "float32"):
    stem = f"scale_{rows}x{dim}_{dtype}_s{seed}"
    return folder / f"{stem}.npy", folder / f"{stem}_labels.parquet"


def generate(folder: Path, rows: int, dim: int, seed: int, dtype: str = "float32") -> float:
    """Write the .npy and the labels once (written under temporary names, then renamed). Each
    chunk's noise comes from its own seeded generator, drawn on a thread of its own (NumPy's
    generators release the GIL): 10M × 768 in seconds on 16 cores, the same file on any machine."""
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np
    import pandas as pd

    npy, labels = data_paths(folder, rows, dim, seed, dtype)
    if npy.exists() and labels.exists():
        return 0.0
    t0 = time.perf_counter()
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, size=rows)
    biased = rng.random(rows) < ARTIFACT_SHARE
    directions = rng.normal(size=(3, dim)).astype(np.float32)
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    tmp = npy.with_suffix(".npy.tmp")
    X = np.lib.format.open_memmap(tmp, mode="w+", dtype=np.dtype(dtype), shape=(rows, dim))

    def write(lo: int) -> None:
        hi = min(rows, lo + CHUNK)
        block = np.random.default_rng([seed, lo]).standard_normal((hi - lo, dim), dtype=np.float32)
        b = biased[lo:hi]
        block[b] += ARTIFACT_SHIFT * directions[y[lo:hi][b]]
        X[lo:hi] = block

    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        list(pool.map(write, range(0, rows, CHUNK)))
    X.flush()
    del X
    os.replace(tmp, npy)
    # A short text column: a dataset needs one to load (the vectors come from the .npy).
    frame = pd.DataFrame({"id": [f"x{i}" for i in range(rows)], "text": [f"example {i}" for i in range(rows)],
                          "label": np.array(["a", "b", "c"])[y], "biased": biased})
    frame.to_parquet(labels.with_suffix(".tmp"), index=False)
    os.replace(labels.with_suffix(".tmp"), labels)
    return time.perf_counter() - t0


# ---------------------------------------------------------------- the measured child process


def _status() -> dict:
    out = {}
    with open("/proc/self/status") as fh:
        for line in fh:
            key = line.split(":", 1)[0]
            if key in ("VmRSS", "RssAnon", "RssFile", "VmHWM"):
                out[key] = int(line.split()[1]) * 1024
    return out


class Sampler(threading.Thread):
    def __init__(self, every=0.05):
        super().__init__(daemon=True)
        self.every, self.stop, self.peak = every, threading.Event(), {}

    def sample(self):
        for k, v in _status().items():
            self.peak[k] = max(self.peak.get(k, 0), v)

    def run(self):
        while not self.stop.is_set():
            self.sample()
            self.stop.wait(self.every)


def child(cfg: dict) -> dict:
    import numpy as np  # noqa: F401  (imports before the baseline sample)
    import pandas  # noqa: F401

    rest = _status()
    sampler = Sampler()
    sampler.start()
    t0 = time.perf_counter()
    folder = Path(cfg["dir"])
    npy, labels = Path(cfg["npy"]), Path(cfg["labels"])
    if cfg["mode"] == "cli":
        from artifact_lens.cli import main

        out, manifest = folder / "scores.csv", folder / "run.json"
        argv = ["--cache-dir", str(folder / "cache"), "aflite", str(labels), "--label", "label", "--id", "id", "--text", "text",
                "-r", f"file:path={npy}", "--m", str(cfg["m"]), "--k", str(cfg["k"]), "--tau", "0",
                "--target-size", str(cfg["target"]), "--out", str(out), "--manifest", str(manifest)]
        code = main(argv)
        if code != 0:
            raise SystemExit(f"the CLI failed with {code}")
        record = json.loads(manifest.read_text())
        phases = record["aflite"]["phases"]
        fit_seconds = record["aflite"]["seconds"]
        rep_seconds = record["representation"]["info"].get("seconds")
        final = int(len(record["retained_ids"]))
    else:
        import numpy as np
        import pandas as pd

        from artifact_lens.aflite import AFLite

        X = np.load(npy, mmap_mode="r")
        frame = pd.read_parquet(labels, columns=["label", "biased"])
        y = frame["label"].to_numpy()
        kw = dict(n_partitions=cfg["m"], train_size=0.1, slice_size=cfg["k"], tau=0.0, target_size=cfg["target"],
                  random_state=0)
        _warm_up(cfg["device"], kw)
        if cfg["compare_only"]:
            return {"compare": _compare(X, y, frame["biased"].to_numpy(), kw, cfg["device"], cfg["compare"])}
        t1 = time.perf_counter()
        af = AFLite(**kw, device=cfg["device"], n_jobs=cfg["jobs"]).fit(X, y)
        fit_seconds, rep_seconds = time.perf_counter() - t1, None
        device_peak = _device_peak(cfg["device"])
        phases = af.history_
        final = int(af.retained_.sum())
    wall = time.perf_counter() - t0
    sampler.stop.set()
    sampler.join()
    sampler.sample()
    secs = [p["seconds"] for p in phases]
    extra = {}
    if cfg["mode"] == "engine":
        extra["device"], extra["device_peak_gib"] = cfg["device"] or "cpu", device_peak
        if cfg["compare"]:
            extra["compare"] = _compare(X, y, frame["biased"].to_numpy(), kw, cfg["device"], cfg["compare"])
    return {**extra, "wall_seconds": round(wall, 1), "fit_seconds": round(fit_seconds, 1),
            "representation_seconds": rep_seconds, "n_phases": len(phases), "final_size": final,
            "phase_seconds": {"min": round(min(secs), 2), "median": round(statistics.median(secs), 2),
                              "max": round(max(secs), 2), "all": [round(s, 2) for s in secs]},
            "memory_bytes": {"rest_RssAnon": rest.get("RssAnon"),
                             "peak_RssAnon": sampler.peak.get("RssAnon"),
                             "peak_RssFile": sampler.peak.get("RssFile"),
                             "peak_VmRSS": sampler.peak.get("VmRSS"), "VmHWM": sampler.peak.get("VmHWM")}}


def _warm_up(device, kw) -> None:
    """An untimed small fit on ``device``: imports, the CUDA context, the solver libraries' first calls."""
    import numpy as np

    from artifact_lens.aflite import AFLite

    if device:
        rng = np.random.default_rng(1)
        AFLite(**{**kw, "n_partitions": 4}, device=device).fit(rng.normal(size=(2000, 16)).astype(np.float32),
                                                              rng.integers(0, 3, 2000))
        _device_peak(device, reset=True)


def _device_peak(device, reset: bool = False):
    """The GPU memory a run peaked at, in GiB (PyTorch's allocator; CuPy's pool, which never gives back)."""
    if device and str(device).startswith("cuda"):
        import torch

        if reset:
            torch.cuda.reset_peak_memory_stats()
            return None
        return round(torch.cuda.max_memory_allocated() / 2 ** 30, 2)
    if device == "cupy" and not reset:
        import cupy

        return round(cupy.get_default_memory_pool().total_bytes() / 2 ** 30, 2)
    return None


def _compare(X, y, biased, kw, device, rows: int) -> dict:
    """A seeded random ``rows`` of the file fitted on the CPU engine (every core) and on ``device``:
    both times, the first phase's p̃ side by side (the same models, summed in another order), the
    retained sets' Jaccard, and the share of the planted rows each removed. Past the planted rows
    the removals are drawn from rows with no signal, where a p̃ one model apart decides; rounding
    moves such a p̃ and the two trajectories part there, so the Jaccard alone says little."""
    import numpy as np

    from artifact_lens.aflite import AFLite

    pick = np.sort(np.random.default_rng(7).choice(len(y), size=min(rows, len(y)), replace=False))
    Xs, ys, planted = np.asarray(X[pick], dtype=np.float32), y[pick], biased[pick]
    out = {"rows": int(len(pick))}
    fits = {}
    for name, where in (("cpu", None), ("device", device)):
        t = time.perf_counter()
        fits[name] = AFLite(**kw, device=where, n_jobs=-1).fit(Xs, ys)
        out[f"{name}_seconds"] = round(time.perf_counter() - t, 1)
        out[f"{name}_removed_planted_share"] = round(float((~fits[name].retained_[planted]).mean()), 4)
    first = [f.trajectory_.phase_scores(0) for f in fits.values()]
    out["phase0_equal_share"] = round(float(np.isclose(*first, atol=1e-6, equal_nan=True).mean()), 5)
    out["phase0_max_difference"] = round(float(np.nanmax(np.abs(first[0] - first[1]))), 5)
    kept = [f.retained_ for f in fits.values()]
    out["jaccard"] = round(float((kept[0] & kept[1]).sum() / (kept[0] | kept[1]).sum()), 4)
    return out


# ---------------------------------------------------------------- driver


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--dim", type=int, default=768)
    ap.add_argument("--m", type=int, default=64)
    ap.add_argument("--k", type=float, default=0.01)
    ap.add_argument("--target", type=float, default=0.5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--mode", choices=["cli", "engine"], default="cli")
    ap.add_argument("--dtype", choices=["float32", "float16"], default="float32", help="the vectors' type on disk")
    ap.add_argument("--device", help="engine mode: fit on this device (cuda, cupy, array-api…), streamed from the map")
    ap.add_argument("--jobs", type=int, help="engine mode: the CPU engine's n_jobs (default: one thread; -1 every core)")
    ap.add_argument("--compare", type=int, default=0, metavar="R",
                    help="engine mode: also fit R random rows on the CPU engine and on the device (Jaccard)")
    ap.add_argument("--compare-only", action="store_true",
                    help="only the --compare fits (a bounded step of its own after the whole file's fit)")
    ap.add_argument("--dir", default="/tmp/artifact-lens-scale", help="data and outputs (the data is kept for reruns)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return
    if (args.device or args.compare) and args.mode != "engine":
        ap.error("--device and --compare time the engine alone: add --mode engine")
    if args.compare_only and not args.compare:
        ap.error("--compare-only needs --compare R")
    folder = Path(args.dir)
    gen = generate(folder, args.rows, args.dim, args.seed, args.dtype)
    npy, labels = data_paths(folder, args.rows, args.dim, args.seed, args.dtype)
    cfg = {"dir": str(folder), "npy": str(npy), "labels": str(labels), "m": args.m, "k": args.k,
           "target": args.target, "mode": args.mode, "device": args.device, "compare": args.compare,
           "compare_only": args.compare_only, "jobs": args.jobs}
    log = folder / f"run_{args.mode}_{args.rows}x{args.dim}.log"
    with open(log, "w") as err:
        proc = subprocess.run([sys.executable, __file__, "--child", json.dumps(cfg)], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=err, text=True,
                              env=dict(os.environ, HF_HUB_OFFLINE="1"))
    if proc.returncode != 0:
        sys.exit(f"the measured run failed ({proc.returncode}); see {log}")
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    if args.compare_only:
        print(json.dumps({"benchmark": "scale_bench", "rows": args.rows, "dim": args.dim, "dtype": args.dtype,
                          "m": args.m, "k": args.k, "target": args.target, "device": args.device, **res}))
        return
    matrix = args.rows * args.dim * (2 if args.dtype == "float16" else 4)
    mem = res["memory_bytes"]
    out = {"benchmark": "scale_bench", "mode": args.mode, "rows": args.rows, "dim": args.dim, "dtype": args.dtype,
           "m": args.m,
           "k": args.k, "tau": 0.0, "target": args.target, "max_dim": "default (768: full dimension)",
           "matrix_gb": round(matrix / 1e9, 3), "generate_seconds": round(gen, 1) if gen else None,
           **{k: v for k, v in res.items() if k != "memory_bytes"},
           "memory_gb": {k: round(v / 1e9, 3) if v is not None else None for k, v in mem.items()},
           "bound": "peak RssAnon <= 1x the matrix",
           "within_bound": mem["peak_RssAnon"] is not None and mem["peak_RssAnon"] <= matrix,
           "peak_RssAnon_over_matrix": round(mem["peak_RssAnon"] / matrix, 3) if mem["peak_RssAnon"] else None,
           "peak_RssAnon_above_rest_over_matrix": (round((mem["peak_RssAnon"] - mem["rest_RssAnon"]) / matrix, 3)
                                                   if mem["peak_RssAnon"] and mem["rest_RssAnon"] else None),
           "cpus": os.cpu_count(), "log": str(log)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
