"""The store's Alembic revisions, oldest first: r0001_baseline is the schema as version 16 left it."""
