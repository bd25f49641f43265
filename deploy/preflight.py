"""The Docker image's entrypoint: check the sign-in settings, then run the command.

The image serves a network (``--server.address 0.0.0.0``). Without an ``[auth]`` section
the app runs single-user, and every visitor would act as the owner; a secrets file that is
missing, unreadable or unparsable looks exactly like that to Streamlit. So before
``artifact-lens ui`` (or ``streamlit run``) this refuses to start unless ``.streamlit/secrets.toml`` (in the working
folder or the home folder, where Streamlit looks) has an ``[auth]`` section with every key
the app needs and no placeholder left from ``deploy/secrets.example.toml``.
``ARTIFACT_LENS_ALLOW_SINGLE_USER=1`` skips the check (a trusted, single-person machine).
Any other command (``docker run IMAGE artifact-lens info ...``) runs unchecked.

On success the command replaces this process (``exec``), so it receives the stop signal
itself.
"""
from __future__ import annotations

import os
import sys
import tomllib
from pathlib import Path

from artifact_lens.base.errors import InputError
from artifact_lens.base.settings import AUTH_KEYS, settings

PLACEHOLDER = "REPLACE"
MIN_COOKIE_SECRET = 32


def secrets_files(argv: list = ()) -> list:
    """Where Streamlit reads secrets.toml, lowest precedence first: the file of ``artifact-lens ui
    --secrets FILE`` when the command names one."""
    argv = list(argv)
    for i, arg in enumerate(argv):
        if arg == "--secrets" and i + 1 < len(argv):
            return [Path(argv[i + 1])]
        if arg.startswith("--secrets="):
            return [Path(arg.split("=", 1)[1])]
    return [Path.home() / ".streamlit" / "secrets.toml", Path.cwd() / ".streamlit" / "secrets.toml"]


def problems(argv: list = ()) -> list:
    """What is wrong with the sign-in settings (empty when sign-in is fully configured)."""
    auth, found = None, []
    for path in secrets_files(argv):
        if not path.exists():
            continue
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            return [f"{path} cannot be read as TOML ({exc}); Streamlit would start without sign-in"]
        found.append(str(path))
        if "auth" in data:
            auth = data["auth"]
    if auth is None:
        where = ", ".join(found) if found else "neither " + " nor ".join(str(p) for p in secrets_files(argv))
        return [f"no [auth] section ({'read ' + where if found else where + ' exists'})"]
    if not isinstance(auth, dict):
        return ["[auth] in secrets.toml is not a table"]
    out = []
    for key in AUTH_KEYS:
        value = auth.get(key)
        if not isinstance(value, str) or not value.strip():
            out.append(f"[auth] {key} is missing or empty")
        elif PLACEHOLDER in value:
            out.append(f"[auth] {key} still holds the example's placeholder")
    redirect = auth.get("redirect_uri")
    if isinstance(redirect, str) and redirect and not (
            redirect.startswith(("http://", "https://")) and redirect.endswith("/oauth2callback")):
        out.append("[auth] redirect_uri must be http(s)://HOST[:PORT]/oauth2callback")
    secret = auth.get("cookie_secret")
    if isinstance(secret, str) and secret and PLACEHOLDER not in secret and len(secret) < MIN_COOKIE_SECRET:
        out.append(f"[auth] cookie_secret is shorter than {MIN_COOKIE_SECRET} characters; generate one with "
                   "python -c \"import secrets; print(secrets.token_hex(32))\"")
    return out


def serves_app(argv: list) -> bool:
    """Whether the command serves the dashboard: ``artifact-lens ui`` (the image's) or ``streamlit run``."""
    name = Path(argv[0]).name if argv else ""
    return (name == "artifact-lens" and argv[1:2] == ["ui"]) or (name == "streamlit" and argv[1:2] == ["run"])


def main(argv: list) -> int:
    if not argv:
        print("preflight: no command to run", file=sys.stderr)
        return 2
    try:
        chosen = settings()   # every ARTIFACT_LENS_* variable, checked once (core/base/settings.py)
    except InputError as exc:
        print(f"preflight: not starting: {exc}", file=sys.stderr)
        return 2
    if serves_app(argv) and not chosen.allow_single_user:
        found = problems(argv)
        if found:
            print("preflight: not starting: sign-in is not configured, and without it every visitor of this "
                  "server would act as its owner.", file=sys.stderr)
            for line in found:
                print(f"  - {line}", file=sys.stderr)
            print("Fix deploy/secrets.toml (from deploy/secrets.example.toml; README \"Hosting for a team\"), "
                  "or set ARTIFACT_LENS_ALLOW_SINGLE_USER=1 to run single-user on a trusted machine.",
                  file=sys.stderr)
            return 2
        if not (chosen.owner or "--owner" in " ".join(argv)):
            print("preflight: ARTIFACT_LENS_OWNER is not set: the first person to sign in to a fresh instance "
                  "becomes its owner.", file=sys.stderr)
    sys.stdout.flush()
    os.execvp(argv[0], argv)
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
