"""Commands that score and use a run: info, represent, aflite, evaluate, export, project."""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from core.cli.common import (describe_representation, duration_text, load_from_args, print_messages, progress_bar,
                             representation_for, seconds_text, write_table)
from core.certificate.schema import certificate_bytes
from core.base.errors import InputError
from core.base.settings import printable, settings


def cmd_info(args) -> int:
    from core.data.sources import detect_roles

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


def cmd_aflite(args) -> int:
    import numpy as np

    from core.exports import writers as export
    from core.results.runs import fit_run

    outs = args.outputs
    outs.declare("--out", args.out, (".csv",))
    outs.declare("--manifest", args.manifest, (".json",))
    outs.declare("--export", args.export, (".csv", ".parquet", ".jsonl", ""), folder_ok=True)
    if args.export:
        outs.declare("the export's manifest", export.manifest_path(args.export), (".json",))
    if args.scheduler:   # an unreachable cluster is refused before the data is read
        from core.aflite.distributed import connect

        connect(args.scheduler).close()
    device = args.device or settings().device
    if device:
        from core.aflite.backends import namespace

        namespace(device)   # a library that is not installed, or no GPU: said before any work
    ds = load_from_args(args)
    print_messages(ds, args.quiet)
    rep = representation_for(ds, args.representation, args)
    describe_representation(rep, args.quiet)
    params = dict(n_partitions=args.m, train_size=args.train_size, slice_size=args.k, tau=args.tau,
                  target_size=args.target_size, model=args.model, strategy=args.strategy,
                  random_state=args.seed, n_jobs=args.jobs, **({"device": device} if device else {}))
    quality, quality_record = _aflite_quality(args, ds, rep)
    joint = _aflite_joint(args, ds, rep)
    bar = progress_bar("aflite", args.quiet)
    try:
        run = fit_run(ds, rep, params, progress=bar, quality=quality, quality_info=quality_record or None, joint=joint,
                      on_phase=_phase_log(args, len(rep.ids), bar), scheduler=args.scheduler)
    finally:
        if bar:
            bar.close()
    scored = export.export_frame(ds, run, which="all", include_arrays=False)
    scored = scored[["id", ds.label, "predictability", "removed_at", "retained", "warmup"]
                    + (["possibly_mislabelled"] if joint is not None else [])]
    extra = {"retained_ids": [str(i) for i in np.asarray(run.ids)[run.retained]],
             "command": args.command_line}
    if quality_record:
        extra["quality"] = quality_record
    if args.evaluate:
        extra["evaluation"] = _evaluate(ds, rep, run, args)
    manifest = run.manifest(**extra)
    write_table(scored, outs.path_for("--out"))
    if args.manifest:
        Path(outs.path_for("--manifest")).write_text(json.dumps(manifest, indent=1, default=str))
    if args.export:
        fmt = Path(args.export).suffix.lower().lstrip(".") or "datasets"
        frame = export.export_frame(ds, run, which=args.which)
        manifest_out = export.manifest_for(run, which=args.which, fmt=fmt, rows=len(frame), dataset=ds,
                                           tau=run.trajectory.tau, target_size=run.trajectory.n,
                                           retained_ids=extra["retained_ids"])
        card = None
        if fmt == "datasets":   # a datasets folder carries its manifest and its dataset card
            from core.exports.card import card_of

            card = card_of(ds, manifest_out)
        export.write_new(frame, outs.path_for("--export"), fmt, manifest=manifest_out, card=card)
        Path(outs.path_for("the export's manifest")).write_text(json.dumps(manifest_out, indent=1, default=str))
    outs.commit()
    if not args.quiet:
        kept = int(run.retained.sum())
        print(f"AFLite: kept {kept} of {len(run.ids)} scored examples in {run.n_phases} phases ({run.seconds:.1f} s); wrote {args.out}")
        if len(run.excluded_ids):
            print(f"note: {len(run.excluded_ids)} warm-up examples trained the representation and were not scored (warmup=true).")
        if joint is not None:
            f = joint.found
            print(f"joint filter: only the {f['removable']:,} easy-to-learn, unflagged examples could be removed; "
                  f"{f['regions']['ambiguous']:,} ambiguous protected; {f['possibly_mislabelled']:,} possibly "
                  "mislabelled kept (possibly_mislabelled=true; the review queue serves them first).")
    return 0


def _aflite_joint(args, ds, rep):
    """--joint: the cartography's masks (core.dynamics.joint), or None; its knobs alone are refused."""
    if not args.joint:
        if args.joint_model is not None or args.joint_epochs is not None:
            raise InputError("--joint-model and --joint-epochs set the joint filter's cartography; add --joint to use "
                             "it, or drop them.")
        return None
    from core.dynamics.joint import EPOCHS, descriptor
    from core.dynamics.joint import joint_for

    info = descriptor(model=args.joint_model or "linear", epochs=args.joint_epochs or EPOCHS, random_state=args.seed)
    bar = progress_bar("cartography", args.quiet)
    try:
        found = joint_for(ds, rep, info, progress=bar)
    finally:
        if bar:
            bar.close()
    for note in found.found["notes"]:
        print(f"note: {note}", file=sys.stderr)
    return found


def cmd_evaluate(args) -> int:
    """Issue 12: the evaluation of a run, written as JSON/CSV tables, figures and report.html."""
    import numpy as np

    from core.evaluation import EvaluationOptions, evaluate
    from core.exports.report import write_files
    from core.results.run_arguments import run_input

    args.outputs.declare("--out", args.out, None, folder_ok=True)
    ds = load_from_args(args)
    print_messages(ds, args.quiet)
    given = run_input(args.run, ds, tau=args.tau, target_size=args.target_size)
    rep = representation_for(ds, args.representation or given["spec"], args)
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
                      context={"run_key": given["run_key"], "tau": given["tau"], "n": given["n"]},
                      n_jobs=None if args.jobs == -1 else args.jobs, progress=bar)
    finally:
        if bar:
            bar.close()
    notes = write_files(ev, args.outputs.path_for("--out"), figure_format=args.figures)
    args.outputs.commit()
    if not args.quiet:
        from core.exports.report import family_wide
        from core.evaluation.verdict import tolerance_text, verdict

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


def _aflite_quality(args, ds, rep):
    """--quality: dqi or a component of core.quality (computed on Φ), else a numeric column."""
    import numpy as np
    import pandas as pd

    from core import quality as q

    if not args.quality:
        return None, None
    if args.quality in ("dqi", *q.COMPONENTS):   # the dashboard's descriptor and values (core.quality.pruning)
        from core.quality.pruning import quality_column, quality_components, quality_descriptor

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


def cmd_export(args) -> int:
    """Issue 14: a saved run's split, streamed to a file in chunks, with its manifest beside it."""
    from core.exports import writers as export

    fmt = args.format or export.format_of(args.out)
    if fmt is None:
        raise InputError(f"cannot tell the format from --out {Path(args.out).name}; end it in .csv, .parquet or .jsonl, "
                         "give a folder name for a datasets folder, or pass --format.")
    args.outputs.declare("--out", args.out, (export.EXTENSIONS[fmt],), folder_ok=fmt == "datasets")
    args.outputs.declare("the export's manifest", export.manifest_path(args.out), (".json",))
    if args.push_to_hub:
        hub_token(args.push_to_hub)   # offline or no token: say so before any work
    ds = load_from_args(args)
    print_messages(ds, args.quiet)
    frame, manifest, summary = export.from_run_file(
        ds, args.run, which=args.which, fmt=fmt, tau=args.tau, target_size=args.target_size,
        include_arrays=args.embeddings or fmt != "csv", extra={"command": args.command_line})
    quality = note = pairs = None
    if args.quality:
        from core.quality import quality_scores
        from core.quality.pruning import quality_columns_note

        quality, note = quality_scores(ds, args.quality, cache_dir=args.cache_dir), quality_columns_note(args.quality)
    if args.drop_near_duplicates:
        from core.text.duplicates import near_duplicate_pairs

        pairs = near_duplicate_pairs(ds)
    from core.exports.plan import with_options

    frame = with_options(frame, manifest, quality=quality, quality_note=note, duplicate_pairs=pairs)
    if pairs is not None and not args.quiet:
        print(f"note: dropped {len(manifest['export']['near_duplicates']['dropped']):,} near-duplicates (one of "
              "each group kept).", file=sys.stderr)
    card, certificate = None, None
    if fmt == "datasets" or args.push_to_hub:   # a datasets folder (and a Hub push) carries its card and certificate
        from core.exports.card import card_of

        if not args.no_certificate:
            certificate = split_certificate(ds, frame, args.quiet)
        card = card_of(ds, manifest, certificate=certificate)
    bar = progress_bar("export", args.quiet)
    try:
        export.write_file(frame, args.outputs.path_for("--out"), fmt, manifest=manifest, zipped=False, progress=bar,
                          card=card, files={"certificate.json": certificate_bytes(certificate)} if certificate else None)
    finally:
        if bar:
            bar.close()
    Path(args.outputs.path_for("the export's manifest")).write_text(json.dumps(manifest, indent=1, default=str))
    args.outputs.commit()
    if not args.quiet:
        print(f"{summary}; wrote {len(frame):,} rows ({args.which}) to {args.out}")
    if args.push_to_hub:
        push_to_hub(frame, card, args.push_to_hub, certificate=certificate)
        if not args.quiet:
            print(f"pushed the split and its card to https://huggingface.co/datasets/{args.push_to_hub}")
    return 0


def hub_token(repo_id: str) -> str:
    """The Hugging Face token to push with, or a clear error when offline or signed out."""
    import re

    from huggingface_hub.utils import HFValidationError, validate_repo_id

    try:   # the Hub's own rules ('..', '--', a leading or trailing '-' or '.', 96 characters), before any work
        if not re.fullmatch(r"[\w.-]+/[\w.-]+", repo_id):
            raise HFValidationError("not OWNER/NAME")
        validate_repo_id(repo_id)
    except HFValidationError as exc:
        raise InputError(f"--push-to-hub {repo_id!r} is not a Hub repository id ({str(exc).splitlines()[0][:120]}); "
                         "give OWNER/NAME, e.g. my-team/snli-filtered.") from None
    from core.data.sources import hub_offline

    if hub_offline():
        raise InputError("cannot push to the Hub: offline mode is on (HF_HUB_OFFLINE or HF_DATASETS_OFFLINE); unset it on a machine "
                         "that reaches huggingface.co, or export to a folder and upload it from there.")
    from huggingface_hub import get_token

    token = get_token()
    if not token:
        raise InputError("cannot push to the Hub: no Hugging Face token; run `hf auth login` or set HF_TOKEN, then "
                         "try again.")
    return token


def split_certificate(dataset, frame, quiet: bool = False):
    """The artifact certificate of the exported rows (`core.certificate`), or None with a note when
    the split is too small to measure (e.g. a label with fewer examples than folds)."""
    from core.certificate.measures import certify

    try:
        return certify(dataset.subset(frame["id"].astype(str)))
    except InputError as exc:
        if not quiet:
            print(f"note: no certificate.json: {printable(exc)}", file=sys.stderr)
        return None


def push_to_hub(frame, card, repo_id: str, certificate=None) -> None:
    """The split (as a `datasets.Dataset`), its card and its ``certificate.json`` to the dataset
    repository ``repo_id``."""
    import datasets
    from huggingface_hub import HfApi

    token = hub_token(repo_id)
    try:
        datasets.Dataset.from_pandas(frame, preserve_index=False).push_to_hub(repo_id, token=token)
        card.push_to_hub(repo_id, repo_type="dataset", token=token)
        if certificate is not None:
            HfApi(token=token).upload_file(path_or_fileobj=certificate_bytes(certificate), path_in_repo="certificate.json",
                                           repo_id=repo_id, repo_type="dataset")
    except Exception as exc:  # noqa: BLE001  (network, permissions: the files written locally stay)
        raise InputError(f"pushing to {repo_id} failed ({exc.__class__.__name__}: {printable(exc)}); the export on "
                         "disk is complete: fix what the message names (the network, the token's write access to "
                         "the repository) and push it again.") from None


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
    from core.representations import projection as proj

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
    rep = representation_for(ds, args.representation, args)
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
        print("  PCA        " + (f"{p['from_dims']} → {p['dims']} dims, explained variance {p['explained_variance']:.3f}, "
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


def cmd_prune(args) -> int:
    """Keep the computed results in the cache within a disk budget (`core.results.stores.Results.prune`)."""
    from core.base import paths
    from core.base.memory import size_text
    from core.results.stores import Results

    root = Path(args.cache_dir) if args.cache_dir else paths.cache_dir()
    budget = settings().results_mb if args.max_mb is None else args.max_mb
    if not root.is_dir():
        raise InputError(f"the cache folder {root} does not exist or is not a folder; give the folder with --cache-dir "
                         "(or $ARTIFACT_LENS_CACHE).")
    found = Results(root).prune(budget * 1e6)
    if args.json:
        print(json.dumps({"cache": str(root), "max_mb": budget, **found}))
    elif not args.quiet:
        print(f"pruned {root}: {found['outdated']:,} results of an older format and {found['least_recent']:,} least "
              f"recently used ones ({size_text(found['bytes_freed'])} freed); {size_text(found['bytes_left'])} of "
              f"results left (budget {size_text(budget * 1e6)}).")
    return 0
