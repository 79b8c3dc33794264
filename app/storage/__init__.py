"""Persistence: workstreams and conversations in SQLite (the standard library's sqlite3).

Keep the store's modules off the startup path: open the store with `AsyncStore.open`,
which imports and migrates on a worker thread.
"""
