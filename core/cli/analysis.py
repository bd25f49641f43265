"""Commands on simple features, quality and training dynamics: zstats, zfilter, consistency, quality,
feedback, cartography, transfer."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from ..base.bounds import BATCH_SIZE, EPOCHS, FOLDS, MIN_COUNT
from ..base.errors import InputError
from ..base.escaping import terminal_text
from .common import (device_from, declare_csv, finite, id_arg, load_from_args, print_messages, progress_bar,
                             quality_knobs, representation_for, with_ids, write_table)
from .. import models
from ..aflite.knobs import KNOBS
from ..zstats.inputs import CUE_MIN_COUNT
from .arguments import Device, Real, SEED_MAX, Size, Whole, add_knob, knob_type
from .commands import REPRESENTATION_HELP, command, quality_args
from .common import add_dataset_args


def cmd_zstats(args) -> int:
    from ..zstats import compute_z

    declare_csv(args, out=args.out)
    ds = load_from_args(args)
    print_messages(ds, args.quiet)
    if ds.pairs is not None:
        return _pair_zstats(args, ds)
    if ds.choices is not None:
        return _choice_zstats(args, ds)
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


@command("zstats", run=cmd_zstats, items=True, help="z-statistics of simple features (n-grams, lengths, overlap, partial input) vs labels",
         description="Compute the z-statistic of every task-independent feature against every label "
                     "(Gardner et al. 2021; Wu et al. 2022, eq. 2) and write the table as CSV. For preference "
                     "pairs, the pair cue table; for multiple-choice items, where the gold sits and the option "
                     "cue table (docs/multiple-choice.md).")
def _zstats_options(p) -> None:
    add_dataset_args(p)
    p.add_argument("--min-count", type=Whole(*MIN_COUNT.range), default=CUE_MIN_COUNT,
                   help=f"test only features seen in at least this many examples (default {CUE_MIN_COUNT})")
    p.add_argument("--alpha", type=Real(0, 1, lo_open=True, hi_open=True), default=0.01, help="family-wise level of the Bonferroni threshold z* (default 0.01)")
    p.add_argument("--top", type=Whole(0, 10 ** 6), default=8, help="features per label to print (default 8)")
    p.add_argument("--out", required=True, help="z-table CSV: feature, label, n, count, p_hat, z, significant, kind, field")


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


def _choice_zstats(args, ds) -> int:
    """``zstats`` on multiple-choice items: where the gold sits and the option cue table
    (`core.zstats.choices`), keyed by feature."""
    from ..zstats.choices import choice_lines, choice_summary, cue_phrase, option_cues

    cues = option_cues(ds, min_count=args.min_count, alpha=args.alpha)
    stem_lines = _stem_cue_lines(ds, cues, args) if not args.quiet else []   # before anything is written
    write_table(cues.table, args.outputs.path_for("--out"))
    args.outputs.commit()
    if not args.quiet:
        for heading, text in choice_lines(choice_summary(ds))[1:4]:
            print(f"{heading:<12} {text}")
        print(f"{cues.items:,} items; {cues.tested} option features on which at least {args.min_count} items' options "
              "differ (a share: of those items; chance: a gold placed at random, ties counted); "
              f"line |z| > {cues.line:.2f} (two-sided Bonferroni, alpha = {cues.alpha}); "
              f"{int(cues.table['over_line'].sum())} over it")
        for c in cues.top(args.top).itertuples(index=False):
            print(f"  {terminal_text(cue_phrase(c.feature, c.kind))[:50]:50s} in {c.share:6.1%} of {c.items:>6,} items "
                  f"(chance {c.chance:.1%}, lift {c.lift:+.1%} ± {c.lift_se:.1%}), z {c.z:+.1f}{'  *' if c.over_line else ''}")
        for line in stem_lines:
            print(line)
        print(f"wrote {len(cues.table)} rows to {args.out}")
    return 0


def _stem_cue_lines(ds, cues, args) -> list:
    """The lines naming the stem's features that tell whether the gold carries the strongest option
    cue over the line; a note instead where the stem cannot tell (every item on one side)."""
    from ..zstats.choices import cue_phrase, stem_cues

    over = cues.table[cues.table["over_line"] & (cues.table["z"] > 0)]
    if not len(over) or not ds.choices.stem:
        return []
    strongest = over.iloc[0]
    phrase = terminal_text(cue_phrase(strongest["feature"], strongest["kind"]))
    try:
        found = stem_cues(ds, strongest["feature"], min_count=args.min_count, alpha=args.alpha).table
    except InputError as exc:   # e.g. the gold of every item carries it: nothing in the stem can tell
        return [f"in the stem: nothing tells whether {phrase} ({exc})"]
    found = found[(found["kind"] != "pred") & found["significant"]].sort_values("z", ascending=False).head(args.top)
    if not len(found):
        return []
    return [f"in the stem, what tells whether {phrase} (carries / lacks):"] + [
        f"  {terminal_text(f.feature)[:50]:50s} → {f.label:7s} {f.p_hat:6.1%} of {f.n:>6,} items, z {f.z:+.1f}"
        for f in found.itertuples(index=False)]


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


@command("zfilter", run=cmd_zfilter, help="z-filtering (Wu et al. 2022, Algorithm 1), optionally against a seed dataset",
         description="Accept examples in shuffled batches unless they carry one of the k most biased features "
                     "of their label on what was accepted so far. With --seed-dataset, screen candidates "
                     "against a seed set's biased features (conditional z-filtering).")
def _zfilter_options(p) -> None:
    add_dataset_args(p)
    p.add_argument("--seed-dataset", help="seed dataset D_seed (same columns); candidates must avoid its biased features")
    p.add_argument("--batch-size", type=Size(max_count=BATCH_SIZE.high), default=500, help="candidates per batch: a count or a fraction (default 500)")
    p.add_argument("--k", type=Whole(1, 10 ** 6), default=20, help="biased features per label (default 20, as the paper)")
    p.add_argument("--alpha", type=Real(0, 1, lo_open=True, hi_open=True), default=None, help="also require z above the Bonferroni threshold at this level")
    p.add_argument("--min-count", type=Whole(*MIN_COUNT.range), default=1, help="only features seen this often in the accepted set can be biased (default 1)")
    p.add_argument("--seed", type=Whole(0, SEED_MAX), default=0, help="seed of the batch shuffle (default 0)")
    p.add_argument("--out", required=True, help="accepted examples CSV")
    p.add_argument("--rejected", help="rejected examples CSV, with the feature that caused each rejection")


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


@command("consistency", run=cmd_consistency, help="consistency filtering: drop examples a cross-fitted model finds unlikely",
         description="Drop examples whose gold label gets probability <= --threshold from a model trained "
                     "on the other folds (Wu et al. 2022, section 2.2.2).")
def _consistency_options(p) -> None:
    add_dataset_args(p)
    p.add_argument("--threshold", type=Real(0, 1, hi_open=True), default=0.2, help="probability threshold in [0, 1) (default 0.2)")
    p.add_argument("--folds", type=Whole(*FOLDS.range), default=5, help="cross-fitting folds (default 5)")
    p.add_argument("--seed", type=Whole(0, SEED_MAX), default=0)
    p.add_argument("--out", required=True, help="kept examples CSV")
    p.add_argument("--dropped", help="dropped examples CSV, with the gold-label probability")


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


@command("quality", run=cmd_quality, help="DQI quality components per example, the combined score and traffic lights",
         description="Compute the quality components of every example (paper 002, DQI; see core.quality), "
                     "the combined dqi score and traffic lights, and write them as CSV.")
def _quality_options(p) -> None:
    add_dataset_args(p)
    quality_args(p)
    p.add_argument("--second-split", help="another split with the same columns (inter-split similarity)")
    p.add_argument("--out", required=True, help="CSV: id, one column per component, dqi, light_<component>, light")


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


@command("feedback", run=cmd_feedback, help="traffic lights and suggestions for one new example against a dataset",
         description="Give one new example (JSON with every text field and the label) the quality "
                     "feedback a creator sees: lights per component, label-tied words, partial-input "
                     "and Φ predictions, nearest neighbours and suggestions.")
def _feedback_options(p) -> None:
    add_dataset_args(p)
    quality_args(p)
    p.add_argument("--example", required=True, help='JSON, e.g. \'{"premise": "...", "hypothesis": "...", "label": "entailment"}\'')
    p.add_argument("--max-chars", type=Whole(1, 10 ** 7), default=2000, help="longest text of one field (default 2000)")
    p.add_argument("--json", action="store_true", help="print the feedback as JSON")
    p.add_argument("--out", help="also write the feedback as JSON")


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


@command("cartography", run=cmd_cartography, help="training dynamics on a representation: easy, ambiguous and hard examples, label issues",
         description="Train a linear model (or a small MLP) on the representation for --epochs epochs, "
                     "cross-fitted over --folds, and record each example's probability of its label after "
                     "every epoch (dataset cartography, Swayamdipta et al. 2020): confidence (mean), "
                     "variability (std), correctness (share of epochs right) and a region; cleanlab's "
                     "label-quality score and label-issue flag from the out-of-sample probabilities.")
def _cartography_options(p) -> None:
    add_dataset_args(p)
    p.add_argument("--representation", "-r", default=None, help=REPRESENTATION_HELP)
    p.add_argument("--epochs", type=Whole(*EPOCHS.range), default=10, help="training epochs (default 10)")
    p.add_argument("--model", choices=["linear", "mlp"], default="linear", help="linear (softmax) or a one-hidden-layer MLP (default linear)")
    p.add_argument("--folds", type=Whole(*FOLDS.range), default=5, help="cross-fitting folds (default 5)")
    p.add_argument("--in-sample", action="store_true", help="the paper's variant: one model on every example, its own "
                   "training probabilities (no label issues: they are not out of sample)")
    p.add_argument("--seed", type=Whole(0, SEED_MAX), default=0)
    p.add_argument("--jobs", type=Whole(1, 1024, allowed=(-1,), meaning="every core"), default=-1,
                   help="folds trained at once (default -1: every core; the map does not depend on it)")
    p.add_argument("--device", type=Device(), help="where the models train: cuda, cuda:N (a GPU, with PyTorch), torch, cupy "
                   "or array-api (default: $ARTIFACT_LENS_DEVICE, else NumPy on the CPU; the same training, float32 rounding aside)")
    p.add_argument("--out", required=True, help="CSV: id, label, confidence, variability, correctness, region, label_quality, label_issue")


def cmd_pvi(args) -> int:
    """Issue 34: pointwise V-usable information (Ethayarajh et al. 2022) of every example on Φ, and
    on a partial input with --partial: how many bits about the label the artifact alone carries."""
    from ..exports.card import NO_INFORMATION
    from ..usecases.information import pvi_table, usable_information

    declare_csv(args, out=args.out)
    device = device_from(args)   # asked for and absent: said here, before any work
    ds = load_from_args(args)
    print_messages(ds, args.quiet)
    if args.options_representation and ds.choices is None:
        raise InputError("--options-representation embeds the options of multiple-choice items; this dataset has "
                         f"{'preference pairs' if ds.pairs is not None else 'labelled examples'}: drop it.")
    if ds.choices is not None:
        if args.family != "logistic":   # refused, never ignored: the number would not be the family's
            raise InputError(f"--family {args.family} applies to labelled examples; multiple-choice items are scored by "
                             "their conditional logit over each item's options (docs/multiple-choice.md): drop --family.")
        if device:   # never a CPU result read as the device's
            print(f"note: {device} is not used for multiple-choice items: their conditional logits train on the CPU.",
                  file=sys.stderr)
        return _choice_pvi(args, ds)
    with progress_bar("PVI", args.quiet) as bar:
        found = usable_information(ds, args.representation, args.partial, family=args.family, folds=args.folds,
                                   seed=args.seed, device=device, cache_dir=args.cache_dir, progress=bar)
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


def _choice_pvi(args, ds) -> int:
    """``pvi`` on multiple-choice items: the full input and the options-only and position-only
    baselines (`core.usecases.information.choice_information`), one row per item."""
    from ..usecases.information import choice_information, choice_pvi_table

    with progress_bar("baselines", args.quiet) as bar:
        found = choice_information(ds, args.representation, args.partial, folds=args.folds, seed=args.seed,
                                   embedding=args.options_representation, progress=bar)
    table = choice_pvi_table(found)
    if args.out:
        write_table(table, args.outputs.path_for("--out"))
        args.outputs.commit()
    if not args.quiet or not args.out:
        for name, got in found.items():
            s = got.summary
            print(f"{name.replace('_', ' '):18s} accuracy {s['accuracy']:.3f} ± {1.96 * s['accuracy_se']:.3f} (chance "
                  f"{s['chance']:.3f}, majority position {s['majority']:.3f}); V-information {s['v_information']:+.3f} "
                  f"bits (± {1.96 * s['stderr']:.3f}, 95 %) beyond a uniform guess")
            if s.get("embedding"):
                print(f"{'':18s} (the options-only inputs and each option embedded by {s['embedding']}, less its "
                      "item's mean)")
        s = next(iter(found.values())).summary
        print(f"each fold's model trained on {s['trained_on']:,} items (at most {s['max_train']:,}, as certify's "
              "model_train): the certificate's figures")
        if args.out:
            print(f"wrote {len(table):,} rows to {args.out}")
    return 0


@command("pvi", run=cmd_pvi, items=True, help="pointwise V-usable information: how many bits about its label each example carries",
         description="Score every example by PVI(x → y) = −log₂ g[∅](y) + log₂ g′[x](y) (Ethayarajh et al. "
                     "2022): g′ a model of the family trained on the representation, g[∅] the label prior, "
                     "both cross-fitted over --folds so every example is scored out of sample. The mean is "
                     "the dataset's V-information. Beside Φ, the bits a partial input alone carries (the "
                     "artifact's): by default the last text field (the hypothesis), for preference pairs "
                     "the responses without the prompt and their style alone; --partial names another "
                     "or none. The Predictability page measures the same inputs. For multiple-choice items: "
                     "the stem with the options, the options alone and the position alone, each a cross-fitted "
                     "conditional logit over the item's options (docs/multiple-choice.md).")
def _pvi_options(p) -> None:
    add_dataset_args(p)
    p.add_argument("--representation", "-r", default=None,
                   help="representation spec (default: tfidf-svd over all text fields; for preference pairs "
                        "pair-diff, the responses' difference)")
    p.add_argument("--partial", help="the partial input's representation spec, e.g. tfidf-svd:fields=premise, or "
                   "none (default: the last text field; for preference pairs pair-diff and pair-style, each "
                   "unless it is Φ)")
    p.add_argument("--family", choices=models.probabilistic(), default="logistic",
                   help="model family, one that gives probabilities (default logistic)")
    p.add_argument("--folds", type=Whole(*FOLDS.range), default=5, help="cross-fitting folds (default 5)")
    p.add_argument("--seed", type=Whole(0, SEED_MAX), default=0)
    p.add_argument("--options-representation", metavar="SPEC",
                   help="multiple-choice items: also the options-only model with each option embedded by SPEC (glove, "
                        "or sbert:model=NAME_OR_PATH with the extra 'sbert'), less its item's mean: the "
                        "options_embedded baseline")
    p.add_argument("--device", type=Device(), help="where Φ's SVD and the logistic models compute: cuda, cuda:N, torch, "
                   "cupy or array-api (default: $ARTIFACT_LENS_DEVICE, else the CPU; the same PVI, float32 rounding and "
                   "the solver's tolerance aside; multiple-choice items compute on the CPU)")
    p.add_argument("--out", help="CSV, one row per example: id, label, pvi, p_model, p_prior, then pvi_ and p_model_ "
                   "of partial; for preference pairs one row per pair: id, pvi, p_model, p_prior, then pvi_ and "
                   "p_model_ of response_only (only where Φ holds the prompt) and style_only; for multiple-choice "
                   "items one row per item: id, pvi, p_gold, then pvi_ and p_gold_ of options_only and "
                   "position_only; without it, only the summary is printed")


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


@command("transfer", run=cmd_transfer, help="do a training split's artifacts give the labels away on an evaluation split?",
         description="Find the label cues of the training split (z-statistics) and measure them on the "
                     "evaluation split: their support, label share and z there; the accuracy there of a "
                     "model trained on the partial input or on the top cues alone, beside chance; the "
                     "share of each split a training-split AFLite ensemble calls predictable; near-duplicate "
                     "pairs across the splits. Writes cues.csv, duplicates.csv, summary.json and "
                     "report.html into --out.")
def _transfer_options(p) -> None:
    add_dataset_args(p)
    p.add_argument("eval_dataset", metavar="EVAL", help="the evaluation split (same columns; file, folder, Hub name or demo)")
    p.add_argument("--eval-split", help="split of EVAL to load, when it is a Hub name or a folder of splits")
    p.add_argument("--representation", "-r", default="tfidf-svd",
                   help="Φ of the AFLite view, fitted on both splits' text (default tfidf-svd over all text fields)")
    p.add_argument("--k", type=Whole(1, 10_000), default=20, help="how many of the training split's top cues (default 20)")
    p.add_argument("--min-count", type=Whole(*MIN_COUNT.range), default=5, help="min count of a feature on the training split (default 5)")
    p.add_argument("--m", type=knob_type("n_partitions"), default=16, help="models of the AFLite view (default 16)")
    add_knob(p, "tau", help=f"τ of the AFLite view (default {KNOBS['tau'].default})")
    p.add_argument("--seed", type=Whole(0, SEED_MAX), default=0)
    p.add_argument("--out", required=True, help="output folder (created; one this tool wrote and unchanged since is replaced)")
