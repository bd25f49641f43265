"""The figure of artifacts across splits (`core.dynamics.transfer`): do the training split's cues
give the labels away on the evaluation split too?"""
from __future__ import annotations

from .text import escape_all

__all__ = ["transfer_figure"]


def transfer_figure(t):
    """z on TRAIN and on EVAL of each cue of a `core.dynamics.transfer.Transfer` (grouped bars), with
    TRAIN's z*."""
    import plotly.graph_objects as go

    names = escape_all([f"{f} → {lab}" for f, lab in zip(t.cues["feature"], t.cues["label"])])
    fig = go.Figure([go.Bar(y=names, x=t.cues["z_train"], name="z on the training split", orientation="h"),
                     go.Bar(y=names, x=t.cues["z_eval"], name="z on the evaluation split", orientation="h")])
    fig.add_vline(x=t.summary["z_star_train"], line_dash="dash", annotation_text="z*")
    fig.update_layout(barmode="group", height=max(320, 26 * len(names) + 120), yaxis=dict(autorange="reversed",
                      automargin=True), title="The training split's cues on the evaluation split",
                      margin=dict(l=10, r=10, t=50, b=10), legend=dict(orientation="h"))
    return fig
