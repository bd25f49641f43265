"""Plotly figures of z-statistics (no streamlit: the dashboard, notebooks and reports share them).

* `gardner_plot`: the plot of Gardner et al. (2021), Fig. 1: x = n (examples having
  the feature, log scale), y = p̂(l | x); one point per feature and label; the
  curve p̂ = p0 + z*·√(p0 (1 − p0) / n) above which a feature is significantly
  biased towards l; significant points coloured by label, the rest grey.
* `top_features_bar`: the k features of highest z per label.
* `zfilter_history`: the largest z on the accepted set, batch after batch.
* `pair_cue_plot`: the same for preference pairs: the share of differing pairs where the chosen side
  has more of a feature, against the 0.5 line.

Every point carries its row number of ``ZStats.table`` as ``customdata[0]``, so a
selection event can look the feature up on the Python side (``customdata[1]`` is the
feature's name escaped for display: `core.plots.text`). Labels are coloured by
`core.plots.palette`, the same in every figure.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..base.errors import InputError
from .palette import label_colours as _palette_colours
from .text import escape, escape_all

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


def label_colours(labels, classes=None) -> dict:
    """The labels' colours from `core.plots.palette` (by position among the sorted classes)."""
    return _palette_colours(labels, classes)


def threshold_curve(p0: float, z_star: float, n_min: float, n_max: float, points: int = 200):
    """(n, p̂) along p̂ = p0 + z*·√(p0 (1 − p0) / n), where p̂ ≤ 1."""
    n = np.logspace(np.log10(max(n_min, 1.0)), np.log10(max(n_max, 2.0)), points)
    p = p0 + z_star * np.sqrt(p0 * (1 - p0) / n)
    keep = p <= 1.0
    return n[keep], p[keep]


#: how `gardner_plot` places labels: a plot area at least this wide (px; the dashboard's is wider)
LABEL_PLOT_WIDTH = 560
LABEL_CHAR_PX = 6.4        # width of one character at font size 10 (a generous average)
LABEL_LINE_PX = 15
_OFFSETS = [(dx, dy) for r in (1, 2, 3, 4) for dx, dy in
            ((0, -22 * r), (0, 22 * r), (34 * r, -18 * r), (-34 * r, -18 * r), (34 * r, 18 * r), (-34 * r, 18 * r),
             (48 * r, 0), (-48 * r, 0))]


def _overlap(a, b, pad: float = 2.0) -> bool:
    return a[0] < b[2] + pad and b[0] < a[2] + pad and a[1] < b[3] + pad and b[1] < a[3] + pad


def place_labels(px, py, widths, *, plot_width: float, plot_height: float, obstacles=(), others=(),
                 offsets=_OFFSETS, height: float = LABEL_LINE_PX):
    """Arrow offsets ``(ax, ay)`` (pixels) that put text boxes near points without overlapping
    each other, the points, ``obstacles`` or the plot's edges; None for a point that gets no label.

    Points are placed in the order given (most important first); each takes the first offset
    whose box (``widths[i]`` × ``height``, centred on the arrow's tail) fits. A box may sit
    beside another only on the side of its own point (left box, left point), so labels that
    do not overlap in a plot ``plot_width`` wide overlap in no wider plot either (x positions
    scale, text does not); screen y grows downwards. ``others``: ``(x, y)`` of further points
    (markers) no label may cover; ``obstacles``: fixed boxes ``(x0, y0, x1, y1)``.
    """
    marks = [(x - 4, y - 4, x + 4, y + 4, x) for x, y in zip(px, py)]
    placed = [tuple(o) + (None,) for o in obstacles] + marks + [(x - 3, y - 3, x + 3, y + 3, x) for x, y in others]
    out = []
    for i, (x, y, w) in enumerate(zip(px, py, widths)):
        choice = None
        for ax, ay in offsets:
            box = (x + ax - w / 2, y + ay - height / 2, x + ax + w / 2, y + ay + height / 2, x)
            if box[0] < 0 or box[2] > plot_width or box[1] < 0 or box[3] > plot_height:
                continue
            clash = False
            for other in placed:
                if other[:4] == marks[i][:4]:
                    continue
                if _overlap(box, other):
                    clash = True
                    break
                # side by side (not stacked): the left box must belong to the left point
                stacked = box[3] + 2 <= other[1] or other[3] + 2 <= box[1]
                if not stacked and other[4] is not None and (box[0] < other[0]) != (x < other[4]) \
                        and x != other[4]:
                    clash = True
                    break
            if not clash:
                choice = (ax, ay)
                placed.append(box)
                break
        out.append(choice)
    return out


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
    classes=None,
    height: int = 560,
) -> go.Figure:
    """The Gardner plot of a z-table.

    Parameters
    ----------
    z : ZStats or DataFrame
        From `core.zstats.compute_z` (or its ``.table`` with attrs).
    kind, field : str or list, optional
        Only these feature kinds / fields (e.g. ``kind="ngram", field="hypothesis"``).
    annotate : int
        Write the names of at most this many most extreme significant features per label, where
        they fit without overlapping each other, the points or the edges (`place_labels`); the
        other points name their feature on hover.
    max_grey : int
        Draw at most this many non-significant points (a seeded sample); the
        significant ones are always all drawn.
    webgl : bool, optional
        Use Scattergl; default when there are more than 5,000 points.
    title : str, optional
    classes : list, optional
        All the dataset's labels, for colours that match every other figure (`core.plots.palette`).
    height : int
        Figure height in pixels (the labels are placed for it).

    Every feature, field and label name is escaped (`core.plots.text`); the legend sits below
    the plot, so no label reaches it.

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
        "%{customdata[1]}<br>label: %{customdata[2]}<br>n = %{x}<br>"
        "p̂ = %{y:.3f}<br>z = %{customdata[3]:.2f}<extra></extra>"
    )

    def custom(t):
        return np.column_stack([t.index.to_numpy(), escape_all(t["feature"]), escape_all(t["label"]),
                                t["z"].to_numpy()])

    fig = go.Figure()
    grey_name = "not significant" if n_grey == len(grey) else f"not significant ({len(grey):,} of {n_grey:,} shown)"
    fig.add_trace(Scatter(
        x=grey["n"], y=grey["p_hat"], mode="markers", name=grey_name, customdata=custom(grey),
        hovertemplate=hover, marker=dict(color=GREY, size=4),
    ))
    colours = label_colours(labels, classes)
    sig_table = table[sig]
    for lab in labels:
        t = sig_table[sig_table["label"] == lab]
        fig.add_trace(Scatter(
            x=t["n"], y=t["p_hat"], mode="markers", name=f"{escape(lab)} (z > z*)", customdata=custom(t),
            hovertemplate=hover, marker=dict(color=colours[lab], size=7, line=dict(width=0.5, color="white")),
        ))
    margin = dict(t=80, l=60, r=20, b=110)
    y_range = [0, 1.03]
    if len(table):
        lo, hi = np.log10(float(table["n"].min())), np.log10(float(table["n"].max()))
        pad = max(hi - lo, 1.0) * 0.04
        x_range = [lo - pad, hi + pad]
        fig.update_xaxes(range=x_range)
        cn, cp = threshold_curve(p0, z_star, table["n"].min(), table["n"].max())
        fig.add_trace(go.Scatter(x=cn, y=cp, mode="lines", name=f"z* = {z_star:.2f}", hoverinfo="skip",
                                 line=dict(color="black", dash="dash", width=1.5)))
        fig.add_hline(y=p0, line=dict(color="grey", dash="dot", width=1),
                      annotation_text=f"p0 = {p0:.3g}", annotation_position="bottom right")
        if annotate:
            _annotate(fig, sig_table, labels, colours, int(annotate), p0, x_range, y_range,
                      height - margin["t"] - margin["b"])
    fig.update_xaxes(type="log", title="n (examples with the feature)")
    fig.update_yaxes(title="p̂(label | feature)", range=y_range)
    n_tests = int(z.n_tests if hasattr(z, "n_tests") else z.attrs.get("n_tests", 0))
    shown = table["feature"].nunique()
    # z* divides α by every feature tested; a kind/field filter only hides some of them
    over = f"Bonferroni over the {n_tests:,} features tested" + (f", {shown:,} shown" if shown != n_tests else "")
    fig.update_layout(
        title=title or (f"Features vs labels: {int(sig.sum()):,} of {len(table):,} (feature, label) points above "
                        f"z* = {z_star:.2f}<br><sup>({over})</sup>"),
        legend=dict(orientation="h", yanchor="top", y=-0.16, x=0), margin=margin, height=height,
        template="plotly_white",
    )
    return fig


def _annotate(fig, sig_table, labels, colours: dict, annotate: int, p0: float, x_range, y_range, plot_h: float) -> None:
    """Name the most extreme significant features of each label (the first of each, then the second
    ...) where they fit without overlapping each other, the points, the p0 line's note or the edges."""
    w0 = LABEL_PLOT_WIDTH

    def to_px(n, p):
        return ((np.log10(n) - x_range[0]) / (x_range[1] - x_range[0]) * w0,
                (1 - (p - y_range[0]) / (y_range[1] - y_range[0])) * plot_h)

    tops = [sig_table[sig_table["label"] == lab].nlargest(annotate, "z") for lab in labels]
    order = [(t.iloc[r], lab) for r in range(annotate) for t, lab in zip(tops, labels) if r < len(t)]
    if not order:
        return
    px, py = to_px(np.array([float(r["n"]) for r, _ in order]), np.array([float(r["p_hat"]) for r, _ in order]))
    texts = [escape(r["feature"]) for r, _ in order]
    widths = [len(str(r["feature"])) * LABEL_CHAR_PX + 6 for r, _ in order]
    p0_y = to_px(1.0, p0)[1]
    p0_box = (w0 - 70, p0_y, w0, p0_y + LABEL_LINE_PX + 2)   # "p0 = …", bottom right of its line
    marked = sig_table if len(sig_table) <= 3000 else sig_table.nlargest(3000, "z")
    ox, oy = to_px(marked["n"].to_numpy(float), marked["p_hat"].to_numpy(float))
    offsets = place_labels(px, py, widths, plot_width=w0, plot_height=plot_h, obstacles=[p0_box],
                           others=list(zip(ox, oy)))
    for (row, lab), text, off in zip(order, texts, offsets):
        if off is None:
            continue
        fig.add_annotation(x=np.log10(float(row["n"])), y=float(row["p_hat"]), text=text, showarrow=True,
                           arrowhead=0, arrowwidth=1, arrowcolor=colours[lab], ax=off[0], ay=off[1],
                           font=dict(size=10, color=colours[lab]), bgcolor="rgba(255,255,255,0.7)")


def top_features_bar(z, k: int = 10, *, kind=None, field=None, title: Optional[str] = None,
                     classes=None) -> go.Figure:
    """Horizontal bars of the k features of highest z per label, one panel per label, with the z* line;
    labels in their colours (`core.plots.palette`, by ``classes``), names escaped (`core.plots.text`)."""
    table, z_star, p0, labels = _stats(z)
    table = _filter(table, kind, field)
    table = table[table["z"] > 0]
    colours = label_colours(labels, classes)
    # One panel per label, stacked: feature names are long and need the width.
    fig = make_subplots(rows=max(len(labels), 1), cols=1, subplot_titles=[escape(l) for l in labels],
                        vertical_spacing=0.25 / max(len(labels), 1))
    for i, lab in enumerate(labels, start=1):
        t = table[table["label"] == lab].nlargest(int(k), "z").iloc[::-1]
        fig.add_trace(go.Bar(
            x=t["z"], y=escape_all(t["feature"]), orientation="h", marker_color=colours[lab], name=escape(lab),
            showlegend=False,
            customdata=np.column_stack([t.index.to_numpy(), t["n"].to_numpy(), t["p_hat"].to_numpy()]),
            hovertemplate="%{y}<br>z = %{x:.2f}<br>n = %{customdata[1]}<br>p̂ = %{customdata[2]:.3f}<extra></extra>",
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


def pair_cue_plot(cues, *, annotate: int = 8, height: int = 520) -> go.Figure:
    """The Gardner-style plot of a pair cue table (`core.zstats.pairs.PairCues`): x = the pairs that
    differ on a feature (log scale), y = the share of them where the chosen side has more of it, the
    0.5 chance line and the Bonferroni curves 0.5 ± z*·0.5/√n. Features over the line are coloured by
    the side they favour and the ``annotate`` strongest are named; every name is escaped, and
    ``customdata[0]`` is the row of ``cues.table``."""
    table = cues.table
    over = table["over_line"].to_numpy()
    fig = go.Figure()
    hover = ("%{customdata[1]}<br>%{customdata[2]}<br>differ: %{x}<br>chosen has more: %{y:.3f}<br>"
             "z = %{customdata[3]:.2f}<extra></extra>")
    colours = {"chosen": "#1f77b4", "rejected": "#d62728"}
    groups = [("not over the line", ~over, "#b0b0b0")] + [
        (f"favours {side} (|z| > z*)", over & (table["favours"].to_numpy() == side), colours[side]) for side in colours]
    for name, mask, colour in groups:
        t = table[mask]
        fig.add_trace((go.Scattergl if len(t) > WEBGL_ABOVE else go.Scatter)(
            x=t["differ"], y=t["share"], mode="markers", name=name,
            marker=dict(color=colour, size=5 if colour == "#b0b0b0" else 7),
            customdata=np.column_stack([t.index.to_numpy(), escape_all(t["feature"]), escape_all(t["kind"]),
                                        t["z"].to_numpy()]) if len(t) else None, hovertemplate=hover))
    if len(table):
        n = np.geomspace(max(float(table["differ"].min()), 1.0), max(float(table["differ"].max()), 2.0), 200)
        for sign in (1, -1):
            fig.add_trace(go.Scatter(x=n, y=np.clip(0.5 + sign * cues.line * 0.5 / np.sqrt(n), 0, 1), mode="lines",
                                     line=dict(dash="dash", color="#555"), name=f"z* = {cues.line:.2f}",
                                     showlegend=sign == 1, hoverinfo="skip"))
        fig.add_hline(y=0.5, line=dict(color="#999", width=1))
        top = table[over].head(int(annotate))
        for _, r in top.iterrows():
            fig.add_annotation(x=np.log10(r["differ"]), y=r["share"], text=escape(r["feature"]), showarrow=False,
                               yshift=10, font=dict(size=11))
    fig.update_xaxes(type="log", title="pairs whose two sides differ on the feature")
    fig.update_yaxes(range=[0, 1], title="share where the chosen side has more of it")
    fig.update_layout(height=height, legend=dict(orientation="h", y=-0.2), margin=dict(t=30))
    return fig


def option_cue_plot(cues, *, annotate: int = 8, height: int = 520) -> go.Figure:
    """The option cue table (`core.zstats.choices.OptionCues`) against its chance line: x = the share
    a gold placed at random would have (each feature's own, ties counted), y = the share of the items
    whose gold has the most of the feature; the diagonal is chance. Features over the line are
    coloured by the way they lean (the gold has more, or less, of it than chance) and the
    ``annotate`` strongest are named; every name is escaped, and ``customdata[0]`` is the row of
    ``cues.table``."""
    table = cues.table
    over = table["over_line"].to_numpy()
    up = table["z"].to_numpy() > 0
    fig = go.Figure()
    hover = ("%{customdata[1]}<br>%{customdata[2]}<br>items that differ: %{customdata[3]}<br>chance: %{x:.3f}<br>"
             "gold has the most: %{y:.3f}<br>z = %{customdata[4]:.2f}<extra></extra>")
    groups = [("not over the line", ~over, "#b0b0b0"), ("the gold has more of it (|z| > z*)", over & up, "#d62728"),
              ("the gold has less of it (|z| > z*)", over & ~up, "#1f77b4")]
    for name, mask, colour in groups:
        t = table[mask]
        fig.add_trace((go.Scattergl if len(t) > WEBGL_ABOVE else go.Scatter)(
            x=t["chance"], y=t["share"], mode="markers", name=name,
            marker=dict(color=colour, size=np.clip(3 + 2 * np.log10(np.maximum(t["items"].to_numpy(), 1)), 4, 14)),
            customdata=np.column_stack([t.index.to_numpy(), escape_all(t["feature"]), escape_all(t["kind"]),
                                        t["items"].to_numpy(), t["z"].to_numpy()]) if len(t) else None,
            hovertemplate=hover))
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", line=dict(dash="dash", color="#555"),
                             name="chance", hoverinfo="skip"))
    for _, r in table[over].head(int(annotate)).iterrows():
        fig.add_annotation(x=r["chance"], y=r["share"], text=escape(r["feature"]), showarrow=False, yshift=10,
                           font=dict(size=11))
    fig.update_xaxes(range=[0, 1], title="share a gold placed at random would have (ties counted)")
    fig.update_yaxes(range=[0, 1], title="share of items whose gold has the most of it")
    fig.update_layout(height=height, legend=dict(orientation="h", y=-0.2), margin=dict(t=30))
    return fig
