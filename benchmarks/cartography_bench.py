"""Training dynamics (`core.dynamics.cartography`, issue 23): speed at scale, flipped labels found, and where
AFLite's removals fall on SNLI dev. Prints one JSON object.

- ``synthetic``: N × d Gaussian classes (3 labels) with 10 % of the labels flipped, for each N of
  ``--sizes`` and each model: seconds (cross-fitted, 5 folds, ``--epochs``), the AUC of low
  confidence and of cleanlab's label quality for finding the flipped labels, cleanlab's precision
  and recall.
- ``snli``: SNLI dev on a representation (``--snli-spec``), an AFLite run and the cartography of
  the same Φ: the share of AFLite-removed (and retained) examples that are easy-to-learn,
  ambiguous and hard-to-learn, and the held-out accuracy of the model on Φ.

    python benchmarks/cartography_bench.py [--sizes 20000,100000] [--dim 768] [--epochs 10] [--skip-snli]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from artifact_lens.dynamics.cartography import REGIONS, training_dynamics  # noqa: E402


def synthetic(n: int, d: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    centers = rng.normal(size=(3, d)).astype(np.float32) * (3.0 / np.sqrt(d))
    X = centers[y] + rng.standard_normal((n, d), dtype=np.float32)
    flipped = rng.random(n) < 0.10
    noisy = y.copy()
    noisy[flipped] = (y[flipped] + rng.integers(1, 3, int(flipped.sum()))) % 3
    return X, noisy, flipped


def bench_synthetic(sizes, dim, epochs, models) -> list:
    from sklearn.metrics import roc_auc_score

    rows = []
    for n in sizes:
        X, y, flipped = synthetic(n, dim)
        for model in models:
            t = time.perf_counter()
            found = training_dynamics(X, y, epochs=epochs, model=model)
            seconds = time.perf_counter() - t
            table = found.table
            flagged = table["label_issue"].to_numpy()
            rows.append({"n": n, "d": dim, "model": model, "epochs": epochs, "folds": 5, "seconds": round(seconds, 1),
                         "auc_low_confidence": round(float(roc_auc_score(flipped, -table["confidence"])), 4),
                         "auc_label_quality": round(float(roc_auc_score(flipped, -table["label_quality"])), 4),
                         "cleanlab_precision": round(float((flagged & flipped).sum() / max(flagged.sum(), 1)), 4),
                         "cleanlab_recall": round(float((flagged & flipped).sum() / flipped.sum()), 4),
                         "held_out_accuracy": round(found.params["accuracy"], 4)})
            print(json.dumps(rows[-1]), file=sys.stderr)
    return rows


def bench_snli(path: str, spec: str, epochs: int) -> dict:
    from artifact_lens.representations import represent
    from artifact_lens.results.runs import fit_run
    from artifact_lens.data.sources import load_dataset
    from artifact_lens.dynamics.cartography import dataset_dynamics

    ds = load_dataset(path)
    rep = represent(ds, spec)
    run = fit_run(ds, rep, dict(n_partitions=64, slice_size=0.02, target_size=0.5, tau=0.75, random_state=0))
    t = time.perf_counter()
    found = dataset_dynamics(ds, rep, epochs=epochs)
    seconds = time.perf_counter() - t
    table = found.table.set_index("id").reindex(np.asarray(run.ids).astype(str))
    removed = ~np.asarray(run.retained, dtype=bool)

    def shares(mask):
        regions = table["region"].to_numpy()[mask]
        return {r: round(float((regions == r).mean()), 4) for r in REGIONS}

    out = {"data": path, "spec": spec, "examples": int(len(table)), "removed": int(removed.sum()),
           "cartography_seconds": round(seconds, 1), "held_out_accuracy": round(found.params["accuracy"], 4),
           "removed_by_region": shares(removed), "retained_by_region": shares(~removed),
           "label_issues_removed_share": round(float(table["label_issue"].to_numpy()[removed].mean()), 4),
           "label_issues_retained_share": round(float(table["label_issue"].to_numpy()[~removed].mean()), 4)}
    out["joint"] = bench_joint(ds, rep, run, epochs)
    return out


def bench_joint(ds, rep, plain, epochs: int) -> dict:
    """Plain AFLite vs the joint filter (core.dynamics.joint) at the same parameters, side by side: time,
    what each removed, and the largest n-gram z left in each filtered split."""
    from artifact_lens.dynamics.joint import descriptor
    from artifact_lens.results.runs import fit_run
    from artifact_lens.dynamics.joint import joint_for
    from artifact_lens.zstats import compute_z

    t = time.perf_counter()
    joint = joint_for(ds, rep, descriptor(epochs=epochs))
    t_carto = time.perf_counter() - t
    t = time.perf_counter()
    run = fit_run(ds, rep, plain.params, joint=joint)
    t_fit = time.perf_counter() - t
    ids = np.asarray(plain.ids).astype(str)

    def z_max(mask):
        return round(float(compute_z(ds.subset(ids[mask]), min_count=20).summary(kind="ngram")["z_max"]), 2)

    plain_removed = ~np.asarray(plain.retained, dtype=bool)
    return {"cartography_seconds": round(t_carto, 1), "fit_seconds": round(t_fit, 1),
            "plain_fit_seconds": round(plain.seconds, 1), "found": joint.found,
            "removed_plain": int(plain_removed.sum()), "removed_joint": int((~run.retained).sum()),
            "plain_removed_that_joint_protects": int((plain_removed & joint.protected).sum()),
            "plain_removed_possibly_mislabelled": int((plain_removed & joint.mislabelled).sum()),
            "z_max_full": z_max(np.ones(len(ids), bool)), "z_max_plain": z_max(plain.retained),
            "z_max_joint": z_max(run.retained)}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="20000,100000")
    parser.add_argument("--dim", type=int, default=768)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--models", default="linear,mlp")
    parser.add_argument("--snli", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data",
                                                       "snli_dev.jsonl"))
    parser.add_argument("--snli-spec", default="tfidf-svd:fields=hypothesis,dim=256")
    parser.add_argument("--skip-snli", action="store_true")
    args = parser.parse_args()
    out = {"synthetic": bench_synthetic([int(s) for s in args.sizes.split(",")], args.dim, args.epochs,
                                        args.models.split(","))}
    if not args.skip_snli:
        out["snli"] = bench_snli(args.snli, args.snli_spec, args.epochs)
    print(json.dumps(out, indent=1))
