"""Artifact Lens dashboard: `streamlit run app.py`.

Opens on the synthetic NLI demo, already scored by a small AFLite run, so every
page works before anything is loaded. Pages live in ``pages/`` (listed in
``dashboard/services/navigation.py``); the dashboard's state and widgets in ``dashboard/``;
all computation in ``core/``.
"""
import sys

import streamlit as st

from dashboard.services.navigation import PAGES, configuration_error

st.set_page_config(page_title="Artifact Lens", page_icon="assets/logo.svg", layout="wide")
if (problem := configuration_error(sys.argv[1:])) is not None:   # before any page reads a setting or the store
    st.error(problem)
    st.stop()
nav = st.navigation([st.Page(path, title=title, icon=icon, default=i == 0)
                     for i, (path, title, icon) in enumerate(PAGES)], expanded=True)   # all 13, no "View more"
nav.run()
