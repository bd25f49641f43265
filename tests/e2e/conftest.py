"""Fixtures for the real-browser tests: a `streamlit run app.py` server and headless Chromium.

Skipped when /usr/bin/chromium or the playwright package is missing (a developer
machine without them); `.ci/run` installs Chromium, so CI runs them.
"""
import csv
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from scale import patience

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# Screenshots go to the ignored test-artifacts/screenshots/, so a test run leaves the working tree
# clean; `make screenshots` (ARTIFACT_LENS_SCREENSHOTS=docs) refreshes docs/screenshots/ (the user guide's).
SCREENSHOTS = (ROOT / "docs" / "screenshots" if os.environ.get("ARTIFACT_LENS_SCREENSHOTS") == "docs"
               else ROOT / "test-artifacts" / "screenshots")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def cue_pairs(folder: Path, name: str, n: int, premise, cues, labels) -> Path:
    """``folder/name.csv``: n premise/hypothesis/label rows, row i labelled ``labels[i % 3]``, its
    hypothesis carrying the label's cue ``cues[i % 3]`` on three rows in four (a hypothesis-only
    artifact to filter); ``premise(i)`` gives the premise."""
    path = folder / f"{name}.csv"
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(("premise", "hypothesis", "label"))
        for i in range(n):
            j = i % 3
            cue = cues[j] if i % 4 else f"someone {i % 13} waits"
            w.writerow((premise(i), f"Someone {cue} {i % 11}", labels[j]))
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _require_browser() -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (install Debian's chromium package to run the browser tests)")
    pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")


class AppServer:
    """`streamlit run app.py` as a subprocess on a free port with a cache folder of its own,
    restartable on the same port. ``env`` adds settings, ``args`` command-line options;
    browse ``url`` (``host`` names it: sign-in needs the redirect_uri's host). ``command(port)``
    replaces the command line (``artifact-lens ui`` of an installed package), run in ``cwd``."""

    def __init__(self, folder: Path, *, env=None, args=(), host: str = "127.0.0.1", command=None, cwd=ROOT):
        self.folder, self.args, self.command, self.cwd = Path(folder), list(args), command, cwd
        self.port = _free_port()
        self.url = f"http://{host}:{self.port}"
        self.env = dict(os.environ, ARTIFACT_LENS_CACHE=str(self.folder / "cache"), HF_HUB_OFFLINE="1",
                        ARTIFACT_LENS_MAP=os.environ.get("ARTIFACT_LENS_MAP", "pca"),
                        NUMBA_CACHE_DIR=os.environ.get("NUMBA_CACHE_DIR",
                                                       str(Path.home() / ".cache/artifact-lens/numba")))
        self.env.update(env or {})
        self.log_path = self.folder / "streamlit.log"
        self.proc = None

    def start(self, timeout: float = 90) -> "AppServer":
        log = open(self.log_path, "a")
        argv = (self.command(self.port) if self.command else
                [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                 "--server.port", str(self.port), "--server.address", "127.0.0.1",
                 "--browser.gatherUsageStats", "false", *self.args])
        self.proc = subprocess.Popen(argv, cwd=self.cwd, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                if urllib.request.urlopen(f"http://127.0.0.1:{self.port}/_stcore/health", timeout=2).status == 200:
                    return self
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


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    _require_browser()
    app = AppServer(tmp_path_factory.mktemp("app")).start()
    yield app.url
    app.stop()


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
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    pg = context.new_page()
    bound = patience(180) * 1000   # a bound that grows with the load, not a wait
    pg.set_default_timeout(bound)
    expect.set_options(timeout=bound)   # the same bound for expect(...) (its own default is 5 s)
    pg.goto(server)
    yield pg
    context.close()


HH = ROOT.parent / "shared" / "data" / "hh_harmless_pairs.jsonl"
BBQ = ROOT.parent / "shared" / "data" / "bbq_religion.jsonl"
BBQ_AGE = ROOT.parent / "shared" / "data" / "bbq_age.jsonl"


def hh_pairs_app(tmp_path_factory, browser, name: str, pairs: int, **context):
    """A server of its own whose Local path reads a temporary folder holding the first ``pairs``
    pairs of ../shared/data/hh_harmless_pairs.jsonl (skipped where that file is absent), and a page
    on it; yields (page, the file's path)."""
    yield from shared_file_app(tmp_path_factory, browser, name, HH, pairs, **context)


def shared_file_app(tmp_path_factory, browser, name: str, source, rows: int, *, then=None, **context):
    """A server of its own whose Local path reads a temporary folder holding the first ``rows`` rows
    of the shared file ``source`` (and, given ``then``, the first ``rows`` of that shared file after
    them; skipped where one is absent), and a page on it; yields (page, the file's path)."""
    from playwright.sync_api import expect

    for one in (source, then):
        if one is not None and not one.exists():
            pytest.skip(f"../shared/data/{one.name} is not here")
    folder = tmp_path_factory.mktemp(name)
    data = folder / "data"
    data.mkdir()
    path = data / source.name
    path.write_text("".join(line for one in (source, then) if one is not None
                            for line in one.read_text(encoding="utf-8").splitlines(keepends=True)[:rows]),
                    encoding="utf-8")
    app = AppServer(folder, env={"ARTIFACT_LENS_DATA_DIRS": str(data)}).start()
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, **context)
    pg = ctx.new_page()
    bound = patience(180) * 1000   # a bound that grows with the load, not a wait
    pg.set_default_timeout(bound)
    expect.set_options(timeout=bound)
    pg.goto(app.url)
    yield pg, path
    ctx.close()
    app.stop()


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


class TeamApp(AppServer):
    """The app with sign-in configured (an [auth] secrets file of its own) and an owner;
    browse ``url`` (localhost: the redirect_uri's host, or sign-in fails)."""

    def __init__(self, folder: Path, idp_url: str, owner: str):
        # ARTIFACT_LENS_E2E_DB_URL runs the same walk on another database (e.g. PostgreSQL)
        db_url = os.environ.get("ARTIFACT_LENS_E2E_DB_URL") or f"sqlite:///{folder}/team.sqlite"
        super().__init__(folder, host="localhost", env=dict(
            ARTIFACT_LENS_DB_URL=db_url, ARTIFACT_LENS_OWNER=owner, AUTHLIB_INSECURE_TRANSPORT="1"))
        self.idp_url = idp_url
        self.secrets = self.folder / "secrets.toml"
        self.secrets.write_text(
            "[auth]\n"
            f'redirect_uri = "{self.url}/oauth2callback"\n'
            f'cookie_secret = "{os.urandom(16).hex()}"\n'
            'client_id = "artifact-lens-e2e"\n'
            'client_secret = "not-a-secret"\n'
            f'server_metadata_url = "{idp_url}/.well-known/openid-configuration"\n')
        self.args += ["--secrets.files", str(self.secrets)]


@pytest.fixture(scope="module")
def team_app(idp, tmp_path_factory):
    """A shared instance (sign-in through `idp`) whose default workspace ``owner@team.org`` owns."""
    app = TeamApp(tmp_path_factory.mktemp("team_app"), idp, owner=TEAM_USERS[0])
    app.start()
    yield app
    app.stop()
