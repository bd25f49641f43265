"""Text the team store accepts, checked once for both databases.

PostgreSQL refuses a NUL character in text and a string longer than its column; neither
database driver can encode a lone surrogate (text from a broken decoder). SQLite would store
all three silently. So every string is checked here, with one message that names the field
and the fix: as an argument (`check_text`) and, for every row written, before each flush
(`check_strings`, a session event that sees every column and JSON value of every new or
changed row, so a new table or column is covered the day it is added).
"""
from __future__ import annotations

from typing import Optional

from ...base.errors import Changed, InputError

__all__ = ["check_text", "check_strings", "NotAllowed", "Changed"]


class NotAllowed(InputError):
    """The member's role (or the workspace's blind review) does not allow this action."""


def check_text(value, what: str, max_length: Optional[int] = None) -> str:
    """``value`` if it is text the store can hold; else InputError naming ``what``."""
    if not isinstance(value, str):
        raise InputError(f"{what} should be text, not {type(value).__name__}.")
    if "\x00" in value:
        raise InputError(f"{what} holds a NUL character (\\x00), which the database cannot store; remove it.")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(f"{what} holds a broken character (a lone surrogate, from text decoded wrongly); "
                         "paste it again from its source.") from None
    if max_length is not None and len(value) > max_length:
        raise InputError(f"{what} has {len(value):,} characters; at most {max_length:,} fit. Shorten it.")
    return value


def _walk(value, what: str) -> None:
    """Every string inside a JSON value (keys too)."""
    if isinstance(value, str):
        check_text(value, what)
    elif isinstance(value, dict):
        for k, v in value.items():
            _walk(str(k), what)
            _walk(v, what)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _walk(v, what)


def check_strings(session, _context, _instances) -> None:
    """Before a flush: every string column and JSON value of every new or changed row."""
    for obj in list(session.new) + list(session.dirty):
        table = getattr(obj, "__table__", None)
        if table is None:
            continue
        for column in table.columns:
            value = getattr(obj, column.key, None)
            what = f"the {column.key.replace('_', ' ')}"
            if isinstance(value, str):
                check_text(value, what, getattr(column.type, "length", None))
            elif isinstance(value, (dict, list)):
                _walk(value, what)
