"""Export: the filtered split (retained, removed, or all with scores) with the run manifest beside it."""
import json

import streamlit as st

import app_state as S
from core import export

ss = st.session_state
st.title("Export")
S.page_setup()
st.caption("Exports follow the live τ and n. CSV cells starting with = + - @ are prefixed with ' so spreadsheets "
           "show them as text (formula-injection protection); other formats keep the text unchanged.")
run = S.current_run()
ds = S.current_dataset()

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
live = S.live_result(run) if run is not None else None
tau, n = S.live_values(run) if run is not None else (None, None)
frame = export.export_frame(ds, run, live=live, which=which)
manifest = export.manifest_for(run, which=which, fmt=fmt, rows=len(frame), tau=tau, target_size=n, dataset=ds)
m1, m2, m3 = st.columns(3)
m1.metric("Rows to export", f"{len(frame):,}")
m2.metric("τ / n", f"{tau:.2f} / {n:,}" if run is not None else "–")
m3.metric("Warm-up examples excluded", f"{len(run.excluded_ids):,}" if run is not None else "0")
st.dataframe(frame.head(100).drop(columns=[c for c in (ds.embedding, ds.image) if c], errors="ignore"),
             hide_index=True, key="exp_preview")


@st.cache_data(max_entries=8, show_spinner="Preparing the file…")
def _bytes(run_key, ds_key, which, fmt, tau, n, _frame, _manifest):
    return export.to_bytes(_frame, fmt, _manifest)


data = _bytes(run.key if run else None, ss.ds_key, which, fmt, tau, n, frame, manifest)
name = export.file_name(ds.name, which, fmt) + (".zip" if fmt == "datasets" else "")
d1, d2 = st.columns(2)
d1.download_button(f"Download {name}", data, file_name=name, mime=export.mime(fmt), type="primary", key="dl_data")
d2.download_button("Download the manifest (JSON)", json.dumps(manifest, indent=1, default=str).encode(),
                   file_name=name.rsplit(".", 1)[0] + ".manifest.json", mime="application/json", key="dl_manifest")
with st.expander("Manifest"):
    st.json(manifest, expanded=False)
