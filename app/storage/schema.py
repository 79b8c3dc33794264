"""Table definitions for Whimbrel's store (SQLAlchemy Core).

These describe the *current* schema and are what version 1 of the migrations creates.
When a later migration alters a table, update the definition here as well, so that
queries in `store.py` see the columns the migrated database actually has.
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Column,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

MESSAGE_ROLES = ("system", "user", "assistant", "tool_call", "tool_result")

workstreams = Table(
    "workstreams",
    metadata,
    Column("id", Text, primary_key=True),  # uuid4 hex
    Column("title", Text, nullable=True),
    Column("alias", Text, nullable=True),
    Column("model", Text, nullable=True),
    Column("workdir", Text, nullable=False, default=""),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    Column("state", Text, nullable=False, default="idle"),
    UniqueConstraint("alias", name="uq_workstreams_alias"),
)

messages = Table(
    "messages",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column(
        "workstream_id",
        Text,
        ForeignKey("workstreams.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    Column("seq", Integer, nullable=False),
    Column("role", Text, nullable=False),
    Column("content", Text, nullable=False, default=""),
    Column("reasoning", Text, nullable=False, default=""),
    Column("tool_call_id", Text, nullable=True, index=True),
    Column("tool_name", Text, nullable=True),
    Column("tool_args", Text, nullable=True),
    Column("is_error", Boolean, nullable=False, default=False),
    Column("interrupted", Boolean, nullable=False, default=False),
    Column("raw", Text, nullable=True),  # JSON of provider-specific data
    Column("created_at", Float, nullable=False),
    CheckConstraint(
        "role IN (" + ", ".join(f"'{r}'" for r in MESSAGE_ROLES) + ")",
        name="ck_messages_role",
    ),
)

workstream_config = Table(
    "workstream_config",
    metadata,
    Column(
        "workstream_id",
        Text,
        ForeignKey("workstreams.id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("key", Text, nullable=False),
    Column("value", Text, nullable=False),  # JSON
    PrimaryKeyConstraint("workstream_id", "key"),
)

schema_version = Table(
    "schema_version",
    metadata,
    Column("version", Integer, nullable=False),
)
