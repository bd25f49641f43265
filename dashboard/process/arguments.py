"""The app's own command line, ``streamlit run app.py -- --owner EMAIL``: app.py hands it in on each
of its runs (never read from ``sys.argv``, which is Streamlit's), and the sign-in reads the owner."""
from __future__ import annotations

from typing import Optional

from artifact_lens.base.settings import owner_address

__all__ = ["set_app_arguments", "app_owner"]

#: the ``--owner`` of this process's ``streamlit run app.py -- --owner EMAIL``, set by app.py
_APP_OWNER: dict = {}


def set_app_arguments(argv: list) -> None:
    """Take the app's own arguments (after ``--``): ``--owner EMAIL``. SettingsError when the
    address is not one."""
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
