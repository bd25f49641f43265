"""Map: a 2-D projection (UMAP, cached per representation) of Φ; select points to read their examples."""
import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

import app_state as S
from core.runs import live_columns

ss = st.session_state
st.title("Map")
S.page_setup()
run = S.current_run()
ds = S.current_dataset()
rep = S.current_representation()
if run is None or rep is None:
    st.warning("No AFLite run for this dataset yet: score it on the Data page.")
    st.stop()

methods = ["umap", "pca"]
c1, c2, c3 = st.columns([1, 2, 1])
method = c1.radio("Projection", methods, index=methods.index(S.MAP_METHOD if S.MAP_METHOD in methods else "umap"),
                  format_func={"umap": "UMAP", "pca": "PCA (instant)"}.get, horizontal=True, key="map_method")
proj = S.projection(method)
if proj is None:
    job = S.projection_job()

    @st.fragment(run_every=1.0)
    def wait_for_umap():
        j = S.projection_job()
        if j is None or j.done:
            if j is not None and j.status == "error":
                st.error(S.plain(j.error))
                return
            st.rerun(scope="app")
        snap = j.snapshot()
        st.progress(snap["fraction"], text=f"UMAP of Φ (once per representation, then cached): "
                                           f"{snap['message'] or 'starting'} ({snap['elapsed']:.0f} s)")
        st.caption("Showing the PCA projection until UMAP is ready.")

    wait_for_umap()
    proj = S.projection("pca")

frame = S.example_table(run)
table_cols = [c for c in frame.columns if c not in ("pos",)]
colour_options = ["label", "predictability", "retained", "removal phase"] + [
    c for c in frame.columns if c not in ("id", "pos", "predictability", "removed_at", "warmup", ds.label, *ds.text)]
colour = c2.selectbox("Colour by", colour_options, key="map_colour")
size = c3.slider("Point size", 2, 10, 4, key="map_size")


@st.fragment
def draw():
    live = live_columns(frame, S.live_knobs(run))
    # rows of the projection (= representation rows) -> rows of the example table
    row_of = pd.Index(live["id"]).get_indexer(proj.ids)
    sub = live.iloc[row_of].reset_index(drop=True)
    x, y = proj.xy[:, 0], proj.xy[:, 1]
    fig = go.Figure()
    key_col = {"label": ds.label, "retained": "retained", "removal phase": "removed_at"}.get(colour, colour)
    values = sub[key_col]
    hover = "%{customdata[1]}<br>label: %{customdata[2]}<br>p̃: %{customdata[3]:.2f}<extra></extra>"
    custom = np.column_stack([np.arange(len(sub)), sub["id"].to_numpy(), sub[ds.label].astype(str).to_numpy(),
                              sub["predictability"].to_numpy()])
    numeric = pd.api.types.is_numeric_dtype(values) and values.dtype != bool and values.nunique() > 12
    if colour == "predictability" or numeric:
        fig.add_trace(go.Scattergl(x=x, y=y, mode="markers", customdata=custom, hovertemplate=hover, name=colour,
                                   marker=dict(size=size, color=values, colorscale="Viridis", showscale=True,
                                               colorbar=dict(title=colour))))
    else:
        cats = values.astype(str)
        for cat in sorted(cats.unique(), key=str):
            sel = (cats == cat).to_numpy()
            fig.add_trace(go.Scattergl(x=x[sel], y=y[sel], mode="markers", name=f"{colour}={cat}",
                                       customdata=custom[sel], hovertemplate=hover,
                                       marker=dict(size=size, opacity=0.75)))
    fig.update_layout(height=560, margin=dict(l=10, r=10, t=30, b=10), dragmode="select",
                      title=f"{proj.method.upper()} of Φ ({len(sub):,} points)", legend=dict(itemsizing="constant"))
    event = st.plotly_chart(fig, key="map", on_select="rerun", selection_mode=("box", "lasso"))
    points = (event or {}).get("selection", {}).get("points", []) if event else []
    rows = sorted({int(p["customdata"][0]) for p in points if p.get("customdata") is not None})
    st.subheader(f"Selected examples: {len(rows):,}")
    if not rows:
        st.caption("Draw a box or a lasso on the map to list the examples inside it.")
        return
    chosen = sub.iloc[rows]
    s1, s2, s3 = st.columns(3)
    s1.metric("Selected", f"{len(chosen):,}")
    s2.metric("Removed by AFLite", f"{int((~chosen['retained']).sum()):,}")
    s3.metric("Mean p̃", f"{chosen['predictability'].mean():.2f}")
    st.dataframe(chosen.drop(columns=["pos"]), hide_index=True, key="map_selection")
    st.text("Label counts in the selection: " + ", ".join(
        f"{k}: {v}" for k, v in chosen[ds.label].value_counts().items()))


draw()
info = proj.info
st.caption(f"{proj.method.upper()} {'from cache' if info.get('cache_hit') else 'computed'}; "
           f"{info.get('fitted_rows', info.get('rows', ''))} rows fitted"
           + (f", {info['transformed_rows']} placed by transform" if info.get("transformed_rows") else "")
           + (f", PCA to {info['pca_dims']} dims first" if info.get("pca_dims") else "")
           + (f", {info['seconds']} s" if "seconds" in info else ""))
