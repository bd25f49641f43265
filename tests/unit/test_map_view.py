"""The Map's prepared figure (`dashboard.widgets.map_view.PreparedFigure`): encoded once, it answers the
same figure as plotly's own encoding, for any points, and a later change of the source figure
does not leak into it."""
import json

import numpy as np
import plotly.graph_objects as go
import plotly.io
from hypothesis import given, settings, strategies as st

from artifact_lens.dashboard.widgets.map_view import PreparedFigure


@settings(max_examples=30, deadline=None)
@given(xy=st.lists(st.tuples(st.floats(-1e6, 1e6), st.floats(-1e6, 1e6)), min_size=0, max_size=50),
       labels=st.lists(st.text(max_size=6), min_size=50, max_size=50))
def test_the_prepared_figure_is_plotlys_figure(xy, labels):
    xy = np.asarray(xy, dtype=float).reshape(-1, 2)
    fig = go.Figure(go.Scattergl(x=xy[:, 0], y=xy[:, 1], text=labels[:len(xy)], mode="markers"))
    prepared = PreparedFigure(fig)
    assert prepared.to_dict() == json.loads(plotly.io.to_json(fig, validate=False))
    before = json.dumps(prepared.to_dict(), sort_keys=True)
    fig.update_layout(title="changed afterwards")
    assert json.dumps(prepared.to_dict(), sort_keys=True) == before
