"""The team store: workspaces, members and roles, datasets, runs, saved views and reviews.

SQLAlchemy 2 over a SQLite file by default (no set-up) or PostgreSQL by URL
(``postgresql+psycopg://…``, extra ``postgres``). The schema is versioned with Alembic;
`TeamStore` upgrades it when it opens. Every write is one transaction. Large arrays
(run trajectories) are files beside the database whose SHA-256 is stored and checked
on load. Reviews are append-only, so the history of every decision is kept.

Roles, per workspace: **owner** (members and workspaces, and everything below),
**curator** (loads data, runs filters, saves views, exports, reviews), **annotator**
(reviews, reads). Every action checks the role itself (`TeamStore.require`): hiding a
button is not enough.
"""
from ...base.errors import Changed
from .team_store import (DECISIONS, DEFAULT_WORKSPACE, LOCAL_USER, LOCAL_WORKSPACE, PERMISSIONS, ROLES,
                                   RUN_STATUSES, NotAllowed, TeamStore, default_url, file_sha256)

__all__ = ["TeamStore", "NotAllowed", "Changed", "ROLES", "DECISIONS", "RUN_STATUSES", "default_url", "PERMISSIONS",
           "DEFAULT_WORKSPACE", "LOCAL_USER", "LOCAL_WORKSPACE", "file_sha256"]
