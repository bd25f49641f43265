"""Data: choose the source, map the columns, choose the representation Φ, start scoring."""
import streamlit as st

from artifact_lens.dashboard.widgets import choice_panels, column_mapping
from artifact_lens.dashboard.services import current, pairs, pipelines
from artifact_lens.dashboard.widgets.data_panels import representation_panel, roles_panel, source_panel
from artifact_lens.dashboard.widgets.formatting import metric_row, plain
from artifact_lens.dashboard.widgets.page import start_page
from artifact_lens.dashboard.services.team import member

tab = start_page("Data", caption=(
    "Load a labelled dataset, check its columns and labels, then build a representation Φ and score it "
    "with AFLite."))
sess = tab.session
can_load = member(tab).can("load data")   # the actions check the role again themselves
if not can_load:
    st.info(f"Your role here is {member(tab).role}: you read and review the workspace's runs (open them on the "
            "Team page). Loading data and running filters need a curator or owner.")

# ---------------------------------------------------------------- source
if can_load:
    source_panel(tab, sess)
if sess.mapping is not None:
    column_mapping.form(tab)

# ---------------------------------------------------------------- the dataset on view
is_current = sess.pending_key in (None, sess.ds_key)
on_view = sess.source if is_current else sess.pending_source
view_key = sess.ds_key if is_current else sess.pending_key
ds = current.dataset_by_key(tab, view_key, on_view)
st.subheader("Current dataset" if is_current else "Loaded dataset (not scored yet)")
st.text(on_view.label if on_view and on_view.label else ds.name)  # a user-given name: shown as text
for message in ds.messages:
    st.info(plain(message))  # written by core.data.sources
if ds.pairs is not None:
    st.info(plain(pairs.summary(tab, ds)))
if ds.choices is not None:   # items: what they are, read with the gold marked, and their cues
    choice_panels.items_panel(tab, ds)
else:
    metric_row({
        "Examples": f"{len(ds):,}",
        "Labels": len(ds.classes),
        "Dropped rows": sum(ds.dropped.values()) if ds.dropped else 0,
    })
    roles_panel(tab, ds, on_view, can_load)
    left, right = st.columns([3, 1])
    with left:
        shown = (ds.table.drop(columns=[c for c in (ds.embedding, ds.image) if c], errors="ignore") if ds.pairs is None
                 else pairs.side_by_side(tab, ds.ids[:500], ds=ds)).head(500)   # a pair: prompt, chosen, rejected
        st.dataframe(shown, height=320, key="data_preview")  # text is shown as text, never rendered
        st.caption(f"First {len(shown):,} of {len(ds):,} rows.")
    with right:
        counts = ds.label_counts()
        st.bar_chart(counts.rename("examples"))
        st.dataframe(counts.rename("examples").to_frame(), key="label_counts")

# ---------------------------------------------------------------- representation
st.subheader("Representation Φ")
if can_load:
    representation_panel(tab, sess, ds, view_key, on_view)
else:   # what a reader needs to know: the Φ the open run was scored on (choosing one needs a curator)
    st.text(f"The open run reads {sess.spec}." if sess.spec else "No run is open.")
job = pipelines.current_job(tab)
if job is not None and not job.done:
    st.info("Scoring in the background (progress and Cancel in the sidebar). "
            "The previous dataset and run stay in use until it finishes.")
