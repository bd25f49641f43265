"""Who is using this tab, in which workspace, with which role; sign-in when it is configured.

With an ``[auth]`` section in ``.streamlit/secrets.toml`` the dashboard is a shared
instance: nothing is shown before sign-in (`st.login`, OIDC), and every action asks the
team store whether the member's role allows it (`require`). Without one it runs
single-user: the local user owns the default workspace, and the sidebar says so.
"""
from __future__ import annotations

import logging
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import streamlit as st

from core.base.errors import InputError
from core.team.store import LOCAL_USER, LOCAL_WORKSPACE, PERMISSIONS
from core.base.settings import settings
from core.base.keys import digest
from dashboard.formatting import plain
from dashboard.server import server
from dashboard.session import session

log = logging.getLogger("artifact_lens.auth")

__all__ = ["Member", "auth_configured", "owner_setting", "sign_in", "member", "require", "scope", "create_workspace",
           "seed_of"]


@dataclass(frozen=True)
class Member:
    """The person behind this tab and their standing in the chosen workspace."""

    email: str
    workspace_id: int
    workspace: str
    role: str
    signed_in: bool          # False in single-user mode

    def can(self, action: str) -> bool:
        return self.role in PERMISSIONS[action]


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


def owner_setting() -> Optional[str]:
    """``--owner EMAIL`` after ``streamlit run app.py --``, else ``$ARTIFACT_LENS_OWNER``."""
    argv = sys.argv[1:]
    for i, arg in enumerate(argv):
        if arg == "--owner" and i + 1 < len(argv):
            return argv[i + 1].strip().lower() or None
        if arg.startswith("--owner="):
            return arg.split("=", 1)[1].strip().lower() or None
    return settings().owner


def sign_in() -> Member:
    """The member of this tab; stops the page with a sign-in screen (or the reason they
    cannot go on) before anything about the data is drawn."""
    team = server().team
    if not auth_configured():
        team.workspace(LOCAL_WORKSPACE, owner=LOCAL_USER)
        return _in_workspace(LOCAL_USER, signed_in=False)
    missing = [k for k in ("redirect_uri", "cookie_secret", "client_id", "client_secret", "server_metadata_url")
               if k not in st.secrets["auth"]]
    if missing:
        st.error(f"Sign-in is configured but .streamlit/secrets.toml [auth] lacks {', '.join(missing)}; an "
                 "administrator adds them (see docs/hosting.md) and restarts the server.")
        st.stop()
    if not st.user.is_logged_in:
        st.info("This is a shared Artifact Lens instance. Sign in to see your team's datasets and runs.")
        st.button("Sign in", type="primary", key="sign_in", on_click=st.login)
        st.stop()
    email = str(st.user.get("email") or "").strip().lower()
    if not email:
        st.error("Your identity provider did not send an e-mail address, which this instance uses to find "
                 "your role; ask an administrator to enable the 'email' scope.")
        st.button("Sign out", key="sign_out", on_click=st.logout)
        st.stop()
    team.bootstrap(email, owner=owner_setting())
    return _in_workspace(email, signed_in=True)


def _in_workspace(email: str, *, signed_in: bool) -> Member:
    sess = session()
    spaces = server().team.workspaces_of(email)
    if not spaces:
        st.warning(plain(f"You are signed in as {email} but have no role in any workspace yet; ask an owner "
                         "of this instance to add you on the Team page."))
        st.button("Sign out", key="sign_out", on_click=st.logout)
        st.stop()
    chosen = next((w for w in spaces if w[0] == sess.workspace_id), spaces[0])
    if chosen[0] != sess.workspace_id:
        sess.workspace_id = chosen[0]
    sess.member = Member(email, chosen[0], chosen[1], chosen[2], signed_in)
    return sess.member


def member() -> Member:
    """This tab's member (`sign_in` ran first on every page)."""
    found = session().member
    if found is None:
        return sign_in()
    return found


def scope():
    """This tab's member's handle on their workspace (`core.team.store.scoped.Scoped`): what pages and
    services call the team store through, with the workspace and the member bound."""
    m = member()
    return server().team.scoped(m.workspace_id, m.email)


def create_workspace(name: str) -> int:
    """A new workspace owned by this tab's member (the store checks they may create one)."""
    return server().team.create_workspace(name, by=member().email)


def require(action: str) -> Member:
    """The member, if their role allows ``action`` (asked of the store, not of the page);
    else `core.team.store.NotAllowed` naming the role needed."""
    m = member()
    m_role = server().team.require(m.workspace_id, m.email, action)
    return Member(m.email, m.workspace_id, m.workspace, m_role, m.signed_in)


def seed_of(email: str) -> int:
    """A reviewer's own fixed seed for a random queue."""
    return int(digest(email, 8), 16)
