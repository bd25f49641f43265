"""How far an options-only baseline gets on each multiple-choice file in ``../shared/data`` (issue
64): the conditional logit with the group features (`core.text.option_groups`) beside the one
without them (each option read alone, the model before issue 64), and two heuristics that read the
options alone: the odd one out (the option least like the others in words) and the longest option
in characters (ties shared, as a random tie-break would); with ``--embedding`` (GloVe by default,
the test extra's), the options-only model with each option's embedding too. Chance is a uniform guess among each
item's options. Prints one JSON line.

    python benchmarks/options_only_bench.py [--files bbq_age,...] [--folds 5]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data"
FILES = ("bbq_age", "bbq_nationality", "bbq_religion", "openbookqa_test", "commonsenseqa_dev")


def heuristic(amounts, k, gold) -> float:
    """The accuracy of picking the option with the most of ``amounts`` (ties: 1/m each)."""
    import numpy as np

    filled = np.where(np.isnan(amounts), -np.inf, amounts)
    on_top = filled == filled.max(axis=1, keepdims=True)
    return float((on_top[np.arange(len(k)), gold] / on_top.sum(axis=1)).mean())


def measure(ds, folds: int, embedding=None) -> dict:
    import numpy as np

    from artifact_lens.data.choices import options_of
    from artifact_lens.evaluation.choices import choice_baselines
    from artifact_lens.zstats.choices import option_amounts

    _, k, gold = options_of(ds)
    out = {"items": len(ds), "chance": round(float(np.mean(1 / k)), 4)}
    for name, groups in (("without_groups", False), ("with_groups", True)):
        t = time.perf_counter()
        s = choice_baselines(ds, which=("options_only",), folds=folds, groups=groups)["options_only"].summary
        out[name] = {"accuracy": round(s["accuracy"], 4), "accuracy_se": round(s["accuracy_se"], 4),
                     "v_information": round(s["v_information"], 4), "seconds": round(time.perf_counter() - t, 2)}
    if embedding:   # a stronger options-only model where the user has one (glove here; sbert with its extra)
        t = time.perf_counter()
        s = choice_baselines(ds, which=("options_only",), folds=folds, embedding=embedding)["options_embedded"].summary
        out["embedded"] = {"spec": s["embedding"], "accuracy": round(s["accuracy"], 4),
                           "accuracy_se": round(s["accuracy_se"], 4), "v_information": round(s["v_information"], 4),
                           "seconds": round(time.perf_counter() - t, 2)}
    amounts = option_amounts(ds)
    out["odd_one_out"] = round(heuristic(amounts["unlike_others"], k, gold), 4)
    out["longest_in_characters"] = round(heuristic(amounts["chars"], k, gold), 4)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", default=",".join(FILES))
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--embedding", default="glove", help="a glove or sbert spec for the embedded model ('' to skip)")
    args = ap.parse_args()
    from artifact_lens.base.cores import one_blas_thread
    from artifact_lens.data.sources import load_dataset

    out = {"bench": "options_only"}
    t0 = time.perf_counter()
    with one_blas_thread():
        for name in [f for f in args.files.split(",") if f]:
            out[name] = measure(load_dataset(DATA / f"{name}.jsonl"), args.folds, args.embedding)
    out["seconds"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
