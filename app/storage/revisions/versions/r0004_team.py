"""A team's shared memories and rules: the `team` memory scope, who saved each memory, and the table
that keeps a team's permission rules in the store (`team_policy`).

`memories` gains `who` and a CHECK that admits scope 'team'. PostgreSQL changes the constraint in
place; SQLite cannot alter a CHECK, so there the table is rebuilt: renamed aside, made again from the
statement below (the one app/storage/schema.py gives a new store, frozen here), its rows copied over
with their ids, the old one dropped. A store that already has both (made from the current schema by
the baseline) is left as it is.
"""

from alembic import op

revision = "r0004"
down_revision = "r0003"
branch_labels = None
depends_on = None

MEMORIES = """\
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
)"""
MEMORIES_INDEX = "CREATE INDEX IF NOT EXISTS ix_memories_scope ON memories (scope, scope_key)"
COLUMNS = ("id, name, description, content, type, scope, scope_key, created_at, updated_at, accessed_at, "
           "access_count")
TEAM_POLICY = """\
CREATE TABLE IF NOT EXISTS team_policy (
    name TEXT NOT NULL,
    text TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    updated_at FLOAT NOT NULL,
    who TEXT,
    PRIMARY KEY (name)
)"""


def _columns(conn, table: str) -> set[str]:
    if conn.dialect == "postgresql":
        return {row[0] for row in conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
            "AND table_name = ?", (table,))}
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def _postgresql(conn) -> None:
    if "who" not in _columns(conn, "memories"):
        conn.execute("ALTER TABLE memories ADD COLUMN who TEXT")
    conn.execute("ALTER TABLE memories DROP CONSTRAINT IF EXISTS ck_memories_scope")
    conn.execute("ALTER TABLE memories ADD CONSTRAINT ck_memories_scope "
                 "CHECK (scope IN ('global', 'workstream', 'workspace', 'team'))")


def _sqlite(conn) -> None:
    made = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'memories'").scalar() or ""
    if "'team'" in made and "who" in _columns(conn, "memories"):
        return
    conn.execute("ALTER TABLE memories RENAME TO memories_before_r0004")
    conn.execute("DROP INDEX IF EXISTS ix_memories_scope")
    conn.execute(MEMORIES)
    conn.execute(MEMORIES_INDEX)
    conn.execute(f"INSERT INTO memories ({COLUMNS}) SELECT {COLUMNS} FROM memories_before_r0004")
    conn.execute("DROP TABLE memories_before_r0004")


def upgrade() -> None:
    from app.storage.schema_upgrade import BoundConnection

    conn = BoundConnection(op.get_bind())
    (_postgresql if conn.dialect == "postgresql" else _sqlite)(conn)
    conn.execute(TEAM_POLICY)
    if "who" not in _columns(conn, "team_policy"):
        conn.execute("ALTER TABLE team_policy ADD COLUMN who TEXT")


def downgrade() -> None:
    op.drop_table("team_policy")
    op.execute("DELETE FROM memories WHERE scope = 'team'")
    op.drop_column("memories", "who")
