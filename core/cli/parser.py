"""The argument parser: one subcommand per command, typed numbers (`core.cli.arguments`) and one-line
errors."""
from __future__ import annotations

import argparse

from .arguments import SEED_MAX, Address, Device, Real, Size, Whole, WholeList, add_knob, knob_type
from .certificate import cmd_certify, cmd_check
from .analysis import (cmd_cartography, cmd_consistency, cmd_feedback, cmd_pvi, cmd_quality, cmd_transfer,
                               cmd_zfilter, cmd_zstats)
from ..aflite.knobs import KNOBS
from .common import add_column_args, add_dataset_args
from .cache import cmd_prune
from .maps import cmd_project
from .publishing import cmd_export
from .scoring import cmd_aflite, cmd_evaluate, cmd_info, cmd_represent
from .team import cmd_agreement
from ..exports.formats import described
from ..exports.outputs import POLICY
from ..exports.writers import FORMATS   # (registers the built-in formats)
from .. import models


class _Parser(argparse.ArgumentParser):
    """argparse with the CLI's one-line errors: ``error: argument --tau: …`` and where to look,
    without the usage block (subcommands inherit the class)."""

    def error(self, message):
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")



#: what -r means where it is left out (`core.representations.default_spec`)
REPRESENTATION_HELP = ("representation spec (default: tfidf-svd over all text fields; pair-diff for preference "
                       "pairs)")

def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="artifact-lens",
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
    from ..representations import REGISTRY

    p.add_argument("--representation", "-r", required=True,
                   help="spec KIND[:key=value,...], one of: " + " | ".join(k.example for k in REGISTRY.values()))
    p.add_argument("--out", required=True, help="output file (.npy, .npz or .parquet)")
    p.set_defaults(func=cmd_represent)

    p = sub.add_parser("aflite", help="AFLite predictability scores and the filtered split",
                       description="Run AFLite (Le Bras et al. 2020, Algorithm 1) and write every example with its id, label, "
                                   "predictability, removal phase and whether it is retained. Sizes are a count (3000) or a fraction (0.3).")
    add_dataset_args(p)
    p.add_argument("--representation", "-r", default=None, help=REPRESENTATION_HELP)
    for knob in KNOBS:   # m, t, k, τ, n as `core.aflite.knobs` declares them
        add_knob(p, knob)
    p.add_argument("--model", default="ridge", help="model family: ridge (default), logistic, svm, ensemble")
    p.add_argument("--strategy", default="greedy-slice", help="greedy-slice (default), slice-sample, greedy")
    p.add_argument("--quality", help="dqi, a quality component (core.quality) or a numeric column: among p ≥ τ, remove the "
                                     "lowest-quality examples first (paper 002); recorded in the manifest")
    p.add_argument("--joint", action="store_true", help="the joint filter (core.dynamics.joint): training dynamics on Φ first; remove "
                   "only easy-to-learn examples, protect ambiguous ones, keep hard-to-learn or cleanlab-flagged ones as "
                   "possibly mislabelled (a column, the manifest, first in the review queue)")
    p.add_argument("--joint-model", choices=["linear", "mlp"], help="the joint filter's cartography model (default linear)")
    p.add_argument("--joint-epochs", type=Whole(2, 1000), help="the joint filter's cartography epochs (default 10)")
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

    on_device = [f.name for f in models.FAMILIES.values() if f.device is not None]
    p = sub.add_parser("evaluate", help="evaluate a run: model families vs baselines, partial input, KNN distances, coarse action, report",
                       description="Evaluate an AFLite run the way the papers do (paper 000 Table 3 and Fig. 2, paper 003 "
                                   "Table 3, paper 002 Algorithm 1) and write JSON/CSV tables, figures and report.html to --out.")
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
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("export", help="export a saved run's split (retained, removed, or all with scores) with its manifest",
                       description=f"Write the split of a saved run ({', '.join(f.title for f in FORMATS.values())}), "
                                   "streamed in chunks, with <name>.manifest.json beside it. Embeddings are left out of CSV unless "
                                   "--embeddings is given (Parquet, JSONL and datasets folders keep them).")
    add_dataset_args(p)
    p.add_argument("--run", required=True, help="a run .npz (the dashboard's run store: any τ/n it answers) or the manifest "
                                                "JSON of 'aflite --manifest' (the run as fitted; retained or removed)")
    p.add_argument("--which", default="retained", choices=["retained", "removed", "all"], help="split (default retained)")
    p.add_argument("--format", choices=list(FORMATS), help="default: from --out's ending "
                   "(a datasets folder carries a README.md dataset card)")
    p.add_argument("--push-to-hub", metavar="REPO_ID", help="also push the split and its dataset card to the Hugging "
                   "Face Hub (needs the network and a token; refused at once when HF_HUB_OFFLINE is set)")
    p.add_argument("--out", required=True, help=f"output: {described()}")
    add_knob(p, "tau", default=False, help="τ to export at (a run .npz only; default: the run's)")
    add_knob(p, "target_size", default=False, help="n to export at (a run .npz only; default: the run's)")
    p.add_argument("--embeddings", action="store_true", help="keep embedding and image columns in a CSV (as JSON text)")
    p.add_argument("--quality", metavar="SPEC", help="add the quality columns (7 DQI components, dqi, light) computed on "
                                                     "this representation, e.g. tfidf-svd:fields=hypothesis")
    p.add_argument("--drop-near-duplicates", action="store_true",
                   help="keep one example of each group of near-duplicates in the exported rows (the same wording in "
                        "every text field, Jaccard of character 4-grams ≥ 0.6); the manifest lists what was dropped")
    p.add_argument("--no-certificate", action="store_true", help="a datasets folder or a Hub push without certificate.json "
                   "(by default it carries the split's artifact certificate, and the card its headline numbers)")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("project", help="precompute the 2-D map (UMAP) of a representation for the dashboard's Map page",
                       description="Compute the UMAP (or PCA) map of a representation into the cache the dashboard's "
                                   "Map page reads, in recorded stages: PCA to --pca-dims, the kNN graph (cached: a "
                                   "rerun that changes only --min-dist/--spread skips the neighbour search), the layout. "
                                   "numba's compiled kernels are cached in $NUMBA_CACHE_DIR (default: <cache>/numba).")
    add_dataset_args(p)
    p.add_argument("--representation", "-r", default=None, help=REPRESENTATION_HELP)
    p.add_argument("--method", default="umap", choices=["umap", "pca"], help="umap (default) or pca (instant preview)")
    p.add_argument("--n-neighbors", type=Whole(2, 10_000), default=15, help="UMAP neighbours (default 15; a change searches a new kNN graph)")
    p.add_argument("--metric", default="euclidean", help="distance of the kNN graph: euclidean (default), cosine, manhattan, correlation, chebyshev")
    p.add_argument("--min-dist", type=Real(0, 1), default=0.1, help="UMAP min_dist in [0, 1] (default 0.1; display only: reuses the kNN graph)")
    p.add_argument("--spread", type=Real(0, 10, lo_open=True), default=1.0, help="UMAP spread (default 1.0; display only: reuses the kNN graph)")
    p.add_argument("--pca-dims", type=Whole(2, 100_000, allowed=(0,), meaning="0: no PCA step"), default=50, help="PCA step before UMAP to this many dims (default 50; 0 = none)")
    p.add_argument("--fit-size", type=Whole(0, 10 ** 9), default=200_000, help="fit UMAP on at most this many rows, place the rest with "
                                                               "transform (default 200000; 0 = every row)")
    p.add_argument("--seed", type=Whole(0, SEED_MAX), default=0, help="random seed (default 0, as the dashboard)")
    p.add_argument("--parallel", action="store_true",
                   help="UMAP's neighbour search and layout on every core: faster on many cores, but the layout is not "
                        "reproducible (a seeded UMAP runs on one thread); cached apart from the seeded map, which the "
                        "dashboard shows")
    p.add_argument("--json", action="store_true", help="print the projection's record (stages, PCA, kNN graph) as JSON")
    p.set_defaults(func=cmd_project)

    def quality_args(p):
        p.add_argument("--representation", "-r", default=None, help=REPRESENTATION_HELP)
        p.add_argument("--min-count", type=Whole(1, 10 ** 9), default=5, help="n-grams seen fewer times get no z (default 5)")
        p.add_argument("--nn-dim", type=Whole(0, 100_000), default=64, help="principal axes of Φ for the neighbour search (default 64; 0 = exact)")
        p.add_argument("--weights", help="weights of the combined score, e.g. label_tied=2,word_overlap=1.5")
        p.add_argument("--thresholds", help="traffic-light thresholds (red below:green from), e.g. dqi=0.4:0.6")

    p = sub.add_parser("prune", help="keep the computed results in the cache within a disk budget",
                       description="Delete the cache's computed results (runs, evaluations, quality tables, maps, "
                                   "representations) of an older format, then the least recently used until they fit "
                                   "--max-mb. Only folders the tool keeps results in, and only files named as it names "
                                   "them, are touched. A starting dashboard server does the same with "
                                   "ARTIFACT_LENS_RESULTS_MB.")
    p.add_argument("--max-mb", type=Real(0), help="disk budget in megabytes (default: $ARTIFACT_LENS_RESULTS_MB, 20000; "
                                                  "0 deletes every result)")
    p.add_argument("--json", action="store_true", help="print what was deleted and what is left as JSON")
    p.set_defaults(func=cmd_prune)

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

    p = sub.add_parser("cartography", help="training dynamics on a representation: easy, ambiguous and hard examples, label issues",
                       description="Train a linear model (or a small MLP) on the representation for --epochs epochs, "
                                   "cross-fitted over --folds, and record each example's probability of its label after "
                                   "every epoch (dataset cartography, Swayamdipta et al. 2020): confidence (mean), "
                                   "variability (std), correctness (share of epochs right) and a region; cleanlab's "
                                   "label-quality score and label-issue flag from the out-of-sample probabilities.")
    add_dataset_args(p)
    p.add_argument("--representation", "-r", default=None, help=REPRESENTATION_HELP)
    p.add_argument("--epochs", type=Whole(2, 1000), default=10, help="training epochs (default 10)")
    p.add_argument("--model", choices=["linear", "mlp"], default="linear", help="linear (softmax) or a one-hidden-layer MLP (default linear)")
    p.add_argument("--folds", type=Whole(2, 100), default=5, help="cross-fitting folds (default 5)")
    p.add_argument("--in-sample", action="store_true", help="the paper's variant: one model on every example, its own "
                   "training probabilities (no label issues: they are not out of sample)")
    p.add_argument("--seed", type=Whole(0, SEED_MAX), default=0)
    p.add_argument("--jobs", type=Whole(1, 1024, allowed=(-1,), meaning="every core"), default=-1,
                   help="folds trained at once (default -1: every core; the map does not depend on it)")
    p.add_argument("--device", type=Device(), help="where the models train: cuda, cuda:N (a GPU, with PyTorch), torch, cupy "
                   "or array-api (default: $ARTIFACT_LENS_DEVICE, else NumPy on the CPU; the same training, float32 rounding aside)")
    p.add_argument("--out", required=True, help="CSV: id, label, confidence, variability, correctness, region, label_quality, label_issue")
    p.set_defaults(func=cmd_cartography)

    p = sub.add_parser("pvi", help="pointwise V-usable information: how many bits about its label each example carries",
                       description="Score every example by PVI(x → y) = −log₂ g[∅](y) + log₂ g′[x](y) (Ethayarajh et al. "
                                   "2022): g′ a model of the family trained on the representation, g[∅] the label prior, "
                                   "both cross-fitted over --folds so every example is scored out of sample. The mean is "
                                   "the dataset's V-information. Beside Φ, the bits a partial input alone carries (the "
                                   "artifact's): by default the last text field (the hypothesis), for preference pairs "
                                   "the responses without the prompt and their style alone; --partial names another "
                                   "or none. The Predictability page measures the same inputs.")
    add_dataset_args(p)
    p.add_argument("--representation", "-r", default=None,
                   help="representation spec (default: tfidf-svd over all text fields; for preference pairs "
                        "pair-diff, the responses' difference)")
    p.add_argument("--partial", help="the partial input's representation spec, e.g. tfidf-svd:fields=premise, or "
                   "none (default: the last text field; for preference pairs pair-diff and pair-style, each "
                   "unless it is Φ)")
    p.add_argument("--family", choices=models.probabilistic(), default="logistic",
                   help="model family, one that gives probabilities (default logistic)")
    p.add_argument("--folds", type=Whole(2, 100), default=5, help="cross-fitting folds (default 5)")
    p.add_argument("--seed", type=Whole(0, SEED_MAX), default=0)
    p.add_argument("--out", help="CSV: id, label, pvi, p_model, p_prior, and pvi_partial, p_model_partial; for "
                   "preference pairs one row per pair: id, pvi, then pvi_ and p_model_ of response_only and "
                   "style_only; without it, only the summary is printed")
    p.set_defaults(func=cmd_pvi)

    p = sub.add_parser("transfer", help="do a training split's artifacts give the labels away on an evaluation split?",
                       description="Find the label cues of the training split (z-statistics) and measure them on the "
                                   "evaluation split: their support, label share and z there; the accuracy there of a "
                                   "model trained on the partial input or on the top cues alone, beside chance; the "
                                   "share of each split a training-split AFLite ensemble calls predictable; near-duplicate "
                                   "pairs across the splits. Writes cues.csv, duplicates.csv, summary.json and "
                                   "report.html into --out.")
    add_dataset_args(p)
    p.add_argument("eval_dataset", metavar="EVAL", help="the evaluation split (same columns; file, folder, Hub name or demo)")
    p.add_argument("--eval-split", help="split of EVAL to load, when it is a Hub name or a folder of splits")
    p.add_argument("--representation", "-r", default="tfidf-svd",
                   help="Φ of the AFLite view, fitted on both splits' text (default tfidf-svd over all text fields)")
    p.add_argument("--k", type=Whole(1, 10_000), default=20, help="how many of the training split's top cues (default 20)")
    p.add_argument("--min-count", type=Whole(1, 10 ** 9), default=5, help="min count of a feature on the training split (default 5)")
    p.add_argument("--m", type=knob_type("n_partitions"), default=16, help="models of the AFLite view (default 16)")
    add_knob(p, "tau", help=f"τ of the AFLite view (default {KNOBS['tau'].default})")
    p.add_argument("--seed", type=Whole(0, SEED_MAX), default=0)
    p.add_argument("--out", required=True, help="output folder (created; one this tool wrote and unchanged since is replaced)")
    p.set_defaults(func=cmd_transfer)

    p = sub.add_parser("certify", help="the artifact certificate of a split: one JSON a dataset's CI can gate on",
                       description="Measure the split's artifacts, each with its uncertainty: the largest z and the "
                                   "features over the Bonferroni line per label, partial-input accuracy against the "
                                   "majority, V-information of the full and the partial input, AFLite's predictable "
                                   "share, near-duplicates, possibly mislabelled examples; with --eval the cues that "
                                   "carry to another split; with a team store the reviewers' α. Written as JSON that "
                                   "follows core/certificate/certificate.schema.json (docs/certificate.md).")
    add_dataset_args(p)
    p.add_argument("--representation", "-r", default=None, help=REPRESENTATION_HELP)
    p.add_argument("--partial", help="the partial input's representation (default: tfidf-svd of the last text field)")
    p.add_argument("--eval", help="an evaluation split (same columns): the cues that carry to it, near-duplicates across")
    p.add_argument("--eval-split", help="split of --eval to load, when it is a Hub name or a folder of splits")
    p.add_argument("--db", help="a team store's URL, for the reviewers' α of --run (default: $ARTIFACT_LENS_DB_URL)")
    p.add_argument("--workspace", help="the workspace of --run in the team store")
    p.add_argument("--run", help="a run's key in the team store: its reviewers' α")
    p.add_argument("--as", dest="as_", metavar="EMAIL", help="who reads the store (default: $ARTIFACT_LENS_OWNER)")
    p.add_argument("--folds", type=Whole(2, 100), default=5, help="cross-fitting folds (default 5)")
    add_knob(p, "tau", help=f"τ of AFLite's predictable share (default {KNOBS['tau'].default})")
    p.add_argument("--seed", type=Whole(0, SEED_MAX), default=0)
    p.add_argument("--device", type=Device(), help="where AFLite's ridge family and the training dynamics compute: cuda, "
                   "cuda:N, torch, cupy or array-api (default: $ARTIFACT_LENS_DEVICE, else the CPU; PVI stays on the CPU; "
                   "the same measures, float32 rounding aside)")
    p.add_argument("--name", help="the dataset's name in the certificate (default none: the same data and settings give "
                   "the same bytes, whatever the file is called or where it is)")
    p.add_argument("--out", required=True, help="the certificate (.json)")
    p.set_defaults(func=cmd_certify)

    p = sub.add_parser("check", help="compare two certificates; exit 1 when a measure of artifacts got worse",
                       description="Compare a candidate certificate with a baseline, measure by measure and cue by "
                                   "cue, and print before, after, change and whether each is within its rule. By "
                                   "default no measure of artifact strength may get worse by more than its uncertainty, "
                                   "and no cue (a simple feature that gives a label away) may be new or stronger beyond "
                                   "its uncertainty; one Bonferroni line over all these tests keeps the chance that an "
                                   "unchanged dataset fails at 5 % (docs/certificate.md). --rules sets thresholds per "
                                   "measure. Exit status 1 when a rule is broken, 2 when the certificates cannot be "
                                   "compared, 0 otherwise: a dataset repository's CI job.")
    p.add_argument("baseline", metavar="BASELINE", help="the certificate to compare against (JSON)")
    p.add_argument("candidate", metavar="CANDIDATE", help="the new certificate (JSON)")
    p.add_argument("--rules", help="a TOML or YAML file of rules per measure: max_rise, max, min, ignore")
    p.add_argument("--json", help="also write the result as JSON (.json): per measure and per new cue its status "
                   "(pass, fail, not gated), threshold and values")
    p.add_argument("--markdown", help="also write a Markdown summary (.md) for a pull request's comment or a CI job's page")
    p.add_argument("--rows", help="write the candidate's examples that carry each new or stronger cue (.csv: id, label, "
                   "feature, cue_label, share_after, z); needs --data")
    p.add_argument("--data", help="the candidate's data (the file it was certified from), for --rows and --review-run")
    p.add_argument("--label-studio", metavar="FOLDER", help="write the candidate's examples that carry each new cue "
                   "as a Label Studio project (created: label_config.xml and tasks.json, \"remove\" predicted with the "
                   "cue's strength as its score); needs --data")
    p.add_argument("--review-run", metavar="KEY", help="send the candidate's examples that carry each new cue to the "
                   "front of this run's review queue in the team store (the run scored --data, or the data a split of "
                   "it was exported from); needs --data, --workspace, and a curator or owner as --as")
    p.add_argument("--db", help="the team store's URL, for --review-run (default: $ARTIFACT_LENS_DB_URL)")
    p.add_argument("--workspace", help="the workspace of --review-run")
    p.add_argument("--as", dest="as_", metavar="EMAIL", help="who sends the rows (default: $ARTIFACT_LENS_OWNER)")
    add_column_args(p, " of --data: as the candidate was certified with")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("agreement", help="how much a team's reviewers agree, with each other and with the filter",
                       description="Read a workspace's reviews of a run from the team store and print Krippendorff's "
                                   "alpha (with a bootstrap 95% interval), Cohen's kappa per reviewer pair, the filter "
                                   "as a rater (overall, per label, per artifact feature) and the tau/n the team's "
                                   "decisions support: the numbers the Review page shows.")
    p.add_argument("--db", help="the team store's URL (default: $ARTIFACT_LENS_DB_URL, the dashboard's)")
    p.add_argument("--workspace", required=True, help="the workspace's name")
    p.add_argument("--run", required=True, help="the run's key (Team page)")
    p.add_argument("--as", dest="as_", metavar="EMAIL", help="who asks: a member of the workspace (default: "
                                                               "$ARTIFACT_LENS_OWNER)")
    add_knob(p, "tau", default=False, help="τ of the filter as a rater (default: the run's)")
    add_knob(p, "target_size", default=False, help="n of the filter as a rater (default: the run's)")
    p.add_argument("--bootstrap", type=Whole(0, 10 ** 5), default=1000, help="bootstrap resamples (default 1000)")
    p.add_argument("--seed", type=Whole(0, SEED_MAX), default=0)
    p.add_argument("--json", action="store_true", help="print everything as JSON")
    p.set_defaults(func=cmd_agreement)

    for command in sub.choices.values():   # every command that writes says what happens to an existing output
        if any(a.dest == "out" for a in command._actions):
            command.epilog = "Outputs: " + POLICY + " Nothing a command reads is ever written."
    return parser
