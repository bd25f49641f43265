"""Near-duplicate candidates: this tool's MinHash LSH (`core.text.duplicates`, arrays over all rows at
once) against datasketch's `MinHash` + `MinHashLSH` (the maintained library issue 57 asked to measure
before any switch), on the same rows, the same shingles and the same LSH shape (128 hashes in 32
bands of 4). Both candidate sets are checked by the same exact rule (every field's Jaccard index ≥
0.6), so what differs is the seconds and which pairs each finds. Prints one JSON line.

A third contender, ``per-field``, is the search issue 57 left for later: each field's distinct
texts are signed and banded alone (the same 32 bands of 4), their candidate text pairs checked
exactly, and a pair of rows is found when each field's two texts are the same or a found text pair
(the rows' tuples of text codes joined over each field's near texts). Rows that share a premise
then no longer collide on its wording, but which pairs LSH may miss changes: a differing field's
text pair must collide on its own wording, where the tool's signature also counts the fields the
rows share. It ignores the tool's cap on large buckets (`_STAR_ABOVE`: the groups stay the same).

The rows are certify_bench.py's: SNLI dev and MNLI dev matched recombined (``--distinct``: every
text made distinct). datasketch is not a dependency of the tool: ``pip install datasketch`` first
(without it, that contender is left out).

    python benchmarks/minhash_compare.py [--rows 100000] [--distinct] [--contenders ours,datasketch,per-field]
"""
from __future__ import annotations

import argparse
import importlib.util
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


def per_field(index, n: int):
    """(seconds, candidate text pairs over all fields, found keys i·n + j) of the per-field search
    (module docstring)."""
    import scipy.sparse as sp

    from artifact_lens.text import duplicates as D

    t = time.perf_counter()
    codes = np.stack([index._distinct[f][0] for f in index.fields], axis=1).astype(np.int64)
    near, candidates = [], 0
    for k, f in enumerate(index.fields):
        U, size = index._unique_X[f], index._unique_size[f]
        m = U.shape[0]
        keys = D._candidate_keys(D._minhash(U, D.BANDS * D.ROWS, k), size > 0)
        candidates += len(keys)
        a, b = np.divmod(keys, m)
        jac = D._pair_jaccard(U, size, a, b)
        ok = jac >= D.THRESHOLD
        # each text's near texts and itself (1 when it has wording: an empty field matches nothing)
        own = np.where(size > 0, 1.0, 0.0)
        near.append(sp.csr_matrix((np.r_[own, jac[ok], jac[ok]], (np.r_[np.arange(m), a[ok], b[ok]],
                                                                    np.r_[np.arange(m), b[ok], a[ok]])), shape=(m, m)))
    tuples, of_row = np.unique(codes, axis=0, return_inverse=True)
    of_row = of_row.ravel()
    # each tuple expanded, field by field, over its text's near texts (and itself); the smallest
    # Jaccard index over the fields kept along
    left, reach, score = np.arange(len(tuples)), tuples.copy(), np.ones(len(tuples))
    for k, M in enumerate(near):
        counts = np.diff(M.indptr)[reach[:, k]]
        step = np.repeat(np.arange(len(left)), counts)
        at = np.repeat(M.indptr[reach[:, k]], counts) + np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        left, score, reach = left[step], np.minimum(score[step], M.data[at]), reach[step]
        reach[:, k] = M.indices[at]
    radix = np.cumprod([1] + [index._unique_X[f].shape[0] for f in index.fields[:-1]]).astype(np.int64)
    known = tuples @ radix
    by_key = np.argsort(known)
    wanted = reach @ radix
    at = by_key[np.minimum(np.searchsorted(known[by_key], wanted), len(known) - 1)]
    hit = (known[at] == wanted) & (score >= D.THRESHOLD) & (at >= left)
    left, right = left[hit], at[hit]             # tuple pairs; a tuple with itself: its rows pair up
    order = np.argsort(of_row, kind="stable")
    bounds = np.searchsorted(of_row[order], np.arange(len(tuples) + 1))
    found = []
    for a, b in zip(left, right):
        ra, rb = order[bounds[a]:bounds[a + 1]], order[bounds[b]:bounds[b + 1]]
        i, j = np.repeat(ra, len(rb)), np.tile(rb, len(ra))
        keep = i < j if a == b else np.ones(len(i), bool)
        found.append(np.minimum(i, j)[keep] * n + np.maximum(i, j)[keep])
    keys = np.concatenate(found) if found else np.empty(0, np.int64)
    return time.perf_counter() - t, candidates, set(keys.tolist())


def checked(index, keys, n: int) -> set:
    """The candidate keys whose pair is at the threshold, checked in the tool's blocks (a million
    rows' 80 million candidates at once took over 24 GB)."""
    from artifact_lens.text.duplicates import _CHECK_PAIRS, THRESHOLD

    found = set()
    for lo in range(0, len(keys), _CHECK_PAIRS):
        block = keys[lo:lo + _CHECK_PAIRS]
        i, j = np.divmod(block, n)
        found.update(block[index._smallest_overlap(i, j, THRESHOLD) >= THRESHOLD].tolist())
    return found


def main(argv=None) -> int:
    from certify_bench import dataset

    from artifact_lens.text.duplicates import DuplicateIndex

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--distinct", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--contenders", default="ours,datasketch,per-field")
    args = ap.parse_args(argv)
    contenders = [c for c in args.contenders.split(",") if c]
    if importlib.util.find_spec("datasketch") is None:
        contenders = [c for c in contenders if c != "datasketch"]
    data = dataset(args.rows, args.seed, distinct=args.distinct)
    t = time.perf_counter()
    index = DuplicateIndex(data.table, list(data.text))
    shingles = time.perf_counter() - t
    n = len(index.ids)
    out = {"bench": "minhash_compare", "rows": n, "distinct": args.distinct,
           "shingles_seconds (both)": round(shingles, 1)}
    found = {}
    for name in contenders:
        if name == "per-field":
            seconds, candidates, found[name] = per_field(index, n)
            out[name] = {"seconds": round(seconds, 1), "candidate_text_pairs": int(candidates), "pairs": len(found[name])}
            continue
        seconds, keys = {"ours": ours, "datasketch": theirs}[name](index, n)
        t = time.perf_counter()
        found[name] = checked(index, keys, n)
        out[name] = {"candidates_seconds": round(seconds, 1), "candidates": int(len(keys)),
                     "check_seconds": round(time.perf_counter() - t, 1), "pairs": len(found[name])}
    if "ours" in found:   # each other contender's pairs beside the tool's
        for name in found.keys() - {"ours"}:
            out[name]["pairs_also_ours"] = len(found[name] & found["ours"])
            out[name]["only_ours"], out[name]["only_theirs"] = len(found["ours"] - found[name]), len(found[name] - found["ours"])
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
