"""Serve the dashboard (issue 56): the one function that turns ``artifact-lens ui``'s settings into
the Streamlit command line and environment that run it, from a checkout or an installed package
(the image runs ``artifact-lens ui`` too). The dashboard's script is found as a file beside the
library, never imported here: the library does not import the dashboard or Streamlit."""
from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from ..base.errors import InputError
from ..base.settings import VARIABLES, SettingsError, settings_of

__all__ = ["Served", "UI_EXTRA", "dashboard_script", "serve_dashboard", "check_port_free"]

UI_EXTRA = 'pip install "artifact-lens[ui]"'


@dataclass(frozen=True)
class Served:
    """What runs the dashboard: the command line and the environment it runs in."""
    argv: list
    env: dict
    script: Path


def dashboard_script() -> Path:
    """The script Streamlit runs: ``dashboard/app.py`` beside this library (installed: both are under
    ``artifact_lens/``; in a checkout: ``dashboard/`` beside ``core/``)."""
    here = Path(__file__).resolve().parents[1]
    for candidate in (here / "dashboard" / "app.py", here.parent / "dashboard" / "app.py"):
        if candidate.is_file():
            return candidate
    raise InputError(f"the dashboard's files are not installed beside the library ({here}); reinstall with "
                     f"{UI_EXTRA}.")


def _shipped_options(script: Path) -> dict:
    """The dashboard's Streamlit settings (``assets/streamlit-config.toml``, a checkout's
    ``.streamlit/config.toml``), as ``section.option`` -> value: passed as flags, since an installed
    package's server runs in a folder that holds no config (this machine only, by default, among them)."""
    import tomllib

    table = tomllib.loads((script.parents[1] / "assets" / "streamlit-config.toml").read_text(encoding="utf-8"))
    return {f"{section}.{name}": value for section, options in table.items() for name, value in options.items()}


def _check_secrets(path: Path) -> None:
    """A secrets file the server can read: a file of valid TOML (Streamlit only logs "Failed to load
    secrets" and serves on, without sign-in or the team database it names)."""
    import tomllib

    if not path.is_file():
        raise InputError(f"--secrets {str(path)!r} is not a file; give the secrets TOML file (`artifact-lens docs hosting`).")
    try:
        tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"--secrets {str(path)!r} is not valid TOML ({exc}); fix it (`artifact-lens docs hosting` shows one).") from None


def check_port_free(port: int, address: Optional[str] = None) -> None:
    """InputError when ``port`` is taken on ``address`` (default the shipped one, this machine): said
    before Streamlit starts, with the fix, not as Streamlit's exit status 1 (the gate's "failed")."""
    import socket

    host = address or "127.0.0.1"
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise InputError(f"--address {host!r} is not an address of this machine ({exc}); give one, e.g. 127.0.0.1.") \
            from None
    family, _, _, _, where = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # as the server binds: a closed one's
        try:                                                             # lingering connections do not count
            probe.bind(where)
        except OSError:
            raise InputError(f"port {port} is in use on {host}: another server listens there. Stop it, or choose "
                             "another port with --port.") from None


def serve_dashboard(*, port: int = 8501, address: Optional[str] = None, headless: bool = False,
                    data_dirs: tuple = (), secrets: Optional[str] = None, owner: Optional[str] = None,
                    cache_dir: Optional[str] = None, environ: Optional[dict] = None) -> Served:
    """The command and environment that serve the dashboard on ``port``. ``data_dirs``: the folders
    the Data page may read by path (``ARTIFACT_LENS_DATA_DIRS``); ``secrets``: a secrets TOML file
    (sign-in, the team database), as hosted mode reads it; ``owner``: the workspace owner's address
    (``--owner`` of the app). The settings the server would read are checked here first, so a wrong
    one is an error before anything starts."""
    if importlib.util.find_spec("streamlit") is None:
        raise InputError(f"the dashboard needs Streamlit, which is not installed in this Python; run {UI_EXTRA}.")
    env = dict(os.environ if environ is None else environ)
    for folder in data_dirs:
        if not Path(folder).expanduser().is_dir():
            raise InputError(f"--data-dir {folder!r} is not a folder; give an existing folder.")
    if data_dirs:
        env[VARIABLES["data_dirs"]] = os.pathsep.join(str(Path(d).expanduser().resolve()) for d in data_dirs)
    if cache_dir:
        env[VARIABLES["cache"]] = str(Path(cache_dir).expanduser().resolve())
    if secrets is not None:
        _check_secrets(Path(secrets).expanduser())
    try:
        read = settings_of(env)
    except SettingsError as exc:
        raise InputError(f"the server's settings cannot be used: {exc}") from None
    if env.get(VARIABLES["data_dirs"], "").strip():
        missing = [str(d) for d in read.data_dirs if not d.is_dir()]
        if missing:
            raise InputError(f"{VARIABLES['data_dirs']} names {', '.join(missing)}, which is not a folder; name existing "
                             "folders (separated by " + repr(os.pathsep) + "), or give --data-dir.")
    script = dashboard_script()
    options = _shipped_options(script) | {"server.port": port}
    if address:
        options["server.address"] = address
    if headless:
        options["server.headless"] = True
    argv = [sys.executable, "-m", "streamlit", "run", str(script)]
    for name, value in options.items():
        argv += [f"--{name}", str(value).lower() if isinstance(value, bool) else str(value)]
    if secrets is not None:
        argv += ["--secrets.files", str(Path(secrets).expanduser().resolve())]
    if owner:
        argv += ["--", "--owner", owner]
    return Served(argv, env, script)
