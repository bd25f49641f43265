"""Errors the engine raises on purpose.

`InputError` is for bad input from a user: its message names the problem and the
fix. The CLI prints it without a traceback and exits with 2; the app shows it on
the page and keeps the previous state.
"""


class InputError(ValueError):
    """Bad input from the user; the message says what is wrong and how to fix it."""


class MissingExtraError(InputError):
    """An optional dependency is not installed; the message names the extra."""


class Cancelled(Exception):
    """Long work stopped because the caller asked it to."""
