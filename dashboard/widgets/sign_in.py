"""The sign-in screen: every page resolves its member first (`dashboard.services.team.resolve`); when the
tab cannot go on (not signed in, sign-in misconfigured, no workspace yet) it says why, offers
the button that helps, and stops the page before anything about the data is drawn."""
from __future__ import annotations

import streamlit as st

from artifact_lens.dashboard.state import identity
from artifact_lens.dashboard.services import team
from artifact_lens.dashboard.widgets.formatting import plain

__all__ = ["sign_in"]

_SAY = {"error": st.error, "info": st.info, "warning": st.warning}
_BUTTONS = {"sign in": ("Sign in", "sign_in", identity.log_in, "primary"),
            "sign out": ("Sign out", "sign_out", identity.log_out, "secondary")}


def sign_in(tab) -> team.Member:
    """This tab's member; or the reason they cannot go on, shown, and the page stopped."""
    try:
        return team.resolve(tab, identity.current())
    except team.SignInNeeded as why:
        _SAY[why.level](plain(str(why)))
        if why.button:
            label, key, action, kind = _BUTTONS[why.button]
            st.button(label, type=kind, key=key, on_click=action)
        st.stop()
