"""Small helpers shared by the AppTests (pages by file, metrics, dataframes by their columns)."""


def page(name):
    return f"pages/{name}.py"


def metrics(at):
    return {m.label: m.value for m in at.metric}


def no_exceptions(at):
    assert not at.exception, [e.value for e in at.exception]


def frame_with(at, *columns):
    """The first dataframe on the page that has these columns (dataframes have no widget key)."""
    for element in at.dataframe:
        value = element.value
        if set(columns) <= set(value.columns) | {value.index.name}:
            return value
    raise AssertionError(f"no dataframe with columns {columns}")


# ---------------------------------------------------------------- the whole app as one browser tab
import time  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
#: an [auth] section: the app is a shared instance (AppTest.user plays the identity provider)
AUTH = {"redirect_uri": "http://localhost:8501/oauth2callback", "cookie_secret": "x" * 32, "client_id": "c",
        "client_secret": "s", "server_metadata_url": "http://localhost:9/.well-known/openid-configuration"}
OWNER = "owner@team.org"   # $ARTIFACT_LENS_OWNER in the fresh_server fixture


def app(email=None, *, signed_out: bool = False):
    """An AppTest of app.py: single-user (no arguments), signed in as ``email``, or on a shared
    instance but signed out (``signed_out=True``)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=180)
    if email or signed_out:
        at.secrets["auth"] = dict(AUTH)
        at.user = {"is_logged_in": True, "email": email} if email else {"is_logged_in": False}
    return at


def texts(at) -> str:
    """Every message, caption, text and title on the page, joined."""
    return " ".join(str(e.value) for kind in ("markdown", "text", "caption", "info", "warning", "error", "title")
                    for e in getattr(at, kind))


def wait_for_jobs(at, timeout=120):
    """Let the server's background jobs finish, then rerun twice (the job panel applies a
    finished run and reruns the app)."""
    from artifact_lens.dashboard.process.shared import server

    from scale import patience

    deadline = time.time() + patience(timeout)   # a bound that grows with the load
    while server().jobs.running() and time.time() < deadline:
        time.sleep(0.2)
    assert not server().jobs.running(), "background job did not finish"
    at.run()
    at.run()
    no_exceptions(at)


def open_tab(at, name: str, key: str = "rv_tabs"):
    """Open the tab ``name`` of a page whose tabs run lazily (only the open tab's content runs, as
    when a person clicks it), and rerun."""
    at.session_state[key] = name
    return at.run()


def knobs(at, name: str) -> list:
    """The live τ (``w_tau``) or n (``w_target``) sliders drawn now: their key gains a generation
    (``w_tau_2``) each time the session sets them from outside the sliders, e.g. on opening
    another run at its own values."""
    import re

    return [s for s in at.slider if re.fullmatch(rf"{name}(_[0-9]+)?", s.key or "")]
