"""Cues across splits (issue 35, item 2): SNLI dev as the training split measured on MNLI dev matched,
the way each front end runs it, side by side in one run. Prints one JSON line:

- ``cli_s``: ``artifact-lens transfer TRAIN EVAL --out DIR`` as a user types it (a fresh process:
  imports, both loads, the measure, the files), with its defaults (k = 20 cues, m = 16 models).
- ``dashboard_job_s``: what the Features page's job runs (`dashboard.services.transfer`: both splits loaded,
  `core.dynamics.transfer.cue_transfer` with k = 10, m = 8), in this process.
- ``restart_read_s``: a restarted server showing it again: the stored result read back from the
  result store (`core.results.files`), no recomputation; ``same_after_restart``: it equals the result.

Run from the project root::

    python benchmarks/transfer_bench.py                      # ../shared/data's SNLI and MNLI dev
    python benchmarks/transfer_bench.py --train A --eval B
"""
from __future__ import annotations

import argparse
import io
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
DATA = ROOT.parent / "shared" / "data"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--train", default=str(DATA / "snli_dev.jsonl"))
    parser.add_argument("--eval", default=str(DATA / "mnli_dev_matched.jsonl"))
    args = parser.parse_args(argv)
    out = {"bench": "transfer", "cpus": os.cpu_count(), "python": platform.python_version(),
           "train": Path(args.train).name, "eval": Path(args.eval).name}
    work = Path(tempfile.mkdtemp(prefix="transferbench-"))
    env = {**os.environ, "ARTIFACT_LENS_CACHE": str(work / "cache"), "PYTHONPATH": str(ROOT)}

    t = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "core", "--quiet", "transfer", args.train, args.eval,
                           "--out", str(work / "cli")], cwd=ROOT, env=env, capture_output=True, text=True)
    out["cli_s"] = round(time.perf_counter() - t, 1)
    out["cli_exit"] = done.returncode
    if done.returncode:
        out["cli_error"] = done.stderr[-500:]

    os.environ["ARTIFACT_LENS_CACHE"] = str(work / "cache-dashboard")
    from artifact_lens.results.files import read_result, write_result
    from artifact_lens.data.sources import load_dataset
    from artifact_lens.dynamics.transfer import cue_transfer
    from artifact_lens.dashboard.services.transfer import CUES, MODELS

    t = time.perf_counter()
    train = load_dataset(args.train)
    evaluation = load_dataset(args.eval, text=list(train.text), label=train.label)
    result = cue_transfer(train, evaluation, k=CUES, m=MODELS)
    out["dashboard_job_s"] = round(time.perf_counter() - t, 1)
    blob = io.BytesIO()
    write_result(blob, result)
    blob.seek(0)
    t = time.perf_counter()
    back = read_result(blob)
    out["restart_read_s"] = round(time.perf_counter() - t, 3)
    out["stored_kb"] = round(len(blob.getvalue()) / 1e3, 1)
    out["same_after_restart"] = bool(json.dumps(back.summary, sort_keys=True, default=str)
                                     == json.dumps(result.summary, sort_keys=True, default=str)
                                     and back.cues.equals(result.cues))
    print(json.dumps(out, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
