"""Alembic's scripts for the store's schema (app/storage/schema_upgrade.py runs them; see its docstring)."""
