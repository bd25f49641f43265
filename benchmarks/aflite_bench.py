"""AFLite benchmark: the engine against a straightforward implementation, plus quality.

Prints one JSON line. Sections (``--only``, comma-separated; default all):

- ``speed``: one filtering phase at 20k × 768, 3 classes, t = 10 %, m = 16 and
  m = 64: the straightforward implementation (written here: one scikit-learn
  ``LogisticRegression`` per partition, as the public reimplementations do) against
  the engine on the same data and parameters (engine default family, and with
  ``max_dim=None`` to show what the recorded PCA step buys).
- ``whole20k``: a whole run at 20k × 768, m = 16, t = 10 %, k = 10 %, τ = 0, to 50 %
  at full dimension: the straightforward implementation against the engine (one
  thread, and ``n_jobs=2``) and the engine with a PCA-256 step, in one run; says
  whether the thread count changed the result (it must not).
- ``full100k``: a full engine run on 100k × 768, m = 64, t = 10 %, k = 1 %, τ = 0,
  down to 50 % (default ``max_dim``: all 768 dimensions) for each ``--jobs`` value;
  its peak memory relative to X; ``retained_for`` latency.
- ``quality``: the circles experiment of paper 000 §3 (4,000 points, separation
  0.5, 8 bias dims, 75 % biased; m = 64, t = 10 %, k = 5 %, τ = 0, to 30 %) for the
  engine's families and the straightforward implementation, plus the random-subset
  and single-model baselines.
- ``snli``: SNLI dev, hypothesis-only TF-IDF/SVD-128, filtered to 30 % (m = 64,
  t = 10 %, k = 1 %, τ = 0): 5-fold hypothesis-only LR accuracy before and after;
  with ``--reduction-check`` also SVD-768 with and without the PCA step.

``--quick`` shrinks every size for a smoke run (a minute or two).

Run from the project root::

    python benchmarks/aflite_bench.py                 # everything, issue sizes (~10 min)
    python benchmarks/aflite_bench.py --quick
    python benchmarks/aflite_bench.py --only speed,quality
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from artifact_lens.aflite import AFLite, random_subset, single_model_filter  # noqa: E402


# --------------------------------------------------------------------------- straightforward

def straightforward_phase_scores(X, y, S, m, t, rng):
    """p̃ for the members of S: m random partitions, one LogisticRegression each."""
    from sklearn.linear_model import LogisticRegression

    correct = np.zeros(len(S))
    total = np.zeros(len(S))
    for _ in range(m):
        perm = rng.permutation(len(S))
        tr, te = perm[:t], perm[t:]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clf = LogisticRegression().fit(X[S[tr]], y[S[tr]])
        correct[te] += clf.predict(X[S[te]]) == y[S[te]]
        total[te] += 1
    with np.errstate(invalid="ignore"):
        return np.where(total > 0, correct / np.maximum(total, 1), np.nan)


def straightforward_aflite(X, y, m, t, k, tau, n, seed=0, max_phases=None):
    """Algorithm 1 as usually reimplemented; returns (retained mask, seconds per phase)."""
    rng = np.random.default_rng(seed)
    S = np.arange(len(y))
    times = []
    while len(S) > n:
        t0 = time.perf_counter()
        p = straightforward_phase_scores(X, y, S, m, t, rng)
        passing = np.flatnonzero(p >= tau)
        order = passing[np.argsort(-p[passing], kind="stable")]
        r = min(k, len(S) - n, len(order))
        S = np.delete(S, order[:r])
        times.append(time.perf_counter() - t0)
        if len(order) < k or len(S) <= n or (max_phases and len(times) >= max_phases):
            break
    keep = np.zeros(len(y), dtype=bool)
    keep[S] = True
    return keep, times


class RssSampler:
    """Peak resident memory of this process while the block runs (sampled every 5 ms).

    The engine's memory is measured as the peak minus the resident size at the start
    (X and the inputs already in memory), i.e. what the fit adds on top of X.
    """

    def __init__(self, interval=0.005):
        self.interval, self.peak, self.start = interval, 0, 0

    @staticmethod
    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    def _run(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, self.rss())
            self._stop.wait(self.interval)

    def __enter__(self):
        import threading

        self.start = self.peak = self.rss()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self.rss())
        return False


# --------------------------------------------------------------------------- data

def embedding_like(N, d, n_classes=3, seed=0):
    """Anisotropic, correlated features with a class signal on 60 % of the rows."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, N)
    rank = 64
    mix = (rng.standard_normal((rank, d)) / np.sqrt(rank)).astype(np.float32)
    X = np.empty((N, d), dtype=np.float32)
    centers = rng.standard_normal((n_classes, rank)).astype(np.float32) * 0.35
    has = rng.random(N) < 0.6
    for lo in range(0, N, 20000):
        hi = min(N, lo + 20000)
        lat = rng.standard_normal((hi - lo, rank), dtype=np.float32)
        lat += centers[y[lo:hi]] * has[lo:hi, None]
        X[lo:hi] = lat @ mix + 0.5 * rng.standard_normal((hi - lo, d), dtype=np.float32)
    return X, y


def circles(n=4000):
    from artifact_lens.data.demos import make_circles

    ds = make_circles(n=n, separation=0.5, bias_dims=8, bias_share=0.75, random_state=0)
    X = np.stack(ds.table["features"].to_numpy()).astype(np.float32)
    return X, ds.y, ds.table["biased"].to_numpy()


def snli_hypothesis(dim=128, limit=None):
    path = ROOT.parent / "shared" / "data" / "snli_dev.jsonl"
    if not path.exists():
        return None
    try:
        import tempfile

        from artifact_lens.representations import represent
        from artifact_lens.data.sources import load_dataset

        ds = load_dataset(str(path), text=["premise", "hypothesis"], label="label")
        if limit:
            ds = ds.subset(ds.ids[:limit])
        with tempfile.TemporaryDirectory() as tmp:
            rep = represent(ds, f"tfidf-svd:fields=hypothesis,dim={dim}", cache_dir=tmp)
        y = ds.table.loc[rep.ids, ds.label].to_numpy()
        return rep.X.astype(np.float32), y, rep.spec
    except ImportError:
        import pandas as pd
        from sklearn.decomposition import TruncatedSVD
        from sklearn.feature_extraction.text import TfidfVectorizer

        df = pd.read_json(path, lines=True)
        df = df[df.label.isin(["entailment", "neutral", "contradiction"])]
        if limit:
            df = df.iloc[:limit]
        M = TfidfVectorizer(ngram_range=(1, 2), min_df=2).fit_transform(df.hypothesis)
        X = TruncatedSVD(dim, random_state=0).fit_transform(M).astype(np.float32)
        return X, df.label.to_numpy(), f"sklearn tfidf(1-2,min_df=2)+svd{dim}"


def cv_lr(X, y):
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return round(float(cross_val_score(LogisticRegression(max_iter=1000), X, y, cv=5).mean()), 4)


def cv_rbf(X, y):
    from sklearn.model_selection import cross_val_score
    from sklearn.svm import SVC

    return round(float(cross_val_score(SVC(kernel="rbf"), X, y, cv=5).mean()), 4)


# --------------------------------------------------------------------------- sections

def bench_speed(quick):
    N, d = (4000, 768) if quick else (20000, 768)
    X, y = embedding_like(N, d)
    t = int(0.1 * N)
    k = int(0.01 * N)
    out = {"N": N, "d": d, "classes": 3, "t": t}
    ms = (4, 16) if quick else (16, 64)
    for m in ms:
        row = {}
        # The straightforward phase with one BLAS thread (much faster on a busy 2-core
        # machine) and, for the first m, with the default threads; the fastest counts.
        from threadpoolctl import threadpool_limits

        configs = (("default_threads", None), ("one_thread", 1)) if m == ms[0] else (("one_thread", 1),)
        for label, limit in configs:
            with threadpool_limits(limit):
                t0 = time.perf_counter()
                straightforward_phase_scores(X, y, np.arange(N), m, t, np.random.default_rng(0))
                row[f"straightforward_phase_s_{label}"] = round(time.perf_counter() - t0, 3)
        row["straightforward_phase_s"] = min(v for key, v in row.items() if key.startswith("straightforward"))
        for label, max_dim in (("engine", 256), ("engine_no_reduction", None)):
            af = AFLite(n_partitions=m, train_size=t, slice_size=k, tau=0.0, target_size=N - 2 * k,
                        max_dim=max_dim, random_state=0)
            t0 = time.perf_counter()
            af.fit(X, y)
            total = time.perf_counter() - t0
            phases = [h["seconds"] for h in af.history_]
            row[f"{label}_fit_s"] = round(total, 3)                        # includes setup (PCA)
            row[f"{label}_phase_s"] = round(float(np.median(phases)), 4)    # median over 2 phases
            row[f"{label}_setup_s"] = round(total - sum(phases), 3)
            row[f"{label}_speedup_per_phase"] = round(row["straightforward_phase_s"] / row[f"{label}_phase_s"], 1)
            row[f"{label}_speedup_first_phase_incl_setup"] = round(
                row["straightforward_phase_s"] / (row[f"{label}_setup_s"] + phases[0]), 1)
        out[f"m={m}"] = row
    return out


def bench_whole20k(quick):
    N, d = (4000, 768) if quick else (20000, 768)
    X, y = embedding_like(N, d)
    m, t, k, n = 16, int(0.1 * N), int(0.1 * N), N // 2
    out = {"N": N, "d": d, "m": m, "t": t, "k": k, "n": n}
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):      # one BLAS thread: the straightforward run's fastest here
        t0 = time.perf_counter()
        _, times = straightforward_aflite(X, y, m, t, k, 0.0, n)
        out["straightforward_s"] = round(time.perf_counter() - t0, 2)
        out["straightforward_phases"] = len(times)
    retained = {}
    for label, kw in (("engine_full", dict(max_dim=None)), ("engine_full_2_threads", dict(max_dim=None, n_jobs=2)),
                      ("engine_pca256", dict(max_dim=256))):
        af = AFLite(n_partitions=m, train_size=t, slice_size=k, tau=0.0, target_size=n, random_state=0, **kw)
        t0 = time.perf_counter()
        af.fit(X, y)
        out[f"{label}_s"] = round(time.perf_counter() - t0, 3)
        out[f"{label}_speedup"] = round(out["straightforward_s"] / out[f"{label}_s"], 1)
        retained[label] = af.retained_
    out["full_over_pca256"] = round(out["engine_full_s"] / out["engine_pca256_s"], 2)
    out["threads_same_result"] = bool(np.array_equal(retained["engine_full"], retained["engine_full_2_threads"]))
    return out


def bench_full100k(quick, jobs=(1,)):
    N, d = (20000, 768) if quick else (100000, 768)
    X, y = embedding_like(N, d, seed=1)
    out, retained = {}, []
    for n_jobs in jobs:
        row = _full_run(X, y, n_jobs)
        retained.append(row.pop("_retained"))
        out[f"n_jobs={n_jobs}"] = row
    out["same_result_for_every_n_jobs"] = all(np.array_equal(retained[0], r) for r in retained)
    return out


def _full_run(X, y, n_jobs):
    N, d = X.shape
    af = AFLite(n_partitions=64, train_size=0.1, slice_size=0.01, tau=0.0, target_size=0.5,
                random_state=0, n_jobs=n_jobs)
    sampler = RssSampler()
    with sampler:
        t0 = time.perf_counter()
        af.fit(X, y)
        seconds = time.perf_counter() - t0
    extra = sampler.peak - sampler.start
    lat = []
    queries = [(0.5, 0.6), (0.7, 0.5), (0.6, 0.75), (0.0, 0.55), (0.9, 0.5)]
    for tau, n in queries * 4:
        t1 = time.perf_counter()
        af.retained_for(tau=tau, target_size=n)
        lat.append(time.perf_counter() - t1)
    return {
        "N": N, "d": d, "m": 64, "t": af.t_, "k": af.k_, "n": af.n_, "phases": af.n_phases_,
        "fit_s": round(seconds, 2),
        "phase_s_median": round(float(np.median([h["seconds"] for h in af.history_])), 3),
        "setup_s": round(seconds - sum(h["seconds"] for h in af.history_), 2),
        "retained": int(af.retained_.sum()),
        "X_MB": round(X.nbytes / 2**20, 1),
        "fit_peak_extra_rss_MB": round(extra / 2**20, 1),
        "peak_over_X": round(extra / X.nbytes, 2),
        "retained_for_ms_median": round(1000 * float(np.median(lat)), 2),
        "retained_for_ms_max": round(1000 * float(np.max(lat)), 2),
        "reduction": af.reduction_,
        "_retained": af.retained_,
    }


def _quality_row(X, y, biased, keep):
    return {"retained": int(keep.sum()), "biased_share": round(float(biased[keep].mean()), 4),
            "lr_5fold_acc": cv_lr(X[keep], y[keep]), "rbf_xy_5fold_acc": cv_rbf(X[keep][:, :2], y[keep])}


def bench_quality(quick, families):
    X, y, biased = circles(1000 if quick else 4000)
    m = 16 if quick else 64
    out = {"N": len(y), "params": {"m": m, "t": 0.1, "k": 0.05, "tau": 0.0, "n": 0.3},
           "full": _quality_row(X, y, biased, np.ones(len(y), bool))}
    for fam in families:
        t0 = time.perf_counter()
        af = AFLite(n_partitions=m, train_size=0.1, slice_size=0.05, tau=0.0, target_size=0.3,
                    model=fam, random_state=0).fit(X, y)
        row = _quality_row(X, y, biased, af.retained_)
        row["seconds"] = round(time.perf_counter() - t0, 2)
        out[f"engine_{fam}"] = row
    t0 = time.perf_counter()
    keep, _ = straightforward_aflite(X, y, m, int(0.1 * len(y)), int(0.05 * len(y)), 0.0, int(0.3 * len(y)))
    row = _quality_row(X, y, biased, keep)
    row["seconds"] = round(time.perf_counter() - t0, 2)
    out["straightforward"] = row
    n = int(0.3 * len(y))
    out["random_subset"] = _quality_row(X, y, biased, random_subset(len(y), n, random_state=0))
    out["single_model"] = _quality_row(X, y, biased, single_model_filter(X, y, n))
    return out


def bench_snli(quick, families, reduction_check):
    data = snli_hypothesis(128, limit=3000 if quick else None)
    if data is None:
        return {"skipped": "../shared/data/snli_dev.jsonl not found"}
    X, y, spec = data
    m = 16 if quick else 64
    out = {"N": len(y), "representation": spec, "params": {"m": m, "t": 0.1, "k": 0.01, "tau": 0.0, "n": 0.3},
           "full_acc": cv_lr(X, y)}
    for fam in families:
        t0 = time.perf_counter()
        af = AFLite(n_partitions=m, train_size=0.1, slice_size=0.01, tau=0.0, target_size=0.3,
                    model=fam, random_state=0).fit(X, y)
        out[f"engine_{fam}"] = {"retained": int(af.retained_.sum()), "acc": cv_lr(X[af.retained_], y[af.retained_]),
                                "phases": af.n_phases_, "seconds": round(time.perf_counter() - t0, 2)}
    keep = random_subset(len(y), 0.3, random_state=0)
    out["random_subset_acc"] = cv_lr(X[keep], y[keep])
    if reduction_check:
        big = snli_hypothesis(768, limit=3000 if quick else None)
        Xb, yb, specb = big
        rc = {"representation": specb, "full_acc": cv_lr(Xb, yb)}
        for label, max_dim in (("pca256", 256), ("no_reduction", None)):
            t0 = time.perf_counter()
            af = AFLite(n_partitions=m, train_size=0.1, slice_size=0.01, tau=0.0, target_size=0.3,
                        max_dim=max_dim, random_state=0).fit(Xb, yb)
            rc[label] = {"acc": cv_lr(Xb[af.retained_], yb[af.retained_]),
                         "seconds": round(time.perf_counter() - t0, 2)}
            rc.setdefault("_masks", []).append(af.retained_)
        a, b = rc.pop("_masks")
        rc["retained_overlap_jaccard"] = round(float((a & b).sum() / (a | b).sum()), 4)
        out["reduction_check_svd768"] = rc
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes for a smoke run")
    ap.add_argument("--only", default="speed,whole20k,full100k,quality,snli",
                    help="comma-separated sections: speed, whole20k, full100k, quality, snli")
    ap.add_argument("--jobs", default="1,2", help="full100k: the n_jobs values to run (comma-separated)")
    ap.add_argument("--families", default="ridge,logistic",
                    help="engine families for the quality/snli sections (e.g. ridge,logistic,svm,ensemble)")
    ap.add_argument("--snli-families", default="ridge", help="engine families for the snli section")
    ap.add_argument("--reduction-check", action="store_true",
                    help="snli: also compare PCA-256 with no reduction on SVD-768 features")
    args = ap.parse_args(argv)
    sections = [s.strip() for s in args.only.split(",") if s.strip()]
    result = {"benchmark": "aflite", "quick": args.quick, "cpu_count": os.cpu_count(),
              "python": platform.python_version(), "numpy": np.__version__}
    try:
        result["load_avg_start"] = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        pass
    t0 = time.perf_counter()
    if "speed" in sections:
        result["speed"] = bench_speed(args.quick)
    if "whole20k" in sections:
        result["whole20k"] = bench_whole20k(args.quick)
    if "full100k" in sections:
        result["full100k"] = bench_full100k(args.quick, [int(j) for j in args.jobs.split(",")])
    if "quality" in sections:
        result["quality_circles"] = bench_quality(args.quick, args.families.split(","))
    if "snli" in sections:
        result["snli"] = bench_snli(args.quick, args.snli_families.split(","), args.reduction_check)
    # Targets hold at the sizes only; a quick run is a smoke test.
    result["targets"] = "not evaluated: --quick sizes are below the issue's" if args.quick else targets(result)
    result["total_s"] = round(time.perf_counter() - t0, 1)
    try:
        result["load_avg_end"] = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        pass
    print(json.dumps(result, default=str))


def targets(r):
    """The issue's targets, met or not (None when the section did not run)."""
    out = {}
    sp = r.get("speed")
    if sp:
        for key, row in sp.items():
            if key.startswith("m="):
                out[f"speed_{key}_per_phase_>=50x"] = row["engine_speedup_per_phase"] >= 50
    w = r.get("whole20k")
    if w:
        out["whole20k_full_dim_>=50x"] = max(w["engine_full_speedup"], w["engine_full_2_threads_speedup"]) >= 50
    f = r.get("full100k")
    if f:
        rows = [v for key, v in f.items() if key.startswith("n_jobs=")]
        out["full_run_<=30s"] = min(v["fit_s"] for v in rows) <= 30
        out["retained_for_<=5ms"] = max(v["retained_for_ms_max"] for v in rows) <= 5
        out["peak_memory_<=3x_X"] = max(v["peak_over_X"] for v in rows) <= 3
    q = r.get("quality_circles")
    if q and "engine_ridge" in q:
        e = q["engine_ridge"]
        out["circles_biased_share_<=0.25"] = e["biased_share"] <= 0.25
        out["circles_lr_acc_<=0.60"] = e["lr_5fold_acc"] <= 0.60
        out["circles_rbf_acc_>=0.85"] = e["rbf_xy_5fold_acc"] >= 0.85
    s = r.get("snli")
    if s and "engine_ridge" in s:
        out["snli_acc_<=0.40"] = s["engine_ridge"]["acc"] <= 0.40
    return out


if __name__ == "__main__":
    main()
