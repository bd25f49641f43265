"""Export: the filtered split (retained, removed, or all with scores) with the run manifest beside it.
Counts and options show at once; the file is built only when asked (`dashboard.exports`)."""
import json
from functools import partial

import numpy as np
import streamlit as st

from core.exports import writers as export
from core.base.errors import Cancelled, InputError
from core.team.review import reviewed_result
from core.base.keys import key_of
from dashboard import agreement, current, duplicates, exports, team
from dashboard import quality as dq
from dashboard import quality_panel
from dashboard.formatting import metric_row, plain
from dashboard.page import start_page

sess = start_page("Export", caption=(
    "Exports follow the live τ and n. CSV cells starting with = + - @ are prefixed with ' so spreadsheets "
    "show them as text (formula-injection protection); other formats keep the text unchanged."))
run = current.run()
ds = current.dataset()
label = export.dataset_label(sess.source.label if sess.source and sess.source.label else ds.name)

c1, c2, c3 = st.columns([2, 3, 2])
which = c1.radio("Selection", ["retained", "removed", "all"], horizontal=True, key="exp_which",
                 format_func={"retained": "Retained (filtered split)", "removed": "Removed",
                              "all": "Everything, with score columns"}.get,
                 disabled=run is None)
fmt = c2.radio("Format", list(export.FORMATS), horizontal=True, key="exp_fmt",
               format_func={"csv": "CSV", "parquet": "Parquet", "jsonl": "JSONL",
                            "datasets": "datasets folder (zip)"}.get)
arrays = [c for c in (ds.embedding, ds.image) if c]
include_arrays = True
if fmt == "csv" and arrays:
    include_arrays = c3.checkbox(f"Include {' and '.join(arrays)} in the CSV", value=False, key="exp_arrays",
                                 help="CSV has no list type: vectors become JSON text, several times the size of "
                                      "Parquet, which keeps them as a float32 list column.")
add_quality = False
quality = dq.current_scored()
if quality is not None:
    add_quality = st.checkbox("Add quality columns (the 7 DQI components, dqi and its light)", value=False,
                              key="exp_quality", help="Weights and light thresholds: Filter page, “Quality (DQI)”.")
else:
    quality_panel.offer("exp_quality_offer", "Adding quality columns (DQI)")
if run is None:
    which = "all"
    st.info("No AFLite run for this dataset yet: the export holds the whole dataset without scores.")
live = current.live_result(run) if run is not None else None
tau, n = current.live_values(run) if run is not None else (None, None)
run_id = current.team_run_id(run) if run is not None else None
overrides = []
if run_id is not None:   # team review: "keep anyway" / "remove anyway" change the split
    live, overrides = reviewed_result(run, live, current.review_standing(run_id, unblinded=team.member().can(
        "adjudicate")))   # blind review: the export counts every decision (curators, owners export)
frame = export.export_frame(ds, run, live=live, which=which, include_arrays=include_arrays)   # row references only
frame, near_duplicates = duplicates.export_option(frame, ds)
quality_note = None
if add_quality:
    try:
        frame = export.add_quality_columns(frame, quality)
        quality_note = dq.export_note(sess.spec)
    except InputError as exc:
        st.error(plain(exc))
        add_quality = False
retained_ids = np.asarray(run.ids)[np.asarray(live["retained"], dtype=bool)].astype(str) if run is not None else None
manifest = export.manifest_for(run, which=which, fmt=fmt, rows=len(frame), tau=tau, target_size=n, dataset=ds,
                               dataset_name=label, retained_ids=retained_ids, include_arrays=include_arrays,
                               extra={**({"review_overrides": overrides, **agreement.manifest_record(run, run_id)}
                                          if run_id is not None else {}),
                                      **({"quality_columns": quality_note} if quality_note else {}),
                                      **({"near_duplicates": near_duplicates} if near_duplicates else {})} or None)
if run is not None:
    st.markdown("**" + export.summary_line(tau, n, len(run.ids), len(retained_ids)) + "**")
metric_row({
    "Rows to export": f"{len(frame):,}",
    "τ / n": f"{tau:.2f} / {n:,}" if run is not None else "–",
    "Warm-up examples excluded": f"{len(run.excluded_ids):,}" if run is not None else "0",
    "Review overrides applied": f"{sum(o['changed'] for o in overrides):,}" if run_id is not None else "–",
})
st.dataframe(frame.head(100).drop(columns=arrays, errors="ignore"), hide_index=True, key="exp_preview")

if not team.member().can("export"):
    exports.refuse(sess, team.member().role)
exporter = team.require("export")   # the action itself asks the store, whatever the page showed
name = export.file_name(label, which, fmt) + (".zip" if fmt == "datasets" else "")
chosen = [sess.ds_key, run.key if run else None, which, fmt, include_arrays, tau, n, overrides, quality_note,
          near_duplicates]
signature = key_of(chosen)
ready = exports.prepared(sess, signature)   # a file made with other options is deleted here

d1, d2, d3 = st.columns(3)
if d1.button("Prepare the file", key="exp_prepare", type="secondary" if ready else "primary"):
    bar = st.progress(0.0, text=f"preparing {name}")
    try:
        ready = exports.prepare(sess, frame, fmt, manifest, name, signature,
                                progress=lambda f, m: bar.progress(f, text=m or f"preparing {name}"),
                                card=exports.card_for(ds, manifest) if fmt == "datasets" else None)
    except Cancelled:
        st.warning("The server is stopping; the file was not prepared.")
    bar.empty()
if ready is not None:
    # asked again when the button is clicked (no rerun happens then): a demotion meanwhile counts
    still_allowed = partial(team.scope().require, "export")
    d2.download_button(f"Download {name} ({ready.size / 1e6:,.1f} MB)", exports.reader(ready, still_allowed), file_name=name,
                       mime=export.mime(fmt), type="primary", key="dl_data", on_click="ignore")
    st.caption(f"Prepared in {ready.seconds:.1f} s. The server keeps this one file for this tab until you "
               "change an option, prepare again or close the tab.")
    exports.watch_role(still_allowed)
else:
    d2.caption("The file is built when you press “Prepare the file” (large exports take a while).")
# on_click="ignore": a rerun would replace the other buttons' files while a second click is on its way
d3.download_button("Download the manifest (JSON)", json.dumps(manifest, indent=1, default=str).encode(),
                   file_name=name.rsplit(".", 1)[0] + ".manifest.json", mime="application/json", key="dl_manifest",
                   on_click="ignore")
d3.download_button("Download the dataset card (README.md)", lambda: exports.card_for(ds, manifest), file_name="README.md",
                   mime="text/markdown", key="dl_card", on_click="ignore")   # built on click: a z-statistics pass
with st.expander("Manifest"):
    st.json(exports.manifest_shown(manifest), expanded=False)
