"""Who a request comes from, as Streamlit knows it: whether sign-in is configured (an ``[auth]``
section in ``.streamlit/secrets.toml``), what it lacks, whether the person is signed in and with
which e-mail. State only: what the member may do is `dashboard.services.team`'s question. `current` hands it over as a plain `Identity`."""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Optional

import streamlit as st

from artifact_lens.base.errors import InputError
from artifact_lens.base.settings import AUTH_KEYS
from artifact_lens.dashboard.state.tab import Identity

log = logging.getLogger("artifact_lens.auth")

__all__ = ["auth_configured", "auth_missing", "signed_in_email", "log_in", "log_out", "current"]

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
                             "an administrator fixes it (see the Hosting page of the docs: `artifact-lens docs hosting`) and restarts "
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


def current() -> Identity:
    """What Streamlit knows of the person at this tab, as `dashboard.services.team.resolve` takes it."""
    if not auth_configured():
        return Identity()
    missing = tuple(auth_missing())
    return Identity(auth=True, missing=missing, email=None if missing else signed_in_email())
