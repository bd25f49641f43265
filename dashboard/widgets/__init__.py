"""What the pages draw with: what every page does first (`page.start_page`), the sidebar and
sign-in, knobs, the job panel, forms that save a decision (`decision_form`), and each page's longer
panels (`*_panel(s)`, `map_view`). Reads the tab's state and asks services; never computes and
never reaches the store or the server."""
