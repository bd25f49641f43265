"""The one way the app draws itself again after an action: `redraw`.

``st.rerun()`` asks for a rerun of the page this run is on, and Streamlit folds that into a
request already waiting with the newer page winning. So a page the user clicked in the sidebar
while a slow action ran (saving a run, starting a job) was dropped, and the user stayed where
they were. Reading the session state is one of Streamlit's yield points: a request waiting
there stops this run and is served instead, and only when none waits does the page ask for its
own rerun. (A fragment's timer or widget does not stop a run there, by Streamlit's rule: its
request merges into this whole-app rerun.)"""
from __future__ import annotations

from typing import NoReturn

import streamlit as st


def redraw() -> NoReturn:
    """Rerun the whole app, unless the user asked for something meanwhile."""
    "_" in st.session_state   # noqa: B015  (a yield point: a waiting request is served here)
    st.rerun()
