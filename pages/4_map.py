"""Map: a 2-D projection (UMAP, cached per representation) of Φ; select points to read their examples
(the selection is kept while τ and n move)."""
import hashlib
import json

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io
import streamlit as st

from core.aflite_plots import projection_map, selected_rows
from dashboard import current, pipelines, url
from dashboard import quality as dq
from dashboard import quality_panel
from dashboard.formatting import made, metric_row, plain
from dashboard.knobs import live_knobs
from dashboard.page import require_run, start_page
from dashboard.review_panel import BADGES, review_panel, with_lights
from core.review import LIGHT_COLOURS

sess = start_page("Map")
run, ds = require_run()

methods = ["umap", "pca"]
c1, c2, c3 = st.columns([1, 2, 1])
method = c1.radio("Projection", methods,
                  index=methods.index(current.map_method() if current.map_method() in methods else "umap"),
                  format_func={"umap": "UMAP", "pca": "PCA (instant)"}.get, horizontal=True, key="map_method")
proj = pipelines.projection(method)
if proj is None:
    @st.fragment(run_every=1.0)
    def wait_for_umap():
        job = pipelines.projection_job()
        if job is None or job.done:
            if job is not None and job.status == "error":
                st.error(plain(job.error))
                return
            st.rerun(scope="app")
        snap = job.snapshot()
        st.progress(snap["fraction"], text=f"UMAP of Φ (once per representation, then cached): "
                                           f"{snap['message'] or 'starting'} ({snap['elapsed']:.0f} s)")
        st.caption("Showing the PCA projection until UMAP is ready.")

    wait_for_umap()
    proj = pipelines.projection("pca")

table = current.table(run)
colourings = ["label", "predictability", "retained", "removal phase", "review", "quality", "quality light",
              *[c for c in table.other_columns if c not in ("quality", "quality light")]]
url.restore("map_colour", colourings)   # a reload keeps the colouring
colour = c2.selectbox("Colour by", colourings, key="map_colour",
                      help="review: the traffic lights of team review (green agreed, yellow disputed or overridden, "
                           "red removed and not reviewed); needs the run saved in the workspace. quality: the combined "
                           "DQI score; quality light: its red / yellow / green light (Filter page, “Quality (DQI)”).")
size = c3.slider("Point size", 2, 10, 4, key="map_size")
url.keep("map_colour", colour)
quality = quality_panel.offer("map_quality", "Colouring by quality") if colour in ("quality", "quality light") else None
rows_of_points = table.rows_of(proj.ids)   # projection rows (= rows of Φ) -> table rows


def keep_selection(ids, build: int) -> None:
    """on_select callback: a box or lasso (or a cleared selection) replaces the kept ids (``ids``:
    the drawn points' ids, by row of the figure ``build``). The chart itself forgets its selection
    whenever its figure changes (τ, n, colour, size), so the ids are kept in the tab's session and
    drawn again as ``selectedpoints``; until then the chart shows this selection itself."""
    event = st.session_state.get("map")
    rows = selected_rows(event)
    if not rows and build != st.session_state.get("map_figure", {}).get("builds"):
        # a chart holding a box drawn on it reports an empty selection as a new figure replaces it:
        # not the user's doing (clearing is the button, or a double-click on the current chart)
        return
    sess.map_selection = tuple(str(i) for i in ids[rows]) if rows else ()
    sess.map_selection_of = sess.ds_key
    st.session_state["map_figure_shows"] = sess.map_selection


def selection_rows(ids) -> list:
    """Rows of ``ids`` (the points, in the table's fixed order) that are selected, found once per
    selection: a τ/n rerun keeps the same selection (looking up 14k ids in 100k took ~0.1 s)."""
    key = (sess.ds_key, run.key, len(ids), sess.map_selection)
    found = st.session_state.get("map_selection_rows")
    if found is None or found[0] != key:
        rows = np.flatnonzero(ids.astype(str).isin(sess.map_selection).to_numpy()).tolist()
        found = (key, rows)
        st.session_state["map_selection_rows"] = found
    return found[1]


dq_columns = ("quality", "quality light")
LIVE_COLUMNS = ("retained", "predictability", "removed_at", "review")   # they change with τ and n


def figure_inputs(shown, column, drawn, hover_status, *rest) -> str:
    """A digest of everything the map's figure is made of: the figure is rebuilt (and sent) only
    when it changes. Values, not knobs: a τ/n move changes it only where the colours (and then
    the hover's p̃ and status) change."""
    h = hashlib.blake2b(digest_size=16)
    h.update(repr((sess.ds_key, run.key, proj.method, column, hover_status, *rest)).encode())
    h.update(np.ascontiguousarray(proj.xy).tobytes())
    h.update(b"" if drawn is None else np.asarray(drawn).tobytes())
    # the dataset's own columns (the label, ...) are fixed by ds_key; hashing 100k strings costs ~50 ms
    live = ([] if column == ds.label or column in table.other_columns and column not in dq_columns else [column]) \
        + (["predictability", "retained"] if hover_status else [])
    if live:
        h.update(pd.util.hash_pandas_object(shown[live], index=False).to_numpy().tobytes())
    return h.hexdigest()


class PreparedFigure(go.Figure):
    """A built figure that hands `st.plotly_chart` its JSON-ready dict: plotly_chart calls
    ``to_dict()``, a deep copy of every array (0.1–0.2 s a rerun at 100k points), then encodes
    the numpy arrays as base64 again; this one is encoded once and answers the same dict."""

    def __init__(self, figure: go.Figure):
        super().__init__()
        self._prepared = json.loads(plotly.io.to_json(figure, validate=False))

    def to_dict(self):
        return self._prepared


def map_figure(parts):
    """(figure, ids by row of it): the session's last figure when its inputs and the selection
    the chart shows are unchanged, so Streamlit sends a reference to the same message (not ~4 MB
    again at 100k) and the browser redraws nothing; a selection made on the chart itself (the
    chart shows it already) or a τ/n move that leaves the colours alone keeps the figure."""
    inputs, shown, drawn, marked = parts["inputs"], parts["shown"], parts["drawn"], parts["marked"]
    selection = tuple(sess.map_selection)
    last = st.session_state.get("map_figure")
    # a chart on screen shows its figure's selection or one drawn on it since; a new one its figure's
    shows = st.session_state.get("map_figure_shows") if "map" in st.session_state else None
    if last is not None and last["inputs"] == inputs and (last["selection"] if shows is None else shows) == selection:
        return last["figure"], last["ids"]
    fig = projection_map(proj.xy if drawn is None else proj.xy[drawn], shown, colour=parts["column"],
                         selected=marked if marked else None, **parts["kw"])
    # a rebuilt figure always differs from the last one, so the browser draws it afresh (a cleared
    # selection would otherwise send the same figure and the chart would keep showing the old box)
    builds = (last or {}).get("builds", 0) + 1
    fig = PreparedFigure(fig.update_layout(datarevision=f"{inputs[:12]}-{builds}"))
    st.session_state["map_figure"] = dict(inputs=inputs, selection=selection, figure=fig, builds=builds,
                                          ids=shown["id"].astype(str).to_numpy())
    st.session_state["map_figure_shows"] = selection
    return fig, st.session_state["map_figure"]["ids"]


def figure_parts(live) -> dict:
    """Everything the map's figure is made of at the live result ``live``, and its digest."""
    points = with_lights(table.browse(live).iloc[rows_of_points].reset_index(drop=True), run)
    column = {"label": ds.label, "retained": "retained", "removal phase": "removed_at"}.get(colour, colour)
    note = None
    if column == "review" and "review" not in points:
        note = "The run is not saved in the workspace, so it has no reviews yet: coloured by label."
        column = ds.label
    palette = {BADGES[light]: LIGHT_COLOURS[light] for light in BADGES} if column == "review" else None
    if column in ("quality", "quality light"):
        if quality is None:
            column = ds.label   # not computed yet: the offer above says how
        else:
            found = quality.reindex(points["id"].astype(str))
            points = points.assign(**{"quality": found["dqi"].to_numpy(dtype=float),
                                      "quality light": found["light"].fillna("n/a").to_numpy()})
            palette = dq.LIGHT_PALETTE if column == "quality light" else None
    if sess.map_selection_of != sess.ds_key:   # a new session (a reload) takes the URL's selection
        sess.map_selection, sess.map_selection_of = url.ids_named("map_sel"), sess.ds_key
    url.keep_ids("map_sel", sess.map_selection)
    rows = selection_rows(points["id"])
    # above the documented limit a seeded sample (the same on every redraw) plus the selection is drawn
    drawn = current.map_sample(len(points), keep=rows)
    shown = points if drawn is None else points.iloc[drawn].reset_index(drop=True)
    hover_text = len(shown) <= current.map_text_limit()
    # p̃ and the status in the hover only when the colours follow τ and n anyway: otherwise they
    # would make every τ/n move send the whole figure again (~2 s at 20k points with texts)
    hover_status = hover_text and column in LIVE_COLUMNS
    what = f"{len(points):,} points" if drawn is None else f"{len(shown):,} of {len(points):,} points"
    kw = dict(colour_name="label" if column == ds.label else colour, label=ds.label, size=size,
              title=f"{proj.method.upper()} of Φ ({what})", palette=palette, classes=ds.classes,
              text_fields=ds.text, hover_text=hover_text, hover_status=hover_status)
    return dict(points=points, column=column, note=note, rows=rows, drawn=drawn, shown=shown, kw=kw,
                marked=rows if drawn is None else np.flatnonzero(np.isin(drawn, rows)).tolist(),
                inputs=figure_inputs(shown, column, drawn, hover_status, size, kw["title"], repr(palette), hover_text))


def draw_map(parts) -> None:
    if parts["note"]:
        st.caption(parts["note"])
    fig, ids = map_figure(parts)
    build = st.session_state["map_figure"]["builds"]
    st.plotly_chart(fig, key="map", on_select=lambda: keep_selection(ids, build), selection_mode=("box", "lasso"))
    if not parts["kw"]["hover_text"]:
        st.caption(f"Hovering a point shows its id and label only: above {current.map_text_limit():,} points the "
                   "map leaves each point's p̃, status and text out of the hover (they made the figure five "
                   "times larger and slower to draw and to select). Select points to read them in the list "
                   "below. The limit is the server's ARTIFACT_LENS_MAP_TEXT_POINTS.")
    if parts["drawn"] is not None:
        shown, points = parts["shown"], parts["points"]
        st.caption(f"Drawing {len(shown):,} of {len(points):,} points: above {current.map_point_limit():,} "
                   "points the map draws a seeded random sample of that many (the same on every redraw) plus "
                   "the selected examples, so the browser stays responsive; a box or lasso selects among the "
                   "drawn points. The limit is the server's ARTIFACT_LENS_MAP_POINTS.")


@st.fragment
def live_selection() -> None:
    """The τ and n knobs and the selected examples. A knob move reruns this part alone: the chart
    above is left as it is unless its figure changes (colours or hover that depend on τ and n),
    because every run that draws the chart also copies its selection event (~0.3 s for 14k
    selected points at 100k). In a run of the whole page it takes the chart's parts, computed for
    the same τ and n a moment before (handed over in the session and dropped at once, so no copy
    of the 100k rows stays there); a rerun of this part alone computes its own."""
    live = live_knobs(run)
    values, drawn_parts = st.session_state.pop("map_parts_fresh", (None, None))
    parts = drawn_parts if values == current.live_values(run) else figure_parts(live)
    on_screen = (st.session_state.get("map_figure", {}).get("inputs"), st.session_state.get("map_figure_shows"))
    stale = (parts["inputs"], tuple(sess.map_selection))
    if stale != on_screen and st.session_state.get("map_rerun_for") != stale:
        st.session_state["map_rerun_for"] = stale     # once per state: a rerun can never repeat itself
        st.rerun(scope="app")
    rows, points = parts["rows"], parts["points"]
    st.subheader(f"Selected examples: {len(rows):,}")
    if not rows:
        st.caption("Draw a box or a lasso on the map to list the examples inside it; the selection stays "
                   "while τ and n move.")
        return
    chosen = points.iloc[rows]
    metric_row({
        "Selected": f"{len(chosen):,}",
        "Retained at this τ, n": f"{int(chosen['retained'].sum()):,}",
        "Removed by AFLite": f"{int((~chosen['retained']).sum()):,}",
        "Mean p̃": f"{chosen['predictability'].mean():.2f}",
    })
    st.button("Clear the selection", key="map_clear", on_click=lambda: setattr(sess, "map_selection", ()))
    # a bounded list: a 14k-row table took seconds to send and draw; the counts above cover them all
    listed = chosen.head(current.MAP_LIST_ROWS)
    if len(listed) < len(chosen):
        st.caption(f"Listing the first {len(listed):,} of the {len(chosen):,} selected examples (in the "
                   f"table's order); the counts above and below are of all {len(chosen):,}. Select fewer "
                   "points to list the others.")
    pick = st.dataframe(listed, hide_index=True, key="map_selection", on_select="rerun", selection_mode="single-row")
    st.text("Label counts in the selection: " + ", ".join(
        f"{k}: {v}" for k, v in chosen[ds.label].value_counts().items()))
    if pick.selection.rows:
        with st.container(border=True):
            review_panel(run, str(listed["id"].iloc[pick.selection.rows[0]]), key="map_review")
    else:
        st.caption("Select a row of the list to read that example and review it.")


parts = figure_parts(current.live_result(run))
draw_map(parts)
st.session_state["map_parts_fresh"] = (current.live_values(run), parts)
del parts
live_selection()
info = proj.info
st.caption(f"{proj.method.upper()} {made(info)}; "
           f"{info.get('fitted_rows', info.get('rows', ''))} rows fitted"
           + (f", {info['transformed_rows']} placed by transform" if info.get("transformed_rows") else "")
           + (f", PCA to {info['pca_dims']} dims first" if info.get("pca_dims") else "")
           )
