"""Export: the filtered split (retained, removed, or all with scores) with the run manifest beside it.
Counts and options show at once; the file is built only when asked (`dashboard.services.exports`)."""
import json
from functools import partial

import streamlit as st

from artifact_lens.base.errors import Cancelled, InputError
from artifact_lens.dashboard.services import current, run_view, exports, team
from artifact_lens.dashboard.widgets import export_panels
from artifact_lens.dashboard.services import quality as dq
from artifact_lens.dashboard.widgets import quality_panel
from artifact_lens.dashboard.widgets.formatting import metric_row, plain
from artifact_lens.dashboard.widgets.page import start_page

tab = start_page("Export", caption=(
    "Exports follow the live τ and n. CSV cells starting with = + - @ are prefixed with ' so spreadsheets "
    "show them as text (formula-injection protection); other formats keep the text unchanged."))
sess = tab.session
run = run_view.run(tab)
ds = current.dataset(tab)

c1, c2, c3 = st.columns([2, 3, 2])
which = c1.radio("Selection", ["retained", "removed", "all"], horizontal=True, key="exp_which",
                 format_func={"retained": "Retained (filtered split)", "removed": "Removed",
                              "all": "Everything, with score columns"}.get,
                 disabled=run is None)
fmt = c2.radio("Format", list(exports.FORMATS), horizontal=True, key="exp_fmt",
               format_func=lambda name: exports.FORMATS[name].title)
arrays = [c for c in (ds.embedding, ds.image) if c]
include_arrays = True
if fmt == "csv" and arrays:
    include_arrays = c3.checkbox(f"Include {' and '.join(arrays)} in the CSV", value=False, key="exp_arrays",
                                 help="CSV has no list type: vectors become JSON text, several times the size of "
                                      "Parquet, which keeps them as a float32 list column.")
quality = dq.current_scored(tab)
add_quality = False
if quality is not None:
    add_quality = st.checkbox("Add quality columns (the 7 DQI components, dqi and its light)", value=False,
                              key="exp_quality", help="Weights and light thresholds: Filter page, “Quality (DQI)”.")
else:
    quality_panel.offer(tab, "exp_quality_offer", "Adding quality columns (DQI)")
if run is None:
    which = "all"
    st.info("No AFLite run for this dataset yet: the export holds the whole dataset without scores.")
pairs = export_panels.near_duplicates_choice(tab, ds)
options = dict(which=which, fmt=fmt, include_arrays=include_arrays, duplicate_pairs=pairs)
try:
    out = exports.split(tab, sess, run, ds, **options, **(dict(quality=quality, quality_note=dq.export_note(tab, sess.spec))
                        if add_quality else {}))
except InputError as exc:   # a quality table that does not fit: said, and the export goes without it
    st.error(plain(exc))
    out = exports.split(tab, sess, run, ds, **options)
export_panels.dropped_shown(out.manifest, ds, pairs)
frame, manifest, name = out.frame, out.manifest, out.file_name
if run is not None:
    st.markdown("**" + out.summary + "**")
metric_row({
    "Rows to export": f"{len(frame):,}",
    "τ / n": f"{out.tau:.2f} / {out.n:,}" if run is not None else "–",
    "Warm-up examples excluded": f"{len(run.excluded_ids):,}" if run is not None else "0",
    "Review overrides applied": f"{sum(o['changed'] for o in out.overrides):,}" if out.overrides is not None else "–",
})
st.dataframe(frame.head(100).drop(columns=arrays, errors="ignore"), hide_index=True, key="exp_preview")

if not team.member(tab).can("export"):
    export_panels.refuse(tab, team.member(tab).role)
team.require(tab, "export")   # the action itself asks the store, whatever the page showed
ready = exports.prepared(tab, out.signature)   # a file made with other options is deleted here

d1, d2, d3 = st.columns(3)
if d1.button("Prepare the file", key="exp_prepare", type="secondary" if ready else "primary"):
    bar = st.progress(0.0, text=f"preparing {name}")
    try:
        folder = exports.FORMATS[fmt].folder   # a folder carries its card and certificate
        card, files = exports.folder_files(tab, ds, out) if folder else (None, None)
        ready = exports.prepare(tab, frame, fmt, manifest, name, out.signature,
                                progress=lambda f, m: bar.progress(f, text=m or f"preparing {name}"), files=files,
                                card=card)
    except Cancelled:
        st.warning("The server is stopping; the file was not prepared.")
    bar.empty()
if ready is not None:
    # asked again when the button is clicked (no rerun happens then): a demotion meanwhile counts
    still_allowed = partial(team.view(tab).require, "export")
    d2.download_button(f"Download {name} ({ready.size / 1e6:,.1f} MB)", exports.reader(ready, still_allowed), file_name=name,
                       mime=out.mime, type="primary", key="dl_data", on_click="ignore")
    st.caption(f"Prepared in {ready.seconds:.1f} s. The server keeps this one file for this tab until you "
               "change an option, prepare again or close the tab.")
    export_panels.watch_role(still_allowed)
else:
    d2.caption("The file is built when you press “Prepare the file” (large exports take a while).")
# on_click="ignore": a rerun would replace the other buttons' files while a second click is on its way
d3.download_button("Download the manifest (JSON)", json.dumps(manifest, indent=1, default=str).encode(),
                   file_name=name.rsplit(".", 1)[0] + ".manifest.json", mime="application/json", key="dl_manifest",
                   on_click="ignore")
d3.download_button("Download the dataset card (README.md)", lambda: exports.card_only(tab, ds, out), file_name="README.md",
                   mime="text/markdown", key="dl_card", on_click="ignore")   # built on click: a z-statistics pass
with st.expander("Manifest"):
    st.json(exports.manifest_shown(manifest), expanded=False)
