"""z-statistics benchmark: z_table speed and memory, z-filtering quality. Prints one JSON line.

Sections:

- ``snli_z_table``: `core.zstats.compute_z` on SNLI dev (9.8k pairs; n-grams of
  both fields and every other feature; min_count = 1): seconds (target ≤ 2 s),
  features tested, z*, largest z, the top hypothesis n-grams per label.
- ``synthetic_z_table``: the same on 550k synthetic pairs of SNLI-like length
  (SNLI dev sentences with 20 % of their words resampled, so the vocabulary and
  bigram counts grow as in a big corpus): seconds (target ≤ 30 s) and peak
  resident memory of a fresh process that loads the pairs and computes the table
  (target ≤ 4 GB); measured with ``resource.getrusage`` in that process.
- ``snli_z_filter``: z-filtering SNLI dev (k = 20, batch 500): largest z before
  and after, accepted/rejected, seconds.
- ``mnli_conditional``: conditional z-filtering of MNLI dev-matched against an
  SNLI dev seed.

``--quick`` uses 50k synthetic pairs and skips the MNLI section.

Run from the project root::

    python benchmarks/zstats_bench.py            # about a minute on 2 cores
    python benchmarks/zstats_bench.py --quick
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT / ".." / "shared" / "data"

from artifact_lens.text.tokens import tokenise_column  # noqa: E402
from artifact_lens.zstats import compute_z, z_filter  # noqa: E402


def synthetic_pairs(n: int, source: pd.DataFrame | None, noise: float = 0.2, seed: int = 0) -> pd.DataFrame:
    """n pairs of SNLI-like length, built without per-token Python loops.

    Each pair copies a random SNLI dev pair (its label too, so real artifacts stay)
    and replaces `noise` of the words by words drawn from the unigram distribution;
    without SNLI, sentences are Zipf-distributed draws from a 20k-word vocabulary.
    """
    rng = np.random.default_rng(seed)
    out = {}
    pick = rng.integers(0, len(source), n) if source is not None else None
    for field, mean_len in (("premise", 14), ("hypothesis", 8)):
        if source is not None:
            codes, doc, vocab = tokenise_column(source[field].to_numpy(dtype=object))
            lens = np.bincount(doc, minlength=len(source))
            starts = np.concatenate([[0], np.cumsum(lens)[:-1]])
            l = lens[pick]
            offs = np.concatenate([[0], np.cumsum(l)])
            within = np.arange(offs[-1]) - np.repeat(offs[:-1], l)
            toks = codes[np.repeat(starts[pick], l) + within]
            freq = np.bincount(codes, minlength=len(vocab)) / len(codes)
            swap = rng.random(len(toks)) < noise
            toks[swap] = rng.choice(len(vocab), int(swap.sum()), p=freq)
        else:
            vocab = np.array([f"w{i}" for i in range(20_000)], dtype=object)
            l = np.maximum(1, rng.poisson(mean_len, n))
            offs = np.concatenate([[0], np.cumsum(l)])
            toks = np.minimum(rng.zipf(1.3, offs[-1]) - 1, len(vocab) - 1)
        words = pa.array(vocab, type=pa.large_string()).take(pa.array(toks))
        lists = pa.LargeListArray.from_arrays(pa.array(offs, type=pa.int64()), words)
        out[field] = pc.binary_join(lists, pa.scalar(" ", type=pa.large_string())).to_numpy(zero_copy_only=False)
    labels = source["label"].to_numpy()[pick] if source is not None else \
        np.array(["entailment", "neutral", "contradiction"])[rng.integers(0, 3, n)]
    out["label"] = labels
    return pd.DataFrame(out)


def _top_ngrams(zs, k=4):
    top = zs.top(k, kind="ngram", field="hypothesis")
    return {lab: [f.replace("@hypothesis", "") for f in g.feature] for lab, g in top.groupby("label")}


CHILD = """
import json, resource, sys, time
sys.path.insert(0, {root!r})
import pandas as pd
from artifact_lens.zstats import compute_z
df = pd.read_parquet({path!r})
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
zs = compute_z(df, label="label", text=["premise", "hypothesis"])
sec = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"seconds": round(sec, 2), "peak_rss_gb": round(peak / 1e6, 3),
                  "peak_rss_above_loaded_data_gb": round((peak - base) / 1e6, 3),
                  "features_tested": zs.n_tests, "table_rows": len(zs.table), "z_max": round(zs.z_max, 1),
                  "partial_accuracy": zs.info.get("partial_accuracy")}}))
"""


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="50k synthetic pairs, no MNLI section")
    ap.add_argument("--synthetic", type=int, default=None, help="synthetic pairs (default 550000, quick 50000)")
    args = ap.parse_args(argv)
    n_syn = args.synthetic or (50_000 if args.quick else 550_000)
    result = {"benchmark": "zstats", "quick": bool(args.quick), "cpus": os.cpu_count()}

    snli_path = DATA / "snli_dev.jsonl"
    snli = pd.read_json(snli_path, lines=True) if snli_path.exists() else None
    if snli is not None:
        compute_z(snli.iloc[:200])  # warm imports
        t = time.perf_counter()
        zs = compute_z(snli)
        sec = time.perf_counter() - t
        result["snli_z_table"] = {
            "rows": len(snli), "seconds": round(sec, 3), "target_seconds": 2, "features_tested": zs.n_tests,
            "z_star": round(zs.z_star, 3), "z_max": round(zs.z_max, 2), "z_max_feature": zs.z_max_feature,
            "significant_features": int(zs.significant.feature.nunique()),
            "hypothesis_only_nb_accuracy": round(zs.info["partial_accuracy"]["hypothesis"], 3),
            "top_hypothesis_ngrams": _top_ngrams(compute_z(snli, min_count=20)),
        }
    else:
        result["snli_z_table"] = "skipped: ../shared/data/snli_dev.jsonl absent"

    t = time.perf_counter()
    syn = synthetic_pairs(n_syn, snli)
    gen = time.perf_counter() - t
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "pairs.parquet")
        syn.to_parquet(path)
        mean_len = {f: round(float(syn[f].str.count(" ").mean() + 1), 1) for f in ("premise", "hypothesis")}
        del syn
        proc = subprocess.run([sys.executable, "-c", CHILD.format(root=str(ROOT), path=path)],
                              capture_output=True, text=True, check=True)
        child = json.loads(proc.stdout.strip().splitlines()[-1])
    result["synthetic_z_table"] = {"pairs": n_syn, "mean_tokens": mean_len, "generate_seconds": round(gen, 1),
                                   **child, "target_seconds": 30, "target_peak_gb": 4}

    if snli is not None:
        t = time.perf_counter()
        r = z_filter(snli, batch_size=500, k=20)
        result["snli_z_filter"] = {
            "seconds": round(time.perf_counter() - t, 2), "batch_size": 500, "k": 20,
            **{k: (round(v, 2) if isinstance(v, float) else v) for k, v in r.summary().items()
               if k not in ("batch_size", "k", "alpha", "min_count", "seed_size")},
            "top_rejecting_features": r.reasons().head(5).to_dict("records"),
        }
    mnli_path = DATA / "mnli_dev_matched.jsonl"
    if snli is not None and mnli_path.exists() and not args.quick:
        mnli = pd.read_json(mnli_path, lines=True)
        t = time.perf_counter()
        r = z_filter(mnli, seed_data=snli, batch_size=500, k=20)
        result["mnli_conditional"] = {
            "seconds": round(time.perf_counter() - t, 2), "seed": "snli_dev", "candidates": len(mnli),
            **{k: (round(v, 2) if isinstance(v, float) else v) for k, v in r.summary().items()
               if k in ("accepted", "rejected", "z_max_before", "z_max_after", "z_max_after_feature")},
        }
    result["peak_rss_gb_this_process"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6, 3)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
