"""Map: a 2-D projection (UMAP, cached per representation) of Φ; select points to read their examples
(the selection is kept while τ and n move)."""
import numpy as np
import streamlit as st

from core.aflite_plots import projection_map, selected_rows
from dashboard import current
from dashboard import quality as dq
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
proj = current.projection(method)
if proj is None:
    @st.fragment(run_every=1.0)
    def wait_for_umap():
        job = current.projection_job()
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
    proj = current.projection("pca")

table = current.table(run)
colour = c2.selectbox("Colour by", ["label", "predictability", "retained", "removal phase", "review", "quality",
                                    "quality light", *[c for c in table.other_columns
                                                       if c not in ("quality", "quality light")]], key="map_colour",
                      help="review: the traffic lights of team review (green agreed, yellow disputed or overridden, "
                           "red removed and not reviewed); needs the run saved in the workspace. quality: the combined "
                           "DQI score; quality light: its red / yellow / green light (Filter page, “Quality (DQI)”).")
size = c3.slider("Point size", 2, 10, 4, key="map_size")
quality = dq.offer("map_quality", "Colouring by quality") if colour in ("quality", "quality light") else None
rows_of_points = table.rows_of(proj.ids)   # projection rows (= rows of Φ) -> table rows


def keep_selection(points) -> None:
    """on_select callback: a box or lasso (or a cleared selection) replaces the kept ids. The
    chart itself forgets its selection whenever its figure changes (τ, n, colour, size), so
    the ids are kept in the tab's session and drawn again as ``selectedpoints``."""
    event = st.session_state.get("map")
    rows = selected_rows(event)
    sess.map_selection = tuple(str(i) for i in points["id"].iloc[rows]) if rows else ()
    sess.map_selection_of = sess.ds_key


@st.fragment
def draw():
    points = with_lights(table.browse(live_knobs(run)).iloc[rows_of_points].reset_index(drop=True), run)
    column = {"label": ds.label, "retained": "retained", "removal phase": "removed_at"}.get(colour, colour)
    if column == "review" and "review" not in points:
        st.caption("The run is not saved in the workspace, so it has no reviews yet: coloured by label.")
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
    if sess.map_selection_of != sess.ds_key:
        sess.map_selection, sess.map_selection_of = (), sess.ds_key
    rows = np.flatnonzero(points["id"].astype(str).isin(sess.map_selection).to_numpy()).tolist()
    # above the documented limit a seeded sample (the same on every redraw) plus the selection is drawn
    drawn = current.map_sample(len(points), keep=rows)
    shown = points if drawn is None else points.iloc[drawn].reset_index(drop=True)
    marked = rows if drawn is None else np.flatnonzero(np.isin(drawn, rows)).tolist()
    what = f"{len(points):,} points" if drawn is None else f"{len(shown):,} of {len(points):,} points"
    fig = projection_map(proj.xy if drawn is None else proj.xy[drawn], shown, colour=column,
                         colour_name="label" if column == ds.label else colour, label=ds.label, size=size,
                         title=f"{proj.method.upper()} of Φ ({what})", palette=palette, classes=ds.classes,
                         text_fields=ds.text, selected=marked if marked else None)
    st.plotly_chart(fig, key="map", on_select=lambda: keep_selection(shown), selection_mode=("box", "lasso"))
    if drawn is not None:
        st.caption(f"Drawing {len(shown):,} of {len(points):,} points: above {current.map_point_limit():,} "
                   "points the map draws a seeded random sample of that many (the same on every redraw) plus "
                   "the selected examples, so the browser stays responsive; a box or lasso selects among the "
                   "drawn points. The limit is the server's ARTIFACT_LENS_MAP_POINTS.")
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
    pick = st.dataframe(chosen, hide_index=True, key="map_selection", on_select="rerun", selection_mode="single-row")
    st.text("Label counts in the selection: " + ", ".join(
        f"{k}: {v}" for k, v in chosen[ds.label].value_counts().items()))
    if pick.selection.rows:
        with st.container(border=True):
            review_panel(run, str(chosen["id"].iloc[pick.selection.rows[0]]), key="map_review")
    else:
        st.caption("Select a row of the list to read that example and review it.")


draw()
info = proj.info
st.caption(f"{proj.method.upper()} {made(info)}; "
           f"{info.get('fitted_rows', info.get('rows', ''))} rows fitted"
           + (f", {info['transformed_rows']} placed by transform" if info.get("transformed_rows") else "")
           + (f", PCA to {info['pca_dims']} dims first" if info.get("pca_dims") else "")
           )
