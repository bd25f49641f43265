"""Near-duplicate candidates: this tool's MinHash LSH (`core.text.duplicates`, arrays over all rows at
once) against datasketch's `MinHash` + `MinHashLSH` (the maintained library issue 57 asked to measure
before any switch), on the same rows, the same shingles and the same LSH shape (128 hashes in 32
bands of 4). Both candidate sets are checked by the same exact rule (every field's Jaccard index ≥
0.6), so what differs is the seconds and which pairs each finds. Prints one JSON line.

The rows are certify_bench.py's: SNLI dev and MNLI dev matched recombined (``--distinct``: every
text made distinct). datasketch is not a dependency of the tool: ``pip install datasketch`` first.

    python benchmarks/minhash_compare.py [--rows 100000] [--distinct]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))


def ours(index, n: int):
    """(seconds, candidate keys i·n + j) of the tool's signatures and bands."""
    from artifact_lens.text import duplicates as D

    t = time.perf_counter()
    sig, has = None, np.zeros(n, dtype=bool)
    for k, f in enumerate(index.fields):
        codes, _ = index._distinct[f]
        part = D._minhash(index._unique_X[f], D.BANDS * D.ROWS, 0, offset=k * D._BUCKETS)[codes]
        sig = part if sig is None else np.minimum(sig, part)
        has |= index._size[f] > 0
    keys = D._candidate_keys(sig, has)
    return time.perf_counter() - t, keys


def theirs(index, n: int):
    """(seconds, candidate keys) of datasketch: one MinHash per row over the same shingle ids,
    inserted into a MinHashLSH of 32 bands × 4, then each row queried."""
    from datasketch import MinHash, MinHashLSH
    from artifact_lens.text import duplicates as D

    t = time.perf_counter()
    rows = [index._X[f] for f in index.fields]
    lsh = MinHashLSH(num_perm=D.BANDS * D.ROWS, params=(D.BANDS, D.ROWS))
    signed = []
    for r in range(n):
        ids = np.concatenate([X.indices[X.indptr[r]:X.indptr[r + 1]] + k * D._BUCKETS for k, X in enumerate(rows)])
        if not len(ids):
            signed.append(None)
            continue
        mh = MinHash(num_perm=D.BANDS * D.ROWS, seed=0, hashfunc=int)
        mh.update_batch(ids.tolist())
        lsh.insert(r, mh, check_duplication=False)
        signed.append(mh)
    pairs = set()
    for r, mh in enumerate(signed):
        if mh is not None:
            pairs.update(min(r, o) * n + max(r, o) for o in lsh.query(mh) if o != r)
    return time.perf_counter() - t, np.array(sorted(pairs), dtype=np.int64)


def checked(index, keys, n: int) -> set:
    from artifact_lens.text.duplicates import THRESHOLD

    i, j = np.divmod(keys, n)
    keep = index._smallest_overlap(i, j, THRESHOLD) >= THRESHOLD
    return set(keys[keep].tolist())


def main(argv=None) -> int:
    from certify_bench import dataset

    from artifact_lens.text.duplicates import DuplicateIndex

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--distinct", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    data = dataset(args.rows, args.seed, distinct=args.distinct)
    t = time.perf_counter()
    index = DuplicateIndex(data.table, list(data.text))
    shingles = time.perf_counter() - t
    n = len(index.ids)
    out = {"bench": "minhash_compare", "rows": n, "distinct": args.distinct,
           "shingles_seconds (both)": round(shingles, 1)}
    found = {}
    for name, run in (("ours", ours), ("datasketch", theirs)):
        seconds, keys = run(index, n)
        t = time.perf_counter()
        found[name] = checked(index, keys, n)
        out[name] = {"candidates_seconds": round(seconds, 1), "candidates": int(len(keys)),
                     "check_seconds": round(time.perf_counter() - t, 1), "pairs": len(found[name])}
    both = found["ours"] & found["datasketch"]
    out["pairs_found_by_both"] = len(both)
    out["only_ours"], out["only_datasketch"] = len(found["ours"] - both), len(found["datasketch"] - both)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
