"""Examples: retained and removed examples (stacked or side by side) with search, filters, sorting and
pages; one example in full (fields, p̃ per phase, features with z, nearest neighbours) and its review."""
import streamlit as st

from artifact_lens.results.tables import HIT
from artifact_lens.dashboard.widgets import quality_panel
from artifact_lens.dashboard.widgets.example_browser import browser
from artifact_lens.dashboard.widgets.page import require_run, start_page

tab = start_page("Examples", caption=(
    "Text from the dataset is shown as plain text; HTML or Markdown in it is never rendered. Search hits are "
    f"marked {HIT[0]}like this{HIT[1]} in the match column."))
run, ds = require_run(tab)
quality = quality_panel.offer(tab, "ex_quality", "A quality light per example (DQI)")


@st.fragment
def browsers():
    # a fragment: a search, a page or a pick redraws the browser alone, not the page around it
    browser(tab, run, ds, quality)


browsers()
