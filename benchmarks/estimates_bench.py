"""How honest each job kind's "about N s left" is (issue 53, item 12). Prints one JSON line.

Each job kind's work runs here as its dashboard job runs it, with its progress recorded; the job
panel's estimate (`core.base.progress.Remaining`: the pace so far, never rising, none before a
tenth of the work and 2 s) is then replayed at the panel's polls (twice a second). Per kind:

- ``first``: the first estimate shown, when, and the time that was really left then;
- ``worst_short``: the largest (time really left) / (estimate shown) over every poll: 1 is
  honest, 10 is an estimate ten times short; ``worst_long`` the largest (estimate shown) / (time
  really left), for estimates that run long;
- ``honest``: no estimate shown more than twice short or twice long (or none shown at all);
- ``paced``: what the kind declares (`dashboard.services.cached_jobs`): False shows no estimate.

A kind that is not honest declares ``paced=False`` (`tests/unit/test_job_timing.py` holds the list).

    python benchmarks/estimates_bench.py [--data ../shared/data/snli_dev.jsonl] [--rows 5000]
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
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def recorded(fn) -> tuple:
    """(seconds, [(elapsed, fraction)]) of ``fn(progress)``."""
    marks, t0 = [], time.perf_counter()

    def progress(fraction, message=""):
        marks.append((time.perf_counter() - t0, float(fraction)))

    fn(progress)
    return time.perf_counter() - t0, marks


def replay(total: float, marks: list, poll: float = 0.5) -> dict:
    """The panel's estimates over the recorded run, polled every ``poll`` s."""
    from artifact_lens.base.progress import Remaining

    est, i, fraction, t = Remaining(), 0, 0.0, poll
    out = {"first": None, "worst_short": None, "worst_long": None, "over_at": None}
    while t < total:
        while i < len(marks) and marks[i][0] <= t:
            fraction = max(fraction, marks[i][1])
            i += 1
        left = est.left(t, fraction)
        really = total - t
        if left is not None:
            if out["first"] is None:
                out["first"] = {"at_s": round(t, 1), "shown_s": round(left, 1), "really_s": round(really, 1)}
            out["worst_short"] = round(max(out["worst_short"] or 0, really / max(left, 0.5)), 2)
            out["worst_long"] = round(max(out["worst_long"] or 0, left / max(really, 0.5)), 2)
        elif est.over and out["over_at"] is None:
            out["over_at"] = round(t, 1)
        t += poll
    out["honest"] = (out["worst_short"] or 0) <= 2 and (out["worst_long"] or 0) <= 2 and out["over_at"] is None
    return out


def kinds(ds, rep, run, cache: str) -> dict:
    """Each kind's work as its service runs it (defaults of its page)."""
    from artifact_lens.dynamics.cartography import dataset_dynamics
    from artifact_lens.evaluation import EvaluationOptions, evaluate
    from artifact_lens.evaluation.information import dataset_pvi
    from artifact_lens.quality.pruning import quality_components
    from artifact_lens.representations.projection import project
    from artifact_lens.results.runs import fit_run
    from artifact_lens.usecases.certificates import certify_dataset
    from artifact_lens.zstats.consistency import consistency_filter
    from artifact_lens.zstats.zfilter import z_filter

    # another seed than the prepared run's, which `fit_run` would find in its store
    aflite = dict(n_partitions=64, train_size=0.1, slice_size=0.02, tau=0.75, target_size=0.5, random_state=1)
    return {
        "run": lambda p: fit_run(ds, rep, aflite, progress=p),
        "eval": lambda p: evaluate(ds, rep, run.retained, history=run.history, n_phases_chosen=run.n_phases,
                                   options=EvaluationOptions(), context={"run_key": run.key}, progress=p),
        "proj": lambda p: project(rep.X, rep.ids, method="umap", use_cache=False, progress=p),
        "dynamics": lambda p: dataset_dynamics(ds, rep, progress=p),
        "quality": lambda p: quality_components(ds, rep, cache_dir=cache, progress=p),
        "zfilter": lambda p: z_filter(ds, progress=p),
        "consistency": lambda p: consistency_filter(ds, progress=p),
        "pvi": lambda p: dataset_pvi(ds, rep.spec, cache_dir=cache, progress=p),
        "certificates": lambda p: certify_dataset(ds, run=run, cache_dir=cache, progress=p),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "snli_dev.jsonl"))
    ap.add_argument("--rows", type=int, default=5000, help="the first ROWS rows (0: all)")
    ap.add_argument("--only", default="", help="comma-separated kinds (default: all)")
    args = ap.parse_args()
    from benchmarks.app_jobs_bench import prepare
    from artifact_lens.dashboard.services import cached_jobs

    cache = tempfile.mkdtemp(prefix="estimates-")
    os.environ["ARTIFACT_LENS_CACHE"] = cache
    ds, rep, run = prepare(args.data, args.rows, cache)
    declared = {k.name: k.paced for k in cached_jobs.KINDS}
    out = {"data": Path(args.data).name, "rows": len(ds), "kinds": {}}
    for name, fn in kinds(ds, rep, run, cache).items():
        if args.only and name not in args.only.split(","):
            continue
        total, marks = recorded(fn)
        out["kinds"][name] = {"seconds": round(total, 1), "paced": declared.get(name), **replay(total, marks)}
        print(name, json.dumps(out["kinds"][name]), file=sys.stderr, flush=True)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
