"""Persistence: workstreams and conversations in SQLite (SQLAlchemy Core).

Importing this package pulls in SQLAlchemy; keep it off the startup path (open the
store with `AsyncStore.open`, which imports and migrates on a worker thread).
"""
