"""Choosing column roles before a dataset loads, when detection cannot (the Data page).

`core.data.sources` raises `core.base.errors.RolesNeeded` with the table's columns, what it
detected and the first rows; this shows them and lets the curator choose the label,
text, id, embedding and image columns, then loads with those roles.
"""
from __future__ import annotations

import streamlit as st

from artifact_lens.base.errors import InputError, RolesNeeded
from artifact_lens.dashboard.services import data_inputs
from artifact_lens.dashboard.widgets.formatting import plain
from artifact_lens.dashboard.widgets.reruns import redraw
from artifact_lens.dashboard.state.session import Source

NONE = "(none)"
_ASK = {"label": "This file has no column the dashboard recognises as the label: choose the label column below.",
        "text": "This file has no column the dashboard recognises as text: choose the text columns (or an image or "
                "embedding column) below.",
        "id": "This file's id column cannot name the examples: choose another id column below, or (none) to number "
              "the rows."}


def load_or_ask(tab, source: Source) -> None:
    """Load ``source`` as the Data page's pending dataset, or keep what is needed to ask for
    its columns' roles (shown by `form`). Other InputErrors propagate."""
    try:
        data_inputs.load_pending(tab, source)
    except RolesNeeded as exc:
        tab.session.mapping = {"source": source, "role": exc.role, "columns": exc.columns, "detected": exc.detected,
                               "preview": exc.preview, "why": str(exc)}


def form(tab) -> None:
    sess = tab.session
    ask = sess.mapping
    source, cols, found = ask["source"], ask["columns"], ask["detected"]
    st.warning(_ASK[ask["role"]])
    if ask["role"] == "id":
        st.caption(plain(ask.get("why", "")))
    if ask["preview"] is not None:
        st.dataframe(ask["preview"], key="map_preview", height=240)   # the file's own text, never rendered
        st.caption(f"The first {len(ask['preview'])} rows of {plain(source.label or source.source)}.")

    def choose(box, title, role):
        options = [NONE] + cols
        # the column that was refused is not offered again as the default
        default = None if role == ask["role"] == "id" else found.get(role)
        return box.selectbox(title, options, key=f"mapping_{role}",
                             index=options.index(default) if default in cols else 0)

    if ask["role"] == "id":
        _id_form(tab, source, choose)
        return
    with st.form("mapping_form"):
        c1, c2 = st.columns(2)
        label = choose(c1, "Label column", "label")
        text = c2.multiselect("Text columns", cols, default=[c for c in found.get("text") or [] if c in cols],
                              key="mapping_text")
        c3, c4, c5 = st.columns(3)
        id_col = choose(c3, "Id column", "id")
        embedding = choose(c4, "Embedding column", "embedding")
        image = choose(c5, "Image column", "image")
        go = st.form_submit_button("Load with these columns", type="primary", key="mapping_load")
    if not go:
        return
    if label == NONE:
        st.error("Choose the label column: AFLite and z-statistics need a label per example.")
        return
    # (none) numbers the rows, even where a column is named like an id (the one refused)
    roles = dict(source.roles, label=label, text=text or None, id=False if id_col == NONE else id_col,
                 embedding=None if embedding == NONE else embedding, image=None if image == NONE else image)
    try:
        sess.mapping = None
        load_or_ask(tab, Source(source.source, roles, source.label))
        redraw()
    except InputError as exc:
        st.error(plain(exc))


def _id_form(tab, source: Source, choose) -> None:
    """Only the id is asked for when only the id was refused: every other role stays as detected, so
    a file of multiple-choice items or pairs whose ids repeat (BBQ's categories concatenated) is
    still read as items or pairs, as the command line's ``--number-rows`` reads it."""
    with st.form("mapping_form"):
        id_col = choose(st, "Id column ((none) numbers the rows)", "id")
        go = st.form_submit_button("Load with this id", type="primary", key="mapping_load")
    if not go:
        return
    try:
        tab.session.mapping = None
        load_or_ask(tab, Source(source.source, dict(source.roles, id=False if id_col == NONE else id_col), source.label))
        redraw()
    except InputError as exc:
        st.error(plain(exc))
