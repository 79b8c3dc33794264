"""Migrations: a new file lands at the latest version; an old one is upgraded in place."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from app.storage.engine import Connection, make_engine
from app.storage.migrations import MIGRATIONS, migrate
from app.storage.store import Store


def _version(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT version FROM schema_version").fetchone()[0]
    finally:
        conn.close()


LATEST = MIGRATIONS[-1][0]
NEXT = LATEST + 1  # the number the next added migration would get


def _v2_add_pinned(conn: Connection) -> None:
    conn.execute("ALTER TABLE workstreams ADD COLUMN pinned BOOLEAN DEFAULT 0")


def _v2_broken(conn: Connection) -> None:
    conn.execute("CREATE TABLE half_done (x INTEGER)")
    raise RuntimeError("boom")


def test_new_database_is_at_latest_version(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    Store(path).close()
    assert _version(path) == MIGRATIONS[-1][0]


def test_version_1_database_is_upgraded_by_added_migration(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    store = Store(path)  # the current version, with data in it
    ws = store.create_workstream(title="kept")
    store.close()

    engine = make_engine(path)
    assert migrate(engine, [*MIGRATIONS, (NEXT, _v2_add_pinned)]) == NEXT
    engine.dispose()

    assert _version(path) == NEXT
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT title, pinned FROM workstreams WHERE id = ?", (ws,)).fetchall() \
        == [("kept", 0)]
    conn.close()


def test_failed_migration_rolls_back_and_keeps_version(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    Store(path).close()
    engine = make_engine(path)
    with pytest.raises(RuntimeError, match="boom"):
        migrate(engine, [*MIGRATIONS, (NEXT, _v2_broken)])
    engine.dispose()
    assert _version(path) == LATEST
    conn = sqlite3.connect(path)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    conn.close()
    assert "half_done" not in tables  # DDL was inside the rolled-back transaction


def test_database_newer_than_program_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    engine = make_engine(path)
    migrate(engine, [*MIGRATIONS, (NEXT, _v2_add_pinned)])
    with pytest.raises(RuntimeError, match=f"schema version {NEXT}, but this Whimbrel only knows"):
        migrate(engine, MIGRATIONS)
    engine.dispose()


def test_version_1_database_gains_usage_and_compaction_tables(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    engine = make_engine(path)
    migrate(engine, MIGRATIONS[:1])  # a database written before version 2 ...
    engine.dispose()
    conn = sqlite3.connect(path)  # ... had neither table
    conn.executescript("DROP TABLE usage; DROP TABLE compactions;")
    conn.close()
    store = Store(path)
    ws = store.create_workstream(title="t")
    store.add_usage(ws, model="m", prompt_tokens=10, completion_tokens=2, cost=0.5)
    assert [r.prompt_tokens for r in store.list_usage(ws)] == [10]
    store.close()
    assert _version(path) == LATEST
