"""The one shape of every extension point (model families, export and input formats, representation
kinds, certificate measures): entries of one kind by name, in the order they were added, each name
added once. A second entry under a name is a mistake in the code, said when the module is imported."""
from __future__ import annotations

__all__ = ["Registry"]


class Registry(dict):
    """name → entry; `add` refuses a name taken (``what`` names the kind in the message)."""

    def __init__(self, what: str, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.what = what

    def add(self, name: str, entry):
        """Add ``entry`` under ``name`` and return it (ValueError when the name is taken)."""
        if name in self:
            raise ValueError(f"{self.what} {name!r} is registered twice")
        self[name] = entry
        return entry

    def copy(self) -> "Registry":
        """A registry with the same entries (a test adds one to it, leaving this one as it is)."""
        return Registry(self.what, self)
