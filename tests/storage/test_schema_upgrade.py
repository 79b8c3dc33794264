"""Alembic keeps the store's schema revision; a store made by the code before it upgrades in place.

- A store written the way main's code writes it (the frozen hand-written migrations to version 16, in a
  subprocess with no Alembic: every existing user's file) opens with every row, upgraded by Alembic to
  HEAD (r0002 adds `who`, r0004 the team scope of memories and the team's rules).
- A new store stamped by the fast path (no Alembic, no SQLAlchemy imported) has exactly the schema
  Alembic's own upgrade makes, on SQLite and on PostgreSQL.
- HEAD in app/storage/schema_upgrade.py is Alembic's head.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from app.storage import schema_upgrade
from app.storage.identity import who
from app.storage.store import Store
from app.vocabulary.messages import Message
from tests.pg_fixtures import stored_rows

ROOT = Path(__file__).resolve().parents[2]

# What main's code did on a new data dir, with no Alembic anywhere: the migrations up to 16, a workstream.
_BEFORE_ALEMBIC = """
import sys
from pathlib import Path
from app.storage import schema
from app.storage.engine import make_engine
from app.storage.migrations import MIGRATIONS, migrate
# version 16's tables: today's without what Alembic's revisions added since (r0002: who; r0004: scope 'team')
schema.TABLES.update({name: tuple(s.replace("    who TEXT,\\n", "").replace(", 'team'", "") for s in statements)
                      for name, statements in schema.TABLES.items() if name != "team_policy"})
del schema.TABLES["team_policy"]
engine = make_engine(Path(sys.argv[1]))
assert migrate(engine, MIGRATIONS) == 16
with engine.begin() as conn:
    conn.execute("INSERT INTO workstreams (id, title, workdir, created_at, updated_at, state) "
                 "VALUES ('w1', 'kept', '', 1.0, 1.0, 'idle')")
    conn.execute("INSERT INTO messages (workstream_id, seq, role, content, reasoning, is_error, interrupted, "
                 "created_at) VALUES ('w1', 1, 'user', 'the migration ran', '', 0, 0, 1.0)")
    conn.execute("INSERT INTO memories (id, name, description, content, type, scope, scope_key, created_at, "
                 "updated_at, access_count) VALUES (7, 'tabs', '', 'use tabs', 'project', 'global', '', 1.0, 1.0, 2)")
engine.dispose()
"""


def test_head_is_alembics_head() -> None:
    _, scripts = schema_upgrade.scripts()
    assert scripts.get_current_head() == schema_upgrade.HEAD
    assert [s.revision for s in scripts.walk_revisions()][-1] == schema_upgrade.BASELINE


def test_a_store_made_before_alembic_upgrades_in_place(tmp_path: Path) -> None:
    path = tmp_path / "data" / "whimbrel.db"
    made = subprocess.run([sys.executable, "-c", _BEFORE_ALEMBIC, str(path)], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert made.returncode == 0, made.stderr
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT name FROM sqlite_master WHERE name = 'alembic_version'").fetchall() == []
    assert "who" not in {row[1] for row in conn.execute("PRAGMA table_info(messages)")}
    conn.close()
    store = Store(path)
    try:
        assert [m.content for m in store.load_messages("w1")] == ["the migration ran"]
        assert [h.message_id for h in store.search("migr")] == [1]  # the index was built for old rows
        assert stored_rows(store, "SELECT version_num FROM alembic_version") == [(schema_upgrade.HEAD,)]
        assert stored_rows(store, "SELECT version FROM schema_version") == [(16,)]
        assert stored_rows(store, "SELECT who FROM messages") == [(None,)], "r0002 added the column"
        ws = store.create_workstream()
        store.add_message(ws, Message(role="user", content="after the upgrade"))
        assert stored_rows(store, "SELECT who FROM messages WHERE workstream_id = 'w1'") == [(None,)]
        assert stored_rows(store, f"SELECT who FROM messages WHERE workstream_id = '{ws}'") == [(who(),)]
        # r0004 rebuilt the memories table on SQLite: the old row kept (id and all), scope 'team' admitted
        assert stored_rows(store, "SELECT id, name, content, access_count, who FROM memories") == \
            [(7, "tabs", "use tabs", 2, None)]
        with store.engine.begin() as conn:
            conn.insert("memories", {"name": "shared", "content": "x", "scope": "team", "created_at": 2.0,
                                     "updated_at": 2.0})
        assert stored_rows(store, "SELECT scope FROM memories ORDER BY id") == [("global",), ("team",)]
        assert stored_rows(store, "SELECT count(*) FROM team_policy") == [(0,)]
    finally:
        store.close()


def _sqlite_schema(path: Path) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return sorted((kind, name, " ".join((sql or "").split())) for kind, name, sql in conn.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'messages_fts%' AND name NOT LIKE 'sqlite_%'"))
    finally:
        conn.close()


def test_the_fast_path_makes_the_schema_alembic_makes_on_sqlite(tmp_path: Path) -> None:
    assert schema_upgrade.upgrade(tmp_path / "alembic.db") == schema_upgrade.HEAD
    Store(tmp_path / "fast.db").close()
    alembic, fast = _sqlite_schema(tmp_path / "alembic.db"), _sqlite_schema(tmp_path / "fast.db")
    assert len(fast) > 40 and alembic == fast


_PG_SCHEMA = """SELECT table_name, column_name, data_type, is_nullable, coalesce(column_default, '')
    FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, column_name"""
_PG_INDEXES = "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND indexname != 'ix_messages_words' ORDER BY indexname"


def test_the_fast_path_makes_the_schema_alembic_makes_on_postgresql(pg_server) -> None:
    by_alembic, fast = pg_server.database(), pg_server.database()
    assert schema_upgrade.upgrade(by_alembic) == schema_upgrade.HEAD
    stores = [Store(by_alembic), Store(fast)]
    try:
        schemas = [(stored_rows(s, _PG_SCHEMA), stored_rows(s, _PG_INDEXES)) for s in stores]
        assert len(schemas[0][0]) > 150 and schemas[0] == schemas[1]
        assert [stored_rows(s, "SELECT version_num FROM alembic_version") for s in stores] == \
            [[(schema_upgrade.HEAD,)]] * 2
        ws = stores[0].create_workstream()
        stores[0].add_message(ws, Message(role="user", content="numbered by a sequence"))
        assert stored_rows(stores[0], "SELECT id FROM messages") == [(1,)]
    finally:
        for store in stores:
            store.close()


def test_opening_a_sqlite_store_loads_neither_sqlalchemy_nor_alembic(tmp_path: Path) -> None:
    """The SQLite start costs what it did: new and existing stores are stamped without either."""
    probe = ("import sys; from pathlib import Path; from app.storage.store import Store; "
             "[Store(Path(sys.argv[1])).close() for _ in range(2)]; "
             "print(sorted(m for m in sys.modules if m.split('.')[0] in ('sqlalchemy', 'alembic', 'psycopg')))")
    done = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "whimbrel.db")], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_postgresql_store_at_r0003_gains_the_team_scope(pg_server) -> None:
    """r0004 on PostgreSQL: the CHECK is replaced in place, `who` added, the rows kept."""
    url = pg_server.database()
    store = Store(url)
    try:
        with store.engine.begin() as conn:  # the store as r0003 left it
            conn.execute("ALTER TABLE memories DROP COLUMN who")
            conn.execute("ALTER TABLE memories DROP CONSTRAINT ck_memories_scope")
            conn.execute("ALTER TABLE memories ADD CONSTRAINT ck_memories_scope "
                         "CHECK (scope IN ('global', 'workstream', 'workspace'))")
            conn.execute("DROP TABLE team_policy")
            conn.execute("UPDATE alembic_version SET version_num = 'r0003'")
            conn.execute("INSERT INTO memories (name, description, content, type, scope, scope_key, created_at, "
                         "updated_at, access_count) VALUES ('tabs', '', 'use tabs', 'project', 'global', '', 1, 1, 0)")
    finally:
        store.close()
    assert schema_upgrade.upgrade(url) == schema_upgrade.HEAD
    store = Store(url)
    try:
        assert stored_rows(store, "SELECT name, who FROM memories") == [("tabs", None)]
        with store.engine.begin() as conn:
            conn.insert("memories", {"name": "shared", "content": "x", "scope": "team", "created_at": 2.0,
                                     "updated_at": 2.0, "who": "bob"})
        assert stored_rows(store, "SELECT scope, who FROM memories ORDER BY id") == [("global", None), ("team", "bob")]
        assert stored_rows(store, "SELECT count(*) FROM team_policy") == [(0,)]
    finally:
        store.close()
