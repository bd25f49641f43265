"""How often `check` fails a change of multiple-choice items that changed nothing, and how often it
catches a planted shortcut (issues 55 and 64), on every multiple-choice file in ``../shared/data``
and two made from them. Prints one JSON line.

Files (``--files``): BBQ age, nationality and religion, OpenBookQA test (its nested release),
CommonsenseQA dev, each read as released; ``csqa_variable_k``: CommonsenseQA with each item's gold
and 1 to 4 of its distractors (2 to 5 options, seeded), so random halves differ in their widest item
(TruthfulQA MC1 has 2 to 13); ``obqa_case_only``: OpenBookQA with 2 % of items given a distractor
that differs from another only in case (ARC's genotypes ``Rr`` / ``RR``) and one item with a
repeated option (a count of 1, which lands in one half).

For each file:
- ``false_alarm``: ``--pairs`` random halves A and B (seeds 0, 1, …), each certified with the
  defaults; the share of pairs where ``check A B`` fails, with its 95 % Clopper–Pearson interval,
  and which measures failed;
- ``planted``: the whole file against itself with one shortcut planted (`core.data.demos.plant_choice_cue`:
  the gold moved first in 20 % of items, made the longest in 30 %, or given "obviously" in 10 %),
  ``--planted`` seeds each: the share that fail, that name the planted cue, and the share of the
  planted items ``check --rows`` lists;
- ``halves_difference_sd_in_stated_errors``: each measure's difference between halves in units of
  its stated uncertainty (about 1 when the uncertainty is right).

    python benchmarks/choice_gate_calibration.py [--pairs 40] [--planted 5] [--jobs N] [--files bbq_age,...]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data"
SHARES = {"first": 0.2, "longest": 0.3, "phrase": 0.1}


RELEASED = ("bbq_age", "bbq_nationality", "bbq_religion", "openbookqa_test", "commonsenseqa_dev")
MADE = {"csqa_variable_k": "commonsenseqa_dev", "obqa_case_only": "openbookqa_test"}


@lru_cache(maxsize=None)
def _frame(name: str):
    """The file's items in the columns shape (``example_id``, its stem columns, ``ans0`` …, a 0-based
    ``label``), as the tool reads them, so one planting serves every release layout."""
    import numpy as np
    import pandas as pd

    from artifact_lens.data.choices import options_of
    from artifact_lens.data.sources import load_dataset

    ds = load_dataset(DATA / f"{MADE.get(name, name)}.jsonl")
    texts, k, gold = options_of(ds)
    frame = pd.DataFrame({"example_id": ds.table.index.astype(str)})
    for column in ds.choices.stem:
        frame[column] = ds.table[column].to_numpy()
    options = [list(t[:kk]) for t, kk in zip(texts, k)]
    rng = np.random.default_rng(64)
    if name == "csqa_variable_k":   # the gold and 1 to 4 of its distractors, in their order
        kept = [sorted([g] + list(rng.choice([j for j in range(len(o)) if j != g], int(rng.integers(1, len(o))),
                                             replace=False))) for o, g in zip(options, gold)]
        gold = np.array([keep.index(g) for keep, g in zip(kept, gold)])
        options = [[o[j] for j in keep] for o, keep in zip(options, kept)]
    elif name == "obqa_case_only":   # distinct options that differ only in case, and one repeat
        for i in np.flatnonzero(rng.random(len(options)) < 0.02):
            others = [j for j in range(len(options[i])) if j != gold[i]]
            options[i][others[1]] = options[i][others[0]].swapcase()
        others = [j for j in range(len(options[0])) if j != gold[0]]
        options[0][others[1]] = options[0][others[0]]
    widest = max(len(o) for o in options)
    for j in range(widest):
        frame[f"ans{j}"] = [o[j] if j < len(o) else None for o in options]
    frame["label"] = gold
    return frame


def _option_columns(frame) -> tuple:
    return tuple(c for c in frame.columns if c.startswith("ans"))


def _rows(job):
    """The rows of one job: (file, kind, seed), kind "A"/"B" (a half), "whole" or a planted cue."""
    import numpy as np

    from artifact_lens.data.demos import plant_choice_cue

    name, kind, seed = job
    frame = _frame(name)
    if kind in ("A", "B"):
        order = np.random.default_rng(seed).permutation(len(frame))
        half = len(frame) // 2
        return frame.iloc[order[:half] if kind == "A" else order[half:]], None
    if kind == "whole":
        return frame, None
    rows, at = plant_choice_cue(frame, kind, SHARES[kind], options=_option_columns(frame), seed=seed)
    return rows, set(rows["example_id"].iloc[at].astype(str))


def _certify(job):
    from artifact_lens.certificate.measures import certify
    from artifact_lens.data.sources import load_dataset

    rows, planted = _rows(job)
    return job, certify(load_dataset(rows)), planted


def _interval(k: int, n: int) -> list:
    from scipy.stats import beta

    low = 0.0 if k == 0 else float(beta.ppf(0.025, k, n - k + 1))
    high = 1.0 if k == n else float(beta.ppf(0.975, k + 1, n - k))
    return [round(low, 4), round(high, 4)]


def _spread(cert: dict, pairs: int, name: str) -> dict:
    spread = {}
    for s in range(pairs):
        a, b = cert[(name, "A", s)]["measures"], cert[(name, "B", s)]["measures"]
        for m in a:
            if m in b and a[m]["stderr"] and b[m]["stderr"] and a[m]["value"] is not None and b[m]["value"] is not None:
                spread.setdefault(m, []).append((b[m]["value"] - a[m]["value"]) / (a[m]["stderr"] ** 2 + b[m]["stderr"] ** 2) ** 0.5)
    return {m: round(float(sum(v * v for v in z) / len(z)) ** 0.5, 2) for m, z in spread.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=40)
    ap.add_argument("--planted", type=int, default=5)
    ap.add_argument("--files", default=",".join(RELEASED + tuple(MADE)))
    ap.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2)))
    args = ap.parse_args()
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"   # the workers run side by side
    from artifact_lens.certificate.gate import compare
    from artifact_lens.certificate.rows import cue_rows
    from artifact_lens.data.demos import CHOICE_CUES
    from artifact_lens.data.sources import load_dataset

    out = {"bench": "choice_gate_calibration", "jobs": args.jobs, "cpus": os.cpu_count()}
    t0 = time.perf_counter()
    for name in [f for f in args.files.split(",") if f]:
        t = time.perf_counter()
        jobs = [(name, k, s) for s in range(args.pairs) for k in ("A", "B")] + [(name, "whole", 0)]
        jobs += [(name, how, s) for how in CHOICE_CUES for s in range(args.planted)]
        with ProcessPoolExecutor(args.jobs) as pool:
            done = {job: (cert, planted) for job, cert, planted in pool.map(_certify, jobs)}
        cert = {job: v[0] for job, v in done.items()}
        failed, by_measure = 0, {}
        for s in range(args.pairs):
            table = compare(cert[(name, "A", s)], cert[(name, "B", s)])
            broken = table.loc[table["ok"] == False, "measure"].tolist()   # noqa: E712
            failed += bool(broken)
            for m in broken:
                by_measure[m] = by_measure.get(m, 0) + 1
        planted = {}
        for how, cue in CHOICE_CUES.items():
            caught = named = 0
            recall = []
            for s in range(args.planted):
                cand, ids = done[(name, how, s)]
                table = compare(cert[(name, "whole", 0)], cand)
                caught += bool((table["ok"] == False).any())   # noqa: E712
                cues = table.attrs["cues"]
                if cues is not None and cue in set(cues["feature"]):
                    named += 1
                    rows = cue_rows(load_dataset(_rows((name, how, s))[0]), cues[cues["feature"] == cue])
                    recall.append(len(set(rows["id"].astype(str)) & ids) / len(ids))
            planted[how] = {"cue": cue, "share": SHARES[how], "seeds": args.planted, "failed": caught / args.planted,
                            "cue_named": named / args.planted,
                            "planted_items_listed": round(sum(recall) / len(recall), 4) if recall else None}
        out[name] = {"items": len(_frame(name)), "half": len(_frame(name)) // 2,
                     "false_alarm": {"pairs": args.pairs, "failed": failed, "rate": round(failed / max(args.pairs, 1), 4),
                                     "ci95": _interval(failed, args.pairs), "by_measure": by_measure},
                     "halves_difference_sd_in_stated_errors": _spread(cert, args.pairs, name),
                     "planted": planted, "seconds": round(time.perf_counter() - t, 1)}
    out["seconds"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
