"""The store's schema as SQLAlchemy Core tables: the source of truth for every table, column and index.

Each table here, with its column types, nullability, keys, constraints and indexes, is what a store
has. Three things are made from it or checked against it:

- app/storage/schema.py holds the same tables as SQL text, the compiled form the SQLite fast path
  runs without importing SQLAlchemy (an everyday SQLite start never loads it, ~13 MB). The text is
  written by hand, not generated: tests/storage/test_tables.py compiles each table here
  (`CreateTable`/`CreateIndex` for SQLite) and asserts it is schema.py's statement, whitespace aside,
  and that schema.py's `DEFAULTS` are the columns' `default=`s below; a change is made in both places.
- PostgreSQL stores are created from these tables (`create_statements`, compiled for PostgreSQL on
  the store's own connection inside its write transaction: what `metadata.create_all` emits);
  PostgreSQL's word index for search (app/storage/pg_fts.py) stays separate.
- Alembic's environment (app/storage/revisions/env.py) has `metadata` as its target, and a test
  compares it with fresh and upgraded stores on both databases (`alembic.autogenerate.compare_metadata`).

Defaults are Python-side (`default=`), never SQL defaults: the store's columns have none, and
`Connection.insert` fills them in from schema.py's DEFAULTS. SQLite's full-text index (FTS5 tables,
view, triggers: app/storage/fts.py) is SQL outside this metadata.
"""

from __future__ import annotations

from sqlalchemy import (Boolean, CheckConstraint, Column, Float, ForeignKey, Index, Integer, MetaData, Table, Text,
                        UniqueConstraint)
from sqlalchemy.schema import CreateIndex, CreateTable

metadata = MetaData()


def _key() -> Column:
    """An integer `id` the database numbers (SQLite's rowid, SERIAL on PostgreSQL)."""
    return Column("id", Integer, primary_key=True)


def _text(name: str, default: str | None = None) -> Column:
    return Column(name, Text, nullable=False, default=default)


def _text_or_null(name: str) -> Column:
    return Column(name, Text)


def _workstream(name: str = "workstream_id", **key: bool) -> Column:
    """A column naming a workstream row, deleted with it."""
    return Column(name, Text, ForeignKey("workstreams.id", ondelete="CASCADE"), nullable=False, **key)


Table("app_state", metadata,
      Column("key", Text, primary_key=True), _text("value"), Column("updated_at", Float, nullable=False))

# One row per tool call: who decided what, how it ended. No foreign key: the record outlives a
# deleted conversation (pruned by age).
Table("audit_log", metadata,
      _key(), Column("created_at", Float, nullable=False), *map(_text, (
          "workstream_id", "call_id", "tool", "arguments", "decision", "decided_by", "mode", "risk", "sandbox",
          "status")),
      Column("duration_ms", Float), _text_or_null("agent"), _text_or_null("who"),
      Index("ix_audit_log_created", "created_at"), Index("ix_audit_log_workstream", "workstream_id", "created_at"))

Table("mcp_calls", metadata,
      _key(), _text("server"), Column("at", Float, nullable=False), *map(_text, ("kind", "item", "label", "arguments",
                                                                             "raw")),
      Column("ok", Boolean, nullable=False), Column("elapsed_ms", Float, nullable=False), _text("answer"),
      Index("ix_mcp_calls_server_at", "server", "at"))

Table("memories", metadata,
      _key(), _text("name"), _text("description", ""), _text("content", ""), _text("type", "project"),
      _text("scope", "global"), _text("scope_key", ""), Column("created_at", Float, nullable=False),
      Column("updated_at", Float, nullable=False), Column("accessed_at", Float),
      Column("access_count", Integer, nullable=False, default=0), _text_or_null("who"),
      UniqueConstraint("name", "scope", "scope_key", name="uq_memories_name_scope"),
      CheckConstraint("type IN ('user', 'project', 'feedback', 'reference')", name="ck_memories_type"),
      CheckConstraint("scope IN ('global', 'workstream', 'workspace', 'team')", name="ck_memories_scope"),
      Index("ix_memories_scope", "scope", "scope_key"))

Table("policy_reviews", metadata,
      Column("path", Text, primary_key=True), _text("sha256"), Column("accepted_at", Float, nullable=False))

# A team's permission rules (one row, 'policy'): the text as written, by whom, when.
Table("team_policy", metadata,
      Column("name", Text, primary_key=True), _text("text"), _text("sha256"),
      Column("updated_at", Float, nullable=False), _text_or_null("who"))

Table("schema_version", metadata, Column("version", Integer, nullable=False))

Table("workstreams", metadata,
      Column("id", Text, primary_key=True), _text_or_null("title"), _text_or_null("alias"), _text_or_null("model"),
      _text("workdir", ""), Column("created_at", Float, nullable=False), Column("updated_at", Float, nullable=False),
      _text("state", "idle"), UniqueConstraint("alias", name="uq_workstreams_alias"))

Table("checkpoint_ops", metadata,
      _key(), _workstream(), _text("kind"), _text("mode"), _text("workspace"), _text_or_null("from_tree"),
      _text_or_null("to_tree"), Column("cut_seq", Integer), _text_or_null("removed"), Column("undoes", Integer),
      _text("state"), Column("created_at", Float, nullable=False), Column("finished_at", Float),
      Index("ix_checkpoint_ops_workstream_id", "workstream_id"))

Table("checkpoints", metadata,
      _key(), _workstream(), Column("user_message_id", Integer), Column("user_seq", Integer, nullable=False),
      _text("workspace"), _text("before_tree"), _text("after_tree"), _text("changes", "[]"), _text("skipped", "[]"),
      _text("outside", "[]"), Column("created_at", Float, nullable=False),
      Index("ix_checkpoints_workstream_id", "workstream_id"))

Table("compactions", metadata,
      _key(), _workstream(), _text("summary"), _text_or_null("focus"),
      Column("last_message_id", Integer, nullable=False), Column("tokens_before", Integer),
      Column("created_at", Float, nullable=False), Index("ix_compactions_workstream_id", "workstream_id"))

Table("context_resets", metadata,
      _workstream(primary_key=True), Column("seq", Integer, primary_key=True, autoincrement=False),
      Column("created_at", Float, nullable=False))

Table("messages", metadata,
      _key(), _workstream(), Column("seq", Integer, nullable=False), _text("role"), _text("content", ""),
      _text("reasoning", ""), _text_or_null("tool_call_id"), _text_or_null("tool_name"), _text_or_null("tool_args"),
      Column("is_error", Boolean, nullable=False, default=False),
      Column("interrupted", Boolean, nullable=False, default=False), _text_or_null("raw"),
      Column("created_at", Float, nullable=False), _text_or_null("who"),
      CheckConstraint("role IN ('system', 'user', 'assistant', 'tool_call', 'tool_result')", name="ck_messages_role"),
      Index("ix_messages_tool_call_id", "tool_call_id"), Index("ix_messages_workstream_id", "workstream_id"),
      Index("ix_messages_workstream_seq", "workstream_id", "seq"))

Table("prompt_history", metadata,
      _key(), _workstream(), _text("text"), Column("created_at", Float, nullable=False),
      Index("ix_prompt_history_workstream", "workstream_id", "id"))

Table("subagent_runs", metadata,
      Column("id", Text, primary_key=True), _workstream(), _text("call_id"), _text("kind"), _text("name"),
      _text("prompt"), _text_or_null("model"), _text("status"), _text_or_null("result"),
      Column("created_at", Float, nullable=False), Column("finished_at", Float),
      Index("ix_subagent_runs_workstream_id", "workstream_id"))

Table("usage", metadata,
      _key(), _workstream(), _text("model"), _text_or_null("alias"), _text_or_null("provider"),
      *(Column(name, Integer, nullable=False, default=0)
        for name in ("prompt_tokens", "completion_tokens", "cache_read_tokens", "cache_write_tokens")),
      Column("cost", Float), Column("cost_estimated", Boolean, nullable=False, default=False),
      Column("turn", Integer, nullable=False, default=0), Column("created_at", Float, nullable=False),
      Index("ix_usage_workstream_id", "workstream_id"))

Table("watches", metadata,
      Column("id", Text, primary_key=True), _workstream(), _text("name"), _text("command"),
      Column("interval", Float, nullable=False), _text_or_null("stop_on"), _text("status"),
      Column("polls", Integer, nullable=False, default=0), Column("max_polls", Integer, nullable=False),
      _text_or_null("last_output"), Column("next_at", Float, nullable=False),
      Column("created_at", Float, nullable=False), Column("fired_at", Float),
      Index("ix_watches_workstream_id", "workstream_id"))

Table("workstream_config", metadata,
      _workstream(primary_key=True), Column("key", Text, primary_key=True), _text("value"))

Table("workstream_forks", metadata,
      _workstream("child_id", primary_key=True), _text("parent_id"), Column("upto_seq", Integer, nullable=False),
      Column("created_at", Float, nullable=False), Index("ix_workstream_forks_parent_id", "parent_id"))

Table("workstream_leases", metadata,
      _workstream(primary_key=True), _text("instance_id"), Column("pid", Integer, nullable=False), _text("host"),
      Column("taken_at", Float, nullable=False), Column("heartbeat_at", Float, nullable=False), _text_or_null("who"),
      Index("ix_workstream_leases_instance", "instance_id"))

for _pieces in ("draft_pieces", "message_pieces"):  # a long text's slices after its row's head, in id order
    Table(_pieces, metadata,
          _key(), Column("message_id", Integer, ForeignKey("messages.id", ondelete="CASCADE"), nullable=False),
          _text("content", ""), _text("reasoning", ""), Index(f"ix_{_pieces}_message_id", "message_id"))

Table("subagent_messages", metadata,
      _key(), Column("run_id", Text, ForeignKey("subagent_runs.id", ondelete="CASCADE"), nullable=False),
      _text("role"), _text("content"), _text_or_null("data"), Column("created_at", Float, nullable=False),
      Index("ix_subagent_messages_run_id", "run_id"))


def create_statements(name: str, dialect: str) -> tuple[str, ...]:
    """The table `name`'s CREATE TABLE and CREATE INDEX statements (all IF NOT EXISTS, indexes by
    name, as `metadata.create_all` orders them), compiled for `dialect` ('sqlite' or 'postgresql')."""
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import dialect as compiler
    else:
        from sqlalchemy.dialects.sqlite import dialect as compiler
    table, target = metadata.tables[name], compiler()
    indexes = sorted(table.indexes, key=lambda index: index.name or "")
    return (str(CreateTable(table, if_not_exists=True).compile(dialect=target)).strip(),
            *(str(CreateIndex(index, if_not_exists=True).compile(dialect=target)).strip() for index in indexes))


def defaults() -> dict[str, dict[str, object]]:
    """Per table, the value each column with a `default=` takes when a write leaves it out."""
    return {table.name: {column.name: column.default.arg for column in table.columns if column.default is not None}
            for table in metadata.sorted_tables if any(column.default is not None for column in table.columns)}
