"""What the quality components score, each quantity declared once with both of its measurements:
over the dataset (one value per example, NaN where it does not apply) and for one new example (the
Create page's feedback). The rules that turn a quantity into a score are elsewhere
(`core.quality.scoring`), applied once to either; here is only what is measured, so a new quantity
is one `Quantity` entry whose two passes sit side by side and cannot drift apart.

Each pass reads a fitted `core.quality.context.QualityContext`; the one-example pass also reads an
`ExampleProbe`, which holds what several quantities of one new example share (its tokens, its
n-grams, its place in Φ's neighbour space, its label-tied n-grams), each computed once."""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Callable, Optional

import numpy as np

from ..base.registry import Registry
from ..representations.neighbours import max_cosine, normalise_rows, top_k
from ..text.features import overlap_share
from ..zstats import z_from_share
from .kernels import rarity

__all__ = ["Quantity", "QUANTITIES", "ExampleProbe", "measure_dataset", "measure_example"]


@dataclass(frozen=True)
class Quantity:
    """One quantity: ``of_dataset(ctx, other)`` gives the dataset's values (``other``: a second
    split, or None), or None where it is not measured (a pair's quantity without a pair);
    ``of_example(ctx, probe)`` gives one new example's value, or None likewise."""
    name: str
    description: str
    of_dataset: Callable
    of_example: Callable


@dataclass
class ExampleProbe:
    """One new example as the quantities read it (`core.quality.context.QualityContext.feedback`
    builds it): ``li`` its label's index, ``names``/``pos`` its n-grams and their columns in the
    dataset's features (-1: unseen), ``phi`` its row in Φ."""
    ctx: object
    example: dict
    toks: dict
    names: list
    pos: np.ndarray
    phi: np.ndarray
    li: int
    k_neighbours: int
    max_features: int

    @cached_property
    def neighbours(self):
        """(its nearest rows of Φ's neighbour space, their similarities, the rows' positions)."""
        ctx = self.ctx
        pca = ctx.pca_stand_in if getattr(ctx, "stand_in", None) is not None else ctx.pca
        q = self.phi if pca is None else (self.phi - pca[0]) @ pca[1]
        space, space_pos = ctx.nn_space
        sims = space @ normalise_rows(q)[0]
        return top_k(sims, self.k_neighbours), sims, space_pos

    @cached_property
    def label_tied(self):
        """(its label-tied n-grams, strongest first, at most ``max_features``; the largest z for its
        own label): z of each n-gram counting the example itself."""
        ctx, li = self.ctx, self.li
        tied, zmax_own = [], 0.0
        L = len(ctx.classes)
        for name, p in zip(self.names, self.pos):
            counts = ctx.counts[p].copy() if p >= 0 else np.zeros(L)
            counts[li] += 1
            n = counts.sum()
            if n < ctx.min_count:
                continue
            z = z_from_share(counts / n, n, 1.0 / L)
            zmax_own = max(zmax_own, float(z[li]))
            lab = int(np.argmax(z))
            if z[lab] <= 0:
                continue
            gram, _, fld = name.rpartition("@")
            tied.append({"feature": name, "ngram": gram, "field": fld, "words": gram.split(" "),
                         "label": ctx.classes[lab], "z": round(float(z[lab]), 2), "z_own": round(float(z[li]), 2),
                         "n": int(n), "p_hat": round(float(counts[lab] / n), 3), "own_label": lab == li,
                         "significant": bool(z[lab] > ctx.z_star)})
        tied.sort(key=lambda d: -d["z"])
        return tied[:self.max_features], zmax_own

    @cached_property
    def restated(self) -> Optional[float]:
        return None if self.ctx.pair is None else self.ctx._semantic_new(self.example)

    @cached_property
    def copied(self) -> Optional[float]:
        if self.ctx.pair is None:
            return None
        a, b = self.ctx.pair
        ta, tb = set(self.toks[a]), self.toks[b]
        return sum(1 for w in tb if w in ta) / len(tb)


# ---------------------------------------------------------------------------------- the dataset pass
def _rarity_of_dataset(ctx, other):
    X = ctx.X_ngram
    nnz = np.diff(X.indptr)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(nnz > 0, np.asarray(X @ rarity(ctx.df, ctx.N)).ravel() / np.maximum(nnz, 1), 0.0)


def _own_label_z_of_dataset(ctx, other):
    X = ctx.X_ngram
    rows = np.repeat(np.arange(ctx.N), np.diff(X.indptr))
    zv = ctx.z[X.indices, ctx.y[rows]]
    zmax = np.full(ctx.N, -np.inf)
    np.maximum.at(zmax, rows, np.where(np.isnan(zv), -np.inf, zv))
    return zmax


def _other_split_of_dataset(ctx, other):
    if other is None:
        return None
    Q = normalise_rows(ctx._reduce(ctx._phi_of_split(other)))
    return ctx._in_phi(max_cosine(ctx.phi_nn, Q, exclude_self=False)[0])


# ---------------------------------------------------------------------------------- one new example
def _richness_of_example(ctx, probe):
    words = [w for f in ctx.fields for w in probe.toks[f]]
    return len(set(words)) / math.sqrt(len(words)) if words else 0.0


def _rarity_of_example(ctx, probe):
    if not probe.names:
        return 0.0
    df = np.zeros(len(probe.names))
    df[probe.pos >= 0] = ctx.df[probe.pos[probe.pos >= 0]]
    return float(np.mean(rarity(df + 1, ctx.N)))   # + 1: the example


def _nearest_of_example(ctx, probe):
    top, sims, _ = probe.neighbours
    return float(sims[top[0]]) if len(top) else 0.0


#: every quantity a component may score (`core.quality.scoring.QualityComponent.measures`)
QUANTITIES = Registry("quality quantity")
for _q in (
    Quantity("richness", "Guiraud's root type-token ratio of the example's words",
             lambda ctx, other: ctx._R, _richness_of_example),
    Quantity("rarity", "the mean normalised IDF of the example's n-grams (the example counted)",
             _rarity_of_dataset, _rarity_of_example),
    Quantity("nearest_cosine", "the cosine to the nearest other example in Φ",
             lambda ctx, other: ctx._in_phi(max_cosine(ctx.phi_nn, ctx.phi_nn, exclude_self=True)[0]),
             _nearest_of_example),
    Quantity("copied_share", "the share of the last field's tokens that occur in the first",
             lambda ctx, other: None if ctx.pair is None else overlap_share(ctx.tokens[ctx.pair[0]],
                                                                             ctx.tokens[ctx.pair[1]], ctx.N),
             lambda ctx, probe: probe.copied),
    Quantity("restated_cosine", "the cosine between the first and the last field's semantic vectors",
             lambda ctx, other: None if ctx.pair is None else ctx._sem_cos,
             lambda ctx, probe: probe.restated),
    Quantity("own_label_z", "the largest z, for its own label, of the example's n-grams",
             _own_label_z_of_dataset, lambda ctx, probe: probe.label_tied[1]),
    Quantity("other_split_cosine", "the cosine to the nearest example of the other split in Φ",
             _other_split_of_dataset, lambda ctx, probe: None),
):
    QUANTITIES.add(_q.name, _q)
del _q


def measure_dataset(ctx, other=None, *, progress=None, cancel=None) -> dict:
    """Every quantity measured over the dataset (name -> one value per example); the ones that do
    not apply are left out (scored NaN)."""
    from ..base.progress import check_cancel, report

    out = {}
    for i, q in enumerate(QUANTITIES.values()):
        report(progress, i / len(QUANTITIES), q.description)
        values = q.of_dataset(ctx, other)
        if values is not None:
            out[q.name] = values
        check_cancel(cancel)
    return out


def measure_example(ctx, probe: ExampleProbe) -> dict:
    """Every quantity measured for one new example (name -> value); the ones that do not apply are
    left out (scored NaN)."""
    return {q.name: v for q in QUANTITIES.values() if (v := q.of_example(ctx, probe)) is not None}
