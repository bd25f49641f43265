"""Plotly figures of z-statistics (no streamlit: the dashboard, notebooks and reports share them).

* `gardner_plot`: the plot of Gardner et al. (2021), Fig. 1: x = n (examples having
  the feature, log scale), y = p̂(l | x); one point per feature and label; the
  curve p̂ = p0 + z*·√(p0 (1 − p0) / n) above which a feature is significantly
  biased towards l; significant points coloured by label, the rest grey.
* `top_features_bar`: the k features of highest z per label.
* `zfilter_history`: the largest z on the accepted set, batch after batch.

Every point carries its row number of ``ZStats.table`` as ``customdata[0]``, so a
selection event can look the feature up on the Python side.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import qualitative
from plotly.subplots import make_subplots

from core.errors import InputError

GREY = "rgba(150, 150, 150, 0.35)"
WEBGL_ABOVE = 5000  # points; beyond this SVG scatter gets sluggish in browsers


def _stats(z):
    """(table, z_star, p0, labels) from a ZStats or a z-table DataFrame with attrs."""
    if isinstance(z, pd.DataFrame):
        table = z
        attrs = table.attrs
        if "z_star" not in attrs or "p0" not in attrs:
            raise InputError("the z-table has no z_star/p0 in .attrs; pass the ZStats from core.zstats.compute_z.")
        labels = list(pd.unique(table["label"]))
        return table, float(attrs["z_star"]), float(attrs["p0"]), labels
    if hasattr(z, "table") and hasattr(z, "z_star"):
        return z.table, float(z.z_star), float(z.p0), list(z.labels)
    raise InputError(f"expected a ZStats or a z-table DataFrame, not {type(z).__name__}.")


def _filter(table, kind=None, field=None):
    for col, want in (("kind", kind), ("field", field)):
        if want is not None:
            want = [want] if isinstance(want, str) else list(want)
            table = table[table[col].isin(want)]
    return table


def label_colours(labels) -> dict:
    palette = qualitative.Plotly
    return {l: palette[i % len(palette)] for i, l in enumerate(labels)}


def threshold_curve(p0: float, z_star: float, n_min: float, n_max: float, points: int = 200):
    """(n, p̂) along p̂ = p0 + z*·√(p0 (1 − p0) / n), where p̂ ≤ 1."""
    n = np.logspace(np.log10(max(n_min, 1.0)), np.log10(max(n_max, 2.0)), points)
    p = p0 + z_star * np.sqrt(p0 * (1 - p0) / n)
    keep = p <= 1.0
    return n[keep], p[keep]


def gardner_plot(
    z,
    *,
    kind=None,
    field=None,
    annotate: int = 3,
    max_grey: int = 50_000,
    webgl: Optional[bool] = None,
    title: Optional[str] = None,
    random_state: int = 0,
) -> go.Figure:
    """The Gardner plot of a z-table.

    Parameters
    ----------
    z : ZStats or DataFrame
        From `core.zstats.compute_z` (or its ``.table`` with attrs).
    kind, field : str or list, optional
        Only these feature kinds / fields (e.g. ``kind="ngram", field="hypothesis"``).
    annotate : int
        Write the names of this many most extreme significant features per label.
    max_grey : int
        Draw at most this many non-significant points (a seeded sample); the
        significant ones are always all drawn.
    webgl : bool, optional
        Use Scattergl; default when there are more than 5,000 points.
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
    """
    table, z_star, p0, labels = _stats(z)
    table = _filter(table, kind, field)
    table = table[table["n"] > 0]
    sig = table["z"].to_numpy() > z_star
    grey = table[~sig]
    n_grey = len(grey)
    if n_grey > max_grey:
        rng = np.random.default_rng(random_state)
        grey = grey.iloc[np.sort(rng.choice(n_grey, max_grey, replace=False))]
    n_points = len(grey) + int(sig.sum())
    use_gl = n_points > WEBGL_ABOVE if webgl is None else bool(webgl)
    Scatter = go.Scattergl if use_gl else go.Scatter
    hover = (
        "<b>%{customdata[1]}</b><br>label: %{customdata[2]}<br>n = %{x}<br>"
        "p̂ = %{y:.3f}<br>z = %{customdata[3]:.2f}<extra></extra>"
    )

    def custom(t):
        return np.column_stack([t.index.to_numpy(), t["feature"].to_numpy(), t["label"].astype(str).to_numpy(),
                                t["z"].to_numpy()])

    fig = go.Figure()
    grey_name = "not significant" if n_grey == len(grey) else f"not significant ({len(grey):,} of {n_grey:,} shown)"
    fig.add_trace(Scatter(
        x=grey["n"], y=grey["p_hat"], mode="markers", name=grey_name, customdata=custom(grey),
        hovertemplate=hover, marker=dict(color=GREY, size=4),
    ))
    colours = label_colours(labels)
    sig_table = table[sig]
    for lab in labels:
        t = sig_table[sig_table["label"] == lab]
        fig.add_trace(Scatter(
            x=t["n"], y=t["p_hat"], mode="markers", name=f"{lab} (z > z*)", customdata=custom(t),
            hovertemplate=hover, marker=dict(color=colours[lab], size=7, line=dict(width=0.5, color="white")),
        ))
    if len(table):
        cn, cp = threshold_curve(p0, z_star, table["n"].min(), table["n"].max())
        fig.add_trace(go.Scatter(x=cn, y=cp, mode="lines", name=f"z* = {z_star:.2f}", hoverinfo="skip",
                                 line=dict(color="black", dash="dash", width=1.5)))
        fig.add_hline(y=p0, line=dict(color="grey", dash="dot", width=1),
                      annotation_text=f"p0 = {p0:.3g}", annotation_position="bottom right")
    if annotate:
        for lab in labels:
            t = sig_table[sig_table["label"] == lab].nlargest(int(annotate), "z")
            for _, row in t.iterrows():
                fig.add_annotation(x=np.log10(row["n"]), y=row["p_hat"], text=str(row["feature"]), showarrow=True,
                                   arrowhead=0, arrowwidth=1, ax=18, ay=-18, font=dict(size=10, color=colours[lab]))
    fig.update_xaxes(type="log", title="n (examples with the feature)")
    fig.update_yaxes(title="p̂(label | feature)", range=[0, 1.03])
    n_tests = int(z.n_tests if hasattr(z, "n_tests") else z.attrs.get("n_tests", 0))
    shown = table["feature"].nunique()
    # z* divides α by every feature tested; a kind/field filter only hides some of them
    over = f"Bonferroni over the {n_tests:,} features tested" + (f", {shown:,} shown" if shown != n_tests else "")
    fig.update_layout(
        title=title or (f"Features vs labels: {int(sig.sum()):,} of {len(table):,} (feature, label) points above "
                        f"z* = {z_star:.2f} ({over})"),
        legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0), margin=dict(t=80, l=60, r=20, b=50),
        template="plotly_white",
    )
    return fig


def top_features_bar(z, k: int = 10, *, kind=None, field=None, title: Optional[str] = None) -> go.Figure:
    """Horizontal bars of the k features of highest z per label, one panel per label, with the z* line."""
    table, z_star, p0, labels = _stats(z)
    table = _filter(table, kind, field)
    table = table[table["z"] > 0]
    colours = label_colours(labels)
    # One panel per label, stacked: feature names are long and need the width.
    fig = make_subplots(rows=max(len(labels), 1), cols=1, subplot_titles=[str(l) for l in labels],
                        vertical_spacing=0.25 / max(len(labels), 1))
    for i, lab in enumerate(labels, start=1):
        t = table[table["label"] == lab].nlargest(int(k), "z").iloc[::-1]
        fig.add_trace(go.Bar(
            x=t["z"], y=t["feature"], orientation="h", marker_color=colours[lab], name=str(lab), showlegend=False,
            customdata=np.column_stack([t.index.to_numpy(), t["n"].to_numpy(), t["p_hat"].to_numpy()]),
            hovertemplate="<b>%{y}</b><br>z = %{x:.2f}<br>n = %{customdata[1]}<br>p̂ = %{customdata[2]:.3f}<extra></extra>",
        ), row=i, col=1)
        fig.add_vline(x=z_star, line=dict(color="black", dash="dash", width=1), row=i, col=1)
    fig.update_xaxes(title_text="z", row=len(labels), col=1)
    fig.update_layout(title=title or f"Top {k} features per label (dashed: z* = {z_star:.2f})",
                      height=max(300, len(labels) * (22 * k + 60) + 100), template="plotly_white", margin=dict(l=10, r=10, t=80, b=40))
    return fig


def zfilter_history(result, title: Optional[str] = None) -> go.Figure:
    """Largest z on the accepted set Z before each batch, and accepted/rejected per batch."""
    h = result.history
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    fig.add_trace(go.Bar(x=h["batch"], y=h["accepted"], name="accepted", marker_color="#2ca02c"), secondary_y=False)
    fig.add_trace(go.Bar(x=h["batch"], y=h["rejected"], name="rejected", marker_color="#d62728"), secondary_y=False)
    fig.add_trace(go.Scatter(x=h["batch"], y=h["z_max"], name="largest z on Z", mode="lines+markers",
                             line=dict(color="black")), secondary_y=True)
    fig.update_layout(barmode="stack", template="plotly_white",
                      title=title or f"z-filtering: largest z {result.z_max_before:.1f} → {result.z_max_after:.1f}")
    fig.update_xaxes(title_text="batch")
    fig.update_yaxes(title_text="examples", secondary_y=False)
    fig.update_yaxes(title_text="largest z", secondary_y=True)
    return fig
