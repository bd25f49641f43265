"""The process's one `Server`, as Streamlit keeps it (``st.cache_resource``): every session of a
``streamlit run`` shares it, and it closes its job backend when Streamlit releases it.
Pages reach it only inside their `dashboard.state.tab.Tab` (`dashboard.state.browser.tab`)."""
from __future__ import annotations

import streamlit as st

from artifact_lens.dashboard.process.server import Server

__all__ = ["server"]


@st.cache_resource(show_spinner=False, on_release=lambda srv: srv.jobs.backend.close())
def server() -> Server:
    return Server()
