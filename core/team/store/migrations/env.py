"""Alembic environment of the team store: the connection and the schema come from
`TeamStore.migrate` through the config's attributes (this file is run by path, outside any package,
so it imports nothing of the tool's: the package may be installed under another name), and logging
is left alone (no fileConfig: it would reset the application's logging)."""
from alembic import context

attributes = context.config.attributes
context.configure(connection=attributes["connection"], target_metadata=attributes["metadata"], render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
