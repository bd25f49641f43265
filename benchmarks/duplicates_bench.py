"""Near-duplicates (`core.text.duplicates`) on SNLI dev: how well shared wording finds one-word edits.

For 400 sampled pairs, a one-word edit of the hypothesis (a word dropped, replaced by a common
word, or inserted) is a positive; another example drawn at random is a negative. Prints one JSON
line: recall and precision at `THRESHOLD` and nearby thresholds, how many of the dataset's own
pairs pass the threshold against each sample (SNLI's minimal pairs: same premise, one word
changed), and milliseconds per query. Dataset-wide (`DuplicateIndex.pairs`, MinHash LSH then an
exact check): its seconds, the pairs found, and its recall against every pair the exact
per-example query finds (``--exact``, one query per example: about 40 s on SNLI dev).

    python benchmarks/duplicates_bench.py [--data ../shared/data/snli_dev.jsonl] [--samples 400] [--exact]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from artifact_lens.text.duplicates import THRESHOLD, DuplicateIndex  # noqa: E402
from artifact_lens.data.sources import load_dataset  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data",
                                                   "snli_dev.jsonl"))
    ap.add_argument("--samples", type=int, default=400)
    ap.add_argument("--exact", action="store_true", help="also find every pair exactly, for the LSH recall")
    args = ap.parse_args()
    ds = load_dataset(args.data)
    table, fields = ds.table, list(ds.text)
    index = DuplicateIndex(table, fields)
    rng = np.random.default_rng(0)
    vocab = pd.Series(" ".join(table[fields[-1]].astype(str)).split()).value_counts().index[:2000].tolist()
    pos, neg, own, seconds = [], [], [], []
    for i in rng.choice(len(table), args.samples, replace=False):
        ex = {f: str(table.iloc[i][f]) for f in fields}
        words = ex[fields[-1]].split()
        k, kind = int(rng.integers(len(words))), int(rng.integers(3))
        if kind == 0 and len(words) > 1:
            words.pop(k)
        elif kind == 1:
            words[k] = vocab[int(rng.integers(len(vocab)))]
        else:
            words.insert(k, vocab[int(rng.integers(len(vocab)))])
        edited = dict(ex, **{fields[-1]: " ".join(words)})
        t0 = time.perf_counter()
        scores = index.overlap(edited)
        seconds.append(time.perf_counter() - t0)
        pos.append(scores[i])
        j = int(rng.integers(len(table) - 1))
        neg.append(scores[j + (j >= i)])
        mine = index.overlap(ex)
        mine[i] = -1
        own.append(mine.max())
    pos, neg, own = map(np.asarray, (pos, neg, own))
    at = {}
    for th in (0.5, THRESHOLD, 0.7, 0.8):
        tp, fp = int((pos >= th).sum()), int((neg >= th).sum())
        at[str(th)] = {"recall": round(tp / len(pos), 3), "precision_vs_random_pairs": round(tp / max(tp + fp, 1), 3),
                       "samples_with_a_dataset_pair_above": int((own >= th).sum())}
    # the word rule (DuplicateIndex.near with labels): the longest word of the hypothesis replaced, the
    # label kept, is a positive; the dataset's own examples one word away (SNLI's minimal pairs) are
    # counted by label: the same label is called a copy, another label is not
    labelled = DuplicateIndex(table, fields, label=ds.label)
    longest = {"found_by_wording": 0, "found_by_one_word": 0, "missed": 0}
    own_pairs = {"same_label_flagged": 0, "one_word_apart_any_label": 0}
    for i in rng.choice(len(table), args.samples, replace=False):
        ex = {f: str(table.iloc[i][f]) for f in fields}
        ex[ds.label] = str(table.iloc[i][ds.label])
        words = ex[fields[-1]].split()
        at_longest = max(range(len(words)), key=lambda w: len(words[w]))
        words[at_longest] = vocab[int(rng.integers(len(vocab)))]
        hits = {h["id"]: h["how"] for h in labelled.near(dict(ex, **{fields[-1]: " ".join(words)}), k=50)}
        how = hits.get(str(index.ids[i]))
        longest["missed" if how is None else "found_by_wording" if how == "wording" else "found_by_one_word"] += 1
        for other in labelled.near(ex, k=50):   # the dataset's own near-duplicates of this example
            if other["id"] != str(index.ids[i]) and other["how"] == "one word":
                own_pairs["same_label_flagged"] += 1
        own_pairs["one_word_apart_any_label"] += sum(o["id"] != str(index.ids[i]) and o["how"] == "one word"
                                                     for o in index.near(ex, k=50))   # no labels: no label rule
    t0 = time.perf_counter()
    found = DuplicateIndex(table, fields).pairs()
    wide = {"seconds": round(time.perf_counter() - t0, 2), "pairs": int(len(found))}
    if args.exact:
        exact = set()
        for i in range(len(table)):
            scores = index.overlap({f: str(table.iloc[i][f]) for f in fields})
            exact |= {(i, j) for j in np.flatnonzero(scores[i + 1:] >= THRESHOLD) + i + 1}
        pos_of = {v: k for k, v in enumerate(index.ids)}
        got = {tuple(sorted((pos_of[a], pos_of[b]))) for a, b in zip(found["a"], found["b"])}
        wide.update(exact_pairs=len(exact), lsh_recall=round(len(got & exact) / max(len(exact), 1), 4),
                    not_exact=len(got - exact))
    print(json.dumps({"benchmark": "duplicates", "data": os.path.basename(args.data), "examples": len(table),
                      "samples": args.samples, "threshold": THRESHOLD, "at": at,
                      "ms_per_query_median": round(1000 * float(np.median(seconds)), 2),
                      "longest_word_replaced": longest, "own_one_word_pairs": own_pairs, "dataset_wide": wide}))


if __name__ == "__main__":
    main()
