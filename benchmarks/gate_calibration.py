"""How often `check` fails a change that changed nothing, and how often it catches a new cue
(issue 44, item 3), on the real NLI files in ../shared/data/. Prints one JSON line.

For each file (SNLI dev, MNLI dev matched):
- ``false_alarm``: ``--pairs`` random halves A and B of the file (seeds 0, 1, …), each certified
  with the defaults; the share of pairs where ``check A B`` fails (with its 95 % Clopper–Pearson
  interval), and how often each measure was the one that failed;
- ``grown``: the rows of a random half of the premises against the whole file (the data doubled
  with more of the same kind: new premises with their hypotheses), ``--grown`` times;
- ``planted``: half A against half B with "Indeed," put before the hypothesis of 1 %, 3 % and 10 %
  of B's entailment examples (``--planted`` pairs per share): the share of pairs that fail, that
  name the phrase (``indeed@hypothesis`` among the new or stronger cues), the share of the planted
  rows that ``check --rows`` lists (`core.certificate.rows.cue_rows`) and how many other rows it
  lists (examples that had the word already: MNLI has 27);
- ``filtered``: splits the tool itself cleaned, against the whole file: AFLite (m = 16, t = 10 %,
  k = 5 %, τ = 0) on each Φ of ``--filter-phi`` kept to each share of ``--filter-sizes``. A cleaned
  split is less biased, so ``check WHOLE FILTERED`` must pass at the halves' rate (issue 53);
- ``many_labels``: ``--many-pairs`` pairs of random halves of 3,000 rows of both files recombined
  (`benchmarks/certify_bench.py`) under ``--many-labels`` labels of equal size: the false alarms
  where chance is small and a feature's examples few.
- ``--device D`` (issue 57): every candidate (B, the planted and the filtered splits) is certified on
  ``D`` (`core.base.devices`: ``cuda``, or ``array-api`` for the device code on this CPU) while its
  baseline stays on the CPU, as a baseline committed from a laptop is checked by a GPU runner; and
  ``cross_device`` checks each half A certified on the CPU against the same half certified on ``D``
  (the same data: it must pass), with the largest difference of each measure in stated errors.

    python benchmarks/gate_calibration.py [--pairs 40] [--grown 10] [--planted 10] [--jobs N]
        [--files snli_dev,mnli_dev_matched] [--shares 0.01,0.03,0.1]
        [--filter-phi "tfidf-svd:fields=hypothesis;tfidf-svd;glove:fields=hypothesis"] [--filter-sizes 0.3,0.4,0.5,0.6,0.7]
        [--device array-api]

Certificates are computed in ``--jobs`` worker processes (one BLAS thread each); 2026-11 on 2
cores one SNLI half takes about 11 s.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data"


def _use_data(folder) -> None:
    """Read the files from ``folder`` (also in the worker processes, which inherit the variable)."""
    global DATA
    DATA = Path(folder)
    os.environ["GATE_BENCH_DATA"] = str(DATA)
PHRASE = "Indeed,"
ON_DEVICE = ("B", "planted", "filtered", "A@device")


def _dataset(name: str):
    from artifact_lens.data.sources import load_dataset

    return load_dataset(str(Path(os.environ.get("GATE_BENCH_DATA", DATA)) / f"{name}.jsonl"))


def _halves(ds, seed: int):
    import numpy as np

    ids = np.random.default_rng(seed).permutation(np.asarray(ds.table.index.astype(str)))
    return ids[: len(ids) // 2], ids[len(ids) // 2:]


def _stratified_halves(ds, seed: int):
    """Random halves holding half of each label's rows (so that every label has the folds' examples)."""
    import numpy as np

    rng, a, b = np.random.default_rng(seed), [], []
    for _, ids in ds.table.groupby(ds.label, sort=True).groups.items():
        ids = rng.permutation(np.asarray(ids).astype(str))
        a.extend(ids[: len(ids) // 2])
        b.extend(ids[len(ids) // 2:])
    return a, b


def _by_premise(ds, seed: int):
    """The rows of a random half of the premises (with all their hypotheses): a dataset that grows
    by more of the same kind gains new premises, not the other halves of its groups."""
    import numpy as np

    premises = ds.table["premise"].astype(str)
    chosen = set(np.random.default_rng(20_000 + seed).permutation(premises.unique())[: premises.nunique() // 2])
    return np.asarray(ds.table.index.astype(str))[premises.isin(chosen).to_numpy()]


def _planted(ds, ids, share: float, seed: int):
    """The rows ``ids`` of ``ds`` with PHRASE before ``share`` of their entailment hypotheses:
    (the dataset, the planted ids)."""
    import dataclasses

    import numpy as np

    table = ds.table.loc[list(ids)].copy()
    entail = np.flatnonzero(table[ds.label].astype(str).to_numpy() == "entailment")
    chosen = np.random.default_rng(10_000 + seed).choice(entail, size=max(1, round(share * len(entail))), replace=False)
    col = table.columns.get_loc("hypothesis")
    table.iloc[chosen, col] = [f"{PHRASE} {h}" for h in table.iloc[chosen, col]]
    return dataclasses.replace(ds, table=table, name=f"{ds.name}+planted"), [str(i) for i in table.index[chosen]]


def _filtered(ds, phi: str, size: float):
    """The rows AFLite keeps of ``ds`` on Φ ``phi`` down to ``size`` of it (the tool's own cleaning)."""
    import numpy as np

    from artifact_lens.representations import represent
    from artifact_lens.results.runs import fit_run

    run = fit_run(ds, represent(ds, phi), dict(n_partitions=16, train_size=0.1, slice_size=0.05, tau=0.0,
                                                target_size=size, random_state=0))
    return np.asarray(run.ids)[run.retained].astype(str)


def _certify(job):
    """One certificate in a worker: ``job`` = (file, kind, seed, share); a filtered split's ``seed``
    is its Φ and ``share`` the size it is kept to."""
    import functools

    from artifact_lens.certificate.measures import certify

    name, kind, seed, share = job
    if kind in ON_DEVICE and os.environ.get("GATE_BENCH_DEVICE"):
        # the candidates (and the device's copy of A) computed on --device, with a Φ cache of their
        # own: a Φ cached by the CPU would be read back, as a user's is, and the device's SVD skipped
        certify = functools.partial(certify, device=os.environ["GATE_BENCH_DEVICE"],
                                    cache_dir=os.environ["GATE_BENCH_DEVICE_CACHE"])
    if kind.startswith("many"):   # (file "many", kind "manyA"/"manyB", seed, labels)
        from certify_bench import dataset

        many = dataset(3000, seed, Path(os.environ.get("GATE_BENCH_DATA", DATA)), labels=int(share))
        half = _stratified_halves(many, seed)[0 if kind == "manyA" else 1]
        return job, certify(many.subset(half)), None
    ds = _dataset(name)
    if kind == "filtered":
        return job, certify(ds.subset(_filtered(ds, seed, share))), None
    a, b = _halves(ds, seed)
    if kind == "whole":
        return job, certify(ds), None
    if kind == "premises":
        return job, certify(ds.subset(_by_premise(ds, seed))), None
    if kind == "planted":
        planted, ids = _planted(ds, b, share, seed)
        return job, certify(planted), ids
    return job, certify(ds.subset(a if kind in ("A", "A@device") else b)), None


def _cross_device(cert: dict, name: str, pairs: int) -> dict:
    """Each half A certified on the CPU (the baseline) against the same half certified on the device:
    how many checks fail (it must be none) and each measure's largest difference in stated errors."""
    from artifact_lens.certificate.gate import compare

    failed, largest = [], {}
    for s in range(pairs):
        cpu, device = cert[(name, "A", s, 0.0)], cert[(name, "A@device", s, 0.0)]
        table = compare(cpu, device)
        failed += table.loc[table["ok"] == False, "measure"].tolist()   # noqa: E712
        for m, a_ in cpu["measures"].items():
            b_ = device["measures"].get(m) or {}
            if a_.get("stderr") and a_["value"] is not None and b_.get("value") is not None:
                z = abs(b_["value"] - a_["value"]) / a_["stderr"]
                largest[m] = max(largest.get(m, 0.0), float(f"{z:.2g}"))
    return {"pairs": pairs, "failed": len(failed), "measures_failed": sorted(set(failed)),
            "largest_difference_in_stated_errors": dict(sorted(largest.items()))}


def _interval(k: int, n: int) -> list:
    from scipy.stats import beta

    low = 0.0 if k == 0 else float(beta.ppf(0.025, k, n - k + 1))
    high = 1.0 if k == n else float(beta.ppf(0.975, k + 1, n - k))
    return [round(low, 4), round(high, 4)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=40)
    ap.add_argument("--grown", type=int, default=10)
    ap.add_argument("--planted", type=int, default=10)
    ap.add_argument("--shares", default="0.01,0.03,0.1")
    ap.add_argument("--files", default="snli_dev,mnli_dev_matched")
    ap.add_argument("--filter-phi", default="tfidf-svd:fields=hypothesis;tfidf-svd;glove:fields=hypothesis",
                    help="the Φ of the filtered splits, separated by ';'")
    ap.add_argument("--filter-sizes", default="0.3,0.4,0.5,0.6,0.7")
    ap.add_argument("--many-labels", type=int, default=250)
    ap.add_argument("--many-pairs", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) - 1))
    ap.add_argument("--data-dir", default=str(DATA), help="where snli_dev.jsonl and mnli_dev_matched.jsonl are "
                    "(default ../shared/data)")
    ap.add_argument("--device", default="", help="certify the candidates on this device (their baselines on the CPU)")
    args = ap.parse_args()
    _use_data(args.data_dir)
    os.environ["GATE_BENCH_DEVICE"] = args.device
    scratch = tempfile.TemporaryDirectory(prefix="gate-calibration-device-")   # removed at exit
    os.environ["GATE_BENCH_DEVICE_CACHE"] = scratch.name
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"   # the workers run side by side
    from artifact_lens.certificate.gate import compare
    from artifact_lens.certificate.rows import cue_rows

    shares = [float(s) for s in args.shares.split(",") if s]
    out = {"bench": "gate_calibration", "jobs": args.jobs, "cpus": os.cpu_count(), "phrase": PHRASE,
           "candidates_on": args.device or "cpu"}
    t0 = time.perf_counter()
    for name in [f for f in args.files.split(",") if f]:
        jobs = [(name, k, s, 0.0) for s in range(args.pairs) for k in ("A", "B")] + [(name, "whole", 0, 0.0)]
        jobs += [(name, "premises", s, 0.0) for s in range(args.grown)]
        jobs += [(name, "planted", s, sh) for sh in shares for s in range(args.planted)]
        phis, sizes = [p for p in args.filter_phi.split(";") if p], [float(v) for v in args.filter_sizes.split(",") if v]
        jobs += [(name, "filtered", phi, size) for phi in phis for size in sizes]
        jobs += [(name, "A@device", s, 0.0) for s in range(args.pairs)] if args.device else []
        t = time.perf_counter()
        with ProcessPoolExecutor(args.jobs) as pool:
            done = {job: (cert, ids) for job, cert, ids in pool.map(_certify, jobs)}
        ds = _dataset(name)
        cert = {k: v[0] for k, v in done.items()}
        failed, by_measure = 0, {}
        for s in range(args.pairs):
            table = compare(cert[(name, "A", s, 0.0)], cert[(name, "B", s, 0.0)])
            broken = table.loc[table["ok"] == False, "measure"].tolist()   # noqa: E712
            failed += bool(broken)
            for m in broken:
                by_measure[m] = by_measure.get(m, 0) + 1
        grown = [compare(cert[(name, "premises", s, 0.0)], cert[(name, "whole", 0, 0.0)]) for s in range(args.grown)]
        grown_failed = [t.loc[t["ok"] == False, "measure"].tolist() for t in grown]   # noqa: E712
        planted = {}
        for sh in shares:
            caught = named = 0
            recall, extra = [], []
            for s in range(args.planted):
                cand, ids = done[(name, "planted", s, sh)]
                table = compare(cert[(name, "A", s, 0.0)], cand)
                caught += bool((table["ok"] == False).any())   # noqa: E712
                cues = table.attrs["cues"]
                hit = cues is not None and "indeed@hypothesis" in set(cues["feature"])
                named += hit
                if hit:
                    rows = cue_rows(_planted(ds, _halves(ds, s)[1], sh, s)[0], cues[cues["feature"] == "indeed@hypothesis"])
                    listed = set(rows["id"].astype(str))
                    recall.append(len(listed & set(ids)) / len(ids))
                    extra.append(len(listed - set(ids)))
            planted[f"{sh:g}"] = {"pairs": args.planted, "planted_rows": len(ids), "failed": caught / args.planted,
                                  "phrase_named": named / args.planted,
                                  "planted_rows_listed": round(sum(recall) / len(recall), 4) if recall else None,
                                  "other_rows_listed": round(sum(extra) / len(extra), 1) if extra else None}
        filtered = {}
        for phi in phis:
            for size in sizes:
                table = compare(cert[(name, "whole", 0, 0.0)], cert[(name, "filtered", phi, size)])
                filtered[f"{phi} to {size:g}"] = table.loc[table["ok"] == False, "measure"].tolist()   # noqa: E712
        # the measures' differences between halves in units of their stated uncertainty: a
        # calibrated measure has a spread of about 1
        spread = {}
        for s in range(args.pairs):
            a_, b_ = cert[(name, "A", s, 0.0)]["measures"], cert[(name, "B", s, 0.0)]["measures"]
            for m in a_:
                if m in b_ and a_[m]["stderr"] and b_[m]["stderr"] and a_[m]["value"] is not None \
                        and b_[m]["value"] is not None and not m.startswith("zstats."):
                    spread.setdefault(m, []).append((b_[m]["value"] - a_[m]["value"])
                                                    / (a_[m]["stderr"] ** 2 + b_[m]["stderr"] ** 2) ** 0.5)
        out[name] = {
            "halves_difference_sd_in_stated_errors": {m: round(float(sum(v * v for v in z) / len(z)) ** 0.5, 2)
                                                      for m, z in spread.items()},
            "rows": len(ds), "half": len(ds) // 2,
            "false_alarm": {"pairs": args.pairs, "failed": failed, "rate": round(failed / max(args.pairs, 1), 4),
                            "ci95": _interval(failed, args.pairs), "by_measure": by_measure},
            "grown": {"pairs": len(grown), "failed": sum(bool(g) for g in grown_failed),
                      "measures_failed": sorted({m for g in grown_failed for m in g})},
            "planted": planted,
            "filtered": {"splits": len(filtered), "failed": sum(bool(v) for v in filtered.values()),
                         "ci95": _interval(sum(bool(v) for v in filtered.values()), max(len(filtered), 1)),
                         "measures_failed": {k: v for k, v in filtered.items() if v}},
            "seconds": round(time.perf_counter() - t, 1)}
        if args.device:
            out[name]["cross_device"] = _cross_device(cert, name, args.pairs)
    if args.many_pairs:
        jobs = [("many", k, s, float(args.many_labels)) for s in range(args.many_pairs) for k in ("manyA", "manyB")]
        with ProcessPoolExecutor(args.jobs) as pool:
            done = {job: cert for job, cert, _ in pool.map(_certify, jobs)}
        broken = [compare(done[("many", "manyA", s, float(args.many_labels))],
                          done[("many", "manyB", s, float(args.many_labels))]) for s in range(args.many_pairs)]
        failed = sum(bool((t["ok"] == False).any()) for t in broken)   # noqa: E712
        out["many_labels"] = {"labels": args.many_labels, "rows": 3000, "pairs": args.many_pairs, "failed": failed,
                              "ci95": _interval(failed, args.many_pairs)}
    out["seconds"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
