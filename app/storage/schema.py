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
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

MESSAGE_ROLES = ("system", "user", "assistant", "tool_call", "tool_result")


def workstream_fk(*, index: bool = False) -> Column:
    """The `workstream_id` column every per-workstream table has; its rows go with the workstream."""
    return Column("workstream_id", Text, ForeignKey("workstreams.id", ondelete="CASCADE"), nullable=False,
                  index=index)

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
    workstream_fk(index=True),
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
    workstream_fk(),
    Column("key", Text, nullable=False),
    Column("value", Text, nullable=False),  # JSON
    PrimaryKeyConstraint("workstream_id", "key"),
)

usage = Table(  # one row per model request (migration 2)
    "usage",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    workstream_fk(index=True),
    Column("model", Text, nullable=False),
    Column("alias", Text, nullable=True),
    Column("provider", Text, nullable=True),
    Column("prompt_tokens", Integer, nullable=False, default=0),
    Column("completion_tokens", Integer, nullable=False, default=0),
    Column("cache_read_tokens", Integer, nullable=False, default=0),
    Column("cache_write_tokens", Integer, nullable=False, default=0),
    Column("cost", Float, nullable=True),  # USD; NULL when no price is known
    Column("cost_estimated", Boolean, nullable=False, default=False),
    Column("turn", Integer, nullable=False, default=0),  # the user turn it belongs to
    Column("created_at", Float, nullable=False),
)

compactions = Table(  # one row per compaction; messages stay in `messages` (migration 2)
    "compactions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    workstream_fk(index=True),
    Column("summary", Text, nullable=False),
    Column("focus", Text, nullable=True),
    Column("last_message_id", Integer, nullable=False),  # messages.id of the last one summarized
    Column("tokens_before", Integer, nullable=True),
    Column("created_at", Float, nullable=False),
)

schema_version = Table(
    "schema_version",
    metadata,
    Column("version", Integer, nullable=False),
)

# -- version 3: prompt history, app state, /clear points ---------------------------------

ix_messages_workstream_seq = Index(
    "ix_messages_workstream_seq", messages.c.workstream_id, messages.c.seq)

prompt_history = Table(
    "prompt_history",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    workstream_fk(),
    Column("text", Text, nullable=False),
    Column("created_at", Float, nullable=False),
    Index("ix_prompt_history_workstream", "workstream_id", "id"),
)

app_state = Table(
    "app_state",
    metadata,
    Column("key", Text, primary_key=True),
    Column("value", Text, nullable=False),  # JSON
    Column("updated_at", Float, nullable=False),
)

# A /clear: the model's context restarts after the message row numbered `seq` (the
# workstream's highest seq when it was cleared). History before it stays for display.
context_resets = Table(
    "context_resets",
    metadata,
    workstream_fk(),
    Column("seq", Integer, nullable=False),
    Column("created_at", Float, nullable=False),
    PrimaryKeyConstraint("workstream_id", "seq"),
)

# -- version 4: who has a workstream open ---------------------------------------------------

# One row per workstream that a running Whimbrel has open (app/storage/leases.py): that
# instance alone writes to it. `heartbeat_at` is refreshed while it runs; a row whose
# heartbeat stopped, or whose process is gone, may be taken over.
workstream_leases = Table(
    "workstream_leases",
    metadata,
    Column("workstream_id", Text, ForeignKey("workstreams.id", ondelete="CASCADE"), primary_key=True),
    Column("instance_id", Text, nullable=False),  # uuid4 hex of one running app
    Column("pid", Integer, nullable=False),
    Column("host", Text, nullable=False),
    Column("taken_at", Float, nullable=False),
    Column("heartbeat_at", Float, nullable=False),
    Index("ix_workstream_leases_instance", "instance_id"),
)

# -- version 8 (issue 14): sub-agents ---------------------------------------------------------

# One row per task/plan sub-agent a workstream's model started (app/storage/subagent_store.py);
# `call_id` is the parent's tool call. Its usage rows go to the parent's `usage` (so /cost counts
# them); its own conversation goes to `subagent_messages`.
subagent_runs = Table(
    "subagent_runs",
    metadata,
    Column("id", Text, primary_key=True),  # uuid4 hex
    workstream_fk(index=True),
    Column("call_id", Text, nullable=False),
    Column("kind", Text, nullable=False),  # "task" | "plan"
    Column("name", Text, nullable=False),  # "task-1", shown on approvals and cards
    Column("prompt", Text, nullable=False),
    Column("model", Text, nullable=True),
    Column("status", Text, nullable=False),  # running | done | error | cancelled
    Column("result", Text, nullable=True),
    Column("created_at", Float, nullable=False),
    Column("finished_at", Float, nullable=True),
)

subagent_messages = Table(
    "subagent_messages",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", Text, ForeignKey("subagent_runs.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("role", Text, nullable=False),
    Column("content", Text, nullable=False),
    Column("data", Text, nullable=True),  # JSON: tool_calls, tool_call_id, name, is_error
    Column("created_at", Float, nullable=False),
)

# A `watch` (issue 14): a command polled every `interval` seconds until `stop_on` holds (or its
# output changes); then its workstream gets a message and a turn. Kept here so watches survive a restart.
watches = Table(
    "watches",
    metadata,
    Column("id", Text, primary_key=True),  # uuid4 hex
    workstream_fk(index=True),
    Column("name", Text, nullable=False),
    Column("command", Text, nullable=False),
    Column("interval", Float, nullable=False),
    Column("stop_on", Text, nullable=True),
    Column("status", Text, nullable=False),  # active | fired | cancelled
    Column("polls", Integer, nullable=False, default=0),
    Column("max_polls", Integer, nullable=False),
    Column("last_output", Text, nullable=True),
    Column("next_at", Float, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("fired_at", Float, nullable=True),
)
