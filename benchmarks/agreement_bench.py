"""Team agreement (`core.team.agreement`, issue 22) on SNLI dev: three simulated reviewers with known
noise review the same examples of a saved run in a real team store; prints one JSON object with
what ``artifact-lens agreement`` (and the Review page's Agreement tab) says, side by side with
the reference implementations (the `krippendorff` package's α, scikit-learn's κ), the
filter-as-rater tables, the τ/n the team supports, the settings as the owner sees them, and the
seconds each step took.

A reviewer with noise q takes the filter's side with probability 1 − q and the other side with
probability q, independently per example (so their expected agreement with the filter is 1 − q).

    python benchmarks/agreement_bench.py [--data ../shared/data/snli_dev.jsonl] [--reviewed 300] [--blind]
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import time

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from artifact_lens.cli import main  # noqa: E402
from artifact_lens.representations import represent  # noqa: E402
from artifact_lens.results.runs import fit_run  # noqa: E402
from artifact_lens.data.sources import load_dataset  # noqa: E402
from artifact_lens.team.store import TeamStore  # noqa: E402

REVIEWERS = {"owner@team.org": 0.05, "cur@team.org": 0.15, "ann@team.org": 0.30}


def run(args) -> dict:
    import krippendorff
    from sklearn.metrics import cohen_kappa_score

    out, t0 = {"data": args.data, "reviewed": args.reviewed, "noise": REVIEWERS}, time.perf_counter()
    folder = tempfile.mkdtemp(prefix="agreement-bench-")
    url = f"sqlite:///{folder}/team.sqlite"
    ds = load_dataset(args.data)
    owner = next(iter(REVIEWERS))
    rng = np.random.default_rng(args.seed)
    with TeamStore(url, files=f"{folder}/files") as store:
        ws = store.workspace("nli", owner)
        for email in list(REVIEWERS)[1:]:
            store.set_role(ws, email, "curator" if email.startswith("cur") else "annotator", by=owner)
        store.set_review_settings(ws, reviews_per_example=3, blind=bool(args.blind), by=owner)
        dataset_id = store.save_dataset(ws, ds, source=args.data, roles={}, by=owner)
        run_ = fit_run(ds, represent(ds, "tfidf-svd:fields=hypothesis,dim=64", cache_dir=f"{folder}/cache"),
                       dict(n_partitions=16, slice_size=0.02, target_size=0.3, random_state=0))
        run_id = store.save_run(ws, dataset_id, run_, by=owner)
        out["seconds_run"] = round(time.perf_counter() - t0, 1)
        t = time.perf_counter()
        rows = rng.choice(len(run_.ids), args.reviewed, replace=False)
        sides = []
        for email, noise in REVIEWERS.items():
            for row in rows:
                filter_side = "keep" if run_.retained[row] else "remove"
                other = "remove" if filter_side == "keep" else "keep"
                flip = rng.random() < noise
                store.review(ws, run_id, str(run_.ids[row]), other if flip else "agree", "flipped" if flip else "",
                             by=email)
                sides.append((str(run_.ids[row]), email, other if flip else filter_side))
        out["seconds_reviews"] = round(time.perf_counter() - t, 1)
        out["settings_as_the_owner_sees_them"] = store.review_settings(ws, by=owner)
    t = time.perf_counter()
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = main(["agreement", "--db", url, "--workspace", "nli", "--run", run_.key, "--as", owner, "--json"])
    assert code == 0
    ours = json.loads(buffer.getvalue())
    out["seconds_agreement"] = round(time.perf_counter() - t, 2)
    wide = pd.DataFrame(sides, columns=["example_id", "reviewer", "side"]).pivot(
        index="reviewer", columns="example_id", values="side")
    codes = wide.replace({"keep": 0, "remove": 1}).to_numpy(dtype=float)
    out["alpha"] = {"artifact_lens": ours["alpha"], "interval": ours["alpha_interval"],
                    "krippendorff_package": round(float(krippendorff.alpha(reliability_data=codes,
                                                                           level_of_measurement="nominal")), 4)}
    out["kappa_pairs"] = [{"pair": f"{p['reviewer_a']} × {p['reviewer_b']}", "artifact_lens": p["kappa"],
                           "scikit_learn": round(float(cohen_kappa_score(wide.loc[p["reviewer_a"]],
                                                                         wide.loc[p["reviewer_b"]])), 4),
                           "shared": p["shared"]} for p in ours["pairs"]]
    out["per_reviewer"] = ours["per_reviewer"]
    out["filter"] = ours["filter"]
    out["filter_by_label"] = ours["filter_by_label"]
    out["filter_by_feature"] = ours["filter_by_feature"]
    out["supported"] = ours["supported"]
    out["at"] = {"tau": ours["tau"], "n": ours["n"]}
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data",
                                                       "snli_dev.jsonl"))
    parser.add_argument("--reviewed", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--blind", action="store_true", help="a blind workspace (the owner still reads every decision)")
    print(json.dumps(run(parser.parse_args()), indent=1))
