"""Whimbrel's store schema as SQL text: the compiled form of app/storage/tables.py for the SQLite fast path.

The tables are defined once, as SQLAlchemy Core tables in app/storage/tables.py. This module holds
the same tables as the SQL that SQLite runs, so a SQLite store is created and opened without importing
SQLAlchemy (~13 MB and its import time on every start). The text is kept by hand beside the Core
tables, and tests/storage/test_tables.py compiles each Core table for SQLite and asserts it is the
statement here (whitespace aside), and that `DEFAULTS` are the Core columns' defaults: change both.
PostgreSQL stores are created from the Core tables themselves (`create_tables`).

Each table is a tuple of statements (CREATE TABLE, then its indexes), all `IF NOT EXISTS`, so a
migration can create a table that may already be there. They describe the *current* schema, which
version 1 of the frozen migrations creates on a new database (app/storage/migrations.py); a column an
Alembic revision adds (app/storage/revisions/) is added here and in tables.py too, last, where the
revision's ALTER TABLE puts it (`who`: app/storage/identity.py); a table a revision rebuilds
(`memories`, r0004) is made from its statement here. Their columns have no SQL defaults; `DEFAULTS`
is what `Connection.insert` (app/storage/engine.py) fills in for a column a write leaves out.
"""

from __future__ import annotations

MESSAGE_ROLES = ("system", "user", "assistant", "tool_call", "tool_result")

APP_STATE = (
    """\
CREATE TABLE IF NOT EXISTS app_state (
    "key" TEXT NOT NULL,
    value TEXT NOT NULL,
    updated_at FLOAT NOT NULL,
    PRIMARY KEY ("key")
)""",
)

# One row per tool call (built-in, MCP, sub-agent): who decided what, and how it ended. Rows are
# not tied to the workstream row (no foreign key), so the record outlives a deleted conversation;
# they are pruned by age with the retention setting.
AUDIT_LOG = (
    """\
CREATE TABLE IF NOT EXISTS audit_log (
    id INTEGER NOT NULL,
    created_at FLOAT NOT NULL,
    workstream_id TEXT NOT NULL,
    call_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    arguments TEXT NOT NULL,
    decision TEXT NOT NULL,
    decided_by TEXT NOT NULL,
    mode TEXT NOT NULL,
    risk TEXT NOT NULL,
    sandbox TEXT NOT NULL,
    status TEXT NOT NULL,
    duration_ms FLOAT,
    agent TEXT,
    who TEXT,
    PRIMARY KEY (id)
)""",
    "CREATE INDEX IF NOT EXISTS ix_audit_log_created ON audit_log (created_at)",
    "CREATE INDEX IF NOT EXISTS ix_audit_log_workstream ON audit_log (workstream_id, created_at)",
)

# One row per request made by hand in the inspector (tools/call, resources/read, prompts/get), per
# server name, so the History tab survives a restart and two instances see each other's calls.
# Pruned by age with the retention setting and to the newest few hundred per server
# (app/storage/mcp_call_store.py).
MCP_CALLS = (
    """\
CREATE TABLE IF NOT EXISTS mcp_calls (
    id INTEGER NOT NULL,
    server TEXT NOT NULL,
    at FLOAT NOT NULL,
    kind TEXT NOT NULL,
    item TEXT NOT NULL,
    label TEXT NOT NULL,
    arguments TEXT NOT NULL,
    raw TEXT NOT NULL,
    ok BOOLEAN NOT NULL,
    elapsed_ms FLOAT NOT NULL,
    answer TEXT NOT NULL,
    PRIMARY KEY (id)
)""",
    "CREATE INDEX IF NOT EXISTS ix_mcp_calls_server_at ON mcp_calls (server, at)",
)

# One row per memory. `scope` is global, workstream, workspace or team; `scope_key` is '' for global
# and team (on PostgreSQL a global memory's key is its saver's name: app/memory/memory_store.py), the
# workstream id or the resolved workspace path. A name is unique within its scope. `who` saved it last.
MEMORIES = (
    """\
CREATE TABLE IF NOT EXISTS memories (
    id INTEGER NOT NULL,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    content TEXT NOT NULL,
    type TEXT NOT NULL,
    scope TEXT NOT NULL,
    scope_key TEXT NOT NULL,
    created_at FLOAT NOT NULL,
    updated_at FLOAT NOT NULL,
    accessed_at FLOAT,
    access_count INTEGER NOT NULL,
    who TEXT,
    PRIMARY KEY (id),
    CONSTRAINT uq_memories_name_scope UNIQUE (name, scope, scope_key),
    CONSTRAINT ck_memories_type CHECK (type IN ('user', 'project', 'feedback', 'reference')),
    CONSTRAINT ck_memories_scope CHECK (scope IN ('global', 'workstream', 'workspace', 'team'))
)""",
    "CREATE INDEX IF NOT EXISTS ix_memories_scope ON memories (scope, scope_key)",
)

# A project's .whimbrel/ policy file as the user accepted it: a changed file does not apply
# until it is accepted again.
POLICY_REVIEWS = (
    """\
CREATE TABLE IF NOT EXISTS policy_reviews (
    path TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    accepted_at FLOAT NOT NULL,
    PRIMARY KEY (path)
)""",
)

SCHEMA_VERSION = (
    """\
CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER NOT NULL
)""",
)

WORKSTREAMS = (
    """\
CREATE TABLE IF NOT EXISTS workstreams (
    id TEXT NOT NULL,
    title TEXT,
    alias TEXT,
    model TEXT,
    workdir TEXT NOT NULL,
    created_at FLOAT NOT NULL,
    updated_at FLOAT NOT NULL,
    state TEXT NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT uq_workstreams_alias UNIQUE (alias)
)""",
)

# A rewind (or the undo of one), written 'pending' before anything changes and 'done' in the
# transaction that cuts the conversation, so a restart finds a half-done one and finishes it.
CHECKPOINT_OPS = (
    """\
CREATE TABLE IF NOT EXISTS checkpoint_ops (
    id INTEGER NOT NULL,
    workstream_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    mode TEXT NOT NULL,
    workspace TEXT NOT NULL,
    from_tree TEXT,
    to_tree TEXT,
    cut_seq INTEGER,
    removed TEXT,
    undoes INTEGER,
    state TEXT NOT NULL,
    created_at FLOAT NOT NULL,
    finished_at FLOAT,
    PRIMARY KEY (id),
    FOREIGN KEY(workstream_id) REFERENCES workstreams (id) ON DELETE CASCADE
)""",
    "CREATE INDEX IF NOT EXISTS ix_checkpoint_ops_workstream_id ON checkpoint_ops (workstream_id)",
)

# A turn that changed the workspace: the shadow repository's trees before and after it.
CHECKPOINTS = (
    """\
CREATE TABLE IF NOT EXISTS checkpoints (
    id INTEGER NOT NULL,
    workstream_id TEXT NOT NULL,
    user_message_id INTEGER,
    user_seq INTEGER NOT NULL,
    workspace TEXT NOT NULL,
    before_tree TEXT NOT NULL,
    after_tree TEXT NOT NULL,
    changes TEXT NOT NULL,
    skipped TEXT NOT NULL,
    outside TEXT NOT NULL,
    created_at FLOAT NOT NULL,
    PRIMARY KEY (id),
    FOREIGN KEY(workstream_id) REFERENCES workstreams (id) ON DELETE CASCADE
)""",
    "CREATE INDEX IF NOT EXISTS ix_checkpoints_workstream_id ON checkpoints (workstream_id)",
)

# one row per compaction; messages stay in `messages` (migration 2)
COMPACTIONS = (
    """\
CREATE TABLE IF NOT EXISTS compactions (
    id INTEGER NOT NULL,
    workstream_id TEXT NOT NULL,
    summary TEXT NOT NULL,
    focus TEXT,
    last_message_id INTEGER NOT NULL,
    tokens_before INTEGER,
    created_at FLOAT NOT NULL,
    PRIMARY KEY (id),
    FOREIGN KEY(workstream_id) REFERENCES workstreams (id) ON DELETE CASCADE
)""",
    "CREATE INDEX IF NOT EXISTS ix_compactions_workstream_id ON compactions (workstream_id)",
)

# A /clear: the model's context restarts after the message row numbered `seq` (the
# workstream's highest seq when it was cleared). History before it stays for display.
CONTEXT_RESETS = (
    """\
CREATE TABLE IF NOT EXISTS context_resets (
    workstream_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    created_at FLOAT NOT NULL,
    PRIMARY KEY (workstream_id, seq),
    FOREIGN KEY(workstream_id) REFERENCES workstreams (id) ON DELETE CASCADE
)""",
)

MESSAGES = (
    """\
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER NOT NULL,
    workstream_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    reasoning TEXT NOT NULL,
    tool_call_id TEXT,
    tool_name TEXT,
    tool_args TEXT,
    is_error BOOLEAN NOT NULL,
    interrupted BOOLEAN NOT NULL,
    raw TEXT,
    created_at FLOAT NOT NULL,
    who TEXT,
    PRIMARY KEY (id),
    CONSTRAINT ck_messages_role CHECK (role IN ('system', 'user', 'assistant', 'tool_call', 'tool_result')),
    FOREIGN KEY(workstream_id) REFERENCES workstreams (id) ON DELETE CASCADE
)""",
    "CREATE INDEX IF NOT EXISTS ix_messages_tool_call_id ON messages (tool_call_id)",
    "CREATE INDEX IF NOT EXISTS ix_messages_workstream_id ON messages (workstream_id)",
    "CREATE INDEX IF NOT EXISTS ix_messages_workstream_seq ON messages (workstream_id, seq)",
)

PROMPT_HISTORY = (
    """\
CREATE TABLE IF NOT EXISTS prompt_history (
    id INTEGER NOT NULL,
    workstream_id TEXT NOT NULL,
    text TEXT NOT NULL,
    created_at FLOAT NOT NULL,
    PRIMARY KEY (id),
    FOREIGN KEY(workstream_id) REFERENCES workstreams (id) ON DELETE CASCADE
)""",
    "CREATE INDEX IF NOT EXISTS ix_prompt_history_workstream ON prompt_history (workstream_id, id)",
)

# One row per task/plan sub-agent a workstream's model started (app/storage/subagent_store.py);
# `call_id` is the parent's tool call. Its usage rows go to the parent's `usage` (so /cost counts
# them); its own conversation goes to `subagent_messages`.
SUBAGENT_RUNS = (
    """\
CREATE TABLE IF NOT EXISTS subagent_runs (
    id TEXT NOT NULL,
    workstream_id TEXT NOT NULL,
    call_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    prompt TEXT NOT NULL,
    model TEXT,
    status TEXT NOT NULL,
    result TEXT,
    created_at FLOAT NOT NULL,
    finished_at FLOAT,
    PRIMARY KEY (id),
    FOREIGN KEY(workstream_id) REFERENCES workstreams (id) ON DELETE CASCADE
)""",
    "CREATE INDEX IF NOT EXISTS ix_subagent_runs_workstream_id ON subagent_runs (workstream_id)",
)

# one row per model request (migration 2)
USAGE = (
    """\
CREATE TABLE IF NOT EXISTS usage (
    id INTEGER NOT NULL,
    workstream_id TEXT NOT NULL,
    model TEXT NOT NULL,
    alias TEXT,
    provider TEXT,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    cache_read_tokens INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    cost FLOAT,
    cost_estimated BOOLEAN NOT NULL,
    turn INTEGER NOT NULL,
    created_at FLOAT NOT NULL,
    PRIMARY KEY (id),
    FOREIGN KEY(workstream_id) REFERENCES workstreams (id) ON DELETE CASCADE
)""",
    "CREATE INDEX IF NOT EXISTS ix_usage_workstream_id ON usage (workstream_id)",
)

# A `watch`: a command polled every `interval` seconds until `stop_on` holds (or its
# output changes); then its workstream gets a message and a turn. Kept here so watches survive a restart.
WATCHES = (
    """\
CREATE TABLE IF NOT EXISTS watches (
    id TEXT NOT NULL,
    workstream_id TEXT NOT NULL,
    name TEXT NOT NULL,
    command TEXT NOT NULL,
    interval FLOAT NOT NULL,
    stop_on TEXT,
    status TEXT NOT NULL,
    polls INTEGER NOT NULL,
    max_polls INTEGER NOT NULL,
    last_output TEXT,
    next_at FLOAT NOT NULL,
    created_at FLOAT NOT NULL,
    fired_at FLOAT,
    PRIMARY KEY (id),
    FOREIGN KEY(workstream_id) REFERENCES workstreams (id) ON DELETE CASCADE
)""",
    "CREATE INDEX IF NOT EXISTS ix_watches_workstream_id ON watches (workstream_id)",
)

WORKSTREAM_CONFIG = (
    """\
CREATE TABLE IF NOT EXISTS workstream_config (
    workstream_id TEXT NOT NULL,
    "key" TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (workstream_id, "key"),
    FOREIGN KEY(workstream_id) REFERENCES workstreams (id) ON DELETE CASCADE
)""",
)

# A workstream forked from another: its parent and the point its history was copied up to.
WORKSTREAM_FORKS = (
    """\
CREATE TABLE IF NOT EXISTS workstream_forks (
    child_id TEXT NOT NULL,
    parent_id TEXT NOT NULL,
    upto_seq INTEGER NOT NULL,
    created_at FLOAT NOT NULL,
    PRIMARY KEY (child_id),
    FOREIGN KEY(child_id) REFERENCES workstreams (id) ON DELETE CASCADE
)""",
    "CREATE INDEX IF NOT EXISTS ix_workstream_forks_parent_id ON workstream_forks (parent_id)",
)

# A team's permission rules kept in the store (`whimbrel policy team set`), one row named 'policy': the
# TOML text as written, by whom and when. Each instance applies it only once its user accepted that
# very text (app/permissions/team_policy.py); the acceptance is kept per instance, in its data dir.
TEAM_POLICY = (
    """\
CREATE TABLE IF NOT EXISTS team_policy (
    name TEXT NOT NULL,
    text TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    updated_at FLOAT NOT NULL,
    who TEXT,
    PRIMARY KEY (name)
)""",
)

# One row per workstream that a running Whimbrel has open (app/storage/leases.py): that
# instance alone writes to it. `heartbeat_at` is refreshed while it runs; a row whose
# heartbeat stopped, or whose process is gone, may be taken over.
WORKSTREAM_LEASES = (
    """\
CREATE TABLE IF NOT EXISTS workstream_leases (
    workstream_id TEXT NOT NULL,
    instance_id TEXT NOT NULL,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    taken_at FLOAT NOT NULL,
    heartbeat_at FLOAT NOT NULL,
    who TEXT,
    PRIMARY KEY (workstream_id),
    FOREIGN KEY(workstream_id) REFERENCES workstreams (id) ON DELETE CASCADE
)""",
    "CREATE INDEX IF NOT EXISTS ix_workstream_leases_instance ON workstream_leases (instance_id)",
)

DRAFT_PIECES = (
    """\
CREATE TABLE IF NOT EXISTS draft_pieces (
    id INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    content TEXT NOT NULL,
    reasoning TEXT NOT NULL,
    PRIMARY KEY (id),
    FOREIGN KEY(message_id) REFERENCES messages (id) ON DELETE CASCADE
)""",
    "CREATE INDEX IF NOT EXISTS ix_draft_pieces_message_id ON draft_pieces (message_id)",
)

# What follows the first HEAD_CHARS characters of a long message's content and reasoning, in
# PIECE_CHARS slices, in id order: the row plus its pieces is the whole text.
MESSAGE_PIECES = (
    """\
CREATE TABLE IF NOT EXISTS message_pieces (
    id INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    content TEXT NOT NULL,
    reasoning TEXT NOT NULL,
    PRIMARY KEY (id),
    FOREIGN KEY(message_id) REFERENCES messages (id) ON DELETE CASCADE
)""",
    "CREATE INDEX IF NOT EXISTS ix_message_pieces_message_id ON message_pieces (message_id)",
)

SUBAGENT_MESSAGES = (
    """\
CREATE TABLE IF NOT EXISTS subagent_messages (
    id INTEGER NOT NULL,
    run_id TEXT NOT NULL,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    data TEXT,
    created_at FLOAT NOT NULL,
    PRIMARY KEY (id),
    FOREIGN KEY(run_id) REFERENCES subagent_runs (id) ON DELETE CASCADE
)""",
    "CREATE INDEX IF NOT EXISTS ix_subagent_messages_run_id ON subagent_messages (run_id)",
)


# Creation order: a table comes after every table its foreign keys name.
TABLES: dict[str, tuple[str, ...]] = {
    "app_state": APP_STATE,
    "audit_log": AUDIT_LOG,
    "mcp_calls": MCP_CALLS,
    "memories": MEMORIES,
    "policy_reviews": POLICY_REVIEWS,
    "team_policy": TEAM_POLICY,
    "schema_version": SCHEMA_VERSION,
    "workstreams": WORKSTREAMS,
    "checkpoint_ops": CHECKPOINT_OPS,
    "checkpoints": CHECKPOINTS,
    "compactions": COMPACTIONS,
    "context_resets": CONTEXT_RESETS,
    "messages": MESSAGES,
    "prompt_history": PROMPT_HISTORY,
    "subagent_runs": SUBAGENT_RUNS,
    "usage": USAGE,
    "watches": WATCHES,
    "workstream_config": WORKSTREAM_CONFIG,
    "workstream_forks": WORKSTREAM_FORKS,
    "workstream_leases": WORKSTREAM_LEASES,
    "draft_pieces": DRAFT_PIECES,
    "message_pieces": MESSAGE_PIECES,
    "subagent_messages": SUBAGENT_MESSAGES,
}

DEFAULTS: dict[str, dict[str, object]] = {
    "memories": {'description': '', 'content': '', 'type': 'project', 'scope': 'global', 'scope_key': '', 'access_count': 0},
    "workstreams": {'workdir': '', 'state': 'idle'},
    "checkpoints": {'changes': '[]', 'skipped': '[]', 'outside': '[]'},
    "messages": {'content': '', 'reasoning': '', 'is_error': False, 'interrupted': False},
    "usage": {'prompt_tokens': 0, 'completion_tokens': 0, 'cache_read_tokens': 0, 'cache_write_tokens': 0, 'cost_estimated': False, 'turn': 0},
    "watches": {'polls': 0},
    "draft_pieces": {'content': '', 'reasoning': ''},
    "message_pieces": {'content': '', 'reasoning': ''},
}


# The tables keyed by an integer `id` the database numbers (SERIAL on PostgreSQL): an insert returns it.
SERIAL_TABLES = frozenset(name for name, statements in TABLES.items()
                          if "    id INTEGER NOT NULL," in statements[0] and "PRIMARY KEY (id)" in statements[0])


def create_tables(conn, *names: str) -> None:
    """Create the tables `names` (and their indexes) where they do not exist yet: this module's text on
    SQLite, the Core tables compiled for PostgreSQL there (its store already loads SQLAlchemy)."""
    for name in names:
        if conn.dialect == "postgresql":
            from app.storage.tables import create_statements

            statements = create_statements(name, "postgresql")
        else:
            statements = TABLES[name]
        for statement in statements:
            conn.execute(statement)
