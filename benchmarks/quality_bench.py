"""Quality (DQI) benchmark: components at 100k, feedback latency, SNLI dev figures. Prints one JSON line.

Sections:

- ``components``: `core.quality.quality_scores` on ``demo:nli:n=N`` (default 100k) with
  ``tfidf-svd:fields=hypothesis`` (128-d; Φ built first and timed apart): seconds for the
  components, combined score and lights (target ≤ 60 s on 2 cores).
- ``feedback``: `QualityContext.fit` on the same data (its seconds), then `feedback` for
  20 new examples: median and largest latency (target ≤ 300 ms each).
- ``snli``: on SNLI dev, hypothesis-only TF-IDF/SVD-128: the lights of the label-tied
  component and the share of red / green examples whose hypothesis has a known artifact
  word of their own label (sleeping/nobody → contradiction, outdoors/a person →
  entailment, tall/for a → neutral); then `core.quality.pruning.compare_pruning`, plain AFLite vs
  AFLite ordered by dqi at the same n (m = 64, t = 10 %, k = 1 %, τ = 0.5, n = 70 %: both runs reach n before τ stops them).

``--quick`` uses 20k examples; ``--skip-snli`` skips the SNLI section.

Run from the project root::

    python benchmarks/quality_bench.py            # a few minutes on 2 cores
    python benchmarks/quality_bench.py --quick
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from artifact_lens.quality import QualityContext, quality_for_aflite  # noqa: E402
from artifact_lens.quality.pruning import compare_pruning  # noqa: E402
from artifact_lens.representations import represent  # noqa: E402
from artifact_lens.data.sources import load_dataset  # noqa: E402

SPEC = "tfidf-svd:fields=hypothesis"
SNLI = ROOT.parent / "shared" / "data" / "snli_dev.jsonl"
ARTIFACTS = {"contradiction": ["sleeping", "nobody"], "entailment": ["outdoors", "a person"], "neutral": ["tall", "for a"]}
NEW = [("A man is playing a guitar on stage.", "Nobody is playing.", "contradiction"),
       ("A man is playing a guitar on stage.", "A person is outdoors.", "entailment"),
       ("A man is playing a guitar on stage.", "The tall man is playing for a crowd.", "neutral"),
       ("Two dogs run through the snow.", "The animals are moving.", "entailment"),
       ("A woman reads in a library.", "The woman is reading a novel for school.", "neutral")]


def components(n: int, cache: str) -> dict:
    ds = load_dataset(f"demo:nli:n={n}")
    t = time.perf_counter()
    rep = represent(ds, SPEC, cache_dir=cache)
    rep_s = time.perf_counter() - t
    t = time.perf_counter()
    ctx = QualityContext.fit(ds, representation=rep, cache_dir=cache, feedback=False)
    table = ctx.components()
    comp_s = time.perf_counter() - t
    return {"n": n, "representation": rep.spec, "represent_seconds": round(rep_s, 2),
            "components_seconds": round(comp_s, 2), "target_seconds": 60,
            "lights": table["light"].value_counts().to_dict(), "mean_dqi": round(float(table["dqi"].mean()), 4)}, ds, rep


def feedback(ds, rep, cache: str) -> dict:
    t = time.perf_counter()
    ctx = QualityContext.fit(ds, representation=rep, cache_dir=cache)
    fit_s = time.perf_counter() - t
    times = []
    for i in range(20):
        p, h, lab = NEW[i % len(NEW)]
        t = time.perf_counter()
        ctx.feedback({"premise": p, "hypothesis": h + ("" if i < len(NEW) else f" {i}"), "label": lab})
        times.append(time.perf_counter() - t)
    return {"n": len(ds), "fit_seconds": round(fit_s, 2), "latency_ms_median": round(1000 * float(np.median(times)), 1),
            "latency_ms_max": round(1000 * max(times), 1), "target_ms": 300}


def snli(cache: str) -> dict:
    ds = load_dataset(SNLI)
    rep = represent(ds, SPEC, cache_dir=cache)
    ctx = QualityContext.fit(ds, representation=rep, cache_dir=cache, feedback=False)
    q = ctx.components()
    hyp = " " + ds.table["hypothesis"].str.lower().str.replace(r"[^\w\s]", "", regex=True) + " "
    has = pd.Series(False, index=ds.table.index.astype(str))
    for label, words in ARTIFACTS.items():
        mine = (ds.table[ds.label] == label).to_numpy()
        for w in words:
            has |= mine & hyp.str.contains(f" {w} ", regex=False).to_numpy()
    lit = q["light_label_tied"]
    out = {"label_tied_lights": lit.value_counts().to_dict(),
           "artifact_rate_red": round(float(has[lit == "red"].mean()), 4),
           "artifact_rate_yellow": round(float(has[lit == "yellow"].mean()), 4),
           "artifact_rate_green": round(float(has[lit == "green"].mean()), 4),
           "dqi_lights": q["light"].value_counts().to_dict()}
    params = dict(n_partitions=64, train_size=0.1, slice_size=0.01, tau=0.5, target_size=0.7, random_state=0)
    t = time.perf_counter()
    cmp = compare_pruning(ds, rep, quality_for_aflite(q, "dqi", rep.ids), params, cache_dir=cache)
    out["comparison_seconds"] = round(time.perf_counter() - t, 1)
    out["comparison"] = json.loads(cmp.round(4).to_json(orient="records"))
    out["comparison_params"] = params
    out["stop_reasons"] = cmp.attrs.get("stop_reasons")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--skip-snli", action="store_true")
    args = ap.parse_args()
    n = 20_000 if args.quick else args.n
    with tempfile.TemporaryDirectory(prefix="quality-bench-") as cache:
        result = {}
        result["components"], ds, rep = components(n, cache)
        result["feedback"] = feedback(ds, rep, cache)
        if not args.skip_snli and SNLI.exists():
            result["snli"] = snli(cache)
    print(json.dumps(result, default=str))


if __name__ == "__main__":
    main()
