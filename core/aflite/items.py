"""AFLite on multiple-choice items (issue 55): the model family ``choice``, a conditional logit over
each item's options (`core.models.conditional_logit`), one weight vector shared by
every position, trained on a partition of the items and scored on the others: an item is
predictable when the ensembles pick its gold option without reading anything but the options (and,
with ``choice-diff:stem=1``, how they bear on the stem).

It reads the ``choice-diff`` representation (`core.representations.choices`), whose row of an item
lays its options out as ``[k_max, present_1 … present_k, v_1 … v_k]``: the widest item's number of
options, whether each position holds an option, and each option's vector differenced against its
item's mean. The labels are the gold's letters (``gold``), so a class's code is turned back into its
position by its letter. The rows are read as they are: the engine's centring (the same vector taken
from every row) would give each position an offset of its own, so the scorer never applies it.
"""
from __future__ import annotations

import numpy as np

from ..base.errors import InputError
from ..base.progress import check_cancel

__all__ = ["ChoiceScorer", "item_layout"]


def item_layout(X) -> tuple:
    """(k_max, d) of a ``choice-diff`` matrix, or InputError naming the representation to use."""
    X = np.asarray(X)
    refuse = InputError("the choice family reads multiple-choice items through the choice-diff representation "
                        "(-r choice-diff); this representation is not one.")
    if X.ndim != 2 or not len(X) or X.shape[1] < 3:
        raise refuse
    k = X[0, 0]
    if not (k >= 2 and float(k).is_integer() and (X[:, 0] == k).all()):
        raise refuse
    k = int(k)
    d, rest = divmod(X.shape[1] - 1 - k, k)
    if d < 1 or rest:
        raise refuse
    return k, d


class ChoiceScorer:
    """The ``choice`` family: per partition, one conditional logit on its training items, whose
    pick (the option of the highest score; none on a tie) is right or not on every other item."""

    def __init__(self, Z, codes, classes, seed: int, l2: float = None):
        from ..data.choices import LETTERS
        from ..models.conditional_logit import L2

        self.k, self.d = item_layout(Z)
        try:
            position = np.asarray([LETTERS.index(str(c)) for c in classes], dtype=np.int64)
        except ValueError:
            raise InputError("the choice family reads the gold option's letter as the label (multiple-choice items); "
                             "these labels are not letters of options.") from None
        self.Z, self.gold, self.seed = Z, position[np.asarray(codes)], seed
        self.l2 = L2 if l2 is None else float(l2)
        if (self.gold >= self.k).any():
            raise InputError("a gold position lies past the items' options; rebuild the choice-diff representation.")

    def remove(self, removed_rows) -> None:   # nothing to keep up to date
        pass

    def _options(self, rows):
        """(option rows as a matrix, the option count of each item, the row of each item's gold among
        its own) of these items. An item's options are laid out in an order of their own (by their
        vectors), not the file's, so where the gold sits changes nothing: the same items with their
        options in any order are scored the same, to the bit."""
        Z = np.asarray(self.Z[rows], dtype=np.float64)
        present = Z[:, 1:1 + self.k] > 0.5
        vectors = Z[:, 1 + self.k:].reshape(len(rows), self.k, self.d)
        counts = present.sum(axis=1)
        options, starts = vectors[present], np.cumsum(counts) - counts
        gold_row = starts + np.take_along_axis(np.cumsum(present, axis=1) - 1, self.gold[rows][:, None], axis=1)[:, 0]
        order = np.lexsort(np.vstack([options.T[::-1], np.repeat(np.arange(len(rows)), counts)[None, :]]))
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        return options[order], counts, rank[gold_row] - starts

    def score(self, S, plan, sub, cancel, phase):
        from ..models.conditional_logit import choice_probabilities, fit_conditional_logit
        from .scorers import split_of

        n_s, m = len(S), plan.full.shape[1]
        options, counts, gold_at = self._options(S)
        item_of = np.repeat(np.arange(n_s), counts)
        c, h = np.zeros(n_s), np.zeros(n_s)
        for p in range(m):
            check_cancel(cancel)
            tr, te = split_of(plan, p, n_s)
            rows_tr = np.flatnonzero(np.isin(item_of, tr))
            w = fit_conditional_logit(options[rows_tr], np.cumsum(counts[tr]) - counts[tr],
                                      np.cumsum(counts[tr]) - counts[tr] + gold_at[tr], self.l2)
            rows_te = np.flatnonzero(np.isin(item_of, te))
            at = np.cumsum(counts[te]) - counts[te]
            p_te = choice_probabilities(options[rows_te], at, w)
            on_top = p_te >= np.repeat(np.maximum.reduceat(p_te, at), counts[te])
            # picked: the gold alone on top (a gold tied with another option is not picked, whatever
            # their order: a tie broken by position would make where the gold sits matter)
            c[te] += on_top[at + gold_at[te]] & (np.add.reduceat(on_top.astype(np.int64), at) == 1)
            h[te] += 1
            sub((p + 1) / m, f"choice model {p + 1}/{m}")
        return c, h
