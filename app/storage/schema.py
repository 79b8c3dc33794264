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

# -- version 6: checkpoints, rewinds and forks (app/checkpoints/) ------------------------------

# A turn that changed the workspace: the shadow repository's trees before and after it.
checkpoints = Table(
    "checkpoints",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    workstream_fk(index=True),
    Column("user_message_id", Integer, nullable=True),  # messages.id of the turn's user message
    Column("user_seq", Integer, nullable=False),  # its seq (rewinding there cuts the history from it)
    Column("workspace", Text, nullable=False),
    Column("before_tree", Text, nullable=False),
    Column("after_tree", Text, nullable=False),
    Column("changes", Text, nullable=False, default="[]"),  # JSON [[path, status, added, removed, binary]]
    Column("skipped", Text, nullable=False, default="[]"),  # JSON: files left out, with why
    Column("outside", Text, nullable=False, default="[]"),  # JSON: paths outside the workspace it touched
    Column("created_at", Float, nullable=False),
)

# A rewind (or the undo of one), written 'pending' before anything changes and 'done' in the
# transaction that cuts the conversation, so a restart finds a half-done one and finishes it.
checkpoint_ops = Table(
    "checkpoint_ops",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    workstream_fk(index=True),
    Column("kind", Text, nullable=False),  # 'rewind' | 'undo'
    Column("mode", Text, nullable=False),  # 'both' | 'files' | 'conversation'
    Column("workspace", Text, nullable=False),
    Column("from_tree", Text, nullable=True),  # the workspace just before (an undo goes back to it)
    Column("to_tree", Text, nullable=True),
    Column("cut_seq", Integer, nullable=True),  # messages from this seq on are removed
    Column("removed", Text, nullable=True),  # JSON of the removed message rows (an undo puts them back)
    Column("undoes", Integer, nullable=True),  # checkpoint_ops.id an undo reverses
    Column("state", Text, nullable=False),  # 'pending' | 'done' | 'undone'
    Column("created_at", Float, nullable=False),
    Column("finished_at", Float, nullable=True),
)

# A workstream forked from another: its parent and the point its history was copied up to.
workstream_forks = Table(
    "workstream_forks",
    metadata,
    Column("child_id", Text, ForeignKey("workstreams.id", ondelete="CASCADE"), primary_key=True),
    Column("parent_id", Text, nullable=False, index=True),
    Column("upto_seq", Integer, nullable=False),
    Column("created_at", Float, nullable=False),
)


# -- memory (issue 16): structured memories the agent saves and is given by relevance ------

# One row per memory. `scope` is global, workstream or workspace; `scope_key` is '' for global,
# the workstream id or the resolved workspace path. A name is unique within its scope.
memories = Table(
    "memories",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", Text, nullable=False),
    Column("description", Text, nullable=False, default=""),
    Column("content", Text, nullable=False, default=""),
    Column("type", Text, nullable=False, default="project"),
    Column("scope", Text, nullable=False, default="global"),
    Column("scope_key", Text, nullable=False, default=""),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    Column("accessed_at", Float, nullable=True),
    Column("access_count", Integer, nullable=False, default=0),
    UniqueConstraint("name", "scope", "scope_key", name="uq_memories_name_scope"),
    CheckConstraint("type IN ('user', 'project', 'feedback', 'reference')", name="ck_memories_type"),
    CheckConstraint("scope IN ('global', 'workstream', 'workspace')", name="ck_memories_scope"),
    Index("ix_memories_scope", "scope", "scope_key"),
)


# -- version 5: the permission engine (issue 13): audit log and reviewed project policies ---------

# One row per tool call (built-in, MCP, sub-agent): who decided what, and how it ended. Rows are
# not tied to the workstream row (no foreign key), so the record outlives a deleted conversation;
# they are pruned by age with the retention setting.
audit_log = Table(
    "audit_log",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("created_at", Float, nullable=False),
    Column("workstream_id", Text, nullable=False),
    Column("call_id", Text, nullable=False),
    Column("tool", Text, nullable=False),
    Column("arguments", Text, nullable=False),  # JSON, secrets redacted
    Column("decision", Text, nullable=False),  # allowed | approved | denied | refused
    Column("decided_by", Text, nullable=False),  # rule (scope, file:line) | mode | user | hook | risk
    Column("mode", Text, nullable=False),
    Column("risk", Text, nullable=False),  # level: reason
    Column("sandbox", Text, nullable=False),  # read-only | workspace-write | full | none
    Column("status", Text, nullable=False),  # done | error | denied | refused | cancelled
    Column("duration_ms", Float, nullable=True),
    Column("agent", Text, nullable=True),  # the sub-agent that made the call, when one did
    Index("ix_audit_log_created", "created_at"),
    Index("ix_audit_log_workstream", "workstream_id", "created_at"),
)

# A project's .whimbrel/ policy file as the user accepted it: a changed file does not apply
# until it is accepted again.
policy_reviews = Table(
    "policy_reviews",
    metadata,
    Column("path", Text, primary_key=True),
    Column("sha256", Text, nullable=False),
    Column("accepted_at", Float, nullable=False),
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


# -- version 9 (issue 12): a streaming reply's saves, appended (app/storage/drafts.py) ------------

# The text a streaming reply got since its previous save, one row per save after the first; folded
# into the reply's `messages` row when it completes (or when a Store opens after a crash).
def _text_pieces(name: str) -> Table:
    """A table of pieces of messages' text (content and reasoning), read in id order."""
    return Table(
        name,
        metadata,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("message_id", Integer, ForeignKey("messages.id", ondelete="CASCADE"), nullable=False, index=True),
        Column("content", Text, nullable=False, default=""),
        Column("reasoning", Text, nullable=False, default=""),
    )


draft_pieces = _text_pieces("draft_pieces")


# -- version 15 (issue 18): the MCP inspector's call history -----------------------------------

# One row per request made by hand in the inspector (tools/call, resources/read, prompts/get), per
# server name, so the History tab survives a restart and two instances see each other's calls.
# Pruned by age with the retention setting and to the newest few hundred per server
# (app/storage/mcp_call_store.py).
mcp_calls = Table(
    "mcp_calls",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("server", Text, nullable=False),
    Column("at", Float, nullable=False),
    Column("kind", Text, nullable=False),  # tools | resources | prompts (the inspector tab)
    Column("item", Text, nullable=False),  # the tool, resource URI or prompt name
    Column("label", Text, nullable=False),
    Column("arguments", Text, nullable=False),  # JSON: what was sent
    Column("raw", Text, nullable=False),  # JSON: the form's values, to fill it again
    Column("ok", Boolean, nullable=False),
    Column("elapsed_ms", Float, nullable=False),
    Column("answer", Text, nullable=False),  # JSON: {"result": …, "problems": …, "uri": …} or {"error": …}
    Index("ix_mcp_calls_server_at", "server", "at"),
)


# -- version 16 (issue 12): long texts stored in pieces (app/storage/pieces.py) ---------------------

# What follows the first HEAD_CHARS characters of a long message's content and reasoning, in
# PIECE_CHARS slices, in id order: the row plus its pieces is the whole text.
message_pieces = _text_pieces("message_pieces")
