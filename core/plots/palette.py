"""One colour per label, the same in every figure: the palette and how labels get their colour.

The palette is Okabe & Ito's (2008) eight colours, chosen to stay distinguishable for the
common colour-vision deficiencies (deuteranopia, protanopia, tritanopia), ordered so that the
first labels get the most different ones: blue, orange, bluish green, vermillion, reddish
purple, sky blue, yellow, black. A ninth label onwards continues with Paul Tol's "muted"
colours (also colour-blind safe among themselves); past 17 labels colours repeat.

A label's colour is set by its position among the dataset's classes sorted as text
(`core.data.dataset.Dataset.classes`), never by the order in which a figure meets the labels: the
Filter page's label balance, the Predictability histograms and violins, the Map, the Gardner
plot and top features, and the evaluation's figures colour ``contradiction`` alike.
"""
from __future__ import annotations

from typing import Iterable, Optional

__all__ = ["OKABE_ITO", "TOL_MUTED", "LABEL_PALETTE", "label_colours", "sorted_classes"]

#: Okabe–Ito, reordered: most distinct first (https://jfly.uni-koeln.de/color/)
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
#: Paul Tol's "muted" (https://personal.sron.nl/~pault/), for labels 9–17
TOL_MUTED = ("#332288", "#88CCEE", "#44AA99", "#117733", "#999933", "#DDCC77", "#CC6677", "#882255", "#AA4499")
LABEL_PALETTE = OKABE_ITO + TOL_MUTED


def sorted_classes(labels: Iterable) -> list:
    """The distinct labels, sorted as text (the order `Dataset.classes` uses)."""
    seen = {}
    for l in labels:
        seen.setdefault(str(l), l)
    return [seen[k] for k in sorted(seen)]


def label_colours(labels: Iterable, classes: Optional[Iterable] = None) -> dict:
    """``{label: "#rrggbb"}`` for every label in ``labels``.

    Parameters
    ----------
    labels : iterable
        The labels a figure draws (any subset of the classes; repeats are fine).
    classes : iterable, optional
        All the dataset's classes. A label's colour is its position among them sorted as
        text, so a figure that shows only some labels still colours each one as the others
        do. Default: the labels themselves.

    Keys are both the labels and their ``str``, so a figure that has turned labels into text
    finds them too.
    """
    labels = list(labels)
    order = [str(c) for c in sorted_classes(labels if classes is None else classes)]
    order += sorted({str(l) for l in labels} - set(order))   # labels outside ``classes``: after them
    index = {c: i for i, c in enumerate(order)}
    out = {}
    for l in labels:
        colour = LABEL_PALETTE[index[str(l)] % len(LABEL_PALETTE)]
        out[l] = colour
        out[str(l)] = colour
    return out
