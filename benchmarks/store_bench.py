"""Team store load: 20 concurrent reviewers × 1,000 reviews each on one run, on SQLite and on
a real PostgreSQL (started here from Debian's package, as the tests do). Prints one JSON line:
writes/s, whether every review is stored exactly once (unique ids, exactly ``--reviews`` rows
per reviewer), and whether ``disagreements()`` finds exactly the examples the written decisions
split (and how long that read takes).

Everything goes through the store's public API: a tiny dataset and a real (tiny) AFLite run
are saved with ``save_dataset`` / ``save_run``; each reviewer is a thread calling ``review``.
Decisions are deterministic: every third example splits the reviewers, the others are agreed
on; the last fifth of each reviewer's reviews revisit examples (a change of mind).

    python benchmarks/store_bench.py [--reviewers 20] [--reviews 1000]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

OWNER = "owner@x.org"


def _toy_run():
    """A 60-example dataset and a run fitted on it in milliseconds."""
    from artifact_lens.results.runs import fit_run
    from toy import toy_data

    ds, rep = toy_data(60, 4, name="bench")
    return ds, fit_run(ds, rep, dict(n_partitions=4, train_size=0.2, slice_size=0.1, tau=0.0, target_size=0.5))


def _plan(reviewer: int, reviews: int) -> list:
    """``[(example_id, decision), ...]`` of one reviewer, in order."""
    firsts = max(1, reviews * 4 // 5)
    out = []
    for k in range(reviews):
        example, visit = (k, 0) if k < firsts else (((k - firsts) * 4) % firsts, 1)
        if example % 3:
            decision = "agree" if visit == 0 or (reviewer + example) % 2 else "keep"
        else:
            decision = ("agree", "keep", "remove")[(reviewer * 7 + example * 3 + visit) % 5 % 3]
        out.append((f"e{example}", decision))
    return out


def load(store, reviewers: int, reviews: int) -> dict:
    ds, run = _toy_run()
    ws = store.workspace(f"bench-{time.time_ns()}", owner=OWNER)
    names = [f"r{i}@x.org" for i in range(reviewers)]
    for who in names:
        store.set_role(ws, who, "annotator", by=OWNER)
    run_id = store.save_run(ws, store.save_dataset(ws, ds, source="bench", roles={}, by=OWNER), run, by=OWNER)
    plans = {who: _plan(r, reviews) for r, who in enumerate(names)}
    errors = []

    def work(who):
        try:
            for example, decision in plans[who]:
                store.review(ws, run_id, example, decision, "bench", by=who)
        except Exception as exc:  # noqa: BLE001
            errors.append(repr(exc))

    t = time.perf_counter()
    threads = [threading.Thread(target=work, args=(who,)) for who in names]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    seconds = time.perf_counter() - t
    history = store.reviews(ws, run_id, by=OWNER, latest=False)
    latest = {}
    for who, plan in plans.items():
        for example, decision in plan:
            latest[(who, example)] = decision
    split = {}
    for (_, example), decision in latest.items():
        split.setdefault(example, set()).add(decision)
    expected = {ex: sorted(d) for ex, d in split.items() if len(d) > 1}
    t = time.perf_counter()
    found = store.disagreements(ws, run_id, by=OWNER)
    read_seconds = time.perf_counter() - t
    counts = history.groupby("reviewer").size().to_dict() if len(history) else {}
    return {"stored": len(history), "expected": reviewers * reviews, "unique_ids": bool(history["id"].is_unique),
            "exactly_per_reviewer": counts == {who: reviews for who in names},
            "disagreements": len(found), "disagreements_expected": len(expected),
            "disagreements_match": dict(zip(found["example_id"], found["decisions"])) == expected,
            "errors": errors[:3], "seconds": round(seconds, 2), "writes_per_s": round(len(history) / seconds, 1),
            "disagreements_read_s": round(read_seconds, 3)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reviewers", type=int, default=20)
    ap.add_argument("--reviews", type=int, default=1000)
    args = ap.parse_args()
    from artifact_lens.team.store import TeamStore

    out = {"benchmark": "store", "reviewers": args.reviewers, "reviews_each": args.reviews}
    from pg_server import PostgresMissing, postgres_server   # the tests' PostgreSQL starter

    with tempfile.TemporaryDirectory() as tmp:          # the run files too: nothing lands in the real cache
        out["sqlite"] = load(TeamStore(f"sqlite:///{tmp}/team.sqlite", files=f"{tmp}/files-sqlite"),
                             args.reviewers, args.reviews)
        try:
            with postgres_server() as url:
                out["postgres"] = load(TeamStore(url, files=f"{tmp}/files-postgres"), args.reviewers, args.reviews)
        except PostgresMissing as exc:
            out["postgres"] = str(exc)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
