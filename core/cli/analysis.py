"""Commands on simple features, quality and training dynamics: zstats, zfilter, consistency, quality,
feedback, cartography, transfer."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from ..base.escaping import terminal_text
from .common import (device_from, declare_csv, finite, id_arg, load_from_args, print_messages, progress_bar,
                             quality_knobs, representation_for, with_ids, write_table)


def cmd_zstats(args) -> int:
    from ..zstats import compute_z

    declare_csv(args, out=args.out)
    ds = load_from_args(args)
    print_messages(ds, args.quiet)
    if ds.pairs is not None:
        return _pair_zstats(args, ds)
    with progress_bar("z-statistics", args.quiet) as bar:
        zs = compute_z(ds, min_count=args.min_count, alpha=args.alpha, progress=bar)
    write_table(zs.table, args.outputs.path_for("--out"))
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


def _pair_zstats(args, ds) -> int:
    """``zstats`` on preference pairs: the pair cue table (`core.zstats.pairs`), keyed by feature."""
    from ..zstats.pairs import length_bias, length_bias_line, pair_cues

    cues = pair_cues(ds, min_count=args.min_count, alpha=args.alpha)
    write_table(cues.table, args.outputs.path_for("--out"))
    args.outputs.commit()
    if not args.quiet:
        bias = length_bias(ds)
        print(f"{cues.pairs} pairs; {cues.tested} features on which at least {args.min_count} pairs differ; line |z| > "
              f"{cues.line:.2f} (two-sided Bonferroni, alpha = {cues.alpha}); {int(cues.table['over_line'].sum())} over it")
        print(length_bias_line(bias))
        for c in cues.top(args.top).itertuples(index=False):
            print(f"  {terminal_text(c.feature)[:40]:40s} {c.kind:7s} favours {c.favours:8s} share {c.share:.3f} of "
                  f"{c.differ:>6,} differing pairs, z {c.z:+.1f}{'  *' if c.over_line else ''}")
        print(f"wrote {len(cues.table)} rows to {args.out}")
    return 0


def cmd_zfilter(args) -> int:
    from ..data.sources import load_dataset
    from ..zstats import z_filter

    declare_csv(args, out=args.out, rejected=args.rejected)
    ds = load_from_args(args)
    print_messages(ds, args.quiet)
    seed = None
    if args.seed_dataset:
        seed = load_dataset(args.seed_dataset, text=args.text, label=args.label, features=args.feature,
                            config=args.config, split=args.split)
    with progress_bar("z-filtering", args.quiet) as bar:
        res = z_filter(ds, seed_data=seed, batch_size=args.batch_size, k=args.k, alpha=args.alpha,
                       min_count=args.min_count, random_state=args.seed, progress=bar)
    write_table(with_ids(res.accepted), args.outputs.path_for("--out"))
    if args.rejected:
        write_table(with_ids(res.rejected), args.outputs.path_for("--rejected"))
    args.outputs.commit()
    if not args.quiet:
        s = res.summary()
        print(f"accepted {s['accepted']}, rejected {s['rejected']} in {s['batches']} batches; "
              f"largest z {s['z_max_before']:.1f} ({s['z_max_before_feature']}) before, "
              f"{s['z_max_after']:.1f} ({s['z_max_after_feature']}) after")
    return 0


def cmd_consistency(args) -> int:
    from ..zstats import consistency_filter

    declare_csv(args, out=args.out, dropped=args.dropped)
    ds = load_from_args(args)
    print_messages(ds, args.quiet)
    res = consistency_filter(ds, threshold=args.threshold, folds=args.folds, random_state=args.seed)
    for note in res.params.get("notes", []):
        print(f"note: {note}", file=sys.stderr)
    write_table(with_ids(res.kept), args.outputs.path_for("--out"))
    if args.dropped:
        write_table(with_ids(res.dropped), args.outputs.path_for("--dropped"))
    args.outputs.commit()
    if not args.quiet:
        s = res.summary()
        print(f"kept {s['kept']}, dropped {s['dropped']} (gold-label probability <= {s['threshold']}); "
              f"cross-fitted accuracy {s['accuracy']:.3f}")
    return 0


def cmd_quality(args) -> int:
    """Issue 11: per-example DQI components, the combined score and traffic lights, as CSV."""
    from ..quality import COMPONENTS, quality_scores
    from ..data.sources import load_dataset

    declare_csv(args, out=args.out)
    knobs = quality_knobs(args)
    ds = load_from_args(args)
    print_messages(ds, args.quiet)
    other = None
    if args.second_split:
        other = load_dataset(args.second_split, text=args.text or list(ds.text), label=args.label or ds.label, id=id_arg(args),
                             config=args.config)
    rep = representation_for(ds, args.representation, args)
    with progress_bar("quality", args.quiet) as bar:
        table = quality_scores(ds, representation=rep, other=other, cache_dir=args.cache_dir, progress=bar, **knobs)
    write_table(table.reset_index(), args.outputs.path_for("--out"))
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
    from ..quality import check_example
    from ..usecases.feedback import example_feedback, feedback_context

    args.outputs.declare("--out", args.out, (".json",))
    knobs = quality_knobs(args)
    ds = load_from_args(args)
    print_messages(ds, args.quiet)
    check_example(ds, args.example, args.max_chars)   # bad input fails before any fitting
    rep = representation_for(ds, args.representation, args)
    fb = example_feedback(feedback_context(ds, rep, max_chars=args.max_chars, cache_dir=args.cache_dir, **knobs),
                          args.example)
    if args.out:
        Path(args.outputs.path_for("--out")).write_text(json.dumps(fb, indent=1, default=str))
    args.outputs.commit()
    if args.json:
        print(json.dumps(fb, indent=1, default=str))
        return 0
    print(f"example: {fb['light']} (dqi {fb['components']['dqi']['score']:.2f})")
    for name, c in fb['components'].items():
        if name != "dqi":
            score = "  -  " if c["score"] is None else f"{c['score']:.2f}"
            print(f"  {c['light']:<6} {score:>5}  {name:<20} {c['dqi']}")
    if fb['label_tied']:
        print("words that lean to a label (z* = %.1f): " % fb['z_star']
              + ", ".join(f"'{t['ngram']}' → {t['label']} (z = {t['z']:.1f})" for t in fb['label_tied'][:6]))
    if fb['partial_input']:
        p = fb['partial_input']
        print(f"{p['field']}-only model: {p['predicted']} (p = {p['confidence']:.2f}; held-out accuracy {p['heldout_accuracy']:.2f})")
    r = fb['representation']
    print(f"model on Φ: {r['predicted']} (p = {r['confidence']:.2f}; p of the label {r['p_label']:.2f})")
    for nb in fb['neighbours'][:3]:
        print(f"neighbour {nb['id']} (similarity {nb['similarity']:.2f}, {nb['label']}): "
              + " | ".join(str(nb[f])[:80] for f in ds.text))
    for s in fb['suggestions']:
        print(f"suggestion: {s}")
    for n in fb['notes']:
        print(f"note: {n}", file=sys.stderr)
    return 0


def cmd_cartography(args) -> int:
    """Issue 23: training dynamics on Φ (confidence, variability, correctness, region) and label issues."""
    from ..dynamics.cartography import dataset_dynamics

    declare_csv(args, out=args.out)
    device = device_from(args)
    ds = load_from_args(args)
    print_messages(ds, args.quiet)
    rep = representation_for(ds, args.representation, args)
    with progress_bar("cartography", args.quiet) as bar:
        found = dataset_dynamics(ds, rep, epochs=args.epochs, model=args.model, folds=1 if args.in_sample else args.folds,
                                 random_state=args.seed, device=device, n_jobs=None if args.jobs == -1 else args.jobs,
                                 progress=bar)
    write_table(found.table, args.outputs.path_for("--out"))
    args.outputs.commit()
    for note in found.params["notes"]:
        print(f"note: {note}", file=sys.stderr)
    if not args.quiet:
        s = found.summary()
        print(f"{s['examples']:,} examples, {found.params['variant']} {args.model} model, {args.epochs} epochs on "
              f"{found.params['device']}: "
              + ", ".join(f"{k} {v:,}" for k, v in s["regions"].items())
              + (f"; cleanlab flags {s['label_issues']:,} possible label errors" if "label_issues" in s else ""))
        print(f"wrote {args.out}")
    return 0


def cmd_pvi(args) -> int:
    """Issue 34: pointwise V-usable information (Ethayarajh et al. 2022) of every example on Φ, and
    on a partial input with --partial: how many bits about the label the artifact alone carries."""
    from ..exports.card import NO_INFORMATION
    from ..usecases.information import pvi_table, usable_information

    declare_csv(args, out=args.out)
    ds = load_from_args(args)
    print_messages(ds, args.quiet)
    with progress_bar("PVI", args.quiet) as bar:
        found = usable_information(ds, args.representation, args.partial, family=args.family, folds=args.folds,
                                   seed=args.seed, cache_dir=args.cache_dir, progress=bar)
    table = pvi_table(found, ds)
    if args.out:
        write_table(table, args.outputs.path_for("--out"))
        args.outputs.commit()
    if not args.quiet or not args.out:   # without --out the summary is the output
        for name, got in found.items():
            s = got.summary
            print(f"{name} input ({s['representation']}): V-information {s['v_information']:.3f} bits "
                  f"(± {1.96 * s['stderr']:.3f}, 95 %) of H_V(Y) = {s['v_entropy']:.3f}; accuracy {s['accuracy']:.3f} "
                  f"(majority {s['majority']:.3f}); by label: "
                  + ", ".join(f"{k} {v:.3f}" for k, v in s["per_label"].items())
                  + (f". {NO_INFORMATION}" if s["v_information"] < 0 else ""))
        if args.out:
            print(f"wrote {len(table):,} rows to {args.out}")
    return 0


def cmd_transfer(args) -> int:
    """Issue 23: the training split's artifacts on an evaluation split (cues.csv, duplicates.csv,
    summary.json, report.html in --out)."""
    from ..data.sources import load_dataset
    from ..dynamics.transfer import cue_transfer
    from ..exports.transfer_report import report_html

    args.outputs.declare("--out", args.out, None, folder_ok=True)
    train = load_from_args(args)
    print_messages(train, args.quiet)
    eval_ = load_dataset(args.eval_dataset, text=args.text or list(train.text), label=args.label or train.label,
                         id=id_arg(args), features=args.feature, config=args.config, split=args.eval_split)
    print_messages(eval_, args.quiet)
    with progress_bar("transfer", args.quiet) as bar:
        found = cue_transfer(train, eval_, k=args.k, min_count=args.min_count, spec=args.representation, m=args.m,
                             tau=args.tau, random_state=args.seed, progress=bar)
    folder = Path(args.outputs.path_for("--out"))
    folder.mkdir(parents=True, exist_ok=True)
    write_table(found.cues, folder / "cues.csv")
    write_table(found.duplicates, folder / "duplicates.csv")
    (folder / "summary.json").write_text(json.dumps(finite(found.summary), indent=1, default=str, allow_nan=False))
    (folder / "report.html").write_text(report_html(found, train.name, eval_.name), encoding="utf-8")
    args.outputs.commit()
    if not args.quiet:
        s = found.summary
        print(f"{s['cues_transferring']} of the training split's top {s['cues']} cues have z > z* "
              f"({s['z_star_train']:.2f}) on the evaluation split too; a model on {s['partial_input_field']} alone "
              f"gets {s['partial_input_accuracy_eval']:.1%} of it right, the top cues alone "
              f"{s['top_cues_accuracy_eval']:.1%} (majority {s['majority_share_eval']:.1%}); "
              f"{s['near_duplicate_pairs']:,} near-duplicate pairs across the splits")
        if s["labels_only_in_eval"]:
            print(f"note: {s['eval_examples_with_a_label_only_in_eval']:,} examples of the evaluation split have labels "
                  f"the training split lacks ({', '.join(s['labels_only_in_eval'][:5])}); a model trained on it "
                  "never predicts them, so they count as errors in the accuracies above")
        print(f"wrote {args.out}/ (cues.csv, duplicates.csv, summary.json, report.html)")
    return 0
