"""Export at 100k × 768: time and peak memory of the streamed writers (`core.exports.writers.write_file`).

Each case runs in a fresh child process, as the dashboard's server holds the data: the dataset
(ids, premise, hypothesis, label, a float32 embedding per row: about 350 MB) is built first and
the process's resident size measured ("resting"); then the peak is reset (Linux
``/proc/self/clear_refs``; elsewhere a 10 ms poll of the resident size) and the export of every
row (``which="all"``, the largest selection) is streamed to a file. Prints one JSON line: per case
seconds, file MB, resting MB and peak MB above resting (issue 14's bound: 1.5 GB above resting).

    python benchmarks/export_bench.py [--rows 100000] [--dim 768] [--cases csv,csv_embeddings,parquet,jsonl,datasets]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CASES = {"csv": ("csv", False), "csv_embeddings": ("csv", True), "parquet": ("parquet", True),
         "jsonl": ("jsonl", True), "datasets": ("datasets", True)}


def _status(field: str) -> int:
    """A /proc/self/status field in bytes (VmRSS, VmHWM)."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def _dataset(rows: int, dim: int):
    import numpy as np
    import pandas as pd

    from artifact_lens.data.dataset import Dataset

    rng = np.random.default_rng(0)
    emb = rng.standard_normal((rows, dim), dtype=np.float32)
    words = np.array("a man dog cat girl park street ball car is sleeping outdoors near the with".split())
    premise = [" ".join(rng.choice(words, 12)) for _ in range(rows)]
    hypothesis = [" ".join(rng.choice(words, 6)) for _ in range(rows)]
    table = pd.DataFrame({"premise": premise, "hypothesis": hypothesis,
                          "label": rng.choice(["entailment", "neutral", "contradiction"], rows),
                          "embedding": list(emb)}, index=pd.Index([f"ex-{i}" for i in range(rows)], name="id"))
    return Dataset(table=table, label="label", text=["premise", "hypothesis"], embedding="embedding", name="bench")


def child(case: str, rows: int, dim: int) -> dict:
    import gc

    from artifact_lens.exports import writers as export

    fmt, arrays = CASES[case]
    ds = _dataset(rows, dim)
    gc.collect()
    resting = _status("VmRSS")
    exact = True
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")   # reset VmHWM (the peak) to the current resident size
    except OSError:
        exact = False
    peak = [resting]
    stop = threading.Event()

    def poll():
        while not stop.wait(0.01):
            peak[0] = max(peak[0], _status("VmRSS"))

    watcher = None if exact else threading.Thread(target=poll, daemon=True)
    if watcher:
        watcher.start()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "export"
        t0 = time.perf_counter()
        frame = export.export_frame(ds, None, which="all", include_arrays=arrays)
        export.write_file(frame, out, fmt, manifest={"bench": True})
        seconds = time.perf_counter() - t0
        size = out.stat().st_size
    stop.set()
    top = _status("VmHWM") if exact else peak[0]
    return {"seconds": round(seconds, 1), "file_mb": round(size / 1e6, 1), "resting_mb": round(resting / 1e6),
            "peak_above_resting_mb": round((top - resting) / 1e6), "peak_measure": "VmHWM" if exact else "poll"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=768)
    ap.add_argument("--cases", default="csv,csv_embeddings,parquet")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.rows, args.dim)))
        return
    out = {"rows": args.rows, "dim": args.dim, "cpus": os.cpu_count(), "bound_mb": 1500}
    for case in args.cases.split(","):
        res = subprocess.run([sys.executable, __file__, "--child", case, "--rows", str(args.rows), "--dim", str(args.dim)],
                             capture_output=True, text=True, cwd=ROOT)
        if res.returncode != 0:
            out[case] = {"error": res.stderr.strip().splitlines()[-1] if res.stderr.strip() else res.returncode}
            continue
        out[case] = json.loads(res.stdout.strip().splitlines()[-1])
    print(json.dumps(out))


if __name__ == "__main__":
    main()
