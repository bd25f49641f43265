"""Map: a 2-D projection (UMAP, cached per representation) of Φ; select points to read their examples
(the selection is kept while τ and n move)."""
import streamlit as st

from artifact_lens.dashboard.services import current, map_settings, pipelines, run_view
from artifact_lens.dashboard.widgets import quality_panel
from artifact_lens.dashboard.state import url
from artifact_lens.dashboard.widgets.formatting import made, metric_row, plain
from artifact_lens.dashboard.widgets.knobs import live_knobs
from artifact_lens.dashboard.widgets.map_view import COLOURINGS_HELP, MapView
from artifact_lens.dashboard.widgets.page import require_run, start_page
from artifact_lens.dashboard.widgets.reruns import redraw
from artifact_lens.dashboard.widgets.review_panel import review_panel

tab = start_page("Map")
sess = tab.session
run, ds = require_run(tab)

methods = ["umap", "pca"]
c1, c2, c3 = st.columns([1, 2, 1])
method = c1.radio("Projection", methods,
                  index=methods.index(map_settings.map_method() if map_settings.map_method() in methods else "umap"),
                  format_func={"umap": "UMAP", "pca": "PCA (instant)"}.get, horizontal=True, key="map_method")
proj = pipelines.projection(tab, method)
if method == "umap" and map_settings.map_parallel():
    st.caption("UMAP on every core (this server's choice): faster, but not reproducible. umap-learn runs one thread "
               "whenever it is seeded, and its threads race, so a map computed again differs a little.")
if proj is None:
    @st.fragment(run_every=1.0)
    def wait_for_umap():
        job = pipelines.projection_job(tab)
        if job is None or job.done:
            if job is not None and job.status == "error":
                st.error(plain(job.error))
                return
            redraw()
        snap = job.snapshot()
        st.progress(snap["fraction"], text=f"UMAP of Φ (once per representation, then cached): "
                                           f"{snap['message'] or 'starting'} ({snap['elapsed']:.0f} s)")
        st.caption("Showing the PCA projection until UMAP is ready.")

    wait_for_umap()
    proj = pipelines.projection(tab, "pca")

colourings = ["label", "predictability", "retained", "removal phase", "review", "quality", "quality light",
              *[c for c in run_view.table(tab, run).other_columns if c not in ("quality", "quality light")]]
url.restore("map_colour", colourings)   # a reload keeps the colouring
colour = c2.selectbox("Colour by", colourings, key="map_colour", help=COLOURINGS_HELP)
size = c3.slider("Point size", 2, 10, 4, key="map_size")
url.keep("map_colour", colour)
quality = quality_panel.offer(tab, "map_quality", "Colouring by quality") if colour in ("quality", "quality light") else None
view = MapView(tab, run, ds, proj, run_view.table(tab, run), colour, size, quality)


@st.fragment
def live_selection() -> None:
    """The τ and n knobs and the selected examples. A knob move reruns this part alone: the chart
    above is left as it is unless its figure changes (colours or hover that depend on τ and n),
    because every run that draws the chart also copies its selection event (~0.3 s for 14k
    selected points at 100k). In a run of the whole page it takes the chart's parts, computed for
    the same τ and n a moment before (handed over in the session and dropped at once, so no copy
    of the 100k rows stays there); a rerun of this part alone computes its own."""
    live = live_knobs(tab, run)
    values, drawn_parts = st.session_state.pop("map_parts_fresh", (None, None))
    parts = drawn_parts if values == run_view.live_values(tab, run) else view.parts(live)
    if view.on_screen_is_stale(parts):
        redraw()
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
    listed = chosen.head(map_settings.MAP_LIST_ROWS)
    if len(listed) < len(chosen):
        st.caption(f"Listing the first {len(listed):,} of the {len(chosen):,} selected examples (in the "
                   f"table's order); the counts above and below are of all {len(chosen):,}. Select fewer "
                   "points to list the others.")
    pick = st.dataframe(listed, hide_index=True, key="map_selection", on_select="rerun", selection_mode="single-row")
    st.text("Label counts in the selection: " + ", ".join(
        f"{k}: {v}" for k, v in chosen[ds.label].value_counts().items()))
    if pick.selection.rows:
        with st.container(border=True):
            review_panel(tab, run, str(listed["id"].iloc[pick.selection.rows[0]]), key="map_review")
    else:
        st.caption("Select a row of the list to read that example and review it.")


parts = view.parts(run_view.live_result(tab, run))
view.draw(parts)
st.session_state["map_parts_fresh"] = (run_view.live_values(tab, run), parts)
del parts
live_selection()
info = proj.info
st.caption(f"{proj.method.upper()} {made(info)}; "
           f"{info.get('fitted_rows', info.get('rows', ''))} rows fitted"
           + (f", {info['transformed_rows']} placed by transform" if info.get("transformed_rows") else "")
           + (f", PCA to {info['pca_dims']} dims first" if info.get("pca_dims") else "")
           )
