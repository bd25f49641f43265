"""A shared link to a page is the first request a freshly started server gets: the page opens
under app.py's navigation (titles in the sidebar, not the pages folder's file names)."""
import pytest

from conftest import AppServer
from steps import wait_idle
from scale import patience  # noqa: E402

pytestmark = pytest.mark.e2e


def test_a_page_link_as_the_first_request_gets_the_apps_navigation(browser, tmp_path):
    app = AppServer(tmp_path).start()
    try:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.set_default_timeout(patience(180) * 1000)   # a bound that grows with the load, not a wait
        page.goto(app.url + "/examples")
        page.wait_for_selector("h1:has-text('Examples')")
        wait_idle(page)
        nav = page.locator('[data-testid="stSidebarNav"]').inner_text()
        assert "Examples" in nav and "Data" in nav          # the titles of dashboard/services/navigation.py
        assert "app" not in nav.split()                     # not the file-based list ("app", "data", ...)
        page.close()
    finally:
        app.stop()
