"""`Tab`: what a service is handed to work for one browser tab, the tab's `Session` and the
process's `Server`. Plain Python: a service takes a `Tab` as its first argument instead of
reaching into Streamlit, so services run under plain pytest and serve any front end; the pages
get theirs from `dashboard.state.browser.tab`."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from artifact_lens.dashboard.state.session import Session

if TYPE_CHECKING:   # a type only: a service that imports Tab imports no server
    from artifact_lens.dashboard.process.server import Server

__all__ = ["Tab", "Identity"]


@dataclass(frozen=True)
class Tab:
    """One browser tab: its `Session` (what it looks at, who signed in) and the `Server` every tab shares."""

    session: Session
    server: "Server"


@dataclass(frozen=True)
class Identity:
    """Who is at a tab, as the front end knows it (`dashboard.state.identity.current` under Streamlit):
    whether sign-in is configured and which of its keys the configuration lacks, and the e-mail the
    identity provider sent (None: nobody signed in; "": it sent none). The default is the local
    user of a single-user instance."""

    auth: bool = False
    missing: tuple = ()
    email: Optional[str] = None
