"""Evaluation benchmark (issue 12): the whole evaluation of a 20k-example run, and the synthetic report.

Prints one JSON line:

- ``run20k``: the synthetic NLI demo at 20,000 pairs (``demo:nli:n=20000``), Φ = TF-IDF/SVD-128 over
  premise + hypothesis, an AFLite run (m = 64, t = 10 %, k = 2 %, τ = 0, to 50 %), then the whole
  evaluation of its retained set: 5 families × 4 training sets × 2 evaluation splits on Φ and on the
  hypothesis-only partial input, KNN distances (K = 1, 5, 10, 50), the coarse action (b = 10 %). Seconds
  per part and in all (target: ≤ 120 s on 2 cores), the family table's AFLite-vs-random gap, the coarse
  fraction.
- ``repeat`` (with ``--data FILE``, e.g. ../shared/data/snli_dev.jsonl): the dashboard's Evaluate on real
  data, Φ = TF-IDF/SVD-256 over premise + hypothesis, defaults, side by side: on one thread with no
  reused fits (as before issue 35), on every core, and a second evaluation of the same run at
  another n on every core (the fits that do not depend on τ/n are reused).
- ``synthetic``: paper 000 §3 / Fig. 2 at the four separations (2,000 points each): linear accuracy after
  filtering (target: within 0.1 of chance) and RBF-SVM accuracy on the true coordinates (target: ≥ 0.85).

Run from the project root::

    python benchmarks/evaluation_bench.py             # ~2 min
    python benchmarks/evaluation_bench.py --n 5000    # a smoke run
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

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")



def run20k(n: int) -> dict:
    from artifact_lens.evaluation import EvaluationOptions, evaluate
    from artifact_lens.representations import represent
    from artifact_lens.results.runs import fit_run
    from artifact_lens.data.sources import load_dataset

    out = {"n": n}
    cache = tempfile.mkdtemp(prefix="evalbench-")
    ds = load_dataset(f"demo:nli:n={n}")
    t = time.perf_counter()
    rep = represent(ds, "tfidf-svd:fields=premise+hypothesis,dim=128", cache_dir=cache)
    # the partial-input representation is built once here, so the timing below is the evaluation's own
    represent(ds, "tfidf-svd:fields=hypothesis", cache_dir=cache)
    out["represent_s"] = round(time.perf_counter() - t, 2)
    t = time.perf_counter()
    run = fit_run(ds, rep, dict(n_partitions=64, train_size=0.1, slice_size=0.02, tau=0.0, target_size=0.5,
                                random_state=0))
    out["aflite_s"] = round(time.perf_counter() - t, 2)
    stages, last = {}, [time.perf_counter(), ""]

    def progress(fraction, message=""):
        key = message.split(" on the ")[0].split(":")[0] if message else last[1]
        if key != last[1]:
            now = time.perf_counter()
            if last[1]:
                stages[last[1]] = round(stages.get(last[1], 0) + now - last[0], 2)
            last[0], last[1] = now, key

    os.environ["ARTIFACT_LENS_CACHE"] = cache
    t = time.perf_counter()
    ev = evaluate(ds, rep, run.retained, history=run.history, n_phases_chosen=run.n_phases,
                  options=EvaluationOptions(), context={"run_key": run.key}, progress=progress)
    out["evaluation_s"] = round(time.perf_counter() - t, 2)
    out["stages_s"] = stages
    fam = ev.tables["families"].set_index(["family", "train_set", "eval_set"])["accuracy"]
    out["families_iid"] = {f: {s: round(float(fam[f, s, "i.i.d."]), 3) for s in ("full", "aflite", "random", "single-model")}
                           for f in ev.options["families"]}
    part = ev.tables["partial_input"].set_index(["family", "train_set", "eval_set"])["accuracy"]
    out["partial_logistic_iid"] = {s: round(float(part["logistic", s, "i.i.d."]), 3)
                                   for s in ("full", "aflite", "random", "single-model")}
    out["coarse_fraction"] = ev.summary["coarse_fraction"]
    out["retained"] = int(run.retained.sum())
    out["notes"] = ev.notes
    return out


def repeat(path: str) -> dict:
    import artifact_lens.evaluation.models as models
    from artifact_lens.evaluation import EvaluationOptions, evaluate
    from artifact_lens.base.cores import usable_cores
    from artifact_lens.representations import represent
    from artifact_lens.results.runs import fit_run
    from artifact_lens.data.sources import load_dataset

    cache = tempfile.mkdtemp(prefix="evalbench-")
    os.environ["ARTIFACT_LENS_CACHE"] = cache
    ds = load_dataset(path)
    rep = represent(ds, "tfidf-svd:fields=premise+hypothesis,dim=256", cache_dir=cache)
    represent(ds, "tfidf-svd:fields=hypothesis", cache_dir=cache)   # built once, outside the timings
    run = fit_run(ds, rep, dict(n_partitions=64, train_size=0.1, slice_size=0.02, tau=0.0, target_size=0.5,
                                random_state=0))
    kept = np.asarray(run.retained)
    fewer = kept.copy()
    fewer[np.flatnonzero(fewer)[::4]] = False   # another n: a quarter fewer retained
    out = {"data": Path(path).name, "N": len(kept), "cores": usable_cores()}

    def timed(name, retained, n_jobs, memo):
        models.FITS = memo
        t = time.perf_counter()
        ev = evaluate(ds, rep, retained, history=run.history, options=EvaluationOptions(), n_jobs=n_jobs)
        out[name] = round(time.perf_counter() - t, 2)
        return ev

    one = timed("one_thread_no_reuse_s", kept, 1, None)
    every = timed("every_core_s", kept, None, models.FitMemo())
    timed("second_at_another_n_every_core_s", fewer, None, models.FITS)
    out["same_tables"] = all(one.tables[k].equals(every.tables[k]) for k in ("families", "partial_input", "coarse"))
    out["speedup_first"] = round(out["one_thread_no_reuse_s"] / out["every_core_s"], 2)
    out["speedup_second"] = round(out["one_thread_no_reuse_s"] / out["second_at_another_n_every_core_s"], 2)
    return out


def synthetic() -> dict:
    from artifact_lens.evaluation import synthetic_report

    t = time.perf_counter()
    table, _ = synthetic_report(n=2000, random_state=0)
    rows = table.round(3).astype(object).where(table.notna(), None).to_dict(orient="records")   # NaN -> null
    return {"seconds": round(time.perf_counter() - t, 2), "rows": rows,
            "linear_after_within_0.1_of_chance": bool((abs(table["linear_after"] - 0.5) <= 0.1).all()),
            "rbf_after_at_least_0.85": bool((table["rbf_after"] >= 0.85).all())}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=20000, help="examples of the run (default 20000)")
    parser.add_argument("--data", help="also time Evaluate on this NLI file (premise, hypothesis, label)")
    parser.add_argument("--only-data", action="store_true", help="with --data: that part only")
    args = parser.parse_args(argv)
    if args.data and args.only_data:
        print(json.dumps({"bench": "evaluation", "python": platform.python_version(), "repeat": repeat(args.data)}))
        return 0
    result = {"bench": "evaluation", "cpus": os.cpu_count(), "python": platform.python_version(),
              "run20k": run20k(args.n), "synthetic": synthetic()}
    if args.data:
        result["repeat"] = repeat(args.data)
    print(json.dumps(result, default=float))
    return 0


if __name__ == "__main__":
    sys.exit(main())
