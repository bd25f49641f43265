"""Team store load: 20 concurrent reviewers × 1,000 reviews each on one run, on SQLite and on
a real PostgreSQL (started here from Debian's package, as the tests do). Prints one JSON line:
writes/s, and whether every review is stored exactly once.

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


def load(store, reviewers: int, reviews: int) -> dict:
    ws = store.workspace("bench", owner="owner@x.org")
    names = [f"r{i}@x.org" for i in range(reviewers)]
    for who in names:
        store.set_role(ws, who, "annotator", by="owner@x.org")
    with store.Session.begin() as s:   # a run row to review (no file needed for the load)
        from core.store.models import DatasetRecord, RunRecord

        d = DatasetRecord(workspace_id=ws, fingerprint="f" * 16, name="bench", source="bench", roles={},
                          created_by="owner@x.org")
        s.add(d)
        s.flush()
        r = RunRecord(workspace_id=ws, dataset_id=d.id, key="bench", representation="-", params={}, versions={},
                      status="done", created_by="owner@x.org")
        s.add(r)
        s.flush()
        run_id = r.id
    errors = []

    def work(who):
        try:
            for i in range(reviews):
                store.review(ws, run_id, f"e{i}", "agree" if i % 4 else "remove", "bench", by=who)
        except Exception as exc:  # noqa: BLE001
            errors.append(repr(exc))

    t = time.perf_counter()
    threads = [threading.Thread(target=work, args=(who,)) for who in names]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    seconds = time.perf_counter() - t
    history = store.reviews(run_id, latest=False)
    return {"stored": len(history), "expected": reviewers * reviews, "unique_ids": bool(history["id"].is_unique),
            "errors": errors[:3], "seconds": round(seconds, 2), "writes_per_s": round(len(history) / seconds, 1)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reviewers", type=int, default=20)
    ap.add_argument("--reviews", type=int, default=1000)
    args = ap.parse_args()
    from core.store import TeamStore

    out = {"benchmark": "store", "reviewers": args.reviewers, "reviews_each": args.reviews}
    with tempfile.TemporaryDirectory() as tmp:
        out["sqlite"] = load(TeamStore(f"sqlite:///{tmp}/team.sqlite"), args.reviewers, args.reviews)
    from pg_server import PostgresMissing, postgres_server   # the tests' PostgreSQL starter

    try:
        with postgres_server() as url:
            out["postgres"] = load(TeamStore(url), args.reviewers, args.reviews)
    except PostgresMissing as exc:
        out["postgres"] = str(exc)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
