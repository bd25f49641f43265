"""The script Streamlit runs: ``streamlit run app.py`` in a checkout (app.py calls `main`), or
``artifact-lens ui`` from an installed package (it runs this file). It sets up the page, refuses a
server configuration it cannot use, and registers the pages of `dashboard.services.navigation.PAGES`
by absolute path, so the pages are found wherever the package lies."""
import sys

import streamlit as st

from artifact_lens.dashboard.services.navigation import PAGES, asset, configuration_error, page_file


def main() -> None:
    st.set_page_config(page_title="Artifact Lens", page_icon=asset("logo.svg"), layout="wide")
    if (problem := configuration_error(sys.argv[1:])) is not None:   # before any page reads a setting or the store
        st.error(problem)
        st.stop()
    nav = st.navigation([st.Page(page_file(path), title=title, icon=icon, default=i == 0)
                         for i, (path, title, icon) in enumerate(PAGES)], expanded=True)   # all 13, no "View more"
    nav.run()


if __name__ == "__main__":   # Streamlit runs its main script as __main__, on every rerun
    main()
