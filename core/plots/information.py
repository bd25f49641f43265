"""Figures of V-usable information (`core.evaluation.information`): how PVI is distributed per
label, and PVI against AFLite's p̃ (two views of how easily an example's label is predicted:
bits of information, and the share of AFLite's models that get it right)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .palette import label_colours, sorted_classes
from .text import escape

__all__ = ["pvi_histogram", "pvi_vs_predictability", "PVI_POINTS"]

_MARGIN = dict(l=10, r=10, t=40, b=10)
#: most points the scatter draws (a seeded sample above it)
PVI_POINTS = 20_000


def pvi_histogram(table: pd.DataFrame, *, column: str = "pvi", title: str = "PVI per label", classes=None,
                  bins: int = 40) -> go.Figure:
    """Overlaid histograms of ``table[column]`` (bits) per ``table["label"]``, counted here (the
    figure holds ``bins`` counts per label, not one value per example), with a line at 0 bits."""
    values = table[column].to_numpy(dtype=float)
    finite = values[np.isfinite(values)]
    edges = np.linspace(float(finite.min()), float(finite.max()) + 1e-9, bins + 1) if len(finite) else np.linspace(0, 1, 2)
    groups = sorted_classes(table["label"])
    colours = label_colours(groups, classes)
    fig = go.Figure()
    for g in groups:
        part = values[(table["label"] == g).to_numpy()]
        counts, _ = np.histogram(part[np.isfinite(part)], bins=edges)
        name = escape(g)
        fig.add_trace(go.Bar(x=(edges[:-1] + edges[1:]) / 2, y=counts, width=float(edges[1] - edges[0]), name=name,
                             marker_color=colours[g], opacity=0.6,
                             hovertemplate=f"{name}<br>PVI %{{x:.2f}} bits: %{{y}}<extra></extra>"))
    fig.add_vline(x=0.0, line_dash="dot")
    fig.update_layout(title=title, barmode="overlay", bargap=0, height=340, margin=_MARGIN,
                      xaxis_title="PVI (bits)", yaxis_title="examples", legend_title_text="label")
    return fig


def pvi_vs_predictability(frame: pd.DataFrame, *, classes=None, seed: int = 0) -> go.Figure:
    """One point per example (``predictability``, ``pvi``, ``label``), in the label's colour; a seeded
    sample of `PVI_POINTS` when there are more."""
    frame = frame[np.isfinite(frame["pvi"]) & np.isfinite(frame["predictability"])]
    if len(frame) > PVI_POINTS:
        frame = frame.sample(PVI_POINTS, random_state=seed)
    groups = sorted_classes(frame["label"])
    colours = label_colours(groups, classes)
    fig = go.Figure()
    for g in groups:
        part = frame[frame["label"] == g]
        fig.add_trace(go.Scattergl(x=part["predictability"], y=part["pvi"], mode="markers", name=escape(g),
                                   marker=dict(color=colours[g], size=4, opacity=0.5),
                                   hovertemplate="p̃ %{x:.2f}, PVI %{y:.2f} bits<extra></extra>"))
    fig.update_layout(title="PVI against p̃", height=380, margin=_MARGIN, xaxis_title="AFLite's predictability p̃",
                      yaxis_title="PVI (bits)", legend_title_text="label")
    return fig
