"""Command line: ``python -m core COMMAND ...`` (also installed as ``artifact-lens``).

Every command takes the same column options as `core.sources.load_dataset`. Bad
input prints one ``error: ...`` line naming the problem and the fix, exits with 2,
and leaves no partial output file (outputs are written to a temporary file and
renamed into place).
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path

from core.arguments import SEED_MAX, Address, Real, Size, Whole, WholeList
from core.errors import Cancelled, InputError
from core.outputs import POLICY, Outputs
from core.safe_csv import write_csv


# ---------------------------------------------------------------- helpers


def add_dataset_args(p: argparse.ArgumentParser) -> None:
    # SUPPRESS: a -q given before the command is not reset by the subcommand's default.
    p.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS, help="no progress bars or notes")
    p.add_argument("dataset", help="file (.csv/.tsv/.jsonl/.parquet), save_to_disk folder, Hub name, or demo:nli / demo:circles / demo:digits")
    g = p.add_argument_group("columns (auto-detected when omitted)")
    g.add_argument("--text", help="text column(s), comma-separated, e.g. premise,hypothesis")
    g.add_argument("--label", help="label column")
    g.add_argument("--id", help="id column (default: the row number in the source)")
    g.add_argument("--embedding", help="column holding precomputed vectors")
    g.add_argument("--image", help="column holding images")
    g.add_argument("--feature", action="append", default=None, help="a boolean/categorical column to use as a feature (repeatable)")
    g.add_argument("--config", help="Hub/datasets config name")
    g.add_argument("--split", help="split to load (e.g. validation)")


def load_from_args(args):
    from core.sources import load_dataset

    return load_dataset(
        args.dataset, text=args.text, label=args.label, id=args.id, embedding=args.embedding,
        image=args.image, features=args.feature, config=args.config, split=args.split,
    )


def progress_bar(desc: str, quiet: bool):
    from core.progress import TqdmProgress

    if quiet:
        return None
    return TqdmProgress(desc)


def print_messages(ds, quiet=False):
    if not quiet:
        for m in ds.messages:
            print(f"note: {m}", file=sys.stderr)


# ---------------------------------------------------------------- commands


def cmd_info(args) -> int:
    from core.sources import detect_roles

    ds = load_from_args(args)
    roles = {c: ds.role_of(c) for c in ds.table.columns}
    counts = ds.label_counts()
    info = {
        "dataset": ds.name,
        "rows": len(ds),
        "fingerprint": ds.fingerprint,
        "labels": {str(k): int(v) for k, v in counts.items()},
        "columns": roles,
        "detected": {k: v for k, v in detect_roles(ds.table.reset_index()).items() if v},
        "dropped": ds.dropped,
        "messages": ds.messages,
    }
    if args.json:
        print(json.dumps(info, indent=2, default=str))
        return 0
    print(f"dataset      {ds.name}")
    print(f"rows         {len(ds)}")
    print(f"fingerprint  {ds.fingerprint}")
    print("labels")
    width = max(len(str(k)) for k in counts.index)
    for k, v in counts.items():
        print(f"  {str(k):<{width}}  {v:>8}  {v / len(ds):6.1%}")
    print("columns")
    for c, r in roles.items():
        print(f"  {c:<24} {r}")
    if ds.dropped:
        print("dropped rows")
        for reason, n in ds.dropped.items():
            print(f"  {reason}: {n}")
    for m in ds.messages:
        print(f"note: {m}")
    return 0


def cmd_represent(args) -> int:
    args.outputs.declare("--out", args.out, (".npy", ".npz", ".parquet"))
    import numpy as np

    out = Path(args.out)
    ds = load_from_args(args)
    print_messages(ds, args.quiet)
    rep = _representation(ds, args.representation, args)
    tmp = args.outputs.path_for("--out")
    ids = np.asarray(rep.ids).astype(str)
    if out.suffix.lower() == ".npy":
        with open(tmp, "wb") as f:
            np.save(f, rep.X)
    elif out.suffix.lower() == ".npz":
        with open(tmp, "wb") as f:
            np.savez(f, X=rep.X, ids=ids, excluded_ids=np.asarray(rep.excluded_ids).astype(str))
    else:
        import pandas as pd

        pd.DataFrame({"id": ids, "embedding": list(rep.X)}).to_parquet(tmp, index=False)
    args.outputs.commit()
    if not args.quiet:
        print(f"wrote {rep.X.shape[0]} x {rep.X.shape[1]} float32 ({rep.spec}) to {args.out}")
        if len(rep.excluded_ids):
            print(f"note: {len(rep.excluded_ids)} warm-up examples were used to train the representation and are not in the output.")
    return 0


def _representation(ds, spec, args):
    from core.representations import represent

    bar = progress_bar("represent", args.quiet)
    try:
        return represent(ds, spec, cache_dir=args.cache_dir, progress=bar)
    finally:
        if bar:
            bar.close()


def _evaluate(ds, rep, run, args) -> dict:
    """Accuracy on full / filtered / random subsets and KNN distances (printed and returned)."""
    import numpy as np

    from core.aflite import random_subset
    from core.evaluation import knn_distances, subset_accuracy

    y = ds.table[ds.label].reindex(np.asarray(rep.ids)).to_numpy()
    kept = run.retained
    subsets = {"full": np.ones(len(y), bool), "filtered": kept,
               "random": random_subset(len(y), int(kept.sum()), random_state=args.seed)}
    acc = subset_accuracy(rep.X, y, subsets, families=("logistic",), random_state=args.seed)
    knn = knn_distances(rep.X, y, kept, random_state=args.seed)
    if not args.quiet:
        print("5-fold logistic-regression accuracy on Φ (a drop that the random subset does not show is removed bias):")
        print(acc.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
        print("KNN cosine distances of held-out examples to the training data, before and after filtering:")
        print(knn.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    return {"accuracy": acc.to_dict(orient="records"), "knn_distances": knn.to_dict(orient="records")}


def _duration(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


def _secs(seconds: float) -> str:
    return f"{seconds:.1f} s" if seconds >= 1 else f"{seconds:.2f} s"


class PhaseLog:
    """One stderr line per AFLite phase (the fit's ``on_phase``): the phase's seconds, |S|
    before and after, and an ETA = phases left × the mean of the last ``window`` phases.

    Phases left assume every phase removes k until n; a τ stop can come earlier, so with
    τ > 0 the ETA is an upper bound ("ETA ≤"). The first line also gives the set-up time
    (checking X, centring, the block Gram matrices): the time before phase 1 began.
    """

    def __init__(self, N: int, n: int, k: int, tau: float, write, window: int = 5):
        self.N, self.n, self.k, self.tau, self.write, self.window = N, n, k, tau, write, window
        self.total = max(1, -(-(N - n) // max(k, 1)))
        self.seconds: list = []
        self.start = time.perf_counter()

    def __call__(self, rec: dict) -> None:
        j, size, removed, secs = rec["phase"], rec["size"], rec["removed"], float(rec["seconds"])
        if not self.seconds:
            setup = time.perf_counter() - self.start - secs
            self.write(f"aflite: set-up (checking X, centring, block Gram matrices) {_secs(setup)}")
        self.seconds.append(secs)
        after = size - removed
        if rec.get("stop_reason"):
            tail = f"stopped ({'fewer than k passed τ' if rec['stop_reason'] == 'tau' else 'reached n'})"
        else:
            left = max(0, -(-(after - self.n) // max(self.k, 1)))
            recent = self.seconds[-self.window:]
            mean = sum(recent) / len(recent)
            tail = f"ETA {'≤ ' if self.tau > 0 else ''}{_duration(left * mean)} ({left} phases × {_secs(mean)})"
        self.write(f"aflite phase {j + 1}/{self.total}: |S| {size:,} → {after:,} (removed {removed:,}) "
                   f"in {_secs(secs)}; {tail}")


def _phase_log(args, N: int, bar):
    """The per-phase progress lines of `cmd_aflite` (None with --quiet)."""
    if args.quiet:
        return None
    from core.aflite.selection import resolve_size

    try:
        n = resolve_size("target_size", "n", args.target_size, N)
        k = 1 if args.strategy == "greedy" else resolve_size("slice_size", "k", args.k, N)
    except InputError:
        return None  # the fit reports bad sizes itself
    if bar is not None:
        from tqdm import tqdm

        write = lambda line: tqdm.write(line, file=sys.stderr)  # noqa: E731  (above the bar, not through it)
    else:
        write = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    return PhaseLog(N, n, k, float(args.tau), write)


def _describe_representation(rep, quiet: bool) -> None:
    """Say where Φ lives (a memory map is not process memory) and the representation's notes."""
    if quiet:
        return
    import numpy as np

    from core.sources import size_text

    info = rep.info or {}
    mapped = info.get("memory_mapped") or (rep.X.filename if isinstance(rep.X, np.memmap) else None)
    where = f"memory-mapped from {mapped} (page cache, not process memory)" if mapped else "in memory"
    print(f"representation: {rep.X.shape[0]:,} × {rep.X.shape[1]} float32 ({size_text(rep.X.nbytes)}), {where}",
          file=sys.stderr)
    for m in info.get("messages", []):
        print(f"note: {m}", file=sys.stderr)


def cmd_aflite(args) -> int:
    import numpy as np

    from core import export
    from core.runs import fit_run

    outs = args.outputs
    outs.declare("--out", args.out, (".csv",))
    outs.declare("--manifest", args.manifest, (".json",))
    outs.declare("--export", args.export, (".csv", ".parquet", ".jsonl", ""), folder_ok=True)
    if args.export:
        outs.declare("the export's manifest", export.manifest_path(args.export), (".json",))
    if args.scheduler:   # an unreachable cluster is refused before the data is read
        from core.aflite.distributed import connect

        connect(args.scheduler).close()
    ds = load_from_args(args)
    print_messages(ds, args.quiet)
    rep = _representation(ds, args.representation, args)
    _describe_representation(rep, args.quiet)
    params = dict(n_partitions=args.m, train_size=args.train_size, slice_size=args.k, tau=args.tau,
                  target_size=args.target_size, model=args.model, strategy=args.strategy,
                  random_state=args.seed, n_jobs=args.jobs)
    quality, quality_record = _aflite_quality(args, ds, rep)
    bar = progress_bar("aflite", args.quiet)
    try:
        run = fit_run(ds, rep, params, progress=bar, quality=quality, quality_info=quality_record or None,
                      on_phase=_phase_log(args, len(rep.ids), bar), scheduler=args.scheduler)
    finally:
        if bar:
            bar.close()
    scored = export.export_frame(ds, run, which="all", include_arrays=False)
    scored = scored[["id", ds.label, "predictability", "removed_at", "retained", "warmup"]]
    extra = {"retained_ids": [str(i) for i in np.asarray(run.ids)[run.retained]],
             "command": "python -m core " + " ".join(sys.argv[1:])}
    if quality_record:
        extra["quality"] = quality_record
    if args.evaluate:
        extra["evaluation"] = _evaluate(ds, rep, run, args)
    manifest = run.manifest(**extra)
    _write_csv(scored, outs.path_for("--out"))
    if args.manifest:
        Path(outs.path_for("--manifest")).write_text(json.dumps(manifest, indent=1, default=str))
    if args.export:
        fmt = Path(args.export).suffix.lower().lstrip(".") or "datasets"
        frame = export.export_frame(ds, run, which=args.which)
        export.write_new(frame, outs.path_for("--export"), fmt)
        manifest_out = export.manifest_for(run, which=args.which, fmt=fmt, rows=len(frame), dataset=ds)
        Path(outs.path_for("the export's manifest")).write_text(json.dumps(manifest_out, indent=1, default=str))
    outs.commit()
    if not args.quiet:
        kept = int(run.retained.sum())
        print(f"AFLite: kept {kept} of {len(run.ids)} scored examples in {run.n_phases} phases ({run.seconds:.1f} s); wrote {args.out}")
        if len(run.excluded_ids):
            print(f"note: {len(run.excluded_ids)} warm-up examples trained the representation and were not scored (warmup=true).")
    return 0


def _declare_csv(args, **flags):
    for flag, path in flags.items():
        args.outputs.declare("--" + flag, path, (".csv",))


def _write_csv(frame, path):
    """Every CSV the CLI writes: the safe writer (`core.safe_csv`), to the transaction's temporary."""
    write_csv(frame, path, float_format="%.6g")


def _with_ids(frame):
    return frame.rename_axis("id").reset_index()


def cmd_zstats(args) -> int:
    from core.zstats import compute_z

    _declare_csv(args, out=args.out)
    ds = load_from_args(args)
    print_messages(ds, args.quiet)
    bar = progress_bar("z-statistics", args.quiet)
    try:
        zs = compute_z(ds, min_count=args.min_count, alpha=args.alpha, progress=bar)
    finally:
        if bar:
            bar.close()
    _write_csv(zs.table, args.outputs.path_for("--out"))
    args.outputs.commit()
    if not args.quiet:
        s = zs.summary()
        print(f"{s['n_tests']} features tested on {s['n_examples']} examples; z* = {s['z_star']:.2f} "
              f"(one-sided Bonferroni, alpha = {s['alpha']}); {s['n_significant_features']} features exceed it; "
              f"largest z = {s['z_max']:.1f} for {s['z_max_feature']}")
        top = zs.top(args.top)
        for lab, rows in top.groupby("label", sort=False):
            feats = ", ".join(f"{f} ({z:.1f})" for f, z in zip(rows["feature"], rows["z"]))
            print(f"  {lab}: {feats}")
        print(f"wrote {len(zs.table)} rows to {args.out}")
    return 0


def cmd_zfilter(args) -> int:
    from core.sources import load_dataset
    from core.zstats import z_filter

    _declare_csv(args, out=args.out, rejected=args.rejected)
    ds = load_from_args(args)
    print_messages(ds, args.quiet)
    seed = None
    if args.seed_dataset:
        seed = load_dataset(args.seed_dataset, text=args.text, label=args.label, features=args.feature,
                            config=args.config, split=args.split)
    bar = progress_bar("z-filtering", args.quiet)
    try:
        res = z_filter(ds, seed_data=seed, batch_size=args.batch_size, k=args.k, alpha=args.alpha,
                       min_count=args.min_count, random_state=args.seed, progress=bar)
    finally:
        if bar:
            bar.close()
    _write_csv(_with_ids(res.accepted), args.outputs.path_for("--out"))
    if args.rejected:
        _write_csv(_with_ids(res.rejected), args.outputs.path_for("--rejected"))
    args.outputs.commit()
    if not args.quiet:
        s = res.summary()
        print(f"accepted {s['accepted']}, rejected {s['rejected']} in {s['batches']} batches; "
              f"largest z {s['z_max_before']:.1f} ({s['z_max_before_feature']}) before, "
              f"{s['z_max_after']:.1f} ({s['z_max_after_feature']}) after")
    return 0


def cmd_consistency(args) -> int:
    from core.zstats import consistency_filter

    _declare_csv(args, out=args.out, dropped=args.dropped)
    ds = load_from_args(args)
    print_messages(ds, args.quiet)
    res = consistency_filter(ds, threshold=args.threshold, folds=args.folds, random_state=args.seed)
    for note in res.params.get("notes", []):
        print(f"note: {note}", file=sys.stderr)
    _write_csv(_with_ids(res.kept), args.outputs.path_for("--out"))
    if args.dropped:
        _write_csv(_with_ids(res.dropped), args.outputs.path_for("--dropped"))
    args.outputs.commit()
    if not args.quiet:
        s = res.summary()
        print(f"kept {s['kept']}, dropped {s['dropped']} (gold-label probability <= {s['threshold']}); "
              f"cross-fitted accuracy {s['accuracy']:.3f}")
    return 0


def cmd_evaluate(args) -> int:
    """Issue 12: the evaluation of a run, written as JSON/CSV tables, figures and report.html."""
    import numpy as np

    from core.evaluation import EvaluationOptions, evaluate
    from core.evaluation.report import run_input, write_files

    args.outputs.declare("--out", args.out, None, folder_ok=True)
    ds = load_from_args(args)
    print_messages(ds, args.quiet)
    given = run_input(args.run, ds, tau=args.tau, target_size=args.target_size)
    rep = _representation(ds, args.representation or given["spec"], args)
    retained = np.isin(np.asarray(rep.ids).astype(str), given["retained_ids"])
    synthetic = args.synthetic if args.synthetic is not None else ds.name.startswith("demo:circles")
    partial = None if args.partial is None else ("" if args.partial.lower() == "none" else args.partial)
    opts = EvaluationOptions(families=tuple(f.strip() for f in args.families.split(",") if f.strip()),
                             eval_share=args.eval_share, stratified=args.stratified, partial_spec=partial,
                             knn_ks=args.ks, coarse_step=args.step, coarse_tolerance=args.tolerance,
                             coarse_family=args.coarse_family, difficulty=args.difficulty, synthetic=synthetic,
                             seed=args.seed)
    bar = progress_bar("evaluate", args.quiet)
    try:
        ev = evaluate(ds, rep, retained, history=given["history"], n_phases_chosen=given["n_phases"], options=opts,
                      context={"run_key": given["run_key"], "tau": given["tau"], "n": given["n"]}, progress=bar)
    finally:
        if bar:
            bar.close()
    notes = write_files(ev, args.outputs.path_for("--out"), figure_format=args.figures)
    args.outputs.commit()
    if not args.quiet:
        from core.evaluation.report import family_wide

        print(f"Model families on {ev.context['representation']}: accuracy (Δ to full); intervals in the report:")
        print(family_wide(ev.tables["families"], ci=False).to_string())
        if "partial_input" in ev.tables:
            print(f"Partial input ({ev.context['partial_representation']}):")
            print(family_wide(ev.tables["partial_input"], ci=False).to_string())
        s = ev.summary
        print(f"Coarse action: {s['coarse_family']} stops improving at {s['coarse_fraction']:.0%} of the data "
              f"(suggested n = {s['coarse_n']}).")
        if "difficulty_p_value" in s:
            print(f"Difficulty ({s['difficulty_column']}): retained − removed mean {s['difficulty_difference']:+.4g}, "
                  f"permutation p = {s['difficulty_p_value']:.4g}.")
        if "synthetic" in ev.tables:
            print("Synthetic circles:")
            print(ev.tables["synthetic"].to_string(index=False, float_format=lambda v: f"{v:.3f}"))
        for n in ev.notes + notes:
            print(f"note: {n}", file=sys.stderr)
        print(f"wrote {args.out}/ (report.html, evaluation.json, CSV tables, figures) in {s['seconds']:.1f} s")
    return 0


def _aflite_quality(args, ds, rep):
    """--quality: dqi or a component of core.quality (computed on Φ), else a numeric column."""
    import numpy as np
    import pandas as pd

    from core import quality as q

    if not args.quality:
        return None, None
    if args.quality in ("dqi", *q.COMPONENTS):   # the dashboard's descriptor and values (core.workflow)
        from core.workflow import quality_column, quality_components, quality_descriptor

        info = quality_descriptor(args.quality)
        table = quality_components(ds, rep, min_count=info["min_count"], nn_dim=info["nn_dim"], cache_dir=args.cache_dir)
        return quality_column(table, info, rep.ids), info
    if args.quality not in ds.table.columns:
        raise InputError(f"--quality '{args.quality}' is neither dqi, a quality component ({', '.join(q.COMPONENTS)}) "
                         f"nor a column; the columns are: {', '.join(ds.table.columns)}.")
    values = pd.to_numeric(ds.table[args.quality], errors="coerce").reindex(np.asarray(rep.ids)).to_numpy(dtype=float)
    if np.isnan(values).any():
        raise InputError(f"--quality column '{args.quality}' has {int(np.isnan(values).sum())} empty or non-numeric "
                         "values; fill them or choose a numeric column.")
    if np.isinf(values).any():
        raise InputError(f"--quality column '{args.quality}' has {int(np.isinf(values).sum())} infinite values; "
                         "give finite scores.")
    return values, {"source": "column", "name": args.quality}


def _parse_pairs(text, what):
    """'a=1,b=2' (weights) or 'a=0.3:0.6' (thresholds) -> dict."""
    out = {}
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        key, eq, value = part.partition("=")
        try:
            if not eq:
                raise ValueError
            out[key.strip()] = tuple(float(v) for v in value.split(":")) if what == "--thresholds" else float(value)
        except ValueError:
            example = "dqi=0.4:0.6,label_tied=0.5:0.8" if what == "--thresholds" else "label_tied=2,word_overlap=1.5"
            raise InputError(f"{what} '{part}' should look like {example}.") from None
    return out


def _quality_knobs(args) -> dict:
    return dict(min_count=args.min_count, nn_dim=None if args.nn_dim == 0 else args.nn_dim,
                weights=_parse_pairs(args.weights, "--weights"), thresholds=_parse_pairs(args.thresholds, "--thresholds"))


def cmd_quality(args) -> int:
    """Issue 11: per-example DQI components, the combined score and traffic lights, as CSV."""
    from core.quality import COMPONENTS, quality_scores
    from core.sources import load_dataset

    _declare_csv(args, out=args.out)
    knobs = _quality_knobs(args)
    ds = load_from_args(args)
    print_messages(ds, args.quiet)
    other = None
    if args.second_split:
        other = load_dataset(args.second_split, text=args.text or list(ds.text), label=args.label or ds.label, id=args.id,
                             config=args.config)
    rep = _representation(ds, args.representation, args)
    bar = progress_bar("quality", args.quiet)
    try:
        table = quality_scores(ds, representation=rep, other=other, cache_dir=args.cache_dir, progress=bar, **knobs)
    finally:
        if bar:
            bar.close()
    _write_csv(table.reset_index(), args.outputs.path_for("--out"))
    args.outputs.commit()
    if not args.quiet:
        print(f"quality of {len(table):,} examples on {rep.spec}: mean dqi {table['dqi'].mean():.3f}; lights "
              + ", ".join(f"{k} {v:,}" for k, v in table["light"].value_counts().items()))
        for c in COMPONENTS:
            counts = table[f"light_{c}"].value_counts()
            print(f"  {c:<20} mean {table[c].mean():.3f}  red {counts.get('red', 0):,}  yellow {counts.get('yellow', 0):,}  "
                  f"green {counts.get('green', 0):,}")
        print(f"wrote {args.out}")
    return 0


def cmd_feedback(args) -> int:
    """Issue 11: the lights and suggestions for one new example against a dataset."""
    from core.quality import QualityContext, check_example

    args.outputs.declare("--out", args.out, (".json",))
    knobs = _quality_knobs(args)
    ds = load_from_args(args)
    print_messages(ds, args.quiet)
    check_example(ds, args.example, args.max_chars)   # bad input fails before any fitting
    rep = _representation(ds, args.representation, args)
    ctx = QualityContext.fit(ds, representation=rep, max_chars=args.max_chars, cache_dir=args.cache_dir, **knobs)
    fb = ctx.feedback(args.example)
    if args.out:
        Path(args.outputs.path_for("--out")).write_text(json.dumps(fb.to_dict(), indent=1, default=str))
    args.outputs.commit()
    if args.json:
        print(json.dumps(fb.to_dict(), indent=1, default=str))
        return 0
    print(f"example: {fb.light} (dqi {fb.components['dqi']['score']:.2f})")
    for name, c in fb.components.items():
        if name != "dqi":
            score = "  -  " if c["score"] is None else f"{c['score']:.2f}"
            print(f"  {c['light']:<6} {score:>5}  {name:<20} {c['dqi']}")
    if fb.label_tied:
        print("words that lean to a label (z* = %.1f): " % fb.z_star
              + ", ".join(f"'{t['ngram']}' → {t['label']} (z = {t['z']:.1f})" for t in fb.label_tied[:6]))
    if fb.partial_input:
        p = fb.partial_input
        print(f"{p['field']}-only model: {p['predicted']} (p = {p['confidence']:.2f}; held-out accuracy {p['heldout_accuracy']:.2f})")
    r = fb.representation
    print(f"model on Φ: {r['predicted']} (p = {r['confidence']:.2f}; p of the label {r['p_label']:.2f})")
    for nb in fb.neighbours[:3]:
        print(f"neighbour {nb['id']} (similarity {nb['similarity']:.2f}, {nb['label']}): "
              + " | ".join(str(nb[f])[:80] for f in ds.text))
    for s in fb.suggestions:
        print(f"suggestion: {s}")
    for n in fb.notes:
        print(f"note: {n}", file=sys.stderr)
    return 0


def cmd_export(args) -> int:
    """Issue 14: a saved run's split, streamed to a file in chunks, with its manifest beside it."""
    from core import export

    fmt = args.format or {".csv": "csv", ".parquet": "parquet", ".jsonl": "jsonl", "": "datasets"}.get(
        Path(args.out).suffix.lower())
    if fmt is None:
        raise InputError(f"cannot tell the format from --out {Path(args.out).name}; end it in .csv, .parquet or .jsonl, "
                         "give a folder name for a datasets folder, or pass --format.")
    args.outputs.declare("--out", args.out, (export.EXTENSIONS[fmt],), folder_ok=fmt == "datasets")
    args.outputs.declare("the export's manifest", export.manifest_path(args.out), (".json",))
    ds = load_from_args(args)
    print_messages(ds, args.quiet)
    frame, manifest, summary = export.from_run_file(
        ds, args.run, which=args.which, fmt=fmt, tau=args.tau, target_size=args.target_size,
        include_arrays=args.embeddings or fmt != "csv", extra={"command": "python -m core " + " ".join(sys.argv[1:])})
    if args.quality:
        from core.quality import quality_scores

        table = quality_scores(ds, args.quality, cache_dir=args.cache_dir)
        frame = export.add_quality_columns(frame, table)
        manifest["export"]["quality_columns"] = {"columns": export.quality_columns(), "representation": args.quality,
                                                 "source": "core.quality (DQI, paper 002), default weights and "
                                                           "thresholds"}
    bar = progress_bar("export", args.quiet)
    try:
        export.write_file(frame, args.outputs.path_for("--out"), fmt, manifest=manifest, zipped=False, progress=bar)
    finally:
        if bar:
            bar.close()
    Path(args.outputs.path_for("the export's manifest")).write_text(json.dumps(manifest, indent=1, default=str))
    args.outputs.commit()
    if not args.quiet:
        print(f"{summary}; wrote {len(frame):,} rows ({args.which}) to {args.out}")
    return 0


_PROJECT_FLAGS = {"n_neighbors=": "--n-neighbors ", "min_dist=": "--min-dist ", "spread=": "--spread ",
                  "metric=": "--metric ", "fit_size=": "--fit-size ", "pca_dims=": "--pca-dims ", "method=": "--method "}


class _StagePrinter:
    """Progress for `project`: one line per stage (on stderr), with the seconds since the start."""

    def __init__(self, quiet: bool):
        import time

        self.quiet, self.t0, self.last = quiet, time.perf_counter(), None

    def __call__(self, fraction: float, message: str = "") -> None:
        import time

        if self.quiet or not message or message == self.last:
            return
        self.last = message
        print(f"[{time.perf_counter() - self.t0:7.1f} s] {message}", file=sys.stderr, flush=True)


def cmd_project(args) -> int:
    """Issue 13: precompute the 2-D map of a representation into the cache the dashboard's Map page reads."""
    from core import projection as proj

    params = dict(n_neighbors=args.n_neighbors, min_dist=args.min_dist, spread=args.spread, metric=args.metric,
                  random_state=args.seed, fit_size=args.fit_size or None, pca_dims=args.pca_dims or None)
    try:   # bad values fail before the dataset is loaded, named by their flags
        if args.fit_size < 0 or args.pca_dims < 0:
            raise InputError(f"{'--fit-size' if args.fit_size < 0 else '--pca-dims'} must be >= 0 (0 = every row / "
                             "no PCA step)")
        proj._check_params(args.method, params["n_neighbors"], params["min_dist"], params["fit_size"],
                           params["pca_dims"], params["spread"], params["metric"])
    except InputError as exc:
        text = str(exc)
        for name, flag in _PROJECT_FLAGS.items():
            text = text.replace(name, flag)
        raise InputError(text) from None
    numba_dir = proj.ensure_numba_cache()   # before anything imports numba
    stage = _StagePrinter(args.quiet)
    stage(0.0, f"loading {args.dataset}")
    ds = load_from_args(args)
    print_messages(ds, args.quiet)
    stage(0.0, f"representation {args.representation}")
    rep = _representation(ds, args.representation, args)
    key = proj.representation_key(ds, rep)
    kwargs = params if args.method == "umap" else {"random_state": args.seed}
    out = proj.project(rep.X, rep.ids, key=key, method=args.method, progress=stage, **kwargs)
    info = out.info
    if args.json:
        print(json.dumps({"dataset": ds.name, "representation": rep.spec, "key": key, "method": args.method,
                          "params": out.params, "info": info}, indent=1, default=str))
        return 0
    if args.quiet:
        return 0
    n, d = rep.X.shape
    print(f"{args.method.upper()} map of {n:,} × {d} ({rep.spec})"
          + (" — already cached, nothing computed" if info.get("cache_hit") else ""))
    stages = info.get("stages", {})
    if args.method == "umap":
        p = info.get("pca")
        print(f"  PCA        " + (f"{p['from_dims']} → {p['dims']} dims, explained variance {p['explained_variance']:.3f}, "
                                  f"fitted on {p['fit_rows']:,} rows" if p else "none (Φ is not wider than --pca-dims)")
              + (f"  {stages['pca']:.1f} s" if "pca" in stages else ""))
        print(f"  numba      kernels cached in {info.get('numba_cache_dir', numba_dir)}  {stages.get('import', 0):.1f} s")
        k = info.get("knn", {})
        print(f"  kNN graph  {k.get('n_neighbors')} neighbours ({k.get('metric')}) of {k.get('rows', 0):,} rows, "
              f"{'reused from the cache (no neighbour search)' if k.get('cached') else 'searched and cached'}"
              f"  {stages.get('knn', 0):.1f} s")
        print(f"  layout     UMAP min_dist {out.params['min_dist']}, spread {out.params['spread']}, "
              f"on {info.get('fitted_rows', 0):,} rows  {stages.get('layout', 0):.1f} s")
        if info.get("transformed_rows"):
            print(f"  transform  {info['transformed_rows']:,} more rows placed  {stages.get('transform', 0):.1f} s")
    print(f"total {info.get('seconds', 0):.1f} s; cached in {info.get('cache_file')}")
    defaults = proj.DEFAULTS
    if args.method == "umap" and any(out.params[k] != defaults[k] for k in out.params):
        print("note: the dashboard's Map page shows the map with the default parameters "
              f"({', '.join(f'{k}={v}' for k, v in defaults.items())}); this one is cached for the Python API.",
              file=sys.stderr)
    elif args.method == "umap":
        print(f"the dashboard's Map page opens this map at once for {ds.name} with Φ = {rep.spec}")
    return 0


# ---------------------------------------------------------------- main


class _Parser(argparse.ArgumentParser):
    """argparse with the CLI's one-line errors: ``error: argument --tau: …`` and where to look,
    without the usage block (subcommands inherit the class)."""

    def error(self, message):
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m core",
        description="Artifact Lens: find and filter dataset artifacts (AFLite, z-statistics).",
    )
    parser.add_argument("--cache-dir", help="cache folder for representations (default: $ARTIFACT_LENS_CACHE or ~/.cache/artifact-lens)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bars or notes")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("info", help="rows, label distribution, columns and their roles, dropped rows",
                       description="Show what the tool sees in a dataset: rows, labels, column roles, dropped rows.")
    add_dataset_args(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("represent", help="build a representation (an N x d float32 matrix) and save it",
                       description="Build a representation Phi of a dataset and write it to .npy, .npz (X, ids) or .parquet (id, embedding).")
    add_dataset_args(p)
    p.add_argument("--representation", "-r", required=True,
                   help="spec, e.g. tfidf-svd:fields=hypothesis,dim=128 | warmup:fields=hypothesis,fraction=0.1 | embedding | file:path=emb.npy | glove | pixels:pca=32")
    p.add_argument("--out", required=True, help="output file (.npy, .npz or .parquet)")
    p.set_defaults(func=cmd_represent)

    p = sub.add_parser("aflite", help="AFLite predictability scores and the filtered split",
                       description="Run AFLite (Le Bras et al. 2020, Algorithm 1) and write every example with its id, label, "
                                   "predictability, removal phase and whether it is retained. Sizes are a count (3000) or a fraction (0.3).")
    add_dataset_args(p)
    p.add_argument("--representation", "-r", default="tfidf-svd", help="representation spec (default: tfidf-svd over all text fields)")
    p.add_argument("--m", type=Whole(1, 10_000), default=64, help="m: partitions (models) per phase (default 64)")
    p.add_argument("--train-size", type=Size(), default=0.1, help="t: training-set size per model (default 0.1)")
    p.add_argument("--k", type=Size(), default=0.01, help="k: examples removed per phase (default 0.01)")
    p.add_argument("--tau", type=Real(0, 1), default=0.75, help="τ: early-stopping threshold in [0, 1] (default 0.75)")
    p.add_argument("--target-size", type=Size(), default=0.5, help="n: stop at this size (default 0.5)")
    p.add_argument("--model", default="ridge", help="model family: ridge (default), logistic, svm, ensemble")
    p.add_argument("--strategy", default="greedy-slice", help="greedy-slice (default), slice-sample, greedy")
    p.add_argument("--quality", help="dqi, a quality component (core.quality) or a numeric column: among p ≥ τ, remove the "
                                     "lowest-quality examples first (paper 002); recorded in the manifest")
    p.add_argument("--seed", type=Whole(0, SEED_MAX), default=0, help="random seed (default 0)")
    p.add_argument("--jobs", type=Whole(1, 1024, allowed=(-1,), meaning="every core"), default=-1, help="threads for the ridge family (default -1: every core; "
                   "the result does not depend on it)")
    p.add_argument("--scheduler", type=Address(), help="run the phases on a Dask cluster, e.g. tcp://HOST:8786 (same result as "
                   "in this process; a memory-mapped Φ is read by the workers from its file)")
    p.add_argument("--out", required=True, help="scores CSV: id, label, predictability, removed_at, retained, warmup")
    p.add_argument("--manifest", help="run manifest JSON: parameters, seed, representation, versions, fingerprint, retained ids")
    p.add_argument("--export", help="also export a split with all columns (.csv, .parquet, .jsonl, or a folder for save_to_disk)")
    p.add_argument("--which", default="retained", choices=["retained", "removed", "all"], help="split for --export (default retained)")
    p.add_argument("--evaluate", action="store_true", help="also report accuracy on full / filtered / random subsets and KNN distances (in the manifest too)")
    p.set_defaults(func=cmd_aflite)

    p = sub.add_parser("zstats", help="z-statistics of simple features (n-grams, lengths, overlap, partial input) vs labels",
                       description="Compute the z-statistic of every task-independent feature against every label "
                                   "(Gardner et al. 2021; Wu et al. 2022, eq. 2) and write the table as CSV.")
    add_dataset_args(p)
    p.add_argument("--min-count", type=Whole(1, 10 ** 9), default=20, help="test only features seen in at least this many examples (default 20)")
    p.add_argument("--alpha", type=Real(0, 1, lo_open=True, hi_open=True), default=0.01, help="family-wise level of the Bonferroni threshold z* (default 0.01)")
    p.add_argument("--top", type=Whole(0, 10 ** 6), default=8, help="features per label to print (default 8)")
    p.add_argument("--out", required=True, help="z-table CSV: feature, label, n, count, p_hat, z, significant, kind, field")
    p.set_defaults(func=cmd_zstats)

    p = sub.add_parser("zfilter", help="z-filtering (Wu et al. 2022, Algorithm 1), optionally against a seed dataset",
                       description="Accept examples in shuffled batches unless they carry one of the k most biased features "
                                   "of their label on what was accepted so far. With --seed-dataset, screen candidates "
                                   "against a seed set's biased features (conditional z-filtering).")
    add_dataset_args(p)
    p.add_argument("--seed-dataset", help="seed dataset D_seed (same columns); candidates must avoid its biased features")
    p.add_argument("--batch-size", type=Size(), default=500, help="candidates per batch: a count or a fraction (default 500)")
    p.add_argument("--k", type=Whole(1, 10 ** 6), default=20, help="biased features per label (default 20, as the paper)")
    p.add_argument("--alpha", type=Real(0, 1, lo_open=True, hi_open=True), default=None, help="also require z above the Bonferroni threshold at this level")
    p.add_argument("--min-count", type=Whole(1, 10 ** 9), default=1, help="only features seen this often in the accepted set can be biased (default 1)")
    p.add_argument("--seed", type=Whole(0, SEED_MAX), default=0, help="seed of the batch shuffle (default 0)")
    p.add_argument("--out", required=True, help="accepted examples CSV")
    p.add_argument("--rejected", help="rejected examples CSV, with the feature that caused each rejection")
    p.set_defaults(func=cmd_zfilter)

    p = sub.add_parser("consistency", help="consistency filtering: drop examples a cross-fitted model finds unlikely",
                       description="Drop examples whose gold label gets probability <= --threshold from a model trained "
                                   "on the other folds (Wu et al. 2022, section 2.2.2).")
    add_dataset_args(p)
    p.add_argument("--threshold", type=Real(0, 1, hi_open=True), default=0.2, help="probability threshold in [0, 1) (default 0.2)")
    p.add_argument("--folds", type=Whole(2, 10 ** 6), default=5, help="cross-fitting folds (default 5)")
    p.add_argument("--seed", type=Whole(0, SEED_MAX), default=0)
    p.add_argument("--out", required=True, help="kept examples CSV")
    p.add_argument("--dropped", help="dropped examples CSV, with the gold-label probability")
    p.set_defaults(func=cmd_consistency)

    p = sub.add_parser("evaluate", help="evaluate a run: model families vs baselines, partial input, KNN distances, coarse action, report",
                       description="Evaluate an AFLite run the way the papers do (paper 000 Table 3 and Fig. 2, paper 003 "
                                   "Table 3, paper 002 Algorithm 1) and write JSON/CSV tables, figures and report.html to --out.")
    add_dataset_args(p)
    p.add_argument("--run", required=True, help="the run: the manifest JSON of 'aflite --manifest', or a run .npz")
    p.add_argument("--out", required=True, help="output folder (created; an evaluation folder written earlier by this "
                                                "tool and unchanged since is replaced, any other existing folder refused)")
    p.add_argument("--representation", "-r", help="what the model families see (default: the run's representation)")
    p.add_argument("--tau", type=Real(0, 1), help="τ to evaluate at (a run .npz only; default: the run's)")
    p.add_argument("--target-size", type=Size(), help="n to evaluate at (a run .npz only; default: the run's)")
    p.add_argument("--families", default="logistic,svm,rbf-svm,knn,mlp", help="model families (default: logistic,svm,rbf-svm,knn,mlp)")
    p.add_argument("--eval-share", type=Real(0, 1, lo_open=True, hi_open=True), default=0.2, help="i.i.d. held-out share (default 0.2)")
    p.add_argument("--stratified", action="store_true", help="stratify the random baseline by label")
    p.add_argument("--partial", help="partial-input representation (default: tfidf-svd over the last text field; 'none' to skip)")
    p.add_argument("--ks", type=WholeList(1, 10 ** 6), default=(1, 5, 10, 50), help="K of the KNN distances (default 1,5,10,50)")
    p.add_argument("--step", type=Real(0, 1, lo_open=True), default=0.1, help="coarse action: step b (default 0.1)")
    p.add_argument("--tolerance", type=Real(0, 1), default=0.0, help="coarse action: smallest accuracy gain that counts (default 0)")
    p.add_argument("--coarse-family", default="logistic", help="coarse action: model family (default logistic)")
    p.add_argument("--difficulty", help="a numeric column to compare among retained / removed / random")
    p.add_argument("--synthetic", dest="synthetic", action="store_true", default=None, help="add the circles report (default: on for demo:circles)")
    p.add_argument("--no-synthetic", dest="synthetic", action="store_false")
    p.add_argument("--figures", default="png", choices=["png", "html", "none"], help="figure files (default png; html where no static renderer works)")
    p.add_argument("--seed", type=Whole(0, SEED_MAX), default=0, help="random seed (default 0)")
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("export", help="export a saved run's split (retained, removed, or all with scores) with its manifest",
                       description="Write the split of a saved run to CSV, Parquet, JSONL or a datasets folder, streamed in "
                                   "chunks, with <name>.manifest.json beside it. Embeddings are left out of CSV unless "
                                   "--embeddings is given (Parquet, JSONL and datasets folders keep them).")
    add_dataset_args(p)
    p.add_argument("--run", required=True, help="a run .npz (the dashboard's run store: any τ/n it answers) or the manifest "
                                                "JSON of 'aflite --manifest' (the run as fitted; retained or removed)")
    p.add_argument("--which", default="retained", choices=["retained", "removed", "all"], help="split (default retained)")
    p.add_argument("--format", choices=["csv", "parquet", "jsonl", "datasets"], help="default: from --out's ending")
    p.add_argument("--out", required=True, help="output file (.csv, .parquet, .jsonl) or folder (datasets)")
    p.add_argument("--tau", type=Real(0, 1), help="τ to export at (a run .npz only; default: the run's)")
    p.add_argument("--target-size", type=Size(), help="n to export at (a run .npz only; default: the run's)")
    p.add_argument("--embeddings", action="store_true", help="keep embedding and image columns in a CSV (as JSON text)")
    p.add_argument("--quality", metavar="SPEC", help="add the quality columns (7 DQI components, dqi, light) computed on "
                                                     "this representation, e.g. tfidf-svd:fields=hypothesis")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("project", help="precompute the 2-D map (UMAP) of a representation for the dashboard's Map page",
                       description="Compute the UMAP (or PCA) map of a representation into the cache the dashboard's "
                                   "Map page reads, in recorded stages: PCA to --pca-dims, the kNN graph (cached: a "
                                   "rerun that changes only --min-dist/--spread skips the neighbour search), the layout. "
                                   "numba's compiled kernels are cached in $NUMBA_CACHE_DIR (default: <cache>/numba).")
    add_dataset_args(p)
    p.add_argument("--representation", "-r", default="tfidf-svd", help="representation spec (default: tfidf-svd over all text fields)")
    p.add_argument("--method", default="umap", choices=["umap", "pca"], help="umap (default) or pca (instant preview)")
    p.add_argument("--n-neighbors", type=Whole(2, 10_000), default=15, help="UMAP neighbours (default 15; a change searches a new kNN graph)")
    p.add_argument("--metric", default="euclidean", help="distance of the kNN graph: euclidean (default), cosine, manhattan, correlation, chebyshev")
    p.add_argument("--min-dist", type=Real(0, 1), default=0.1, help="UMAP min_dist in [0, 1] (default 0.1; display only: reuses the kNN graph)")
    p.add_argument("--spread", type=Real(0, 10, lo_open=True), default=1.0, help="UMAP spread (default 1.0; display only: reuses the kNN graph)")
    p.add_argument("--pca-dims", type=Whole(2, 100_000, allowed=(0,), meaning="0: no PCA step"), default=50, help="PCA step before UMAP to this many dims (default 50; 0 = none)")
    p.add_argument("--fit-size", type=Whole(0, 10 ** 9), default=200_000, help="fit UMAP on at most this many rows, place the rest with "
                                                               "transform (default 200000; 0 = every row)")
    p.add_argument("--seed", type=Whole(0, SEED_MAX), default=0, help="random seed (default 0, as the dashboard)")
    p.add_argument("--json", action="store_true", help="print the projection's record (stages, PCA, kNN graph) as JSON")
    p.set_defaults(func=cmd_project)

    def quality_args(p):
        p.add_argument("--representation", "-r", default="tfidf-svd", help="representation Φ (default tfidf-svd over all text fields)")
        p.add_argument("--min-count", type=Whole(1, 10 ** 9), default=5, help="n-grams seen fewer times get no z (default 5)")
        p.add_argument("--nn-dim", type=Whole(0, 100_000), default=64, help="principal axes of Φ for the neighbour search (default 64; 0 = exact)")
        p.add_argument("--weights", help="weights of the combined score, e.g. label_tied=2,word_overlap=1.5")
        p.add_argument("--thresholds", help="traffic-light thresholds (red below:green from), e.g. dqi=0.4:0.6")

    p = sub.add_parser("quality", help="DQI quality components per example, the combined score and traffic lights",
                       description="Compute the quality components of every example (paper 002, DQI; see core.quality), "
                                   "the combined dqi score and traffic lights, and write them as CSV.")
    add_dataset_args(p)
    quality_args(p)
    p.add_argument("--second-split", help="another split with the same columns (inter-split similarity)")
    p.add_argument("--out", required=True, help="CSV: id, one column per component, dqi, light_<component>, light")
    p.set_defaults(func=cmd_quality)

    p = sub.add_parser("feedback", help="traffic lights and suggestions for one new example against a dataset",
                       description="Give one new example (JSON with every text field and the label) the quality "
                                   "feedback a creator sees: lights per component, label-tied words, partial-input "
                                   "and Φ predictions, nearest neighbours and suggestions.")
    add_dataset_args(p)
    quality_args(p)
    p.add_argument("--example", required=True, help='JSON, e.g. \'{"premise": "...", "hypothesis": "...", "label": "entailment"}\'')
    p.add_argument("--max-chars", type=Whole(1, 10 ** 7), default=2000, help="longest text of one field (default 2000)")
    p.add_argument("--json", action="store_true", help="print the feedback as JSON")
    p.add_argument("--out", help="also write the feedback as JSON")
    p.set_defaults(func=cmd_feedback)

    for command in sub.choices.values():   # every command that writes says what happens to an existing output
        if any(a.dest == "out" for a in command._actions):
            command.epilog = "Outputs: " + POLICY + " Nothing a command reads is ever written."
    return parser


COMMANDS = ("info", "represent", "aflite", "zstats", "zfilter", "consistency", "evaluate", "export", "quality", "feedback",
            "project")


#: flags whose value is a path the command reads, and flags whose value is a representation
#: spec (which can name a vector file: ``file:path=…``)
_INPUT_FLAGS = {"dataset": "the dataset", "seed_dataset": "--seed-dataset", "run": "--run",
                "second_split": "--second-split"}
_SPEC_FLAGS = {"representation": "--representation", "quality": "--quality", "partial": "--partial"}


def _inputs(args) -> list:
    """(flag, path) of every file or folder the command reads: no output may touch one."""
    from core.representations import spec_paths
    from core.source_files import files_read

    found = [(flag, getattr(args, name)) for name, flag in _INPUT_FLAGS.items() if getattr(args, name, None)]
    for flag, path in list(found):   # what a folder points at (symlinks, README data_files) is read too
        if isinstance(path, str) and not path.startswith("demo:"):
            found += [(flag, p) for p in files_read(path, limit=None)[0]]
    for name, flag in _SPEC_FLAGS.items():
        value = getattr(args, name, None)
        if isinstance(value, str):
            found += [(flag, p) for p in spec_paths(value)]
    return found


def _interrupt(signum, frame):
    raise KeyboardInterrupt   # SIGTERM (a kill, a scheduler) ends a command like Ctrl-C


def main(argv=None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:   # argparse printed the usage and one error line (2), or --help (0)
        return exc.code if isinstance(exc.code, int) else 2
    if not getattr(args, "command", None):
        parser.print_usage(sys.stderr)
        print("error: no command given; choose one of " + ", ".join(COMMANDS) + " (see python -m core --help).",
              file=sys.stderr)
        return 2
    if getattr(args, "cache_dir", None):
        os.environ["ARTIFACT_LENS_CACHE"] = args.cache_dir
    previous = signal.signal(signal.SIGTERM, _interrupt)
    args.outputs = Outputs()
    try:
        args.outputs = Outputs(inputs=_inputs(args))
        return int(args.func(args) or 0)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:   # a read-only folder, a full disk, a path that turned into a folder
        where = args.outputs.describe(exc.filename) or exc.filename
        where = f" ({where})" if where else ""
        print(f"error: {exc.strerror or exc}{where}; check the path, its permissions and the free space, "
              "then run the command again.", file=sys.stderr)
        return 2
    except Cancelled:
        print("cancelled", file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        written = args.outputs.report()
        print("interrupted; " + (f"only these outputs were written: {written}" if written else "no output was written"),
              file=sys.stderr)
        return 130
    finally:
        args.outputs.abort()   # temporaries of outputs not moved into place
        signal.signal(signal.SIGTERM, previous)
