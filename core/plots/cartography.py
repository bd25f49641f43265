"""The data map of training dynamics (`core.dynamics.cartography`; Swayamdipta et al. 2020, Fig. 1): each
example at (variability, confidence), coloured by AFLite's p̃ or by retained/removed, with the
regions' borders drawn (the ambiguous third by variability, the confidence threshold). No
streamlit: the Dynamics page and notebooks share it. Dataset strings are escaped for display."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .aflite import STATUS_COLOURS
from .text import escape, escape_all

__all__ = ["data_map", "region_counts"]

WEBGL_ABOVE = 5000


def data_map(frame: pd.DataFrame, *, colour: str, variability_border: float, confidence_border: float,
             label: str = "label", height: int = 520) -> go.Figure:
    """``frame``: ``id``, ``label``, ``confidence``, ``variability`` and ``predictability`` /
    ``retained`` / ``pvi``; ``colour``: ``"predictability"`` or ``"pvi"`` (a colour scale; PVI in
    bits, centred on 0) or ``"status"``. Every point carries its row of ``frame`` as ``customdata[0]``."""
    scatter = go.Scattergl if len(frame) > WEBGL_ABOVE else go.Scatter
    hover = ("%{customdata[1]}<br>" + escape(label) + ": %{customdata[2]}<br>confidence %{y:.2f}, variability "
             "%{x:.2f}<extra></extra>")
    # customdata[0]: the row of ``frame`` (a selection is looked up by row: the shown ids are escaped)
    custom = np.column_stack([np.arange(len(frame)), escape_all(frame["id"]), escape_all(frame[label])])
    fig = go.Figure()
    if colour == "status":
        status = np.where(frame["retained"].to_numpy(dtype=bool), "retained", "removed")
        for name in ("retained", "removed"):
            part = status == name
            fig.add_trace(scatter(x=frame["variability"][part], y=frame["confidence"][part], mode="markers",
                                  name=name, marker=dict(size=4, color=STATUS_COLOURS[name], opacity=0.6),
                                  customdata=custom[part], hovertemplate=hover))
    elif colour == "pvi":
        values = frame["pvi"].to_numpy(dtype=float)
        reach = float(np.nanmax(np.abs(values))) if np.isfinite(values).any() else 1.0
        fig.add_trace(scatter(x=frame["variability"], y=frame["confidence"], mode="markers", name="examples",
                              marker=dict(size=4, color=values, colorscale="RdBu", cmid=0, cmin=-reach, cmax=reach,
                                          opacity=0.7, colorbar=dict(title="PVI (bits)")),
                              customdata=custom, hovertemplate=hover))
    else:
        fig.add_trace(scatter(x=frame["variability"], y=frame["confidence"], mode="markers", name="examples",
                              marker=dict(size=4, color=frame["predictability"], colorscale="Viridis", cmin=0, cmax=1,
                                          opacity=0.7, colorbar=dict(title="p̃")),
                              customdata=custom, hovertemplate=hover))
    fig.add_vline(x=variability_border, line_dash="dash", annotation_text="ambiguous →")
    fig.add_hline(y=confidence_border, line_dash="dot", annotation_text="easy-to-learn ↑ / hard-to-learn ↓",
                  annotation_position="bottom left")
    fig.update_layout(title="Data map: confidence × variability", xaxis_title="variability (std of p(gold) over epochs)",
                      yaxis_title="confidence (mean p(gold))", yaxis_range=[0, 1], height=height,
                      margin=dict(l=10, r=10, t=50, b=10), dragmode="lasso", legend=dict(orientation="h"))
    return fig


def region_counts(frame: pd.DataFrame) -> pd.DataFrame:
    """Examples per region and AFLite status (rows: regions; columns: retained, removed, removed share)."""
    status = np.where(frame["retained"].to_numpy(dtype=bool), "retained", "removed")
    table = pd.crosstab(frame["region"], status).reindex(columns=["retained", "removed"], fill_value=0)
    table["removed share"] = (table["removed"] / table.sum(axis=1)).round(3)
    return table
