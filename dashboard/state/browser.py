"""Where Streamlit keeps a browser tab's state: its `Session` under one key of
``st.session_state``, and the `Tab` the pages hand to services (that session and the process's
one server, `dashboard.process.shared`). The only module that finds them in Streamlit."""
from __future__ import annotations

import streamlit as st

from artifact_lens.dashboard.process.shared import server
from artifact_lens.dashboard.state.session import Session
from artifact_lens.dashboard.state.tab import Tab

__all__ = ["session", "tab"]

_KEY = "artifact_lens"


def session() -> Session:
    """This tab's `Session` (created empty on first use)."""
    state = st.session_state
    if _KEY not in state:
        state[_KEY] = Session()
    return state[_KEY]


def tab() -> Tab:
    """This browser tab, as the services take it."""
    return Tab(session(), server())
