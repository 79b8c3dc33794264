"""The full-text index over message text (SQLite FTS5), set up when a Store opens.

`messages_fts` is an *external-content* FTS5 table: it indexes `messages.content` of the
'user', 'assistant' and 'tool_result' rows (the first INDEXED_CHARS characters of each, read
through the view `messages_fts_source`) without keeping a second copy of the text, and
three triggers keep it in step with every insert, update and delete (including the
cascade when a workstream is deleted).

FTS5 is not part of every SQLite build, so the index is not a versioned migration: it is
checked on every open by `ensure_fts`, which is idempotent and cheap once the index exists.

- FTS5 available, and the index, its view and its triggers exactly as this version makes
  them: nothing to do.
- FTS5 available, and any of them missing or different (a new database, FTS5 newly
  available, a file last opened without FTS5 or with the index forced off so the index may
  be stale, or one made by an older version): make them anew and index every message.
- FTS5 unavailable (or forced off): drop the triggers — an insert must never fail on a
  missing module — and let search use its LIKE fallback.
"""

from __future__ import annotations

import sqlite3

from app.storage.engine import Connection, Engine

FTS_TABLE = "messages_fts"
SOURCE_VIEW = "messages_fts_source"
INDEXED_ROLES = ("user", "assistant", "tool_result")
# Of one message, the index takes the first INDEXED_CHARS characters: the index's cost grows with
# the distinct words it is given, and one hostile 10 MB text of distinct words (a hex dump, base64)
# made it 235 MB, in memory while the reply was stored. Words past the cap are not searched.
INDEXED_CHARS = 262_144
_ROLES_SQL = "(" + ", ".join(f"'{r}'" for r in INDEXED_ROLES) + ")"


def _indexed(row: str) -> str:
    return f"substr({row}.content, 1, {INDEXED_CHARS})"


# The index's external content is this view, not `messages` itself: FTS5 reads the text it indexed
# back from its content table (snippets, 'rebuild', 'integrity-check'), so both must give the same.
_CREATE_VIEW = (
    f"CREATE VIEW {SOURCE_VIEW} AS SELECT id, substr(content, 1, {INDEXED_CHARS}) AS content "
    f"FROM messages WHERE role IN {_ROLES_SQL}"
)

TRIGGERS = {
    "messages_fts_ai": f"""
        CREATE TRIGGER messages_fts_ai AFTER INSERT ON messages
        WHEN new.role IN {_ROLES_SQL} BEGIN
            INSERT INTO {FTS_TABLE}(rowid, content) VALUES (new.id, {_indexed("new")});
        END""",
    "messages_fts_ad": f"""
        CREATE TRIGGER messages_fts_ad AFTER DELETE ON messages
        WHEN old.role IN {_ROLES_SQL} BEGIN
            INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, content)
            VALUES ('delete', old.id, {_indexed("old")});
        END""",
    "messages_fts_au": f"""
        CREATE TRIGGER messages_fts_au AFTER UPDATE OF content, role ON messages BEGIN
            INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, content)
            SELECT 'delete', old.id, {_indexed("old")} WHERE old.role IN {_ROLES_SQL};
            INSERT INTO {FTS_TABLE}(rowid, content)
            SELECT new.id, {_indexed("new")} WHERE new.role IN {_ROLES_SQL};
        END""",
}

_CREATE_TABLE = (
    f"CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5("
    f"content, content='{SOURCE_VIEW}', content_rowid='id', "
    "tokenize='unicode61', prefix='2 3')"
)
_BACKFILL = f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('rebuild')"  # reads the view


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


def _drop_triggers(conn: Connection) -> None:
    for name in TRIGGERS:
        conn.execute(f"DROP TRIGGER IF EXISTS {name}")


def _same_sql(conn: Connection, name: str, sql: str) -> bool:
    row = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (name,)).first()
    return row is not None and " ".join(row[0].split()) == " ".join(sql.split())


def _current(conn: Connection) -> bool:
    """Whether the index, its view and its triggers are exactly the ones this version makes."""
    return _same_sql(conn, FTS_TABLE, _CREATE_TABLE) and _same_sql(conn, SOURCE_VIEW, _CREATE_VIEW) and \
        all(_same_sql(conn, name, sql) for name, sql in TRIGGERS.items())


def ensure_fts(engine: Engine, enabled: bool | None = None) -> bool:
    """Create, repair or disable the index; return whether search can use FTS5.

    `enabled=None` detects FTS5; `False` forces the LIKE fallback (tests use it). An index made by
    another version (say, before INDEXED_CHARS) or left stale while FTS5 was off is made anew.
    """
    use = fts5_available() if enabled is None else enabled and fts5_available()
    with engine.begin() as conn:
        if not use:
            _drop_triggers(conn)
            return False
        if _current(conn):
            return True
        _drop_triggers(conn)
        conn.execute(f"DROP TABLE IF EXISTS {FTS_TABLE}")
        conn.execute(f"DROP VIEW IF EXISTS {SOURCE_VIEW}")
        conn.execute(_CREATE_VIEW)
        conn.execute(_CREATE_TABLE)
        conn.execute(_BACKFILL)
        for sql in TRIGGERS.values():
            conn.execute(sql)
    return True
