"""The store's Core tables (app/storage/tables.py) are the schema: schema.py's SQL text is them compiled,
and new and upgraded stores on both databases hold exactly them.

- Each Core table compiled for SQLite (`CreateTable`, `CreateIndex`) is schema.py's statement, whitespace
  aside; schema.py's DEFAULTS and SERIAL_TABLES are the Core columns' defaults and integer keys.
- Alembic's `compare_metadata` finds no difference between the Core tables and a new store (SQLite,
  PostgreSQL) or a store upgraded from the oldest layout (version 1 of the frozen migrations, before
  the `who` columns): the migrations, schema.py and the Core tables agree.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Integer, create_engine
from sqlalchemy.pool import NullPool

from app.storage import schema, schema_upgrade, tables
from app.storage.store import Store
from app.vocabulary.messages import Message
from tests.pg_fixtures import stored_rows


def _flat(sql: str) -> str:
    """`sql` with whitespace runs as one space and none inside parentheses or before commas."""
    sql = re.sub(r"\s+", " ", sql).strip()
    return re.sub(r"\( ", "(", re.sub(r" ([,)])", r"\1", sql))


def test_schema_text_is_the_core_tables_compiled_for_sqlite() -> None:
    assert list(schema.TABLES) and set(schema.TABLES) == set(tables.metadata.tables)
    for name, statements in schema.TABLES.items():
        compiled = tables.create_statements(name, "sqlite")
        assert [_flat(s) for s in statements] == [_flat(s) for s in compiled], name


def test_defaults_and_numbered_keys_are_the_core_columns() -> None:
    assert schema.DEFAULTS == tables.defaults()
    numbered = {t.name for t in tables.metadata.tables.values()
                if [c.name for c in t.primary_key.columns] == ["id"] and isinstance(t.c.id.type, Integer)}
    assert schema.SERIAL_TABLES == numbered and "messages" in numbered and "workstreams" not in numbered


def test_a_drifted_statement_is_caught() -> None:
    """The comparison above can fail: a column made nullable in the text differs from the Core table."""
    drifted = schema.TABLES["messages"][0].replace("seq INTEGER NOT NULL", "seq INTEGER")
    assert _flat(drifted) != _flat(tables.create_statements("messages", "sqlite")[0])


def _ignored(name: str | None, type_: str, _parent: Any) -> bool:
    # The full-text indexes are not part of the Core metadata: SQLite's FTS5 virtual table and its
    # shadow tables (messages_fts, messages_fts_data, …: app/storage/fts.py) and PostgreSQL's word
    # table with its GIN index (message_words: app/storage/pg_fts.py) are made when a store opens,
    # by SQL of their own. Every other table and index is compared.
    return type_ == "table" and name is not None and (name.startswith("messages_fts") or name == "message_words")


def _differences(location: Path | str) -> list[Any]:
    engine = create_engine(schema_upgrade._sqlalchemy_url(location), poolclass=NullPool)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={
                "compare_type": True, "include_name": lambda name, type_, parent: not _ignored(name, type_, parent)})
            return compare_metadata(context, tables.metadata)
    finally:
        engine.dispose()


def test_a_new_store_is_the_core_tables(store_target: Path | str) -> None:
    Store(store_target).close()
    assert _differences(store_target) == []


def test_the_comparison_sees_a_missing_index(store_target: Path | str) -> None:
    store = Store(store_target)
    with store.engine.begin() as conn:
        conn.execute("DROP INDEX ix_messages_workstream_seq")
    store.close()
    assert [d[0] for d in _differences(store_target)] == ["add_index"]


# A store as version 1 of the frozen migrations left it: none of the tables later steps added, no index
# on (workstream_id, seq), no `who` columns (Alembic's r0002-r0004), no Alembic revision.
_LATER_TABLES = ("message_pieces", "draft_pieces", "subagent_messages", "subagent_runs", "watches", "memories",
                 "checkpoints", "checkpoint_ops", "workstream_forks", "audit_log", "policy_reviews",
                 "workstream_leases", "prompt_history", "app_state", "context_resets", "usage", "compactions",
                 "mcp_calls", "team_policy")


def _make_version_1(store_target: Path | str) -> None:
    store = Store(store_target)
    ws = store.create_workstream(title="old")
    store.add_message(ws, Message(role="user", content="written by version one"))
    with store.engine.begin() as conn:
        for table in _LATER_TABLES:
            conn.execute(f"DROP TABLE {table}")
        conn.execute("DROP INDEX ix_messages_workstream_seq")
        conn.execute("ALTER TABLE messages DROP COLUMN who")
        conn.execute("DROP TABLE alembic_version")
        conn.execute("UPDATE schema_version SET version = 1")
    store.close()


def test_a_store_upgraded_from_the_oldest_layout_is_the_core_tables(store_target: Path | str) -> None:
    _make_version_1(store_target)
    before = _differences(store_target)  # the layout is older ...
    assert {d[1].name for d in before if d[0] == "add_table"} == set(_LATER_TABLES)
    assert [(d[2], d[3].name) for d in before if d[0] == "add_column"] == [("messages", "who")]
    store = Store(store_target)  # ... and opening it upgrades it: frozen steps to 16, then Alembic to HEAD
    try:
        assert stored_rows(store, "SELECT version_num FROM alembic_version") == [(schema_upgrade.HEAD,)]
        assert stored_rows(store, "SELECT content, who FROM messages") == [("written by version one", None)]
    finally:
        store.close()
    assert _differences(store_target) == []
