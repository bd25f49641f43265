"""Plotly figures of a team's agreement (`core.team.agreement`; no streamlit: the Review page, the
report and notebooks share them).

* `kappa_heatmap`: Cohen's κ of every pair of reviewers (symmetric; the diagonal is 1; a pair
  with too few shared examples is blank), with the shared count on hover.
* `support_curve`: the agreement of the team's word with the filter as n moves, one line per
  τ (a quality-ordered run has one τ), the best τ/n marked.

Reviewer e-mails and other names are escaped for display (`core.plots.text`).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .text import escape


def kappa_heatmap(pairs: pd.DataFrame, reviewers=None, *, height: int = 360) -> go.Figure:
    """κ of each pair of reviewers (``pairs``: `core.team.agreement.Agreement.pairs`)."""
    names = list(reviewers) if reviewers is not None else sorted(set(pairs["reviewer_a"]) | set(pairs["reviewer_b"]))
    at = {name: i for i, name in enumerate(names)}
    k = np.full((len(names), len(names)), np.nan)
    shared = np.zeros((len(names), len(names)), dtype=int)
    np.fill_diagonal(k, 1.0)
    for r in pairs.itertuples(index=False):
        if r.reviewer_a in at and r.reviewer_b in at:
            i, j = at[r.reviewer_a], at[r.reviewer_b]
            k[i, j] = k[j, i] = r.kappa
            shared[i, j] = shared[j, i] = r.shared
    shown = [escape(n) for n in names]
    text = [["" if np.isnan(v) else f"{v:.2f}" for v in row] for row in k]
    fig = go.Figure(go.Heatmap(z=k, x=shown, y=shown, zmin=-1, zmax=1, colorscale="RdBu", text=text,
                               texttemplate="%{text}", customdata=shared, colorbar=dict(title="κ"),
                               hovertemplate="%{y} × %{x}<br>κ = %{z:.3f}<br>%{customdata} shared examples<extra></extra>"))
    fig.update_layout(title="Cohen's κ of each pair of reviewers", height=height, margin=dict(l=10, r=10, t=50, b=10),
                      yaxis=dict(autorange="reversed", automargin=True), xaxis=dict(automargin=True))
    return fig


def support_curve(grid: pd.DataFrame, best: dict, *, height: int = 360, most_lines: int = 6) -> go.Figure:
    """Agreement of the team's word with the filter against n, a line per τ (at most
    ``most_lines`` of them, evenly spaced, with the best τ always among them)."""
    taus = sorted(grid["tau"].unique())
    if len(taus) > most_lines:
        picks = {taus[int(i)] for i in np.linspace(0, len(taus) - 1, most_lines).round()}
        taus = sorted(picks | {best["tau"]})
    fig = go.Figure()
    for tau in taus:
        line = grid[np.isclose(grid["tau"], tau)].sort_values("n")
        fig.add_trace(go.Scatter(x=line["n"], y=line["agreement"], mode="lines", name=f"τ = {tau:.2f}",
                                 line=dict(width=3 if np.isclose(tau, best["tau"]) else 1.5),
                                 hovertemplate="n = %{x:,}<br>agreement %{y:.1%}<extra>τ = " + f"{tau:.2f}</extra>"))
    fig.add_trace(go.Scatter(x=[best["n"]], y=[best["agreement"]], mode="markers", name="best",
                             marker=dict(size=12, symbol="star", color="black"),
                             hovertemplate=f"best: τ = {best['tau']:.2f}, n = {best['n']:,}<br>agreement "
                                           f"{best['agreement']:.1%}<extra></extra>"))
    fig.update_layout(title=f"The team's word vs the filter on {best['examples']:,} reviewed examples",
                      xaxis_title="n (examples retained)", yaxis_title="agreement with the team", yaxis_tickformat=".0%",
                      height=height, margin=dict(l=10, r=10, t=50, b=10), legend=dict(orientation="h"))
    return fig
