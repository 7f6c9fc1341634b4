"""Alembic's environment for the ledger: run only through :mod:`cardarena.ratings.schema`, which
hands it an open connection (``config.attributes["connection"]``); there is no alembic.ini."""
from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=None, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
