"""Plotly figures of an evaluation (`core.evaluation`); no streamlit, so the dashboard, the CLI's
PNG/HTML files and the HTML report draw the same figures.

* `family_figure`: paper 000 Table 3 as grouped bars (accuracy per family and training set, one
  panel per evaluation split, bootstrap 95 % intervals as error bars).
* `knn_figure`: paper 003 Table 3, KNN distances before and after filtering.
* `phase_figure`: R (mean p̃ on S) and held-out accuracy per phase, with the chosen τ/n marked.
* `coarse_figure`: paper 002 Algorithm 1's learning curve and the fraction where it stops improving.
* `difficulty_figure`: an external difficulty column among retained / removed / random.
* `synthetic_scatter`, `synthetic_accuracy`: paper 000 Fig. 2 (circles before/after AFLite).
* `figures`: every figure an `Evaluation` can draw, by file name.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..plots.palette import label_colours
from ..plots.text import escape, escape_all

__all__ = ["family_figure", "knn_figure", "phase_figure", "coarse_figure", "difficulty_figure",
           "synthetic_scatter", "synthetic_accuracy", "figures", "SET_COLOURS"]

SET_COLOURS = {"full": "#6c757d", "aflite": "#2a6f97", "random": "#e9c46a", "single-model": "#e07a5f",
               "retained": "#2a6f97", "removed": "#e07a5f"}
_MARGIN = dict(l=10, r=10, t=50, b=10)


def family_figure(frame: pd.DataFrame, title: str = "Accuracy by model family and training set") -> go.Figure:
    """Grouped bars from `core.evaluation.family_table`: x = family, colour = training set, one panel
    per evaluation split; error bars are the bootstrap 95 % intervals (where computed)."""
    data = frame.copy()
    data["err_plus"] = (data["ci_high"] - data["accuracy"]).where(data["ci_high"].notna())
    data["err_minus"] = (data["accuracy"] - data["ci_low"]).where(data["ci_low"].notna())
    has_ci = data["err_plus"].notna().any()
    fig = px.bar(data, x="family", y="accuracy", color="train_set", barmode="group", facet_col="eval_set",
                 error_y="err_plus" if has_ci else None, error_y_minus="err_minus" if has_ci else None,
                 color_discrete_map=SET_COLOURS, title=title,
                 labels={"train_set": "training set", "eval_set": "evaluated on", "accuracy": "accuracy"},
                 hover_data={"train_size": True, "eval_size": True, "delta_full": ":.3f"})
    fig.for_each_annotation(lambda a: a.update(text=a.text.replace("evaluated on=", "evaluated on: ")))
    fig.update_yaxes(range=[0, 1], tickformat=".0%")
    fig.update_layout(height=380, margin=_MARGIN, legend_title_text="trained on")
    return fig


def knn_figure(knn: pd.DataFrame) -> go.Figure:
    """Mean cosine distance of held-out examples to their K nearest training neighbours, per label,
    before (dashed) and after (solid) filtering; one panel for the same class, one for the others."""
    if not len(knn):
        return _empty("KNN distances: nothing to show (see the notes)")
    long = knn.melt(id_vars=["label", "against", "K"], value_vars=["before", "after"], var_name="when",
                    value_name="distance")
    colours = {escape(l): c for l, c in label_colours(knn["label"]).items()}   # data is never markup; one colour per label
    long["label"] = escape_all(long["label"])
    fig = px.line(long, x="K", y="distance", color="label", line_dash="when", facet_col="against", markers=True,
                  color_discrete_map=colours,
                  line_dash_map={"before": "dash", "after": "solid"}, log_x=True,
                  title="KNN distances of held-out examples to the training data (paper 003 Table 3)")
    fig.for_each_annotation(lambda a: a.update(text=a.text.replace("against=", "")))
    fig.update_layout(height=360, margin=_MARGIN)
    return fig


def phase_figure(phases: pd.DataFrame, tau: Optional[float] = None, n: Optional[int] = None) -> go.Figure:
    """R (mean p̃ on S_j, eq. 5) and the held-out accuracy of phase j; a line after the last phase
    that runs at the chosen τ/n."""
    fig = go.Figure()
    if not len(phases):
        return _empty("No phase history recorded")
    fig.add_scatter(x=phases["phase"], y=phases["R"], mode="lines+markers", name="R: mean p̃ on S (eq. 5)")
    if "heldout_accuracy" in phases:
        fig.add_scatter(x=phases["phase"], y=phases["heldout_accuracy"], mode="lines+markers",
                        name="held-out accuracy")
    chosen = int(phases["chosen"].sum()) if "chosen" in phases else len(phases)
    label = "chosen " + ", ".join(p for p in ((f"τ = {tau:.2f}" if tau is not None else ""),
                                              (f"n = {int(n):,}" if n is not None else "")) if p)
    fig.add_vline(x=chosen - 0.5, line_dash="dash", line_color="#e07a5f",
                  annotation_text=f"{label}: {chosen} phase(s)" if label.strip() != "chosen" else f"{chosen} phase(s)")
    fig.update_layout(title="Representation bias R and held-out accuracy per phase", xaxis_title="phase",
                      yaxis_title="score", height=340, margin=_MARGIN)
    return fig


def coarse_figure(curve: pd.DataFrame, fraction: float, size: Optional[int] = None) -> go.Figure:
    """Held-out accuracy against the share of the data trained on; the suggested fraction marked."""
    fig = go.Figure()
    fig.add_scatter(x=curve["fraction"], y=curve["accuracy"], mode="lines+markers", name="held-out accuracy",
                    customdata=curve["train_size"], hovertemplate="%{x:.0%} (%{customdata} examples): %{y:.3f}<extra></extra>")
    text = f"stops improving at {fraction:.0%}" + (f" (n = {int(size):,})" if size is not None else "")
    fig.add_vline(x=fraction, line_dash="dash", line_color="#e07a5f", annotation_text=text)
    fig.update_layout(title="Coarse action (paper 002, Algorithm 1 lines 2–9)", xaxis_title="share of the data",
                      yaxis_title="held-out accuracy", xaxis_tickformat=".0%", height=340, margin=_MARGIN)
    return fig


def difficulty_figure(hist: pd.DataFrame, summary: pd.DataFrame, name: str = "difficulty",
                      p_value: Optional[float] = None) -> go.Figure:
    """The distribution of an external difficulty column among retained / removed / random examples."""
    name = escape(name)   # a dataset column: text, never markup
    if not len(hist):
        return _empty(f"{name}: no numeric values to show (see the notes)")
    fig = go.Figure()
    colours = {"retained": SET_COLOURS["retained"], "removed": SET_COLOURS["removed"], "random": "#adb5bd"}
    means = summary.set_index("group")["mean"]
    for g, part in hist.groupby("group", sort=False):
        centre = (part["left"] + part["right"]) / 2
        fig.add_scatter(x=centre, y=part["share"], mode="lines+markers", name=f"{g} (mean {means.get(g, np.nan):.3g})",
                        line=dict(color=colours.get(g), shape="hvh"))
    p = f", permutation p = {p_value:.3g}" if p_value is not None and np.isfinite(p_value) else ""
    fig.update_layout(title=f"{name}: retained vs removed vs random{p}", xaxis_title=name, yaxis_title="share",
                      yaxis_tickformat=".0%", height=340, margin=_MARGIN)
    return fig


def synthetic_scatter(points: pd.DataFrame, table: Optional[pd.DataFrame] = None) -> go.Figure:
    """Paper 000 Fig. 2: the two true coordinates by class at each separation, before (top) and after
    AFLite (bottom, retained points only)."""
    seps = sorted(points["separation"].unique())
    titles = [f"separation {s:g}: before" for s in seps] + ["after" for _ in seps]
    if table is not None and len(table):
        t = table.set_index("separation")
        titles = [f"{s:g} before: lin {t.loc[s, 'linear_before']:.2f}, RBF {t.loc[s, 'rbf_before']:.2f}" for s in seps] + \
                 [f"after: lin {t.loc[s, 'linear_after']:.2f}, RBF {t.loc[s, 'rbf_after']:.2f}" for s in seps]
    fig = make_subplots(rows=2, cols=len(seps), subplot_titles=titles, horizontal_spacing=0.03, vertical_spacing=0.1)
    labels = sorted(points["label"].astype(str).unique())
    colours = label_colours(labels)
    for j, s in enumerate(seps):
        part = points[points["separation"] == s]
        for row, data in ((1, part), (2, part[part["retained"].astype(bool)])):
            for i, lab in enumerate(labels):
                d = data[data["label"].astype(str) == lab]
                fig.add_trace(go.Scatter(x=d["x0"], y=d["x1"], mode="markers", name=escape(lab), legendgroup=escape(lab),
                                         showlegend=(j == 0 and row == 1),
                                         marker=dict(size=3, color=colours[lab])),
                              row=row, col=j + 1)
    fig.update_xaxes(showticklabels=False, range=[-1.3, 1.3])
    fig.update_yaxes(showticklabels=False, range=[-1.3, 1.3])
    fig.update_annotations(font_size=10)
    fig.update_layout(title="Synthetic circles (paper 000 Fig. 2): before (top) and after AFLite (bottom)",
                      height=480, width=1100, margin=dict(l=10, r=10, t=70, b=10))
    return fig


def synthetic_accuracy(table: pd.DataFrame) -> go.Figure:
    """Linear (all features) and RBF-SVM (true coordinates) accuracy before/after, per separation."""
    fig = go.Figure()
    x = [f"{s:g}" for s in table["separation"]]
    for col, name, colour in (("linear_before", "linear, before", "#adb5bd"), ("linear_after", "linear, after", "#2a6f97"),
                              ("rbf_before", "RBF (x0, x1), before", "#f4d3b5"), ("rbf_after", "RBF (x0, x1), after", "#e07a5f")):
        fig.add_bar(x=x, y=table[col], name=name, marker_color=colour)
    fig.add_hline(y=0.5, line_dash="dot", annotation_text="chance")
    fig.update_layout(title="Synthetic circles: accuracy before / after AFLite", xaxis_title="separation (inner/outer radius)",
                      yaxis_range=[0, 1], barmode="group", height=340, margin=_MARGIN)
    return fig


def _empty(text: str) -> go.Figure:
    fig = go.Figure()
    fig.add_annotation(text=text, showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")
    fig.update_layout(height=200, margin=_MARGIN, xaxis_visible=False, yaxis_visible=False)
    return fig


def figures(ev) -> dict:
    """Every figure of a `core.evaluation.Evaluation`, by file stem."""
    t, ctx, s = ev.tables, ev.context, ev.summary
    out = {}
    if "families" in t and len(t["families"]):
        out["families"] = family_figure(t["families"], "Model families on Φ (paper 000 Table 3)")
    if "partial_input" in t and len(t["partial_input"]):
        out["partial_input"] = family_figure(t["partial_input"], "Partial input: "
                                             + escape(t["partial_input"]["representation"].iloc[0]))
    if "knn" in t:
        out["knn"] = knn_figure(t["knn"])
    if "phases" in t:
        out["phases"] = phase_figure(t["phases"], ctx.get("tau"), ctx.get("n"))
    if "coarse" in t:
        out["coarse"] = coarse_figure(t["coarse"], s.get("coarse_fraction", 1.0), s.get("coarse_n"))
    if "difficulty" in t:
        out["difficulty"] = difficulty_figure(t.get("difficulty_hist", pd.DataFrame()), t["difficulty"],
                                              s.get("difficulty_column", "difficulty"), s.get("difficulty_p_value"))
    if "synthetic" in t:
        out["synthetic_scatter"] = synthetic_scatter(t["synthetic_points"], t["synthetic"])
        out["synthetic_accuracy"] = synthetic_accuracy(t["synthetic"])
    for fig in out.values():   # long tick labels push the axis title out instead of under it
        fig.update_xaxes(automargin=True)
        fig.update_yaxes(automargin=True)
    return out
