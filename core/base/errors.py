"""Errors the engine raises on purpose.

`InputError` is for bad input from a user: its message names the problem and the
fix. The CLI prints it without a traceback and exits with 2; the app shows it on
the page and keeps the previous state.
"""


class InputError(ValueError):
    """Bad input from the user; the message says what is wrong and how to fix it."""


class RolesNeeded(InputError):
    """The columns' roles could not be detected: the caller must name them.

    ``role`` is what is missing ("label" or "text"), ``columns`` the table's columns,
    ``detected`` what detection found (`core.data.sources.detect_roles`), and ``preview`` the
    first rows, so an interface can offer the choice instead of only the message.
    """

    def __init__(self, message: str, *, role: str, columns, detected: dict, preview=None):
        super().__init__(message)
        self.role, self.columns, self.detected, self.preview = role, list(columns), dict(detected), preview


class Changed(InputError):
    """What a person saw when they decided has changed since (another decision on the same
    example or submission): nothing was written, so a decision never lands on a state its
    author did not see. Raised by the team store; the app keeps the person's text."""


class MissingExtraError(InputError):
    """An optional dependency is not installed; the message names the extra."""


class Cancelled(Exception):
    """Long work stopped because the caller asked it to."""
