"""`certify` at scale (issue 44, item 8): the seconds of one certificate of an NLI split of
``--rows`` rows and where they go, per step, on the CPU and on each ``--devices`` entry. Prints
one JSON line.

The rows are SNLI dev and MNLI dev matched (../shared/data/) recombined: each row pairs a premise
with a hypothesis (and its label) drawn from another row, so the text is real, every pair is new
and near-duplicates are as rare as in the files (copying the files would make every row a
near-duplicate and time that instead).

    python benchmarks/certify_bench.py [--rows 100000] [--distinct] [--labels L] [--items N] [--devices cpu,cuda]
        [--seed 0]

``--items N`` also certifies N four-option multiple-choice items beside the rows (issue 55).

``--labels L`` relabels the rows with L labels of equal size (``l0`` … ``l{L-1}``): the cost of many
labels, whose cue table is features × labels (issue 53, item 9: 900 labels of 10 rows took minutes).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data"


def dataset(rows: int, seed: int, folder=DATA, distinct: bool = False, labels: int = 0):
    import numpy as np
    import pandas as pd

    from artifact_lens.data.sources import load_dataset

    files = [pd.read_json(Path(folder) / f, lines=True) for f in ("snli_dev.jsonl", "mnli_dev_matched.jsonl")]
    pool = pd.concat(files, ignore_index=True)
    rng = np.random.default_rng(seed)
    p, h = rng.integers(0, len(pool), rows), rng.integers(0, len(pool), rows)
    table = pd.DataFrame({"id": [f"r{i}" for i in range(rows)], "premise": pool["premise"].to_numpy()[p],
                          "hypothesis": pool["hypothesis"].to_numpy()[h], "label": pool["label"].to_numpy()[h]})
    if distinct:   # every text its own: a word seen once (below every min_df and min_count) ends each
        for field in ("premise", "hypothesis"):
            table[field] = table[field] + [f" w{i}x" for i in range(rows)]
    if labels:
        table["label"] = [f"l{i % labels}" for i in range(rows)]
    return load_dataset(table, text=["premise", "hypothesis"], label="label", id="id")


def items(n: int, seed: int, folder=DATA, k: int = 4):
    """``n`` multiple-choice items of real text: an SNLI or MNLI premise as the question, ``k``
    hypotheses of other rows as the options, the gold at random (issue 55's benchmark)."""
    import numpy as np
    import pandas as pd

    from artifact_lens.data.sources import load_dataset

    files = [pd.read_json(Path(folder) / f, lines=True) for f in ("snli_dev.jsonl", "mnli_dev_matched.jsonl")]
    pool = pd.concat(files, ignore_index=True)
    rng = np.random.default_rng(seed)
    hyp = pool["hypothesis"].to_numpy()
    table = pd.DataFrame({"id": [f"q{i}" for i in range(n)], "question": pool["premise"].to_numpy()[rng.integers(0, len(pool), n)],
                          "choices": list(hyp[rng.integers(0, len(pool), (n, k))]), "answer": rng.integers(0, k, n)})
    return load_dataset(table, id="id")


def timed(ds, device, cache_dir) -> dict:
    from artifact_lens.certificate.measures import certify

    marks = []
    t0 = time.perf_counter()
    cert = certify(ds, device=None if device == "cpu" else device, cache_dir=cache_dir,
                   progress=lambda f, m="": marks.append((time.perf_counter(), m)))
    total = time.perf_counter() - t0
    from artifact_lens.certificate.schema import certificate_bytes

    t1 = time.perf_counter()
    blob = certificate_bytes(cert)   # what writing it costs: validated, then serialised
    written = time.perf_counter() - t1
    steps, (prev, name) = {}, (t0, "start")
    for at, message in marks:   # each message starts a step: the time until the next one is that step's
        if name != "start":
            steps[name] = round(at - prev, 2)
        prev, name = at, message
    return {"seconds": round(total, 1), "write_seconds": round(written, 1), "bytes": len(blob), "steps": steps,
            "measures": {k: v["value"] for k, v in cert["measures"].items() if not k.startswith("zstats.")}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--devices", default="cpu")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--distinct", action="store_true", help="make every premise and hypothesis distinct (the "
                    "files' sentences repeat across the recombined rows; real data may not)")
    ap.add_argument("--labels", type=int, default=0, help="relabel the rows with this many labels of equal size")
    ap.add_argument("--items", type=int, default=0, help="also certify this many four-option multiple-choice items "
                    "(premises as questions, hypotheses as options), beside the rows")
    ap.add_argument("--data-dir", default=str(DATA), help="where snli_dev.jsonl and mnli_dev_matched.jsonl are "
                    "(default ../shared/data)")
    args = ap.parse_args()
    ds = dataset(args.rows, args.seed, args.data_dir, args.distinct, args.labels)
    out = {"bench": "certify", "rows": args.rows, "distinct": args.distinct, "labels": args.labels or None,
           "cpus": os.cpu_count()}
    for device in [d for d in args.devices.split(",") if d]:
        with tempfile.TemporaryDirectory() as cache:   # Φ computed afresh for each: the whole command's work
            try:
                out[device] = timed(ds, device, cache)
            except Exception as exc:  # noqa: BLE001  (a device missing here is a line, not the end of the run)
                out[device] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
    if args.items:
        with tempfile.TemporaryDirectory() as cache:
            out["items"] = {"items": args.items, "options": 4, **timed(items(args.items, args.seed, args.data_dir), "cpu",
                                                                         cache)}
    import resource

    # the process's high-water mark (Linux: KiB): the rows, Φ and every step together, what a CI runner must hold
    out["peak_rss_gb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20, 2)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
