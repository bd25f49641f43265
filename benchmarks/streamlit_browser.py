"""What the browser benchmarks share: a `streamlit run app.py` server on a free port, waited
for until healthy, and a Playwright page driven the way a user drives the dashboard (wait until
the script is idle, read a metric, switch pages)."""
from __future__ import annotations

import re
import socket
import time
import urllib.request

#: headless Chromium without a GPU, network chatter or first-run screens
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(port: int, proc=None, log_name: str = "") -> None:
    """Block until the server on ``port`` answers its health check; raise if ``proc`` exits first."""
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2)
            return
        except OSError:
            if proc is not None and proc.poll() is not None:
                raise RuntimeError("streamlit exited" + (f"; see {log_name}" if log_name else ""))
            time.sleep(0.3)


class Dashboard:
    """A Playwright page on the dashboard. ``settle_ms``: how long a step waits before looking
    for Streamlit's running indicator; ``poll_ms``: how often it looks again."""

    def __init__(self, page, settle_ms: int = 100, poll_ms: int = 25):
        self.page, self.settle_ms, self.poll_ms = page, settle_ms, poll_ms

    def idle(self) -> None:
        self.page.wait_for_timeout(self.settle_ms)
        while self.page.locator('[data-testid="stStatusWidget"]').count():
            self.page.wait_for_timeout(self.poll_ms)

    def metric(self, label: str) -> int:
        box = self.page.locator('[data-testid="stMetric"]').filter(has_text=label).first
        return int(re.sub(r"[^0-9]", "", box.locator('[data-testid="stMetricValue"]').inner_text()))

    def go(self, title: str) -> float:
        """Click ``title`` in the sidebar; seconds until its title is drawn and the script is idle."""
        t = time.perf_counter()
        self.page.locator('[data-testid="stSidebarNav"]').get_by_text(title, exact=True).click()
        self.page.wait_for_selector(f"h1:has-text('{title}')")
        self.idle()
        return round(time.perf_counter() - t, 2)
