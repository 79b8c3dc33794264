"""The full-text index over message text (SQLite FTS5), set up when a Store opens.

`messages_fts` is an *external-content* FTS5 table: it indexes `messages.content` of the
'user', 'assistant' and 'tool_result' rows without keeping a second copy of the text, and
three triggers keep it in step with every insert, update and delete (including the
cascade when a workstream is deleted).

FTS5 is not part of every SQLite build, so the index is not a versioned migration: it is
checked on every open by `ensure_fts`, which is idempotent and cheap once the index exists.

- FTS5 available, index missing (new database, or FTS5 newly available): create it and
  index every existing message.
- FTS5 available, triggers missing (the file was last opened without FTS5, or with the
  index forced off, so the index may be stale): rebuild it.
- FTS5 unavailable (or forced off): drop the triggers — an insert must never fail on a
  missing module — and let search use its LIKE fallback.
"""

from __future__ import annotations

import sqlite3

from sqlalchemy import Connection, Engine

FTS_TABLE = "messages_fts"
INDEXED_ROLES = ("user", "assistant", "tool_result")
_ROLES_SQL = "(" + ", ".join(f"'{r}'" for r in INDEXED_ROLES) + ")"

TRIGGERS = {
    "messages_fts_ai": f"""
        CREATE TRIGGER messages_fts_ai AFTER INSERT ON messages
        WHEN new.role IN {_ROLES_SQL} BEGIN
            INSERT INTO {FTS_TABLE}(rowid, content) VALUES (new.id, new.content);
        END""",
    "messages_fts_ad": f"""
        CREATE TRIGGER messages_fts_ad AFTER DELETE ON messages
        WHEN old.role IN {_ROLES_SQL} BEGIN
            INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, content)
            VALUES ('delete', old.id, old.content);
        END""",
    "messages_fts_au": f"""
        CREATE TRIGGER messages_fts_au AFTER UPDATE OF content, role ON messages BEGIN
            INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, content)
            SELECT 'delete', old.id, old.content WHERE old.role IN {_ROLES_SQL};
            INSERT INTO {FTS_TABLE}(rowid, content)
            SELECT new.id, new.content WHERE new.role IN {_ROLES_SQL};
        END""",
}

_CREATE_TABLE = (
    f"CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5("
    "content, content='messages', content_rowid='id', "
    "tokenize='unicode61', prefix='2 3')"
)
_BACKFILL = (
    f"INSERT INTO {FTS_TABLE}(rowid, content) "
    f"SELECT id, content FROM messages WHERE role IN {_ROLES_SQL}"
)


def fts5_available() -> bool:
    """Whether the SQLite library Python links against can create FTS5 tables."""
    probe = sqlite3.connect(":memory:")
    try:
        probe.execute("CREATE VIRTUAL TABLE probe USING fts5(x)")
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        probe.close()


def _names(conn: Connection, kind: str) -> set[str]:
    rows = conn.exec_driver_sql(
        "SELECT name FROM sqlite_master WHERE type = ? AND name LIKE 'messages_fts%'", (kind,))
    return {name for (name,) in rows}


def _drop_triggers(conn: Connection) -> None:
    for name in TRIGGERS:
        conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name}")


def ensure_fts(engine: Engine, enabled: bool | None = None) -> bool:
    """Create, repair or disable the index; return whether search can use FTS5.

    `enabled=None` detects FTS5; `False` forces the LIKE fallback (tests use it).
    """
    use = fts5_available() if enabled is None else enabled and fts5_available()
    with engine.begin() as conn:
        if not use:
            _drop_triggers(conn)
            return False
        triggers = _names(conn, "trigger")
        if FTS_TABLE not in _names(conn, "table"):
            conn.exec_driver_sql(_CREATE_TABLE)
            conn.exec_driver_sql(_BACKFILL)
        elif triggers != set(TRIGGERS):
            _drop_triggers(conn)
            conn.exec_driver_sql(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('delete-all')")
            conn.exec_driver_sql(_BACKFILL)
        else:
            return True
        for sql in TRIGGERS.values():
            conn.exec_driver_sql(sql)
    return True
