"""Alembic environment of the team store: the connection comes from `core.team.store.db`, and
logging is left alone (no fileConfig: it would reset the application's logging)."""
from alembic import context

from core.team.store.models import Base

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
