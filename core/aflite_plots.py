"""Plotly figures of AFLite runs (no streamlit: the dashboard, notebooks and reports share them).

* `label_balance`: label shares before and after filtering (from `core.summaries.label_summary`).
* `bias_per_phase`: representation bias R (eq. 5) and held-out accuracy per phase,
  with the phases that run at the live τ/n shaded.
* `score_histogram`, `score_violins`: distributions of p̃ with the τ line.
* `phase_boxes`: p̃ of the examples still in S, phase by phase (`core.summaries.phase_scores`).
* `projection_map`: a WebGL scatter of a 2-D projection of Φ; every point carries its
  row number as ``customdata[0]`` so a selection event maps back to rows
  (`selected_rows`).

The z-statistics figures are in `core.zplots`.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

__all__ = ["label_balance", "bias_per_phase", "score_histogram", "score_violins", "phase_boxes",
           "projection_map", "selected_rows", "STATUS_COLOURS"]

STATUS_COLOURS = {"retained": "#2a6f97", "removed": "#e07a5f"}
_MARGIN = dict(l=10, r=10, t=40, b=10)


def label_balance(summary: pd.DataFrame) -> go.Figure:
    """Grouped bars: each label's share before and after filtering."""
    body = summary.drop(index="all")
    fig = go.Figure([go.Bar(name="before", x=body.index.astype(str), y=body["share_before"]),
                     go.Bar(name="after", x=body.index.astype(str), y=body["share_after"])])
    fig.update_layout(title="Label balance before / after", yaxis_tickformat=".0%", height=300,
                      margin=_MARGIN, barmode="group")
    return fig


def bias_per_phase(phases: pd.DataFrame, n_run: int) -> go.Figure:
    """R = mean p̃ on S_j and the held-out accuracy per phase; the first ``n_run`` phases shaded."""
    fig = go.Figure()
    fig.add_scatter(x=phases["phase"], y=phases["R"], mode="lines+markers", name="R: mean p̃ on S (eq. 5)")
    fig.add_scatter(x=phases["phase"], y=phases["heldout_accuracy"], mode="lines", name="held-out accuracy")
    if n_run:
        fig.add_vrect(x0=-0.5, x1=n_run - 0.5, fillcolor=STATUS_COLOURS["retained"], opacity=0.08,
                      line_width=0, annotation_text="phases run at this τ, n")
    fig.update_layout(title="Representation bias per phase", xaxis_title="phase", yaxis_title="score",
                      height=300, margin=_MARGIN)
    return fig


def score_histogram(frame: pd.DataFrame, colour: str, tau: float, *, title: str, height: int = 340) -> go.Figure:
    """Overlaid histograms of ``frame["predictability"]`` split by ``colour`` (a label
    column, or ``"status"`` for retained/removed), with a dashed line at τ."""
    kwargs = {"color_discrete_map": STATUS_COLOURS} if colour == "status" else {}
    fig = px.histogram(frame, x="predictability", color=colour, barmode="overlay", opacity=0.6, nbins=40,
                       title=title, range_x=[0, 1], **kwargs)
    fig.add_vline(x=tau, line_dash="dash", annotation_text=f"τ = {tau:.2f}" if colour != "status" else None)
    fig.update_layout(height=height, margin=_MARGIN)
    return fig


def score_violins(frame: pd.DataFrame, label: str, tau: float, height: int = 340) -> go.Figure:
    """Split violins of p̃ per label: retained on the left, removed on the right."""
    fig = go.Figure()
    for status, colour in STATUS_COLOURS.items():
        part = frame[frame["status"] == status]
        fig.add_violin(x=part[label].astype(str), y=part["predictability"], name=status, line_color=colour,
                       side="negative" if status == "retained" else "positive", points=False, spanmode="hard")
    fig.add_hline(y=tau, line_dash="dash", annotation_text="τ")
    fig.update_layout(title="p̃ per label, retained (left) vs removed (right)", violinmode="overlay",
                      yaxis_range=[0, 1], height=height, margin=_MARGIN)
    return fig


def phase_boxes(long: pd.DataFrame, tau: float, height: int = 340) -> go.Figure:
    """Box plots of p̃ per sampled phase and label (from `core.summaries.phase_scores`)."""
    fig = px.box(long, x="phase", y="score", color="label", points=False,
                 title="p̃ of the examples still in S at each phase (sampled phases)")
    fig.add_hline(y=tau, line_dash="dash", annotation_text="τ")
    fig.update_layout(yaxis_range=[0, 1], height=height, margin=_MARGIN)
    return fig


def projection_map(xy: np.ndarray, frame: pd.DataFrame, *, colour: str, label: str, size: int = 4,
                   title: str = "", colour_name: str = "", palette: Optional[dict] = None) -> go.Figure:
    """WebGL scatter of ``xy`` (row i of ``xy`` is row i of ``frame``), coloured by column ``colour``.

    Numeric colours with more than 12 distinct values (and p̃) get a colour scale; anything
    else one trace per value (named ``colour_name=value``, coloured by ``palette[value]``
    when given, e.g. the review traffic lights). Hover shows id, label and p̃;
    ``customdata[0]`` is the row.
    """
    colour_name = colour_name or colour
    x, y = xy[:, 0], xy[:, 1]
    values = frame[colour]
    hover = "%{customdata[1]}<br>label: %{customdata[2]}<br>p̃: %{customdata[3]:.2f}<extra></extra>"
    custom = np.column_stack([np.arange(len(frame)), frame["id"].to_numpy(), frame[label].astype(str).to_numpy(),
                              frame["predictability"].to_numpy()])
    fig = go.Figure()
    numeric = pd.api.types.is_numeric_dtype(values) and values.dtype != bool and values.nunique() > 12
    if colour == "predictability" or numeric:
        fig.add_trace(go.Scattergl(x=x, y=y, mode="markers", customdata=custom, hovertemplate=hover, name=colour_name,
                                   marker=dict(size=size, color=values, colorscale="Viridis", showscale=True,
                                               colorbar=dict(title=colour_name))))
    else:
        cats = values.astype(str)
        for cat in sorted(cats.unique(), key=str):
            sel = (cats == cat).to_numpy()
            fig.add_trace(go.Scattergl(x=x[sel], y=y[sel], mode="markers", name=f"{colour_name}={cat}",
                                       customdata=custom[sel], hovertemplate=hover,
                                       marker=dict(size=size, opacity=0.75,
                                                   color=(palette or {}).get(cat))))
    fig.update_layout(height=560, margin=dict(l=10, r=10, t=30, b=10), dragmode="select", title=title,
                      legend=dict(itemsizing="constant"))
    return fig


def selected_rows(event) -> list:
    """Sorted row numbers (``customdata[0]``) of the points in a plotly selection event."""
    points = ((event or {}).get("selection") or {}).get("points") or []
    return sorted({int(p["customdata"][0]) for p in points if p.get("customdata") is not None})
