"""Who is using this tab, in which workspace, with which role; sign-in when it is configured.

With an ``[auth]`` section in ``.streamlit/secrets.toml`` the dashboard is a shared instance:
nothing is shown before sign-in (OIDC; the screen is `dashboard.widgets.sign_in`), and every action asks
the team store whether the member's role allows it (`require`). Without one it runs single-user:
the local user owns the default workspace, and the sidebar says so.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from artifact_lens.base.keys import digest
from artifact_lens.base.settings import settings
from artifact_lens.team.store import LOCAL_USER, LOCAL_WORKSPACE, PERMISSIONS, NotAllowed
from artifact_lens.dashboard.process import arguments
from artifact_lens.dashboard.state.tab import Identity

__all__ = ["Member", "SignInNeeded", "owner_setting", "resolve", "member", "enter_workspace", "require", "scope",
           "workspaces", "create_workspace", "seed_of"]


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


class SignInNeeded(NotAllowed):
    """Why this tab cannot go on as a member: ``message`` to show, at ``level`` (error, info or
    warning), and the button that helps (``"sign in"``, ``"sign out"`` or None)."""

    def __init__(self, message: str, *, level: str = "error", button: Optional[str] = None):
        super().__init__(message)
        self.level, self.button = level, button


def owner_setting() -> Optional[str]:
    """``--owner EMAIL`` after ``streamlit run app.py --`` (handed in by app.py), else
    ``$ARTIFACT_LENS_OWNER``."""
    return arguments.app_owner() or settings().owner


def resolve(tab, who: Identity) -> Member:
    """The member of this tab from its sign-in ``who``: the local user in single-user mode, else the
    signed-in person in their chosen workspace; `SignInNeeded` saying why not."""
    team = tab.server.team
    if not who.auth:
        team.workspace(LOCAL_WORKSPACE, owner=LOCAL_USER)
        return _in_workspace(tab, LOCAL_USER, signed_in=False)
    missing = who.missing
    if missing:
        raise SignInNeeded(f"Sign-in is configured but .streamlit/secrets.toml [auth] lacks {', '.join(missing)}; an "
                           "administrator adds them (see the Hosting page of the docs: `artifact-lens docs hosting`) and restarts the server.")
    email = who.email
    if email is None:
        raise SignInNeeded("This is a shared Artifact Lens instance. Sign in to see your team's datasets and runs.",
                           level="info", button="sign in")
    if not email:
        raise SignInNeeded("Your identity provider did not send an e-mail address, which this instance uses to find "
                           "your role; ask an administrator to enable the 'email' scope.", button="sign out")
    team.bootstrap(email, owner=owner_setting())
    return _in_workspace(tab, email, signed_in=True)


def _in_workspace(tab, email: str, *, signed_in: bool) -> Member:
    sess = tab.session
    spaces = tab.server.team.workspaces_of(email)
    if not spaces:
        raise SignInNeeded(f"You are signed in as {email} but have no role in any workspace yet; ask an owner "
                           "of this instance to add you on the Team page.", level="warning", button="sign out")
    chosen = next((w for w in spaces if w[0] == sess.workspace_id), spaces[0])
    if chosen[0] != sess.workspace_id:
        sess.workspace_id = chosen[0]
    sess.member = Member(email, chosen[0], chosen[1], chosen[2], signed_in)
    return sess.member


def member(tab) -> Member:
    """This tab's member (every page resolves it first, `dashboard.widgets.sign_in`)."""
    found = tab.session.member
    if found is None:
        raise SignInNeeded("This tab has not signed in yet; reload the page.", level="info")
    return found


def enter_workspace(tab, workspace_id: int) -> Member:
    """Make ``workspace_id`` this tab's workspace: the member's standing there (role, name) comes from the store."""
    me = member(tab)
    tab.session.workspace_id = workspace_id
    return _in_workspace(tab, me.email, signed_in=me.signed_in)


def scope(tab):
    """This tab's member's handle on their workspace (`core.team.store.scoped.Scoped`): what pages and
    services call the team store through, with the workspace and the member bound."""
    m = member(tab)
    return tab.server.team.scoped(m.workspace_id, m.email)


def view(tab):
    """This tab's member's handle on their workspace that only reads (`Scoped.reading`): what pages
    and widgets are given; their writes go through services (`scope` is for services alone)."""
    return scope(tab).reading()


def workspaces(tab) -> list:
    """(id, name, role) of every workspace this tab's member belongs to."""
    return tab.server.team.workspaces_of(member(tab).email)


def create_workspace(tab, name: str) -> int:
    """A new workspace owned by this tab's member (the store checks they may create one)."""
    return tab.server.team.create_workspace(name, by=member(tab).email)


def require(tab, action: str) -> Member:
    """The member, if their role allows ``action`` (asked of the store, not of the page);
    else `core.team.store.NotAllowed` naming the role needed."""
    m = member(tab)
    m_role = tab.server.team.require(m.workspace_id, m.email, action)
    return Member(m.email, m.workspace_id, m.workspace, m_role, m.signed_in)


def seed_of(email: str) -> int:
    """A reviewer's own fixed seed for a random queue."""
    return int(digest(email, 8), 16)


# What an owner or a curator changes in the workspace: one store call each, made here so that no
# widget or page writes to the store (the store checks the role inside each write).

def set_role(tab, email: str, role: str) -> None:
    scope(tab).set_role(email, role)


def remove_member(tab, email: str) -> None:
    scope(tab).remove_member(email)


def set_dispute_rule(tab, rule: str) -> None:
    scope(tab).set_dispute_rule(rule)


def set_review_settings(tab, *, reviews_per_example: int, blind: bool) -> None:
    scope(tab).set_review_settings(reviews_per_example=reviews_per_example, blind=blind)


def set_guidelines(tab, text: str) -> None:
    scope(tab).set_guidelines(text)


def save_view(tab, run_id: int, name: str, tau: float, n: int) -> None:
    scope(tab).save_view(run_id, name, tau, n)


def discard_run(tab, key: str) -> None:
    scope(tab).discard_run(key)


def delete_dataset(tab, dataset_id: int) -> None:
    scope(tab).delete_dataset(dataset_id)
