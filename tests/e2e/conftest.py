"""Fixtures for the real-browser tests: a `streamlit run app.py` server and headless Chromium.

Skipped when /usr/bin/chromium or the playwright package is missing (a developer
machine without them); `.ci/run` installs Chromium, so CI runs them.
"""
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# Screenshots go to the ignored test-artifacts/screenshots/, so a test run leaves the working tree
# clean; `make screenshots` (ARTIFACT_LENS_SCREENSHOTS=docs) refreshes the README's docs/screenshots/.
SCREENSHOTS = (ROOT / "docs" / "screenshots" if os.environ.get("ARTIFACT_LENS_SCREENSHOTS") == "docs"
               else ROOT / "test-artifacts" / "screenshots")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _require_browser() -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (install Debian's chromium package to run the browser tests)")
    pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (install Debian's chromium package to run the browser tests)")
    pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    port = _free_port()
    cache = tmp_path_factory.mktemp("cache")
    env = dict(os.environ, ARTIFACT_LENS_CACHE=str(cache), HF_HUB_OFFLINE="1",
               ARTIFACT_LENS_MAP=os.environ.get("ARTIFACT_LENS_MAP", "pca"),
               NUMBA_CACHE_DIR=os.environ.get("NUMBA_CACHE_DIR", str(Path.home() / ".cache/artifact-lens/numba")))
    log = open(cache / "streamlit.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(url + "/_stcore/health", timeout=2).status == 200:
                break
        except OSError:
            time.sleep(0.5)
        if proc.poll() is not None:
            raise RuntimeError("streamlit exited: " + (cache / "streamlit.log").read_text()[-2000:])
    else:
        proc.terminate()
        raise RuntimeError("streamlit did not start in 90 s")
    yield url
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


@pytest.fixture(scope="session")
def browser():
    _require_browser()   # before launching: skip, not error, without Chromium (session fixtures come first)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    pg.goto(server)
    yield pg
    context.close()


@pytest.fixture(scope="session")
def shots():
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


# ---------------------------------------------------------------- a shared (signed-in) instance
# tests/e2e/test_auth.py: an OIDC provider in this process and the app with an [auth] secrets
# file of its own (never the repository's .streamlit/: the other tests run single-user).

TEAM_USERS = ("owner@team.org", "ann1@team.org", "ann2@team.org")


@pytest.fixture(scope="module")
def idp():
    """oidc-provider-mock on a free localhost port, with one-click users `TEAM_USERS`
    (each with an ``email`` claim); yields its base URL."""
    _require_browser()
    import warnings

    import authlib.deprecate   # noqa: F401  (it adds an "always" filter for its warnings when imported)

    with warnings.catch_warnings():   # "authlib.jose module is deprecated", from the provider's own import
        warnings.simplefilter("ignore", DeprecationWarning)
        from oidc_provider_mock import User, run_server_in_thread

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AUTHLIB_INSECURE_TRANSPORT", "1")   # the provider speaks plain http on localhost
        users = [User(sub=email, claims={"email": email}) for email in TEAM_USERS]
        with run_server_in_thread(port=0, user_claims=users) as srv:
            yield f"http://localhost:{srv.server_port}"


class TeamApp:
    """`streamlit run app.py` with sign-in configured, restartable on the same port, team
    database and cache. Browse ``url`` (localhost: the redirect_uri's host, or sign-in fails)."""

    def __init__(self, folder: Path, idp_url: str, owner: str):
        self.folder, self.idp_url = folder, idp_url
        self.port = _free_port()
        self.url = f"http://localhost:{self.port}"
        self.secrets = folder / "secrets.toml"
        self.secrets.write_text(
            "[auth]\n"
            f'redirect_uri = "{self.url}/oauth2callback"\n'
            f'cookie_secret = "{os.urandom(16).hex()}"\n'
            'client_id = "artifact-lens-e2e"\n'
            'client_secret = "not-a-secret"\n'
            f'server_metadata_url = "{idp_url}/.well-known/openid-configuration"\n')
        # ARTIFACT_LENS_E2E_DB_URL runs the same walk on another database (e.g. PostgreSQL)
        db_url = os.environ.get("ARTIFACT_LENS_E2E_DB_URL") or f"sqlite:///{folder}/team.sqlite"
        self.env = dict(os.environ, ARTIFACT_LENS_CACHE=str(folder / "cache"), HF_HUB_OFFLINE="1",
                        ARTIFACT_LENS_DB_URL=db_url, ARTIFACT_LENS_OWNER=owner,
                        ARTIFACT_LENS_MAP="pca", AUTHLIB_INSECURE_TRANSPORT="1",
                        NUMBA_CACHE_DIR=os.environ.get("NUMBA_CACHE_DIR",
                                                       str(Path.home() / ".cache/artifact-lens/numba")))
        self.log_path = folder / "streamlit.log"
        self.proc = None

    def start(self, timeout: float = 90) -> None:
        log = open(self.log_path, "a")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
             "--server.port", str(self.port), "--server.address", "127.0.0.1",
             "--browser.gatherUsageStats", "false", "--secrets.files", str(self.secrets)],
            cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                if urllib.request.urlopen(f"http://127.0.0.1:{self.port}/_stcore/health", timeout=2).status == 200:
                    return
            except OSError:
                time.sleep(0.3)
            if self.proc.poll() is not None:
                raise RuntimeError("streamlit exited: " + self.log_tail())
        self.stop()
        raise RuntimeError(f"streamlit did not start in {timeout:.0f} s: " + self.log_tail())

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def log_tail(self, chars: int = 3000) -> str:
        return self.log_path.read_text()[-chars:] if self.log_path.exists() else ""


@pytest.fixture(scope="module")
def team_app(idp, tmp_path_factory):
    """A shared instance (sign-in through `idp`) whose default workspace ``owner@team.org`` owns."""
    app = TeamApp(tmp_path_factory.mktemp("team_app"), idp, owner=TEAM_USERS[0])
    app.start()
    yield app
    app.stop()
