"""Export: the filtered split (retained, removed, or all with scores) with the run manifest beside it."""
import json

import streamlit as st

from core import export
from core.review import reviewed_result
from dashboard import current, team
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
run_id = current.team_run_id(run) if run is not None else None
overrides = []
if run_id is not None:   # team review: "keep anyway" / "remove anyway" change the split
    live, overrides = reviewed_result(run, live, current.review_standing(run_id))
frame = export.export_frame(ds, run, live=live, which=which)
manifest = export.manifest_for(run, which=which, fmt=fmt, rows=len(frame), tau=tau, target_size=n, dataset=ds,
                               extra={"review_overrides": overrides} if run_id is not None else None)
metric_row({
    "Rows to export": f"{len(frame):,}",
    "τ / n": f"{tau:.2f} / {n:,}" if run is not None else "–",
    "Warm-up examples excluded": f"{len(run.excluded_ids):,}" if run is not None else "0",
    "Review overrides applied": f"{sum(o['changed'] for o in overrides):,}" if run_id is not None else "–",
})
st.dataframe(frame.head(100).drop(columns=[c for c in (ds.embedding, ds.image) if c], errors="ignore"),
             hide_index=True, key="exp_preview")

if not team.member().can("export"):
    st.info(f"Your role here is {team.member().role}: exports need a curator or owner.")
    st.stop()
team.require("export")   # the action itself asks the store, whatever the page showed
data = server().cache.get_or_compute(
    "export", (sess.ds_key, run.key if run else None, which, fmt, tau, n, json.dumps(overrides, sort_keys=True)),
    lambda: export.to_bytes(frame, fmt, manifest))
name = export.file_name(ds.name, which, fmt) + (".zip" if fmt == "datasets" else "")
d1, d2 = st.columns(2)
d1.download_button(f"Download {name}", data, file_name=name, mime=export.mime(fmt), type="primary", key="dl_data")
d2.download_button("Download the manifest (JSON)", json.dumps(manifest, indent=1, default=str).encode(),
                   file_name=name.rsplit(".", 1)[0] + ".manifest.json", mime="application/json", key="dl_manifest")
with st.expander("Manifest"):
    st.json(manifest, expanded=False)
