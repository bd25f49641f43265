"""The hosting files (Dockerfile, .dockerignore, compose.yaml, deploy/) against the project and
against Streamlit: every check fails when a file drifts from what it claims or from the code.

Nothing here builds an image or starts a container (no Docker daemon in CI); the files are
parsed and their claims checked one by one.
"""
import http.server
import json
import os
import re
import shlex
import socket
import subprocess
import sys
import threading
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
AUTH_KEYS = ("redirect_uri", "cookie_secret", "client_id", "client_secret", "server_metadata_url")

# What the hosting config must say, whatever else it holds.
HOSTING_VALUES = {
    "server.headless": True,
    "server.address": "0.0.0.0",
    "server.port": 8501,
    "server.enableXsrfProtection": True,
    "server.enableCORS": True,
    "server.fileWatcherType": "none",
    "server.runOnSave": False,
    "server.maxUploadSize": 200,
    "server.showEmailPrompt": False,
    "browser.gatherUsageStats": False,
    "client.showErrorDetails": "none",
}
# The options docs/hosting.md's "Without Docker" passes as flags, because there the shipped
# .streamlit/config.toml is read instead of deploy/config.toml.
README_FLAGS = {"server.address", "server.port", "server.headless", "server.fileWatcherType"}


def _flatten(table, prefix=""):
    out = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flatten(value, name + "."))
        else:
            out[name] = value
    return out


def _deploy_config():
    return _flatten(tomllib.loads((ROOT / "deploy" / "config.toml").read_text()))


# ---------------------------------------------------------------- deploy/config.toml
def test_every_hosting_option_exists_in_streamlit_and_is_not_deprecated():
    from streamlit import config

    known = config.get_config_options()
    for name in _deploy_config():
        assert name in known, f"deploy/config.toml sets {name}, which Streamlit does not have"
        assert not known[name].deprecated, f"{name} is deprecated in Streamlit"


def test_the_hosting_config_has_the_hosting_values():
    options = _deploy_config()
    for name, value in HOSTING_VALUES.items():
        assert options.get(name) == value, (name, options.get(name))


def test_every_hosting_option_has_a_comment_saying_why():
    lines = (ROOT / "deploy" / "config.toml").read_text().splitlines()
    for i, line in enumerate(lines):
        if re.match(r"^[A-Za-z]\w*\s*=", line):
            assert i > 0 and lines[i - 1].lstrip().startswith("#"), f"no comment above: {line}"


def test_streamlit_reads_the_hosting_config_as_written(tmp_path):
    """Streamlit itself parses the file (as the image places it) and ends with these values."""
    (tmp_path / ".streamlit").mkdir()
    (tmp_path / ".streamlit" / "config.toml").write_text((ROOT / "deploy" / "config.toml").read_text())
    names = sorted(HOSTING_VALUES)
    code = ("import json, streamlit.config as c; c.get_config_options(force_reparse=True); "
            f"print(json.dumps([c.get_option(n) for n in {names!r}]))")
    env = {k: v for k, v in os.environ.items() if not k.startswith("STREAMLIT_")}
    env["HOME"] = str(tmp_path)   # no ~/.streamlit/config.toml of whoever runs the tests
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                         check=True)
    assert dict(zip(names, json.loads(out.stdout.strip().splitlines()[-1]))) == HOSTING_VALUES


def test_outside_docker_only_the_readme_flags_differ_from_the_shipped_config():
    """deploy/config.toml says (and docs/hosting.md's "Without Docker" relies on it) that the
    shipped .streamlit/config.toml has every hosting value except four given as flags."""
    from streamlit import config

    known = config.get_config_options()
    shipped = _flatten(tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text()))
    differ = {name for name, value in _deploy_config().items()
              if shipped.get(name, known[name].default_val) != value}
    assert differ <= README_FLAGS, differ - README_FLAGS
    hosting = (ROOT / "docs" / "hosting.md").read_text()
    for name in README_FLAGS:
        assert f"--{name}" in hosting, f"docs/hosting.md does not pass --{name}"


# ---------------------------------------------------------------- Dockerfile
def _instructions():
    """(INSTRUCTION, arguments) of the Dockerfile, continuation lines joined, comments dropped."""
    out, current = [], ""
    for raw in (ROOT / "Dockerfile").read_text().splitlines():
        line = raw.strip()
        if not current and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):   # a comment inside a continued instruction
            continue
        if line.endswith("\\"):
            current += line[:-1] + " "
            continue
        current += line
        word, _, rest = current.partition(" ")
        out.append((word.upper(), rest.strip()))
        current = ""
    assert not current, "the Dockerfile ends inside a continued line"
    return out


def _all(kind):
    return [args for word, args in _instructions() if word == kind]


def _exec_form(args):
    assert args.startswith("["), f"not in exec form: {args}"
    return json.loads(args)


def _copies():
    """(sources, destination) of each COPY without --from."""
    out = []
    for args in _all("COPY"):
        parts = shlex.split(args)
        if any(p.startswith("--from") for p in parts):
            continue
        parts = [p for p in parts if not p.startswith("--")]
        out.append((parts[:-1], parts[-1]))
    return out


def test_the_base_image_is_python_311_slim():
    assert _all("FROM") == ["python:3.11-slim AS wheel", "python:3.11-slim"]


def test_the_server_runs_as_a_non_root_user_set_before_it_starts():
    words = [w for w, _ in _instructions()]
    users = _all("USER")
    assert users, "no USER: the server would run as root"
    assert users[-1].split(":")[0] not in ("root", "0"), users[-1]
    assert words.index("USER") < words.index("CMD")
    name = users[-1].split(":")[0]
    assert any(name in args and ("useradd" in args or "adduser" in args) for args in _all("RUN")), \
        f"user {name} is never created"


def test_the_healthcheck_asks_streamlits_health_endpoint_with_python():
    (check,) = _all("HEALTHCHECK")
    assert "/_stcore/health" in check and "8501" in check
    assert "curl" not in check and "wget" not in check   # neither is in the slim image


def _health_command():
    check = _all("HEALTHCHECK")[0]
    return _exec_form(check[check.index("CMD") + 3:].strip())


@pytest.fixture
def health_server():
    class Health(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            ok = self.path == "/_stcore/health"
            self.send_response(200 if ok else 404)
            self.end_headers()
            self.wfile.write(b"ok" if ok else b"no")

        def log_message(self, *args):
            pass

    httpd = http.server.HTTPServer(("127.0.0.1", 0), Health)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield httpd.server_address[1]
    httpd.shutdown()


def test_the_healthcheck_command_passes_on_a_healthy_server_and_fails_on_none(health_server):
    cmd = _health_command()
    assert cmd[0] == "python"
    cmd = [sys.executable] + [c.replace("localhost:8501", f"127.0.0.1:{health_server}") for c in cmd[1:]]
    assert subprocess.run(cmd, capture_output=True, timeout=30).returncode == 0
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    cmd = [sys.executable] + [c.replace("localhost:8501", f"127.0.0.1:{closed}") for c in _health_command()[1:]]
    assert subprocess.run(cmd, capture_output=True, timeout=30).returncode != 0


def test_the_image_serves_the_app_on_every_interface_on_8501():
    assert _all("EXPOSE") == ["8501"]
    assert _all("STOPSIGNAL") == ["SIGTERM"]
    cmd = _exec_form(_all("CMD")[-1])
    assert cmd[:2] == ["artifact-lens", "ui"] and "--headless" in cmd
    flags = dict(zip(cmd[2::2], cmd[3::2])) | dict(zip(cmd[3::2], cmd[4::2]))
    assert flags.get("--address") == "0.0.0.0" and flags.get("--port") == "8501"
    entry = _exec_form(_all("ENTRYPOINT")[-1])
    assert entry[-1] == "/app/deploy/preflight.py"


def test_the_hosting_config_becomes_the_apps_streamlit_config():
    workdir = _all("WORKDIR")[-1]
    for sources, dest in _copies():
        if sources == ["deploy/config.toml"]:
            full = dest if dest.startswith("/") else f"{workdir.rstrip('/')}/{dest}"
            assert full == "/app/.streamlit/config.toml"
            break
    else:
        pytest.fail("deploy/config.toml is not copied")
    assert workdir == "/app"


def test_the_wheel_is_installed_with_the_ui_and_postgres_extras():
    assert any(re.search(r"pip install [^&]*artifact_lens-\*\.whl\)\[ui,postgres\]", args) for args in _all("RUN"))


def _dockerignore():
    patterns = []
    for line in (ROOT / ".dockerignore").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            patterns.append(line)
    return patterns


def _ignore_regex(pattern):
    pattern = pattern.strip("/")
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out + r"\Z")


def _excluded(path):
    """Whether .dockerignore keeps ``path`` (relative, '/'-separated) out of the build
    context: the last pattern that matches the path or one of its parent folders wins."""
    parts = path.split("/")
    candidates = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    excluded = False
    for pattern in _dockerignore():
        negate = pattern.startswith("!")
        rx = _ignore_regex(pattern[1:] if negate else pattern)
        if any(rx.match(c) for c in candidates):
            excluded = not negate
    return excluded


def _tracked_files_under(folder):
    return [p.relative_to(ROOT).as_posix() for p in (ROOT / folder).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts]


def test_every_copied_file_exists_and_reaches_the_build_context():
    for sources, _ in _copies():
        for src in sources:
            path = ROOT / src
            assert path.exists(), f"the Dockerfile copies {src}, which is not in the repository"
            files = _tracked_files_under(src) if path.is_dir() else [src]
            assert files, f"{src} is empty"
            for f in files:
                assert not _excluded(f), f".dockerignore keeps {f} (copied by the Dockerfile) out of the image"


def test_local_secrets_and_state_never_reach_the_build_context():
    for path in (".streamlit/secrets.toml", "deploy/secrets.toml", ".env", "data/x.csv", ".git/config",
                 "core/__pycache__/x.pyc", "tests/conftest.py", ".cache/artifact-lens/team.sqlite"):
        assert _excluded(path), f"{path} would be sent to the image build"


def test_the_image_holds_every_installed_package_and_the_app():
    """Drift check: every folder pyproject.toml installs (the library, the dashboard, its pages and
    assets) is copied into the wheel's stage before the wheel is built, and the served stage gets
    the wheel alone: no source, so the image runs what pip installs."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    setup = project["tool"]["setuptools"]
    folders = set(setup["package-dir"].values())
    words = [(w, a) for w, a in _instructions() if w in ("FROM", "COPY", "RUN")]
    served = max(i for i, (w, _) in enumerate(words) if w == "FROM")
    build = next(i for i, (w, a) in enumerate(words) if w == "RUN" and "pip wheel" in a)
    assert build < served
    before = {s.rstrip("/") for w, a in words[:build] if w == "COPY" for s in shlex.split(a)[:-1]}
    assert folders | {"pyproject.toml", "README.md"} <= before, folders - before
    copied_after = {s.rstrip("/") for w, a in words[served:] if w == "COPY" and "--from" not in a
                    for s in shlex.split(a)[:-1]}
    assert copied_after == {"deploy/config.toml", "deploy/preflight.py"}, copied_after
    assert any(w == "COPY" and a.startswith("--from=wheel") for w, a in words[served:])


def test_the_state_folder_is_a_volume_owned_by_the_server_user():
    env = " ".join(_all("ENV"))
    cache = re.search(r"ARTIFACT_LENS_CACHE=(\S+)", env).group(1)
    data = re.search(r"ARTIFACT_LENS_DATA_DIRS=(\S+)", env).group(1)
    volumes = _exec_form(_all("VOLUME")[-1])
    assert cache in volumes and data in volumes
    user = _all("USER")[-1].split(":")[0]
    assert any("chown" in a and user in a and cache in a for a in _all("RUN"))
    assert "HF_HUB_OFFLINE=1" not in env, "HF_HUB_OFFLINE must not be forced in the image"


# ---------------------------------------------------------------- compose.yaml
@pytest.fixture(scope="module")
def compose():
    yaml = pytest.importorskip("yaml")
    return yaml.safe_load((ROOT / "compose.yaml").read_text())


def _env(service):
    env = service.get("environment", {})
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return env


def test_the_database_is_postgres_16_with_a_volume_and_a_healthcheck(compose):
    db = compose["services"]["db"]
    assert db["image"].startswith("postgres:16")
    test = db["healthcheck"]["test"]
    test = " ".join(test) if isinstance(test, list) else test
    assert "pg_isready" in test
    env = _env(db)
    assert "${" in str(env.get("POSTGRES_PASSWORD") or env.get("POSTGRES_PASSWORD_FILE")), \
        "the database password must come from the environment or a secret, not the file"
    named = [v.split(":")[0] for v in db["volumes"] if isinstance(v, str)]
    assert any(n in (compose.get("volumes") or {}) for n in named), "the database has no named volume"
    assert "ports" not in db, "the database should not be published"


def test_the_app_points_at_the_db_service_with_its_user_and_password(compose):
    app, db = compose["services"]["app"], compose["services"]["db"]
    assert app["build"] in (".", {"context": "."}) or app["build"].get("context") == "."
    assert app["depends_on"]["db"]["condition"] == "service_healthy"
    url = _env(app)["ARTIFACT_LENS_DB_URL"]
    m = re.fullmatch(r"postgresql\+psycopg://([^:]+):([^@]+)@db:5432/(\w+)", url)
    assert m, url
    user, password, database = m.groups()
    db_env = _env(db)
    assert user == db_env["POSTGRES_USER"] and database == db_env["POSTGRES_DB"]
    assert password == "${" + re.match(r"\$\{(\w+)", db_env["POSTGRES_PASSWORD"]).group(1) + "}"
    assert f"-U {user}" in " ".join(db["healthcheck"]["test"]) and database in " ".join(db["healthcheck"]["test"])


def test_the_app_mounts_secrets_read_only_and_keeps_state_in_volumes(compose):
    app = compose["services"]["app"]
    mounts = []
    for v in app["volumes"]:
        if isinstance(v, str):
            parts = v.split(":")
            mounts.append({"source": parts[0], "target": parts[1], "read_only": "ro" in parts[2:]})
        else:
            mounts.append(v)
    by_target = {m["target"]: m for m in mounts}
    secrets = by_target["/app/.streamlit/secrets.toml"]
    assert secrets["source"] == "./deploy/secrets.toml" and secrets["read_only"] is True
    env = " ".join(_all("ENV"))
    cache = re.search(r"ARTIFACT_LENS_CACHE=(\S+)", env).group(1)
    data = re.search(r"ARTIFACT_LENS_DATA_DIRS=(\S+)", env).group(1)
    assert by_target[cache]["source"] in (compose.get("volumes") or {}), "team-files need a named volume"
    assert data in by_target and by_target[data]["read_only"]
    assert any(str(p).endswith("8501:8501") for p in app["ports"])
    assert "secrets.toml" in (ROOT / "deploy" / ".gitignore").read_text().split(), "deploy/secrets.toml not ignored"


def test_every_variable_compose_reads_is_in_the_env_example(compose):
    text = (ROOT / "compose.yaml").read_text()
    used = set(re.findall(r"\$\{(\w+)", text))
    example = (ROOT / "deploy" / "env.example").read_text()
    for name in used:
        assert re.search(rf"^#?\s*{name}=", example, re.M), f"{name} is not in deploy/env.example"


# ---------------------------------------------------------------- secrets and the entrypoint check
def test_the_secrets_example_has_every_auth_key():
    auth = tomllib.loads((ROOT / "deploy" / "secrets.example.toml").read_text())["auth"]
    assert set(AUTH_KEYS) <= set(auth)
    assert auth["redirect_uri"].endswith("/oauth2callback")
    assert "secrets.token_hex(32)" in (ROOT / "deploy" / "secrets.example.toml").read_text()


def test_the_app_and_the_docs_ask_for_the_same_auth_keys():
    team = ROOT / "dashboard" / "services" / "team.py"
    if team.exists():
        listed = re.search(r"for k in \(([^)]*)\)", team.read_text())
        if listed:
            assert set(re.findall(r"\"(\w+)\"", listed.group(1))) == set(AUTH_KEYS)
    section = (ROOT / "docs" / "hosting.md").read_text()
    for key in AUTH_KEYS:
        assert f"{key} =" in section


def _preflight(tmp_path, secrets, extra_env=None, argv=("streamlit", "run", "app.py")):
    """Run deploy/preflight.py in a fake /app with ``secrets`` (None: no file); the command it
    would exec is replaced by a harmless one when the check passes."""
    work = tmp_path / "app"
    (work / ".streamlit").mkdir(parents=True, exist_ok=True)
    if secrets is not None:
        (work / ".streamlit" / "secrets.toml").write_text(secrets)
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir(exist_ok=True)
    stub = fake_bin / "streamlit"
    stub.write_text("#!/bin/sh\necho started \"$@\"\n")
    stub.chmod(0o755)
    env = dict(os.environ, HOME=str(tmp_path / "home"), PATH=f"{fake_bin}{os.pathsep}{os.environ['PATH']}")
    env.pop("ARTIFACT_LENS_ALLOW_SINGLE_USER", None)
    env.update(extra_env or {})
    return subprocess.run([sys.executable, str(ROOT / "deploy" / "preflight.py"), *argv], cwd=work, env=env,
                          capture_output=True, text=True, timeout=60)


FILLED = """[auth]
redirect_uri = "http://lens.example.org:8501/oauth2callback"
cookie_secret = "0123456789abcdef0123456789abcdef0123456789abcdef"
client_id = "abc"
client_secret = "def"
server_metadata_url = "https://accounts.google.com/.well-known/openid-configuration"
"""


def test_the_image_refuses_to_serve_without_sign_in(tmp_path):
    out = _preflight(tmp_path, None)
    assert out.returncode == 2 and "started" not in out.stdout and "no [auth] section" in out.stderr


def test_the_image_refuses_the_example_as_it_is(tmp_path):
    out = _preflight(tmp_path, (ROOT / "deploy" / "secrets.example.toml").read_text())
    assert out.returncode == 2 and "placeholder" in out.stderr


def test_the_image_refuses_a_broken_or_incomplete_secrets_file(tmp_path):
    out = _preflight(tmp_path, "[auth\nredirect_uri = 1")
    assert out.returncode == 2 and "TOML" in out.stderr
    out = _preflight(tmp_path, FILLED.replace('client_id = "abc"\n', "").replace("0123456789abcdef0123", "x"))
    assert out.returncode == 2 and "client_id" in out.stderr and "cookie_secret" in out.stderr


def test_the_image_starts_with_sign_in_configured(tmp_path):
    out = _preflight(tmp_path, FILLED, {"ARTIFACT_LENS_OWNER": "you@example.org"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "started run app.py" and out.stderr == ""


def test_the_images_command_is_checked_and_its_secrets_file_read(tmp_path):
    """``artifact-lens ui`` (the image's CMD) is checked like ``streamlit run``; with ``--secrets FILE``
    that file is the one read."""
    cmd = ("artifact-lens", "ui", "--headless")
    (tmp_path / "bin").mkdir()
    stub = tmp_path / "bin" / "artifact-lens"
    stub.write_text("#!/bin/sh\necho started \"$@\"\n")
    stub.chmod(0o755)
    out = _preflight(tmp_path, None, argv=cmd)
    assert out.returncode == 2 and "no [auth] section" in out.stderr and "started" not in out.stdout
    (tmp_path / "s.toml").write_text(FILLED)
    out = _preflight(tmp_path, None, {"ARTIFACT_LENS_OWNER": "you@example.org"}, argv=(*cmd, "--secrets", str(tmp_path / "s.toml")))
    assert out.returncode == 0 and out.stdout.startswith("started ui --headless --secrets"), out.stderr


def test_single_user_is_an_explicit_choice_and_other_commands_run_unchecked(tmp_path):
    out = _preflight(tmp_path, None, {"ARTIFACT_LENS_ALLOW_SINGLE_USER": "1"})
    assert out.returncode == 0 and "started" in out.stdout
    out = _preflight(tmp_path, None, argv=("echo", "hello"))
    assert out.returncode == 0 and out.stdout.strip() == "hello"


# ---------------------------------------------------------------- docs/hosting.md
def test_the_hosting_docs_document_every_setting_and_role():
    section = (ROOT / "docs" / "hosting.md").read_text()
    for name in ("ARTIFACT_LENS_DB_URL", "ARTIFACT_LENS_OWNER", "--owner", "ARTIFACT_LENS_DATA_DIRS",
                 "ARTIFACT_LENS_CACHE", "ARTIFACT_LENS_CACHE_MB", "ARTIFACT_LENS_MAP", "HF_HUB_OFFLINE",
                 "team-files", "/_stcore/health", "pg_dump", "pg_restore", ".backup", "oauth2callback"):
        assert name in section, name
    from artifact_lens.team.store import ROLES
    for role in ROLES:
        assert f"| {role} |" in section, role
    # every environment variable the code reads is in the settings table
    code_vars = set()
    for folder in ("core", "dashboard"):
        for path in (ROOT / folder).rglob("*.py"):
            code_vars |= set(re.findall(r"ARTIFACT_LENS_[A-Z_]+", path.read_text()))
    for name in code_vars:
        assert f"`{name}`" in section, f"{name} is read by the code but not in docs/hosting.md's settings"


def test_the_hosting_docs_promise_the_stop_time_the_settings_hold(monkeypatch):
    """The docs' "Stopping" paragraph names the backstop the code arms (issue 53, item 14: it promised
    5 s while the timer's default was 8 s), and no shorter bound."""
    from artifact_lens.base.settings import settings

    monkeypatch.delenv("ARTIFACT_LENS_STOP_DEADLINE", raising=False)
    default = settings().stop_deadline
    text = (ROOT / "docs" / "hosting.md").read_text()
    stopping = text[text.index("- **Stopping**"):text.index("- **The database**")]
    assert f"`ARTIFACT_LENS_STOP_DEADLINE`\n  ({default:g} s by default)" in stopping
    assert not re.search(r"within \d+(\.\d+)? s", stopping), "a bound other than the deadline"
