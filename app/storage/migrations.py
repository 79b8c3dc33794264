"""Versioned schema upgrades for the SQLite store.

`MIGRATIONS` is an ordered list of `(version, function)` pairs. `migrate(engine)` reads the
version recorded in the `schema_version` table (0 for a new file) and runs every migration
above it, in order, each in its own transaction together with the update of the recorded
version — so a crash leaves the database at a whole version, never half-way. Each
transaction re-reads the version under the write lock, so two processes opening one file
at once never run a migration twice.

Adding version 2 takes three steps:

1. Write a function that takes a `Connection` and changes the schema or the data::

       def _v2_add_pinned(conn: Connection) -> None:
           conn.exec_driver_sql("ALTER TABLE workstreams ADD COLUMN pinned BOOLEAN DEFAULT 0")

2. Append it: `MIGRATIONS = [(1, _v1_initial), (2, _v2_add_pinned)]`.
3. Update the table definition in `schema.py` so queries see the new column.

Migrations never change once released; fix a mistake with a further migration.
Version 1 creates the tables straight from `schema.py`; on a new database it therefore
already produces the latest schema, so `migrate` runs it and then records the latest
version without replaying the later (purely incremental) migrations.
"""

from __future__ import annotations

from typing import Callable, Sequence

from sqlalchemy import Connection, Engine, delete, insert, inspect, select

from app.storage.schema import metadata, schema_version
from app.storage.schema import (app_state, context_resets, ix_messages_workstream_seq,
                                prompt_history, workstream_leases)

Migration = Callable[[Connection], None]


def _v1_initial(conn: Connection) -> None:
    """Create the initial tables."""
    metadata.create_all(conn)


def _v2_usage_and_compactions(conn: Connection) -> None:
    """Usage rows per model request, and compaction summaries."""
    from app.storage.schema import compactions, usage

    usage.create(conn, checkfirst=True)
    compactions.create(conn, checkfirst=True)


def _v3_history_state_resets(conn: Connection) -> None:
    """Prompt history, app state (layout, open tabs), /clear points, a (workstream, seq) index.

    The full-text index is not created here: it depends on the SQLite build, so
    `app.storage.fts.ensure_fts` sets it up (or repairs it) each time a Store opens.
    """
    for table in (prompt_history, app_state, context_resets):
        table.create(conn, checkfirst=True)
    ix_messages_workstream_seq.create(conn, checkfirst=True)


def _v4_workstream_leases(conn: Connection) -> None:
    """Which running instance has each workstream open (two windows may share one store)."""
    workstream_leases.create(conn, checkfirst=True)


def _v5_audit_and_policy_reviews(conn: Connection) -> None:
    """The permission engine's audit log and the accepted hashes of project policy files."""
    from app.storage.schema import audit_log, policy_reviews

    audit_log.create(conn, checkfirst=True)
    policy_reviews.create(conn, checkfirst=True)


def _v6_checkpoints(conn: Connection) -> None:
    """Checkpoints of turns, rewinds (with their undo data) and fork links (app/checkpoints/)."""
    from app.storage.schema import checkpoint_ops, checkpoints, workstream_forks

    for table in (checkpoints, checkpoint_ops, workstream_forks):
        table.create(conn, checkfirst=True)


def _v7_memories(conn: Connection) -> None:
    """Structured memories (issue 16): name, description, content, type, scope, access counts."""
    from app.storage.schema import memories

    memories.create(conn, checkfirst=True)


def _v8_subagents_and_watches(conn: Connection) -> None:
    """Sub-agent runs (task/plan) and their own conversations, and watches (issue 14)."""
    from app.storage.schema import subagent_messages, subagent_runs, watches

    subagent_runs.create(conn, checkfirst=True)
    subagent_messages.create(conn, checkfirst=True)
    watches.create(conn, checkfirst=True)


def _v9_draft_pieces(conn: Connection) -> None:
    """A streaming reply's saves as appended pieces (issue 12: no rewrite of the whole row per save)."""
    from app.storage.schema import draft_pieces

    draft_pieces.create(conn, checkfirst=True)


def _v15_mcp_calls(conn: Connection) -> None:
    """The MCP inspector's call history (issue 18), kept across restarts."""
    from app.storage.schema import mcp_calls

    mcp_calls.create(conn, checkfirst=True)


def _v16_message_pieces(conn: Connection) -> None:
    """Long message texts as a head in their row plus pieces (issue 12: no 10 MB value in one write)."""
    from app.storage.schema import message_pieces

    message_pieces.create(conn, checkfirst=True)


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
    if not inspect(conn).has_table(schema_version.name):
        return 0
    return conn.execute(select(schema_version.c.version)).scalar() or 0


def _record_version(conn: Connection, version: int) -> None:
    schema_version.create(conn, checkfirst=True)
    conn.execute(delete(schema_version))
    conn.execute(insert(schema_version).values(version=version))


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
