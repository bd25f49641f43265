"""Partial-input baselines of multiple-choice items (issue 55): how well a model that never reads the
question picks the gold option, and how many bits about the gold such inputs carry.

Each baseline is a **conditional logit** over an item's options: every option gets a score
w · x(option), with one weight vector shared by all positions and items, and the item's options
compete in a softmax, so an item with k options is one k-way choice (McFadden's model; the
"multiple choice" heads of language models are the same). Inputs:

* ``options_only``: the options alone, never the stem or the position: each option's words and
  bigrams (present or not) and its length in words (log), and what it is against the other options
  of its item (the group features, `core.text.option_groups`: the odd one out, its rank in length,
  its negation and hedging, "all of the above"…), which a model reading one option at a time misses;
* ``position_only``: the position alone (one weight per position): it learns where the gold tends
  to be;
* ``stem_and_options``: the full input: the option's features, the share of its words found in the
  stem, and the product of the stem's and the option's TF-IDF/SVD vectors (``dim`` each), which lets
  what the stem says decide which option is right.

Features the same for every option of an item (the stem alone) cancel in the softmax, so a baseline
can only read the stem through how it bears on each option. Every model is **cross-fitted**: items
are split into ``folds`` seeded folds and each fold is scored by a model fitted on the others.

Per item, PVI = log₂ p(gold) − log₂(1/k): the bits a baseline has about the gold beyond a uniform
guess among the item's options; the V-information is its mean, with its standard error. Accuracy is
given with its standard error, against chance (the mean 1/k) and against the majority position (the
position most often gold in the training folds, cross-fitted too).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..base.cores import one_blas_thread
from ..base.errors import InputError
from ..base.progress import check_cancel, report
from ..models.conditional_logit import choice_probabilities, fit_conditional_logit
from ..zstats.statistics import binomial_se

__all__ = ["BASELINES", "ChoiceBaseline", "choice_baselines", "MAX_TRAIN", "option_embedding_spec"]

#: the baselines, in the order they are reported
BASELINES = ("options_only", "position_only", "stem_and_options")
#: the most items a fold's model trains on (a seeded sample beyond it), for every reader of these
#: baselines (`certify`'s ``model_train``, `pvi`, the pages): an accuracy of a model trained on more
#: items of the same kind would grow with the data, and one definition gives one figure everywhere
MAX_TRAIN = 3000
#: the smallest probability a model is taken to give (bits stay finite)
FLOOR = 1e-6


@dataclass
class ChoiceBaseline:
    """One baseline: ``table`` (``id``, ``p_gold``, ``correct`` (1, 0, or 1/m on a tie of m options),
    ``pvi``, ``fold``) and ``summary``
    (``accuracy`` and ``accuracy_se``, ``chance``, ``majority``, ``v_information`` and ``stderr``,
    ``items``, ``folds``)."""

    name: str
    table: pd.DataFrame
    summary: dict = field(default_factory=dict)






def _layout(ds):
    """(item of each option row, starts, gold_rows, k, position of each row)."""
    from ..data.choices import options_of

    _, k, gold = options_of(ds)
    starts = np.cumsum(k) - k
    item = np.repeat(np.arange(len(k)), k)
    return item, starts, starts + gold, k, np.arange(len(item)) - np.repeat(starts, k)


def _option_features(ds, texts, k, groups: bool = True) -> sp.csr_matrix:
    """Words and bigrams of each option (present or not; those in at least two options), and its
    length in words (log); with ``groups``, what it is against the other options of its item (`_group_features`)."""
    from ..text.features import token_ngrams

    M, _, _ = token_ngrams(texts)
    B = (M > 0).astype(np.float64).tocsc()
    B = B[:, np.flatnonzero(np.diff(B.indptr) >= 2)]
    length = np.log1p(np.asarray(M.sum(axis=1)).ravel())
    parts = [B, sp.csr_matrix(length[:, None])]
    if groups:
        parts.append(sp.csr_matrix(_group_features(texts, k, length)))
    return sp.hstack(parts, format="csr")


def _group_features(texts, k, words) -> np.ndarray:
    """Each option against the others of its item (`core.text.option_groups`: the odd one out in words
    and in TF-IDF, the words it shares, its negation, hedging, numbers and names, "all of the above"
    and its kin), with its rank in characters and in words among them (0 the shortest, 1 the longest,
    ties shared) and whether it is strictly the longest or the shortest; each column standardised, so
    one penalty weighs them alike."""
    from ..text.option_groups import group_amounts

    groups = group_amounts(texts, k)
    item = np.repeat(np.arange(len(k)), k)
    by_item = pd.DataFrame({"item": item, "chars": groups["chars"].to_numpy(), "words": words})
    ranked = []
    for column in ("chars", "words"):
        grouped = by_item.groupby("item")[column]
        ranked.append((grouped.rank(method="average").to_numpy() - 1) / np.maximum(np.repeat(k, k) - 1, 1))
        for extreme in ("max", "min"):   # strictly the longest (shortest): at the extreme, and alone there
            at = by_item[column].to_numpy() == grouped.transform(extreme).to_numpy()
            ranked.append(at & (pd.Series(at).groupby(item).transform("sum").to_numpy() == 1))
    G = np.column_stack([groups.to_numpy(dtype=np.float64), np.column_stack(ranked).astype(np.float64)])
    G[:, list(groups.columns).index("chars")] = np.log1p(G[:, list(groups.columns).index("chars")])
    spread = G.std(axis=0)
    return np.divide(G - G.mean(axis=0), spread, out=np.zeros_like(G), where=spread > 0)


def _stem_option_features(ds, texts, item, dim: int, seed: int) -> np.ndarray:
    """The share of each option's words in its stem, and the product of the stem's and the
    option's TF-IDF/SVD vectors (one space fitted on both)."""
    from ..representations.svd import RandomizedSVD
    from ..representations.text import fit_tfidf
    from ..zstats.choices import option_amounts

    src = ds.choices
    stems = [" ".join(str(v) for v in row) for row in zip(*[ds.table[f] for f in src.stem])] if src.stem else [""] * len(ds)
    both = list(stems) + [str(t) for t in texts]
    _, T = fit_tfidf(both, "1-2", 2, "the stems and options")
    d = max(1, min(int(dim), T.shape[1] - 1, T.shape[0] - 1))
    V = RandomizedSVD(d, random_state=seed).fit_transform(T)
    V /= np.maximum(np.linalg.norm(V, axis=1, keepdims=True), 1e-12)
    S, O = V[:len(stems)][item], V[len(stems):]
    overlap = option_amounts(ds)["stem_overlap"]
    position = np.arange(len(item)) - np.repeat(np.cumsum(src.n_options.to_numpy()) - src.n_options.to_numpy(),
                                                src.n_options.to_numpy())
    shared = overlap[item, position]
    # the stem's length (log words) times the option's vector: a longer context may settle which
    # kind of option is right (BBQ: a context of one sentence leaves the answer unknown)
    stem_words = np.log1p(np.asarray([len(t.split()) for t in stems], dtype=np.float64))[item]
    return np.hstack([shared[:, None], (S[:, :, None] * O[:, None, :]).reshape(len(item), -1),
                      (stem_words - stem_words.mean())[:, None] * O])


def option_embedding_spec(spec: str) -> str:
    """``spec`` as the representation of each option on its own (``fields=option``), or InputError
    naming the kinds that can: one that embeds a text without fitting on the dataset (``glove``,
    ``sbert``), so an option's vector is the same in any item and any fold."""
    from ..representations import REGISTRY
    from ..representations.spec import canonical_spec, parse_spec

    kind, options = parse_spec(spec)
    if REGISTRY[kind].new_text != "stateless":
        raise InputError(f"--options-representation {spec!r}: the options are embedded one by one, by a kind that "
                         "fits nothing on the dataset: glove, or sbert:model=NAME_OR_PATH (extra 'sbert').")
    if options.get("fields") not in (None, "option"):
        raise InputError(f"--options-representation {spec!r}: drop fields=; each option is embedded on its own.")
    return canonical_spec(kind, {**options, "fields": "option"})


def _embedded(texts, item, k, spec: str) -> np.ndarray:
    """Each option embedded by ``spec`` (`option_embedding_spec`), less its item's mean: what it says,
    against the other options."""
    from ..representations import embed_new

    E = np.asarray(embed_new(spec, {"option": [str(t) for t in texts]}), dtype=np.float64)
    starts = np.cumsum(k) - k
    return E - np.repeat(np.add.reduceat(E, starts, axis=0) / k[:, None], k, axis=0)


def _inputs(ds, name: str, layout, dim: int, seed: int, groups: bool = True, embedding: Optional[str] = None):
    from ..data.choices import options_of

    item, starts, _, k, position = layout
    padded, _, _ = options_of(ds)
    texts = padded[item, position]
    if name == "position_only":
        return sp.csr_matrix((np.ones(len(item)), (np.arange(len(item)), position)), shape=(len(item), int(k.max())))
    options = _option_features(ds, texts, k, groups)
    if name == "options_only":
        return options
    if name == "options_embedded":
        return sp.hstack([options, sp.csr_matrix(_embedded(texts, item, k, embedding))], format="csr")
    return sp.hstack([options, sp.csr_matrix(_stem_option_features(ds, texts, item, dim, seed))], format="csr")


def _cross_fit(X, layout, folds: int, seed: int, max_train=None, cancel=None) -> tuple:
    """(p_gold, correct, fold, majority_correct) of each item, each fold scored by a model fitted
    on the others; ``correct`` is the chance the model picks the gold (1/m when it ties m options on
    top, as a random tie-break would)."""
    item, starts, gold_rows, k, position = layout
    n = len(k)
    fold = np.random.default_rng(seed).permutation(n) % folds
    p_gold, correct, majority = np.empty(n), np.zeros(n), np.zeros(n, dtype=bool)
    rows_of = np.split(np.arange(len(item)), starts[1:])
    gold = position[gold_rows]
    for f in range(folds):
        check_cancel(cancel)
        train, test = np.flatnonzero(fold != f), np.flatnonzero(fold == f)
        if max_train is not None and len(train) > int(max_train):   # as strong on more items of the same kind
            train = np.sort(np.random.default_rng([seed, f]).choice(train, int(max_train), replace=False))
        train_rows = np.concatenate([rows_of[i] for i in train])
        test_rows = np.concatenate([rows_of[i] for i in test])
        sub_starts = lambda items: np.cumsum(k[items]) - k[items]   # noqa: E731
        w = fit_conditional_logit(X[train_rows], sub_starts(train), sub_starts(train) + gold[train])
        p = choice_probabilities(X[test_rows], sub_starts(test), w)
        at = sub_starts(test)
        p_gold[test] = p[at + gold[test]]
        best = np.repeat(np.maximum.reduceat(p, at), k[test])
        on_top = p >= best - 1e-12
        # a tie among the top options is broken at random: the gold is picked 1/m of the time
        correct[test] = on_top[at + gold[test]] / np.add.reduceat(on_top.astype(np.float64), at)
        top_position = np.bincount(gold[train], minlength=int(k.max())).argmax()
        majority[test] = gold[test] == top_position
    return p_gold, correct, fold, majority


def choice_baselines(ds, *, which=BASELINES, folds: int = 5, dim: int = 16, random_state: int = 0,
                     max_train=MAX_TRAIN, groups: bool = True, embedding: Optional[str] = None, progress=None,
                     cancel=None) -> dict:
    """The cross-fitted baselines ``which`` (of `BASELINES`) of a multiple-choice dataset:
    name → `ChoiceBaseline`. ``max_train`` caps each fold's training items (a seeded sample; None:
    no cap); the summary's ``max_train`` says what it was, ``trained_on`` the most a fold used.
    ``groups=False`` leaves the group features out (the options-only model before issue 64, which
    `benchmarks/options_only_bench.py` sets beside the one with them). ``embedding`` (a ``glove`` or
    ``sbert`` spec) adds the baseline ``options_embedded``: the options-only inputs and each option's
    embedding less its item's mean, a stronger options-only model where the user has one."""
    if getattr(ds, "choices", None) is None:
        raise InputError("these baselines read multiple-choice items (a stem, options and the gold one); for labelled "
                         "examples use pvi with a partial input.")
    known = BASELINES
    if embedding is not None:
        embedding = option_embedding_spec(embedding)
        known = BASELINES + ("options_embedded",)
        which = tuple(dict.fromkeys((*which, "options_embedded")))
    unknown = [w for w in which if w not in known]
    if unknown:
        raise InputError(f"unknown baseline {unknown[0]!r}; choose from {', '.join(BASELINES)}.")
    folds = int(folds)
    if folds < 2 or folds > len(ds):
        raise InputError(f"folds={folds}: cross-fitting needs from 2 folds to one per item ({len(ds)}).")
    layout = _layout(ds)
    k = layout[3]
    out = {}
    with one_blas_thread():   # the same figures on any machine, busy or not (`core.base.cores`)
        for step, name in enumerate(which):
            report(progress, step / len(which), f"baseline: {name.replace('_', ' ')}")
            X = _inputs(ds, name, layout, dim, random_state, groups, embedding)
            p_gold, correct, fold, majority = _cross_fit(X, layout, folds, random_state, max_train, cancel)
            pvi = np.log2(np.maximum(p_gold, FLOOR)) + np.log2(k)
            n = len(k)
            table = pd.DataFrame({"id": ds.table.index.astype(str), "p_gold": p_gold, "correct": correct, "pvi": pvi,
                                  "fold": fold})
            accuracy = float(correct.mean())
            out[name] = ChoiceBaseline(name, table, {"embedding": embedding if name == "options_embedded" else None,
                "accuracy": accuracy, "accuracy_se": binomial_se(round(accuracy * n), n),
                "chance": float(np.mean(1.0 / k)), "majority": float(majority.mean()),
                "v_information": float(pvi.mean()), "stderr": float(pvi.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0,
                "items": n, "folds": folds, "max_train": None if max_train is None else int(max_train),
                "trained_on": int(min(n - np.bincount(fold).min(), max_train or n))})
    report(progress, 1.0, "baselines done")
    return out
