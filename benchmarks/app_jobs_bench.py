"""Two of the app's jobs at once (issue 53, item 13): the dataset's certificate and an evaluation of
the same run, each alone and then side by side on one `core.base.jobs.JobRunner`, as the dashboard
runs them (each job in its thread; the evaluation's fits on `core.base.cores.SHARE`, its share of the cores read
before each fit). Prints one JSON line:
seconds alone, seconds together, and how much longer each took beside the other.

The team's walk saw the certificate take 465 s beside an evaluation, against 95 s from the CLI.

    python benchmarks/app_jobs_bench.py [--data ../shared/data/snli_dev.jsonl] [--rows 0]
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


def prepare(path: str, rows: int, cache: str):
    from artifact_lens.data.sources import load_dataset
    from artifact_lens.evaluation import default_partial_spec
    from artifact_lens.representations import default_spec, represent
    from artifact_lens.results.runs import fit_run

    ds = load_dataset(path)
    if rows:
        ds = ds.subset(list(map(str, ds.ids[:rows])))
    spec = default_spec(ds)
    rep = represent(ds, spec, cache_dir=cache)
    partial = default_partial_spec(ds)
    if partial:
        represent(ds, partial, cache_dir=cache)   # built once, outside every timing
    run = fit_run(ds, rep, dict(n_partitions=64, train_size=0.1, slice_size=0.02, tau=0.75, target_size=0.5,
                                random_state=0))
    return ds, rep, run


def jobs(ds, rep, run, cache: str):
    """The two jobs' functions, as `dashboard.services.certificates.start` and
    `dashboard.services.evaluation.start` build them."""
    from artifact_lens.base.cores import SHARE
    from artifact_lens.evaluation import EvaluationOptions, evaluate
    from artifact_lens.usecases.certificates import certify_dataset

    def certificate(ctx):
        return ctx.offload(certify_dataset, ds, run=run, cache_dir=cache)

    def evaluation(ctx):
        return ctx.offload(evaluate, ds, rep, run.retained, history=run.history, n_phases_chosen=run.n_phases,
                           options=EvaluationOptions(), context={"run_key": run.key}, n_jobs=SHARE)

    return {"certificate": certificate, "evaluation": evaluation}


def timed(runner, todo: dict) -> dict:
    import artifact_lens.evaluation.models as models
    from artifact_lens.base.jobs import JobKey, JobKind

    models.FITS = models.FitMemo()   # no fit reused from an earlier timing

    started = {name: runner.submit(JobKey(JobKind(name, name), str(time.time_ns())), fn) for name, fn in todo.items()}
    for job in started.values():
        job.wait()
        if job.status != "done":
            raise RuntimeError(f"{job.name}: {job.status}\n{job.traceback}")
    return {name: round(job.finished - job.started, 1) for name, job in started.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "snli_dev.jsonl"))
    ap.add_argument("--rows", type=int, default=0, help="the first ROWS rows only (0: all)")
    args = ap.parse_args()
    from artifact_lens.base.cores import usable_cores
    from artifact_lens.base.jobs import JobRunner

    cache = tempfile.mkdtemp(prefix="appjobs-")
    os.environ["ARTIFACT_LENS_CACHE"] = cache
    ds, rep, run = prepare(args.data, args.rows, cache)
    todo = jobs(ds, rep, run, cache)
    runner = JobRunner(workers=2)
    out = {"data": Path(args.data).name, "rows": len(ds), "cores": usable_cores(), "alone_s": {}}
    for name, fn in todo.items():
        out["alone_s"].update(timed(runner, {name: fn}))
    out["together_s"] = timed(runner, todo)
    out["slowdown"] = {k: round(out["together_s"][k] / out["alone_s"][k], 2) for k in todo}
    out["together_wall_s"] = max(out["together_s"].values())
    out["alone_sum_s"] = round(sum(out["alone_s"].values()), 1)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
