"""Versioned schema upgrades for the store (SQLite or PostgreSQL: the same steps, app/storage/dialect.py).

`MIGRATIONS` is an ordered list of `(version, function)` pairs. `migrate(engine)` reads the
version recorded in the `schema_version` table (0 for a new file) and runs every migration
above it, in order, each in its own transaction together with the update of the recorded
version — so a crash leaves the database at a whole version, never half-way. Each
transaction re-reads the version under the write lock, so two processes opening one file
at once never run a migration twice.

Adding version 2 takes three steps:

1. Write a function that takes a `Connection` and changes the schema or the data::

       def _v2_add_pinned(conn: Connection) -> None:
           conn.execute("ALTER TABLE workstreams ADD COLUMN pinned BOOLEAN DEFAULT 0")

2. Append it: `MIGRATIONS = [(1, _v1_initial), (2, _v2_add_pinned)]`.
3. Update the table's statement in `schema.py`, so a new database has the column too.

Migrations never change once released; fix a mistake with a further migration.

This list is frozen at version 16: schema changes from now on are Alembic revisions
(app/storage/revisions/, run by app/storage/schema_upgrade.py), whose baseline is this list's end.
A store made before Alembic goes through these steps first (cheap: each only creates what is
missing), then Alembic takes over; `schema_version` stays, as the version exports record.
Version 1 creates the tables straight from `schema.py`; on a new database it therefore
already produces the latest schema, so `migrate` runs it and then records the latest
version without replaying the later (purely incremental) migrations.
"""

from __future__ import annotations

from typing import Callable, Sequence

from app.storage.dialect import table_exists
from app.storage.engine import Connection, Engine
from app.storage.schema import TABLES, create_tables

Migration = Callable[[Connection], None]


def _v1_initial(conn: Connection) -> None:
    """Create the initial tables."""
    create_tables(conn, *TABLES)


def _v2_usage_and_compactions(conn: Connection) -> None:
    """Usage rows per model request, and compaction summaries."""
    create_tables(conn, "usage", "compactions")


def _v3_history_state_resets(conn: Connection) -> None:
    """Prompt history, app state (layout, open tabs), /clear points, a (workstream, seq) index.

    The full-text index is not created here: it depends on the SQLite build, so
    `app.storage.fts.ensure_fts` sets it up (or repairs it) each time a Store opens.
    """
    create_tables(conn, "prompt_history", "app_state", "context_resets")
    conn.execute("CREATE INDEX IF NOT EXISTS ix_messages_workstream_seq ON messages (workstream_id, seq)")


def _v4_workstream_leases(conn: Connection) -> None:
    """Which running instance has each workstream open (two windows may share one store)."""
    create_tables(conn, "workstream_leases")


def _v5_audit_and_policy_reviews(conn: Connection) -> None:
    """The permission engine's audit log and the accepted hashes of project policy files."""
    create_tables(conn, "audit_log", "policy_reviews")


def _v6_checkpoints(conn: Connection) -> None:
    """Checkpoints of turns, rewinds (with their undo data) and fork links (app/checkpoints/)."""
    create_tables(conn, "checkpoints", "checkpoint_ops", "workstream_forks")


def _v7_memories(conn: Connection) -> None:
    """Structured memories: name, description, content, type, scope, access counts."""
    create_tables(conn, "memories")


def _v8_subagents_and_watches(conn: Connection) -> None:
    """Sub-agent runs (task/plan) and their own conversations, and watches."""
    create_tables(conn, "subagent_runs", "subagent_messages", "watches")


def _v9_draft_pieces(conn: Connection) -> None:
    """A streaming reply's saves as appended pieces (no rewrite of the whole row per save)."""
    create_tables(conn, "draft_pieces")


def _v15_mcp_calls(conn: Connection) -> None:
    """The MCP inspector's call history, kept across restarts."""
    create_tables(conn, "mcp_calls")


def _v16_message_pieces(conn: Connection) -> None:
    """Long message texts as a head in their row plus pieces (no 10 MB value in one write)."""
    create_tables(conn, "message_pieces")


MIGRATIONS: list[tuple[int, Migration]] = [
    (1, _v1_initial),
    (2, _v2_usage_and_compactions),
    (3, _v3_history_state_resets),
    (4, _v4_workstream_leases),
    (5, _v5_audit_and_policy_reviews),
    (6, _v6_checkpoints),
    (7, _v7_memories),
    (8, _v8_subagents_and_watches),
    (9, _v9_draft_pieces),
    (15, _v15_mcp_calls),
    (16, _v16_message_pieces),
]


def current_version(conn: Connection) -> int:
    """The schema version recorded in the database; 0 when it has none yet."""
    if not table_exists(conn, "schema_version"):
        return 0
    return conn.execute("SELECT version FROM schema_version").scalar() or 0


def _record_version(conn: Connection, version: int) -> None:
    create_tables(conn, "schema_version")
    conn.execute("DELETE FROM schema_version")
    conn.execute("INSERT INTO schema_version (version) VALUES (?)", (version,))


def upgrade_in(conn: Connection, migrations: Sequence[tuple[int, Migration]] = MIGRATIONS) -> int:
    """Inside the caller's write transaction (Alembic's baseline revision): every step above the
    recorded version, as `migrate` runs them; the version reached."""
    stored, latest = current_version(conn), migrations[-1][0]
    if stored > latest:
        raise RuntimeError(f"the database is at schema version {stored}, but this Whimbrel only knows "
                           f"up to version {latest}; please upgrade Whimbrel")
    for version, step in migrations:
        if version > stored:
            step(conn)
            _record_version(conn, latest if version == 1 else version)
            if version == 1:
                break
    return latest


def migrate(engine: Engine, migrations: Sequence[tuple[int, Migration]] = MIGRATIONS) -> int:
    """Bring the database up to the newest version in `migrations`; return that version.

    Raises RuntimeError when the database is newer than this program knows about.
    """
    versions = [v for v, _ in migrations]
    if versions != sorted(set(versions)) or (versions and versions[0] != 1):
        raise ValueError(f"migrations must be numbered 1, 2, ... in order, got {versions}")
    latest = versions[-1] if versions else 0
    with engine.connect() as conn:
        stored = current_version(conn)
    if stored > latest:
        raise RuntimeError(
            f"the database is at schema version {stored}, but this Whimbrel only knows "
            f"up to version {latest}; please upgrade Whimbrel"
        )
    for version, step in migrations:
        if version <= stored:
            continue
        with engine.begin() as conn:  # holds the write lock: another process may migrate too
            if current_version(conn) >= version:
                continue  # it got there first
            step(conn)
            fresh = version == 1
            _record_version(conn, latest if fresh else version)
        if fresh:
            break
    return latest
