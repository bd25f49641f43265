"""Artifact Lens dashboard: `streamlit run app.py`.

Opens on the synthetic NLI demo, already scored by a small AFLite run, so every
page works before anything is loaded. Pages live in ``pages/``; shared state and
cached look-ups in ``app_state.py``; all computation in ``core/``.
"""
import streamlit as st

import app_state

st.set_page_config(page_title="Artifact Lens", page_icon="assets/logo.svg", layout="wide")

PAGES = [
    st.Page("pages/1_data.py", title="Data", icon=":material/database:", default=True),
    st.Page("pages/2_filter.py", title="Filter", icon=":material/filter_alt:"),
    st.Page("pages/3_predictability.py", title="Predictability", icon=":material/bar_chart:"),
    st.Page("pages/4_map.py", title="Map", icon=":material/scatter_plot:"),
    st.Page("pages/5_features.py", title="Features", icon=":material/text_fields:"),
    st.Page("pages/6_examples.py", title="Examples", icon=":material/table_rows:"),
    st.Page("pages/7_export.py", title="Export", icon=":material/download:"),
]

nav = st.navigation(PAGES)
app_state.init()
app_state.sidebar()
# Pages call app_state.page_setup(), which draws the sidebar itself only when a page
# script runs without this file (streamlit's AppTest reruns a page directly).
st.session_state["_in_app"] = True
try:
    nav.run()
finally:
    st.session_state["_in_app"] = False
