"""Export: the filtered split (retained, removed, or all with scores) with the run manifest beside it."""
import json

import streamlit as st

from core import export
from dashboard import current
from dashboard.formatting import metric_row
from dashboard.page import start_page
from dashboard.server import server

sess = start_page("Export", caption=(
    "Exports follow the live τ and n. CSV cells starting with = + - @ are prefixed with ' so spreadsheets "
    "show them as text (formula-injection protection); other formats keep the text unchanged."))
run = current.run()
ds = current.dataset()

c1, c2 = st.columns(2)
which = c1.radio("Selection", ["retained", "removed", "all"], horizontal=True, key="exp_which",
                 format_func={"retained": "Retained (filtered split)", "removed": "Removed",
                              "all": "Everything, with score columns"}.get,
                 disabled=run is None)
fmt = c2.radio("Format", list(export.FORMATS), horizontal=True, key="exp_fmt",
               format_func={"csv": "CSV", "parquet": "Parquet", "jsonl": "JSONL",
                            "datasets": "datasets folder (zip)"}.get)
if run is None:
    which = "all"
    st.info("No AFLite run for this dataset yet: the export holds the whole dataset without scores.")
live = current.live_result(run) if run is not None else None
tau, n = current.live_values(run) if run is not None else (None, None)
frame = export.export_frame(ds, run, live=live, which=which)
manifest = export.manifest_for(run, which=which, fmt=fmt, rows=len(frame), tau=tau, target_size=n, dataset=ds)
metric_row({
    "Rows to export": f"{len(frame):,}",
    "τ / n": f"{tau:.2f} / {n:,}" if run is not None else "–",
    "Warm-up examples excluded": f"{len(run.excluded_ids):,}" if run is not None else "0",
})
st.dataframe(frame.head(100).drop(columns=[c for c in (ds.embedding, ds.image) if c], errors="ignore"),
             hide_index=True, key="exp_preview")

data = server().cache.get_or_compute(
    "export", (sess.ds_key, run.key if run else None, which, fmt, tau, n),
    lambda: export.to_bytes(frame, fmt, manifest))
name = export.file_name(ds.name, which, fmt) + (".zip" if fmt == "datasets" else "")
d1, d2 = st.columns(2)
d1.download_button(f"Download {name}", data, file_name=name, mime=export.mime(fmt), type="primary", key="dl_data")
d2.download_button("Download the manifest (JSON)", json.dumps(manifest, indent=1, default=str).encode(),
                   file_name=name.rsplit(".", 1)[0] + ".manifest.json", mime="application/json", key="dl_manifest")
with st.expander("Manifest"):
    st.json(manifest, expanded=False)
