"""Who a request comes from, as Streamlit knows it: whether sign-in is configured (an ``[auth]``
section in ``.streamlit/secrets.toml``), what it lacks, whether the person is signed in and with
which e-mail, and the app's own command line (``streamlit run app.py -- --owner EMAIL``), handed
in by ``app.py``. State only: what the member may do is `dashboard.services.team`'s question."""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Optional

import streamlit as st

from core.base.errors import InputError
from core.base.settings import AUTH_KEYS, owner_address

log = logging.getLogger("artifact_lens.auth")

__all__ = ["auth_configured", "auth_missing", "signed_in_email", "log_in", "log_out", "set_app_arguments", "app_owner"]

#: the ``--owner`` of this process's ``streamlit run app.py -- --owner EMAIL``, set by app.py
_APP_OWNER: dict = {}


def auth_configured() -> bool:
    """Whether ``.streamlit/secrets.toml`` has an ``[auth]`` section. A secrets file that
    exists but cannot be read raises InputError: a broken configuration must not open a
    shared instance single-user to everyone."""
    try:
        return "auth" in st.secrets
    except Exception as exc:  # noqa: BLE001  (streamlit says "not found" for both cases)
        files = [Path(f).expanduser() for f in (st.get_option("secrets.files") or [])]
        broken = [f for f in files if f.exists()]
        if broken:
            log.error("cannot read the secrets file %s: %s", broken[0], exc)
            raise InputError(f"the secrets file {broken[0].name} cannot be read (the reason is in the server log); "
                             "an administrator fixes it (see docs/hosting.md) and restarts "
                             "the server.") from None
        return False


def auth_missing() -> list:
    """The keys `AUTH_KEYS` that ``[auth]`` lacks (call only when `auth_configured`)."""
    return [k for k in AUTH_KEYS if k not in st.secrets["auth"]]


def signed_in_email() -> Optional[str]:
    """None when nobody is signed in; else the e-mail the identity provider sent ("" when none)."""
    if not st.user.is_logged_in:
        return None
    return str(st.user.get("email") or "").strip().lower()


def log_in() -> None:
    st.login()


def log_out() -> None:
    st.logout()


def set_app_arguments(argv: list) -> None:
    """Take the app's own arguments (after ``--``), handed in by ``app.py`` on each of its runs:
    ``--owner EMAIL``. SettingsError when the address is not one."""
    owner = None
    for i, arg in enumerate(argv):
        if arg == "--owner" and i + 1 < len(argv):
            owner = argv[i + 1]
        elif arg.startswith("--owner="):
            owner = arg.split("=", 1)[1]
    _APP_OWNER["owner"] = owner_address(owner, "--owner")


def app_owner() -> Optional[str]:
    """The ``--owner`` the app was started with (None without one, or when app.py did not run)."""
    return _APP_OWNER.get("owner")
