"""One member's handle on one workspace: the team store with the workspace and the member bound.

Pages and services reach the store through this handle (`TeamStore.scoped`), so no call can pass
another workspace's id as its own, or forget who is acting: every workspace method of the store
(its first parameter ``workspace_id``, and ``by``) is offered with both filled in, found by
reflection, so a method added to the store is offered the day it is written. The store still
checks the role and resolves every id within the workspace itself.
"""
from __future__ import annotations

import functools
import inspect

__all__ = ["Scoped", "scoped_methods"]


@functools.lru_cache(maxsize=None)
def scoped_methods(store_type) -> frozenset:
    """Names of the store's public methods that take ``workspace_id`` first and a keyword ``by``."""
    found = set()
    for name, fn in inspect.getmembers(store_type, inspect.isfunction):
        params = list(inspect.signature(fn).parameters.values())
        if not name.startswith("_") and len(params) > 1 and params[1].name == "workspace_id" and any(
                p.name == "by" and p.kind is inspect.Parameter.KEYWORD_ONLY for p in params):
            found.add(name)
    return frozenset(found)


class Scoped:
    """``store.<method>(workspace_id, …, by=email)`` as ``scoped.<method>(…)``."""

    def __init__(self, store, workspace_id: int, by: str):
        self._store, self.workspace_id, self.by = store, int(workspace_id), str(by)

    def __getattr__(self, name: str):
        if name.startswith("_") or name not in scoped_methods(type(self._store)):
            raise AttributeError(f"{name!r} is not a workspace action of the team store")
        return functools.partial(getattr(self._store, name), self.workspace_id, by=self.by)

    def require(self, action: str) -> str:
        """The member's role when it allows ``action`` (`TeamStore.require`)."""
        return self._store.require(self.workspace_id, self.by, action)

    def role(self):
        return self._store.role_of(self.workspace_id, self.by)

    def __dir__(self):
        return sorted({*super().__dir__(), *scoped_methods(type(self._store))})
