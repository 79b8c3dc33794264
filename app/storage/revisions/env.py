"""Alembic's environment for the store: runs on the connection app/storage/schema_upgrade.py hands it.

There is no alembic.ini and no URL here: the caller opens the connection (SQLite or PostgreSQL), takes
the store's write lock on it and passes it in `config.attributes["connection"]`; every pending
revision runs in that one transaction. The target is the store's Core tables (app/storage/tables.py),
so `alembic revision --autogenerate` and `compare_metadata` see what the schema should be.
"""

from alembic import context

from app.storage.tables import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, transactional_ddl=True)
with context.begin_transaction():
    context.run_migrations()
