"""Commands that score a dataset and use a run: info, represent, aflite, evaluate."""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from ..base.bounds import EPOCHS
from .common import (device_from, describe_representation, duration_text, load_from_args, print_messages,
                             progress_bar, representation_for, seconds_text, write_table)
from ..base.errors import InputError
from ..base.progress import span
from .. import models
from ..aflite.knobs import KNOBS
from ..exports.formats import described
from .arguments import Address, Device, Real, SEED_MAX, Whole, WholeList, add_knob
from .commands import REPRESENTATION_HELP, command
from .common import add_dataset_args


def cmd_info(args) -> int:
    from ..data.sources import detect_roles

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
    if ds.pairs is not None:
        from ..text.degenerate import degenerate_pairs
        from ..zstats.pairs import length_bias, length_bias_line, position_bias, position_bias_line

        flagged = degenerate_pairs(ds)
        info["pairs"] = {"shape": ds.pairs.shape, "columns": ds.pairs.columns, "order_seed": ds.pairs.order_seed,
                         "length_bias": length_bias(ds), "position_bias": position_bias(ds),
                         "degenerate": {reason: group["id"].tolist() for reason, group in flagged.groupby("reason")}}
    if ds.choices is not None:
        from ..zstats.choices import choice_summary

        info["choices"] = choice_summary(ds)
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
    if ds.pairs is not None:
        bias = info["pairs"]["length_bias"]
        print(f"pairs        {ds.pairs.shape} shape (" + ", ".join(f"{r}: {c}" for r, c in ds.pairs.columns.items())
              + "); label: which side (a or b, a seeded random order) was preferred")
        print(f"length       {length_bias_line(bias)}")
        if info["pairs"]["position_bias"] is not None:
            print(f"order        {position_bias_line(info['pairs']['position_bias'])}")
        for reason, ids in info["pairs"]["degenerate"].items():
            shown = ", ".join(ids[:8]) + (f" … ({len(ids):,} in all; --json lists them)" if len(ids) > 8 else "")
            print(f"degenerate   {reason}: {shown}")
    if ds.choices is not None:
        from ..zstats.choices import choice_lines

        for heading, text in choice_lines(info["choices"]):
            print(f"{heading:<12} {text}")
    for m in ds.messages:
        print(f"note: {m}")
    return 0


@command("info", run=cmd_info, items=True, help="rows, label distribution, columns and their roles, dropped rows",
         description="Show what the tool sees in a dataset: rows, labels, column roles, dropped rows.")
def _info_options(p) -> None:
    add_dataset_args(p)
    p.add_argument("--json", action="store_true", help="print JSON")


def cmd_represent(args) -> int:
    args.outputs.declare("--out", args.out, (".npy", ".npz", ".parquet"))
    import numpy as np

    out = Path(args.out)
    ds = load_from_args(args)
    print_messages(ds, args.quiet)
    rep = representation_for(ds, args.representation, args)
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


@command("represent", run=cmd_represent, items=True, help="build a representation (an N x d float32 matrix) and save it",
         description="Build a representation Phi of a dataset and write it to .npy, .npz (X, ids) or .parquet (id, embedding).")
def _represent_options(p) -> None:
    add_dataset_args(p)
    from ..representations import REGISTRY

    p.add_argument("--representation", "-r", required=True,
                   help="spec KIND[:key=value,...], one of: " + " | ".join(k.example for k in REGISTRY.values()))
    p.add_argument("--out", required=True, help="output file (.npy, .npz or .parquet)")


def _evaluate(ds, rep, run, args) -> dict:
    """Accuracy on full / filtered / random subsets and KNN distances (printed and returned)."""
    import numpy as np

    from ..aflite import random_subset
    from ..evaluation import knn_distances, subset_accuracy

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
            self.write(f"aflite: set-up (checking X, centring, block Gram matrices) {seconds_text(setup)}")
        self.seconds.append(secs)
        after = size - removed
        if rec.get("stop_reason"):
            tail = f"stopped ({'fewer than k passed τ' if rec['stop_reason'] == 'tau' else 'reached n'})"
        else:
            left = max(0, -(-(after - self.n) // max(self.k, 1)))
            recent = self.seconds[-self.window:]
            mean = sum(recent) / len(recent)
            tail = f"ETA {'≤ ' if self.tau > 0 else ''}{duration_text(left * mean)} ({left} phases × {seconds_text(mean)})"
        self.write(f"aflite phase {j + 1}/{self.total}: |S| {size:,} → {after:,} (removed {removed:,}) "
                   f"in {seconds_text(secs)}; {tail}")


def _phase_log(args, N: int, bar):
    """The per-phase progress lines of `cmd_aflite` (None with --quiet)."""
    if args.quiet:
        return None
    from ..aflite.selection import resolve_size

    try:
        n = resolve_size("target_size", "n", args.target_size, N)
        k = 1 if args.strategy == "greedy" else resolve_size("slice_size", "k", args.k, N, least=1)
    except InputError:
        return None  # the fit reports bad sizes itself
    if bar is not None:
        from tqdm import tqdm

        write = lambda line: tqdm.write(line, file=sys.stderr)  # noqa: E731  (above the bar, not through it)
    else:
        write = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    return PhaseLog(N, n, k, float(args.tau), write)


def _scores_file(ds, run, joint: bool):
    """What ``aflite --out`` writes: each example's id (and label), predictability and fate. A pair's
    label is its side of a drawn order and an item's is in its own answer column: theirs key them by
    id alone."""
    from ..exports.writers import export_frame

    scored = export_frame(ds, run, which="all", include_arrays=False)
    return scored[["id", *([ds.label] if ds.pairs is None and ds.choices is None else []), "predictability",
                   "removed_at", "retained", "warmup"] + (["possibly_mislabelled"] if joint and "possibly_mislabelled"
                                                          in scored.columns else [])]


def cmd_aflite(args) -> int:

    from ..exports import writers as export
    from ..usecases.scoring import run_inputs, score_dataset

    outs = args.outputs
    outs.declare("--out", args.out, (".csv",))
    outs.declare("--manifest", args.manifest, (".json",))
    outs.declare("--export", args.export, export.formats.endings(), folder_ok=True)
    if args.export:
        outs.declare("the export's manifest", export.manifest_path(args.export), (".json",))
    if args.scheduler:   # an unreachable cluster is refused before the data is read
        from ..aflite.distributed import connect

        connect(args.scheduler).close()
    device = device_from(args)
    ds = load_from_args(args)
    print_messages(ds, args.quiet)
    rep = representation_for(ds, args.representation, args)
    describe_representation(rep, args.quiet)
    params = dict(n_partitions=args.m, train_size=args.train_size, slice_size=args.k, tau=args.tau,
                  target_size=args.target_size, model=args.model, strategy=args.strategy,
                  random_state=args.seed, n_jobs=args.jobs, **({"device": device} if device else {}))
    if ds.choices is not None and (args.quality or args.joint):   # refused, never run on the gold's letter as a class
        raise InputError(f"{'--quality' if args.quality else '--joint'} orders labelled examples by their quality or "
                         "training dynamics; multiple-choice items have no class to measure them by (the gold's letter "
                         "is a position): drop it, or run AFLite on the items alone.")
    # the quality order and the joint filter are named before any work (a bad one is refused at once)
    # and computed only when there is a fit, as `score_dataset` asks (the dashboard's rule too)
    quality_values, quality_record = _aflite_quality(args, ds, rep)
    joint_info = _aflite_joint(args)
    assembled, made = run_inputs(ds, rep, quality=quality_values, joint_info=joint_info,
                                 on_note=lambda note: print(f"note: {note}", file=sys.stderr)), {}

    def inputs(progress):   # kept to say what the joint filter protected (when the run is fitted now)
        quality, made["joint"] = assembled(progress)
        return quality, made["joint"]

    with progress_bar("aflite", args.quiet) as bar:
        run = score_dataset(ds, rep, params, quality_info=quality_record or None, joint_info=joint_info, inputs=inputs,
                            progress=bar, on_phase=_phase_log(args, len(rep.ids), bar), scheduler=args.scheduler)
    scored = _scores_file(ds, run, bool(run.joint))   # a joint run's, fitted now or read back
    extra = {"retained_ids": run.kept_ids().tolist(),
             "command": args.command_line}
    if quality_record:
        extra["quality"] = quality_record
    if args.evaluate:
        extra["evaluation"] = _evaluate(ds, rep, run, args)
    manifest = run.manifest(**extra)
    write_table(scored, outs.path_for("--out"))
    if args.manifest:
        Path(outs.path_for("--manifest")).write_text(json.dumps(manifest, indent=1, default=str))
    if args.export:   # what `export` writes of the run as fitted (`core.usecases.exports.write_export`)
        from ..usecases.exports import export_split, write_export

        fmt = export.format_of(args.export)
        out = export_split(ds, run, which=args.which, fmt=fmt, include_arrays=True)
        with progress_bar("export", args.quiet) as bar:
            carried = write_export(ds, out, outs.path_for("--export"), fmt, cache_dir=args.cache_dir, progress=bar)
        if carried is not None and carried.note and not args.quiet:
            print(f"note: {carried.note}", file=sys.stderr)
        Path(outs.path_for("the export's manifest")).write_text(json.dumps(out.manifest, indent=1, default=str))
    outs.commit()
    if not args.quiet:
        kept = int(run.retained.sum())
        print(f"AFLite: kept {kept} of {len(run.ids)} scored examples in {run.n_phases} phases ({run.seconds:.1f} s); wrote {args.out}")
        if len(run.excluded_ids):
            print(f"note: {len(run.excluded_ids)} warm-up examples trained the representation and were not scored (warmup=true).")
        if made.get("joint") is not None:
            f = made["joint"].found
            print(f"joint filter: only the {f['removable']:,} easy-to-learn, unflagged examples could be removed; "
                  f"{f['regions']['ambiguous']:,} ambiguous protected; {f['possibly_mislabelled']:,} possibly "
                  "mislabelled kept (possibly_mislabelled=true; the review queue serves them first).")
    return 0


@command("aflite", run=cmd_aflite, items=True, help="AFLite predictability scores and the filtered split",
         description="Run AFLite (Le Bras et al. 2020, Algorithm 1) and write every example with its id, label, "
                     "predictability, removal phase and whether it is retained. Sizes are a count (3000) or a fraction (0.3).")
def _aflite_options(p) -> None:
    add_dataset_args(p)
    p.add_argument("--representation", "-r", default=None, help=REPRESENTATION_HELP)
    for knob in KNOBS:   # m, t, k, τ, n as `core.aflite.knobs` declares them
        add_knob(p, knob)
    p.add_argument("--model", default=None, help="model family: ridge (default), logistic, svm, ensemble; "
                   "multiple-choice items: choice (a conditional logit over each item's options, always)")
    p.add_argument("--strategy", default="greedy-slice", help="greedy-slice (default), slice-sample, greedy")
    p.add_argument("--quality", help="dqi, a quality component (core.quality) or a numeric column: among p ≥ τ, remove the "
                                     "lowest-quality examples first (paper 002); recorded in the manifest")
    p.add_argument("--joint", action="store_true", help="the joint filter (core.dynamics.joint): training dynamics on Φ first; remove "
                   "only easy-to-learn examples, protect ambiguous ones, keep hard-to-learn or cleanlab-flagged ones as "
                   "possibly mislabelled (a column, the manifest, first in the review queue)")
    p.add_argument("--joint-model", choices=["linear", "mlp"], help="the joint filter's cartography model (default linear)")
    p.add_argument("--joint-epochs", type=Whole(*EPOCHS.range), help="the joint filter's cartography epochs (default 10)")
    p.add_argument("--seed", type=Whole(0, SEED_MAX), default=0, help="random seed (default 0)")
    p.add_argument("--jobs", type=Whole(1, 1024, allowed=(-1,), meaning="every core"), default=-1, help="threads for the ridge family (default -1: every core; "
                   "the result does not depend on it)")
    p.add_argument("--device", type=Device(), help="where the ridge family computes: cuda, cuda:N, torch, cupy or array-api "
                   "(default: $ARTIFACT_LENS_DEVICE, else the CPU engine; the same retained set up to rounding ties)")
    p.add_argument("--scheduler", type=Address(), help="run the phases on a Dask cluster, e.g. tcp://HOST:8786 (same result as "
                   "in this process; a memory-mapped Φ is read by the workers from its file)")
    p.add_argument("--out", required=True, help="scores CSV: id, label, predictability, removed_at, retained, warmup")
    p.add_argument("--manifest", help="run manifest JSON: parameters, seed, representation, versions, fingerprint, retained ids")
    p.add_argument("--export", help=f"also export a split with all columns: {described()}")
    p.add_argument("--which", default="retained", choices=["retained", "removed", "all"], help="split for --export (default retained)")
    p.add_argument("--evaluate", action="store_true", help="also report accuracy on full / filtered / random subsets and KNN distances (in the manifest too)")


def _aflite_joint(args):
    """--joint: the joint filter's descriptor (`core.dynamics.joint.descriptor`: part of the run's
    name, as the dashboard's), or None; its knobs alone are refused."""
    if not args.joint:
        if args.joint_model is not None or args.joint_epochs is not None:
            raise InputError("--joint-model and --joint-epochs set the joint filter's cartography; add --joint to use "
                             "it, or drop them.")
        return None
    from ..dynamics.joint import EPOCHS, descriptor

    return descriptor(model=args.joint_model or "linear", epochs=args.joint_epochs or EPOCHS, random_state=args.seed)


def cmd_evaluate(args) -> int:
    """Issue 12: the evaluation of a run, written as JSON/CSV tables, figures and report.html."""
    from ..evaluation import EvaluationOptions
    from ..results.run_arguments import run_input
    from ..usecases.evaluation import evaluate_split, write_report_files

    args.outputs.declare("--out", args.out, None, folder_ok=True)
    device = device_from(args)
    ds = load_from_args(args)
    print_messages(ds, args.quiet)
    given = run_input(args.run, ds, tau=args.tau, target_size=args.target_size)
    review = _review(args, given) if args.workspace else None   # who reads it is checked before any work
    rep = representation_for(ds, args.representation or given["spec"], args)
    synthetic = args.synthetic if args.synthetic is not None else ds.name.startswith("demo:circles")
    partial = None if args.partial is None else ("" if args.partial.lower() == "none" else args.partial)
    opts = EvaluationOptions(families=tuple(f.strip() for f in args.families.split(",") if f.strip()),
                             eval_share=args.eval_share, stratified=args.stratified, partial_spec=partial,
                             knn_ks=args.ks, coarse_step=args.step, coarse_tolerance=args.tolerance,
                             coarse_family=args.coarse_family, difficulty=args.difficulty, synthetic=synthetic,
                             seed=args.seed)
    with progress_bar("evaluate", args.quiet) as bar:
        ev = evaluate_split(ds, rep, run_key=given["run_key"], tau=given["tau"], n=given["n"],
                            retained_ids=given["retained_ids"], history=given["history"], n_phases=given["n_phases"],
                            options=opts, n_jobs=None if args.jobs == -1 else args.jobs, device=device, progress=bar)
    certificates = _certificates(args, ds, given) if args.certify else None
    notes = write_report_files(ev, args.outputs.path_for("--out"), figure_format=args.figures,
                               certificates=certificates, review=review)
    args.outputs.commit()
    if not args.quiet:
        from ..exports.report import family_wide
        from ..evaluation.verdict import tolerance_text, verdict

        said = verdict(ev)
        if said:
            print(said)
        print(f"Model families on {ev.context['representation']}: accuracy (Δ to full); intervals in the report:")
        print(family_wide(ev.tables["families"], ci=False).to_string())
        if "partial_input" in ev.tables:
            print(f"Partial input ({ev.context['partial_representation']}):")
            print(family_wide(ev.tables["partial_input"], ci=False).to_string())
        s = ev.summary
        print(f"Coarse action: {s['coarse_family']} stops improving at {s['coarse_fraction']:.0%} of the data "
              f"(suggested n = {s['coarse_n']}; {tolerance_text(s.get('coarse_tolerance'))}).")
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


@command("evaluate", run=cmd_evaluate, help="evaluate a run: model families vs baselines, partial input, KNN distances, coarse action, report",
         description="Evaluate an AFLite run the way the papers do (paper 000 Table 3 and Fig. 2, paper 003 "
                     "Table 3, paper 002 Algorithm 1) and write JSON/CSV tables, figures and report.html to --out.")
def _evaluate_options(p) -> None:
    on_device = [f.name for f in models.FAMILIES.values() if f.device is not None]
    add_dataset_args(p)
    p.add_argument("--run", required=True, help="the run: the manifest JSON of 'aflite --manifest', or a run .npz")
    p.add_argument("--out", required=True, help="output folder (created; an evaluation folder written earlier by this "
                                                "tool and unchanged since is replaced, any other existing folder refused)")
    p.add_argument("--representation", "-r", help="what the model families see (default: the run's representation)")
    add_knob(p, "tau", default=False, help="τ to evaluate at (a run .npz only; default: the run's)")
    add_knob(p, "target_size", default=False, help="n to evaluate at (a run .npz only; default: the run's)")
    p.add_argument("--families", default=",".join(models.table_names()),
                   help="model families, comma-separated: " + "; ".join(f"{f.name} ({f.title})" for f in models.FAMILIES.values())
                   + f" (default: {','.join(models.table_names())})")
    p.add_argument("--eval-share", type=Real(0, 1, lo_open=True, hi_open=True), default=0.2, help="i.i.d. held-out share (default 0.2)")
    p.add_argument("--stratified", action="store_true", help="stratify the random baseline by label")
    p.add_argument("--partial", help="partial-input representation (default: tfidf-svd over the last text field; 'none' to skip)")
    p.add_argument("--ks", type=WholeList(1, 10 ** 6), default=(1, 5, 10, 50), help="K of the KNN distances (default 1,5,10,50)")
    p.add_argument("--step", type=Real(0, 1, lo_open=True), default=0.1, help="coarse action: step b (default 0.1)")
    p.add_argument("--tolerance", type=Real(0, 1), default=None, help="coarse action: smallest accuracy gain that counts (default: one standard error of the held-out accuracy, so noise does not count; 0 = any gain, as in the paper)")
    p.add_argument("--coarse-family", default="logistic", choices=models.names(), help="coarse action: model family (default logistic)")
    p.add_argument("--difficulty", help="a numeric column to compare among retained / removed / random")
    p.add_argument("--synthetic", dest="synthetic", action="store_true", default=None, help="add the circles report (default: on for demo:circles)")
    p.add_argument("--no-synthetic", dest="synthetic", action="store_false")
    p.add_argument("--figures", default="png", choices=["png", "html", "none"], help="figure files (default png; html where no static renderer works)")
    p.add_argument("--seed", type=Whole(0, SEED_MAX), default=0, help="random seed (default 0)")
    p.add_argument("--jobs", type=Whole(1, 1024, allowed=(-1,), meaning="every core"), default=-1,
                   help="model fits at once (default -1: every core; the result does not depend on it)")
    p.add_argument("--device", type=Device(), help=f"where the families with a device version ({', '.join(on_device)}) train: cuda, cuda:N (a GPU, with "
                   "PyTorch), torch, cupy or array-api (default: $ARTIFACT_LENS_DEVICE, else the CPU; scikit-learn's "
                   "models, the same predictions bar examples at the boundary; the other families train on the CPU)")
    p.add_argument("--certify", action="store_true", help="also certify the whole dataset and the evaluated split on "
                   "the run's Φ, and add the gate's comparison to the report (the Evaluate page's certificate section)")
    p.add_argument("--workspace", help="add the team's review of the run (its key in the manifest) from this workspace "
                   "to the report (the Evaluate page's review section)")
    p.add_argument("--as", dest="as_", metavar="EMAIL", help="who reads the review, with --workspace (default: "
                   "$ARTIFACT_LENS_OWNER)")
    p.add_argument("--db", help="the team store's URL, with --workspace (default: $ARTIFACT_LENS_DB_URL)")


def _certificates(args, ds, given) -> dict:
    """--certify: the dataset's and the evaluated split's certificates on the run's Φ."""
    from ..usecases.certificates import certify_dataset, certify_split

    with progress_bar("certificates", args.quiet) as bar:
        whole = certify_dataset(ds, representation=given["spec"], cache_dir=args.cache_dir,
                                progress=span(bar, 0.0, 0.5, "the dataset's certificate"))
        split, why = certify_split(ds, given["retained_ids"], representation=given["spec"], cache_dir=args.cache_dir,
                                   progress=span(bar, 0.5, 1.0, "the split's certificate"))
    if split is None and not args.quiet:
        print(f"note: the split is not certified ({why}); the report has no certificate section.", file=sys.stderr)
    return {"dataset": whole, "split": split}


def _review(args, given) -> dict:
    """--workspace: the team's agreement on the run at the evaluation's τ/n, as its reader may see it."""
    from .team import agreement_report, member_of

    store, workspace_id, email = member_of(args, "reading the team's review")
    try:
        return agreement_report(store, workspace_id, given["run_key"], by=email, tau=given["tau"],
                                target_size=given["n"])
    finally:
        store.close()


def _aflite_quality(args, ds, rep):
    """--quality: (a function of ``progress`` giving the values, the run's quality descriptor), or
    (None, None): dqi or a component of core.quality (computed on Φ when there is a fit), else a
    numeric column (checked at once)."""
    import numpy as np
    import pandas as pd

    from .. import quality as q

    if not args.quality:
        return None, None
    if args.quality in ("dqi", *q.COMPONENTS):   # the dashboard's descriptor and values (core.quality.pruning)
        from ..quality.pruning import quality_column, quality_components, quality_descriptor

        info = quality_descriptor(args.quality)

        def computed(progress):
            table = quality_components(ds, rep, min_count=info["min_count"], nn_dim=info["nn_dim"],
                                       cache_dir=args.cache_dir, progress=progress)
            return quality_column(table, info, rep.ids)

        return computed, info
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
    return (lambda progress: values), {"source": "column", "name": args.quality}
