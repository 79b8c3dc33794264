"""A team's shared memories and rules: the `team` memory scope, who saved each memory, and the table
that keeps a team's permission rules in the store (`team_policy`).

`memories` gains `who` and a CHECK that admits scope 'team'. PostgreSQL changes the constraint in
place; SQLite cannot alter a CHECK, so there the table is rebuilt: renamed aside, made again from
app/storage/schema.py's statement (what a new store gets, so both have one schema; a later revision
that changes the table again adds only what is missing, as r0002 does), its rows copied over with
their ids, the old one dropped. A store that already has both (made from the current schema by
the baseline) is left as it is.
"""

from alembic import op

from app.storage.schema import create_tables

revision = "r0004"
down_revision = "r0003"
branch_labels = None
depends_on = None

COLUMNS = ("id, name, description, content, type, scope, scope_key, created_at, updated_at, accessed_at, "
           "access_count")


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
    create_tables(conn, "memories")  # the table and its index, as a new store gets them
    conn.execute(f"INSERT INTO memories ({COLUMNS}) SELECT {COLUMNS} FROM memories_before_r0004")
    conn.execute("DROP TABLE memories_before_r0004")


def upgrade() -> None:
    from app.storage.schema_upgrade import BoundConnection

    conn = BoundConnection(op.get_bind())
    (_postgresql if conn.dialect == "postgresql" else _sqlite)(conn)
    create_tables(conn, "team_policy")
    if "who" not in _columns(conn, "team_policy"):
        conn.execute("ALTER TABLE team_policy ADD COLUMN who TEXT")


def downgrade() -> None:
    op.drop_table("team_policy")
    op.execute("DELETE FROM memories WHERE scope = 'team'")
    op.drop_column("memories", "who")
