"""Plotly figures of AFLite runs (no streamlit: the dashboard, notebooks and reports share them).

* `label_balance`: label shares before and after filtering (from `core.aflite.summaries.label_summary`).
* `bias_per_phase`: representation bias R (eq. 5) and held-out accuracy per phase,
  with the phases that run at the live τ/n shaded.
* `score_histogram`, `score_violins`: distributions of p̃ with the τ line.
* `phase_boxes`: p̃ of the examples still in S, phase by phase (`core.aflite.summaries.phase_scores`).
* `projection_map`: a WebGL scatter of a 2-D projection of Φ, points in a random draw order
  so no label hides another; every point carries its row number as ``customdata[0]`` so a
  selection event maps back to rows (`selected_rows`), and a kept selection is drawn again.

Every string from a dataset (labels, column names, ids, text) is escaped by
`core.plots.text.escape` (data is never plotly markup); labels take their colour from
`core.plots.palette.label_colours` (the same label, the same colour, in every figure).

The z-statistics figures are in `core.plots.zstats`.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .palette import LABEL_PALETTE, label_colours, sorted_classes
from .text import escape, escape_all, escape_texts, snippets

__all__ = ["label_balance", "bias_per_phase", "score_histogram", "score_violins", "phase_boxes",
           "projection_map", "map_points", "selected_rows", "STATUS_COLOURS"]

STATUS_COLOURS = {"retained": "#2a6f97", "removed": "#e07a5f"}
_MARGIN = dict(l=10, r=10, t=40, b=10)


def label_balance(summary: pd.DataFrame, classes=None) -> go.Figure:
    """Grouped bars: each label's share before (faded) and after filtering, in the label's colour
    (`core.plots.palette`); ``classes``: all the dataset's labels, for colours that match every page."""
    body = summary.drop(index="all")
    colours = label_colours(body.index, classes)
    cats = escape_all(body.index)
    marker = [colours[l] for l in body.index]
    fig = go.Figure([go.Bar(name="before (faded)", x=cats, y=body["share_before"], marker_color=marker, opacity=0.4,
                            hovertemplate="%{x}: %{y:.1%} before<extra></extra>"),
                     go.Bar(name="after", x=cats, y=body["share_after"], marker_color=marker,
                            hovertemplate="%{x}: %{y:.1%} after<extra></extra>")])
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


#: the p̃ histograms' bins: 41 of width 0.025 from 0, the last one holding p̃ = 1
HIST_EDGES = np.arange(42) * 0.025
#: at most this many examples per violin (label × status) estimate its density
VIOLIN_POINTS = 5000


def score_histogram(frame: pd.DataFrame, colour: str, tau: float, *, title: str, height: int = 340,
                    classes=None) -> go.Figure:
    """Overlaid histograms of ``frame["predictability"]`` split by ``colour`` (a label
    column, in the labels' colours, or ``"status"`` for retained/removed), with a dashed line at τ.

    The counts are made here (`HIST_EDGES`) and drawn as bars, so the figure holds 41 counts per
    group, not one value per example (0.64 MB per chart at 100k examples, sent again on every τ/n
    move, and binned again by the browser)."""
    values = frame[colour]
    if colour == "status":
        groups = [g for g in STATUS_COLOURS if (values == g).any()]
        colours = STATUS_COLOURS
    else:
        groups = sorted_classes(values)
        colours = label_colours(groups, classes)
    lo, hi = HIST_EDGES[:-1], HIST_EDGES[1:]
    bins = [f"{a:.3f}–{b:.3f}" for a, b in zip(lo, hi)]
    fig = go.Figure()
    for g in groups:
        part = frame.loc[(values == g).to_numpy(), "predictability"].to_numpy(dtype=float)
        counts, _ = np.histogram(part[~np.isnan(part)], bins=HIST_EDGES)
        name = escape(g)
        fig.add_trace(go.Bar(x=(lo + hi) / 2, y=counts, width=HIST_EDGES[1], name=name, marker_color=colours[g],
                             opacity=0.6, customdata=bins,
                             hovertemplate=f"{name}<br>p̃ %{{customdata}}: %{{y}}<extra></extra>"))
    # a label only when coloured by label: None still makes an empty annotation, which Plotly shows as "new text"
    fig.add_vline(x=tau, line_dash="dash", **({"annotation_text": f"τ = {tau:.2f}"} if colour != "status" else {}))
    fig.update_layout(title=title, barmode="overlay", bargap=0, height=height, margin=_MARGIN, xaxis_range=[0, 1],
                      xaxis_title="predictability p̃", yaxis_title="examples",
                      legend_title_text=escape(colour))
    return fig


def score_violins(frame: pd.DataFrame, label: str, tau: float, height: int = 340,
                  max_points: int = VIOLIN_POINTS, random_state: int = 0) -> go.Figure:
    """Split violins of p̃ per label (labels on the x axis, as text): retained on the left, removed
    on the right, in the status colours. Each violin's density is estimated from at most
    ``max_points`` of its examples (a seeded sample): the browser computes the densities from
    the values sent, which at 100k examples were 1.9 MB, sent again on every τ/n move."""
    rng = np.random.default_rng(random_state)
    fig = go.Figure()
    for status, colour in STATUS_COLOURS.items():
        part = frame[(frame["status"] == status).to_numpy()]
        keep = [rows if len(rows) <= max_points else rng.choice(rows, max_points, replace=False)
                for rows in part.groupby(label, sort=True).indices.values()]
        if keep:
            part = part.iloc[np.sort(np.concatenate(keep))]
        fig.add_violin(x=escape_all(part[label]), y=part["predictability"], name=status, line_color=colour,
                       side="negative" if status == "retained" else "positive", points=False, spanmode="hard")
    fig.add_hline(y=tau, line_dash="dash", annotation_text="τ")
    fig.update_layout(title="p̃ per label, retained (left) vs removed (right)", violinmode="overlay",
                      yaxis_range=[0, 1], height=height, margin=_MARGIN)
    return fig


def box_stats(values) -> dict:
    """What plotly draws for a box of ``values``, computed here: its quartiles (plotly's default,
    linear interpolation) and Tukey fences (the most extreme values within 1.5 IQR of the box)."""
    v = np.asarray(values, dtype=float)
    q1, median, q3 = np.percentile(v, [25, 50, 75])
    iqr = q3 - q1
    return {"q1": q1, "median": median, "q3": q3,
            "lowerfence": min(q1, v[v >= q1 - 1.5 * iqr].min()), "upperfence": max(q3, v[v <= q3 + 1.5 * iqr].max())}


def phase_boxes(long: pd.DataFrame, tau: float, height: int = 340, classes=None) -> go.Figure:
    """Box plots of p̃ per sampled phase and label (from `core.aflite.summaries.phase_scores`), in the
    labels' colours. The boxes' statistics are computed here (`box_stats`), so the figure holds
    five numbers per box instead of every score."""
    fig = go.Figure()
    has_label = "label" in long and len(long)
    groups = sorted_classes(long["label"]) if has_label else ["all"]
    colours = label_colours(groups, classes) if has_label else {"all": None}
    for g in groups:
        part = long[(long["label"] == g).to_numpy()] if has_label else long
        part = part.dropna(subset=["score"])
        phases = sorted(part["phase"].unique())
        stats = [box_stats(part.loc[(part["phase"] == j).to_numpy(), "score"]) for j in phases]
        columns = {k: [st[k] for st in stats] for k in ("q1", "median", "q3", "lowerfence", "upperfence")}
        fig.add_trace(go.Box(x=phases, name=escape(g), marker_color=colours[g], boxpoints=False, **columns))
    fig.add_hline(y=tau, line_dash="dash", annotation_text="τ")
    fig.update_layout(title="p̃ of the examples still in S at each phase (sampled phases)", boxmode="group",
                      yaxis_range=[0, 1], height=height, margin=_MARGIN, xaxis_title="phase", yaxis_title="score")
    return fig


def projection_map(xy: np.ndarray, frame: pd.DataFrame, *, colour: str, label: str, size: int = 4,
                   title: str = "", colour_name: str = "", palette: Optional[dict] = None, classes=None,
                   text_fields=(), selected=None, snippet_length: int = 80, hover_text: bool = True,
                   hover_status: bool = True, random_state: int = 0) -> go.Figure:
    """WebGL scatter of ``xy`` (row i of ``xy`` is row i of ``frame``), coloured by column ``colour``.

    Draw order: every point is in **one** trace, in a seeded random order, with a colour per
    point; the legend is one empty trace per value. Plotly draws a trace's points in order and
    traces one after the other, so one trace per label would paint the last label over all
    the others wherever they mix (a mixed 100k blob looks all one label); in a random order
    each pixel shows a point drawn at random from those under it, so a mixed region shows
    its mix. (Interleaving a few traces per label would still leave the last one on top;
    opacity alone cannot show the mix at 100k points.) The price: clicking a legend entry
    cannot hide a label's points, so legend clicks are off; colour by another column, or
    select, to read one label.

    Built for 100k points (issue 13): every per-point array plotly validates and serialises
    is numeric (sent as a typed array) or a list of str, never a numpy object array (orjson,
    plotly's fast JSON engine, fails on those and leaks every string in them before plotly
    retries: ~30 MB per redraw at 100k; ijl/orjson#422). A category's colour is its code on a
    stepped colour scale (`map_points` reads the points back), not a colour string
    per point, which plotly validates one by one (about 10 s at 100k).

    Parameters
    ----------
    colour : str
        Numeric columns with more than 12 distinct values (and p̃) get a colour scale; anything
        else one legend entry per value (``colour_name=value``), coloured by ``palette[value]``
        when given (e.g. the review traffic lights), the label palette of `core.plots.palette` for
        the label column (by ``classes``, all the dataset's labels) and other columns, and the
        status colours for ``retained``.
    text_fields : sequence of str
        Text columns whose first characters the hover shows (``snippet_length`` in all).
    selected : sequence of int, optional
        Rows of ``frame`` to show as selected (``selectedpoints``; the others faded), e.g. a
        selection kept across a τ/n change.

    hover_text : bool
        True: each point's hover shows p̃, its status and the text snippets (``hovertext``).
        False (the dashboard's choice for large maps): only ``"id · label"``, plus the value on
        a colour scale, so the figure is about 30 bytes a point instead of about 200 (text is
        most of a 100k-point figure's JSON, of the browser's work to read it, and of every
        selection event, which carries each selected point's text back) and does not change
        with τ/n unless its colours do.
    hover_status : bool
        With ``hover_text``: whether the hover also shows p̃ and the status. Both change with
        τ and n, and any change means sending the whole figure again (~4 MB at 20k points), so
        the dashboard shows them only when the colours change with τ and n anyway.

    Every string from the data is escaped (`core.plots.text`). Per point: ``customdata`` is its
    row of ``frame`` (for `selected_rows`), ``text`` is ``"id · label"`` and ``hovertext``
    (with ``hover_text``) is p̃, the status (retained/removed) and the text snippets. Numbers
    go as typed arrays (plotly's base64 ``bdata``): x, y and a colour scale's values in float32,
    rows in int32, category codes in uint8/uint16.
    """
    colour_name = colour_name or colour
    n = len(frame)
    order = np.random.default_rng(random_state).permutation(n)
    # float32: a screen needs no more, and it halves x and y (plotly sends them as base64 typed arrays)
    x = np.asarray(xy[:, 0], dtype=np.float32)[order]
    y = np.asarray(xy[:, 1], dtype=np.float32)[order]
    values = frame[colour].iloc[order]
    hover = None
    if hover_text:
        text_fields = [f for f in text_fields if f in frame]
        per_field = max(snippet_length // max(len(text_fields), 1), 40)
        parts = [f"{escape(f)}: " + snippets(frame[f].to_numpy()[order], per_field) for f in text_fields]
        if hover_status:
            status = np.where(frame["retained"].to_numpy(dtype=bool)[order], "retained", "removed") \
                if "retained" in frame else np.full(n, "", dtype=object)
            score = frame["predictability"].to_numpy(dtype=float)[order]
            shown = np.char.mod("%.2f", score).astype(object)
            parts.insert(0, "p̃ = " + pd.Series(np.where(np.isnan(score), "n/a", shown), dtype=object)
                         + ", " + pd.Series(status, dtype=object))
        if parts:
            hover = parts[0]
            for part in parts[1:]:
                hover = hover + "<br>" + part
    ids, labels = escape_texts(frame["id"].to_numpy()[order]), escape_texts(frame[label].to_numpy()[order])
    name = escape(colour_name)
    fig = go.Figure()
    marker = dict(size=size, opacity=0.8)
    numeric = pd.api.types.is_numeric_dtype(values) and values.dtype != bool and values.nunique() > 12
    legend = []
    if colour == "predictability" or numeric:
        marker.update(color=values.to_numpy(dtype=np.float32), colorscale="Viridis", showscale=True,
                      colorbar=dict(title=name))
    else:
        cats = values.astype(str).to_numpy()
        present = [str(c) for c in sorted_classes(cats)]
        if palette:
            colours = {c: palette.get(c, "#b8b8b8") for c in present}
        elif colour == label:
            colours = label_colours(present, None if classes is None else [str(c) for c in classes])
        elif colour == "retained":
            colours = {"True": STATUS_COLOURS["retained"], "False": STATUS_COLOURS["removed"]}
        else:
            colours = {c: LABEL_PALETTE[i % len(LABEL_PALETTE)] for i, c in enumerate(present)}
        codes = pd.Index(present).get_indexer(cats)
        marker.update(color=codes.astype(np.uint16 if len(present) > 255 else np.uint8),
                      **_stepped_scale([colours[c] for c in present]))
        legend = [(f"{name}={escape(c)}", colours[c]) for c in present]
    # customdata is 1-D: a 2-D typed array reaches the selection event as {"0": .., "1": ..} objects
    if hover is not None:
        template = "%{text}<br>%{hovertext}<extra></extra>"
    elif "colorbar" in marker:
        template = f"%{{text}}<br>{name} = %{{marker.color:.2f}}<extra></extra>"
    else:
        template = "%{text}<extra></extra>"
    trace = go.Scattergl(x=x, y=y, mode="markers", name=name, customdata=order.astype(np.int32),
                         text=ids.str.cat(labels, sep=" · ").tolist(),
                         hovertext=None if hover is None else hover.tolist(), hovertemplate=template,
                         marker=marker, showlegend=False,
                         selected=dict(marker=dict(opacity=1.0)), unselected=dict(marker=dict(opacity=0.15)))
    if selected is not None:
        where = np.empty(n, dtype=np.int64)
        where[order] = np.arange(n)
        trace.selectedpoints = sorted(int(where[r]) for r in selected if 0 <= int(r) < n)
    fig.add_trace(trace)
    for entry, c in legend:
        fig.add_trace(go.Scattergl(x=[None], y=[None], mode="markers", name=entry, hoverinfo="skip",
                                   marker=dict(size=9, color=c)))
    fig.update_layout(height=560, margin=dict(l=10, r=10, t=30, b=10), dragmode="select", title=title,
                      legend=dict(itemsizing="constant", itemclick=False, itemdoubleclick=False))
    return fig


def _stepped_scale(colours: list) -> dict:
    """Marker settings that draw integer code i in ``colours[i]`` (a colour scale of flat steps)."""
    k = len(colours)
    if k == 1:
        return dict(colorscale=[[0, colours[0]], [1, colours[0]]], cmin=0, cmax=1, showscale=False)
    scale = []
    for i, c in enumerate(colours):
        scale += [[i / k, c], [(i + 1) / k, c]]
    return dict(colorscale=scale, cmin=-0.5, cmax=k - 0.5, showscale=False)


def map_points(trace) -> pd.DataFrame:
    """The points of a `projection_map` points trace (a plotly trace, or its JSON dict with
    typed arrays), in drawn order: ``row``, ``id`` and ``label`` (as escaped for the hover),
    ``hover`` (p̃, status and snippets; "" when the figure has none) and ``colour`` (the colour string
    each point is drawn in; the values themselves on a continuous colour scale)."""
    get = trace.get if isinstance(trace, dict) else (lambda k: getattr(trace, k))
    marker = get("marker")
    mget = marker.get if isinstance(marker, dict) else (lambda k: getattr(marker, k))
    rows = _array(get("customdata")).reshape(-1)
    text = pd.Series(list(get("text")), dtype=object).str.split(" · ", n=1, expand=True)
    colour = _array(mget("color"))
    scale = mget("colorscale")
    if mget("cmin") is not None and scale is not None and not mget("showscale"):
        steps = [c for _, c in scale][::2]
        colour = np.array([steps[int(v)] for v in colour], dtype=object)
    return pd.DataFrame({"row": rows.astype(np.int64), "id": text[0].to_numpy(), "label": text[1].to_numpy(),
                         "hover": list(get("hovertext") or [""] * len(rows)),
                         "colour": list(colour)})


def _array(value) -> np.ndarray:
    if isinstance(value, dict) and "bdata" in value:   # plotly's typed array, as in the JSON
        import base64

        flat = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        return flat.reshape([int(d) for d in str(shape).split(",")]) if shape else flat
    return np.asarray(value)


def selected_rows(event) -> list:
    """Sorted row numbers of the points in a plotly selection event: ``customdata[0]``, or
    ``customdata`` itself where it is one number (`projection_map`)."""
    points = ((event or {}).get("selection") or {}).get("points") or []
    return sorted({_first(p["customdata"]) for p in points if p.get("customdata") is not None})


def _first(value) -> int:
    # customdata[0] of a list, the number itself (the map's 1-D customdata), or {"0": ...} (a typed array's row)
    if isinstance(value, dict):
        return int(value["0"])
    return int(value[0]) if isinstance(value, (list, tuple)) else int(value)
