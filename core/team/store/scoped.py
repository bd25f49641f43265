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

__all__ = ["Scoped", "scoped_methods", "writes", "reading_methods"]


def writes(method):
    """Marks a store method that writes: a page's read-only handle (`Scoped.reading`) refuses it
    (`tests/unit/test_store_scope.py` checks the mark against what each method does)."""
    method.writes = True
    return method


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


@functools.lru_cache(maxsize=None)
def reading_methods(store_type) -> frozenset:
    """`scoped_methods` that read only (not marked `writes`)."""
    return frozenset(n for n in scoped_methods(store_type) if not getattr(getattr(store_type, n), "writes", False))


#: keywords that would change who acts or where: a member's handle refuses them
IDENTITY = ("by", "workspace_id")


class Scoped:
    """``store.<method>(workspace_id, …, by=email)`` as ``scoped.<method>(…)``.

    Sealed: the workspace and the member are fixed when the handle is made; it has no attribute to
    rebind them and refuses ``by=`` and ``workspace_id=`` on every call (`NotAllowed`), so code
    holding an annotator's handle cannot act or read as anyone else."""

    __slots__ = ("_store", "_workspace_id", "_by", "_reads_only")

    def __init__(self, store, workspace_id: int, by: str, *, reads_only: bool = False):
        for name, value in (("_store", store), ("_workspace_id", int(workspace_id)), ("_by", str(by)),
                            ("_reads_only", bool(reads_only))):
            object.__setattr__(self, name, value)

    def reading(self) -> "Scoped":
        """The same member's handle that only reads (what a page or a widget is given): a write
        through it is refused; writes go through a service."""
        return Scoped(self._store, self._workspace_id, self._by, reads_only=True)

    @property
    def workspace_id(self) -> int:
        return self._workspace_id

    @property
    def by(self) -> str:
        return self._by

    def __setattr__(self, name, value):
        raise AttributeError(f"a member's handle is sealed: {name} cannot be set (open a handle for another member "
                             "with TeamStore.scoped, which only the server does for a signed-in user)")

    __delattr__ = __setattr__

    def __getattr__(self, name: str):
        if name.startswith("_") or name not in scoped_methods(type(self._store)):
            raise AttributeError(f"{name!r} is not a workspace action of the team store")
        if self._reads_only and name not in reading_methods(type(self._store)):
            raise AttributeError(f"{name}() writes, and this handle only reads (a page's): write through a "
                                 "service of dashboard.services")
        method, workspace_id, by = getattr(self._store, name), self._workspace_id, self._by

        @functools.wraps(method)
        def acting(*args, **kwargs):
            given = [k for k in IDENTITY if k in kwargs]
            if given:
                from .checks import NotAllowed

                raise NotAllowed(f"this handle acts as {by} in workspace {workspace_id}; {name}() takes no "
                                 f"{', '.join(k + '=' for k in given)} here.")
            return method(workspace_id, *args, by=by, **kwargs)

        return acting

    def require(self, action: str) -> str:
        """The member's role when it allows ``action`` (`TeamStore.require`)."""
        return self._store.require(self._workspace_id, self._by, action)

    def role(self):
        return self._store.role_of(self._workspace_id, self._by)

    def __dir__(self):
        offered = reading_methods if self._reads_only else scoped_methods
        return sorted({*super().__dir__(), *offered(type(self._store))})
