"""The store's schema revision, kept by Alembic, without loading Alembic when nothing is to be done.

Alembic's revisions live in app/storage/revisions/ and record the store's revision in the table
`alembic_version`, as Alembic always does. `r0001` (the baseline) is the schema that the frozen
hand-written migrations (app/storage/migrations.py) reach at their version 16.

Opening a store (`ensure_revision`, after `migrations.migrate`):

- its recorded revision is HEAD: nothing to do, and nothing imported (the everyday case);
- it has no revision: a new store (the frozen steps' version 1 makes the current schema from
  app/storage/schema.py) is stamped HEAD, one made before Alembic (brought to version 16 by `migrate`)
  the baseline, as `alembic stamp` would, inside the store's write transaction, without importing
  Alembic or SQLAlchemy, so a new SQLite store's start costs what it did;
- a revision behind HEAD (a store made before Alembic, or by an older Whimbrel): Alembic runs the
  pending revisions on one connection of the store's own database, under its write lock (`upgrade`).
  That happens once per store and version, and loads Alembic and SQLAlchemy in that process only.

`whimbrel db migrate` always goes through Alembic (`upgrade`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.storage.dialect import table_exists

BASELINE = "r0001"
HEAD = "r0004"  # the newest revision in app/storage/revisions/versions (a test keeps them equal)
SCRIPTS = Path(__file__).with_name("revisions")
# Alembic's own statement for its table, to the whitespace (a test compares the two paths' schemas)
_VERSION_TABLE = ("CREATE TABLE IF NOT EXISTS alembic_version (\n\tversion_num VARCHAR(32) NOT NULL, \n\t"
                  "CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num)\n)")


def recorded_revision(conn: Any) -> str | None:
    """The Alembic revision recorded in the store, None before any."""
    if not table_exists(conn, "alembic_version"):
        return None
    return conn.execute("SELECT version_num FROM alembic_version").scalar()


def ensure_revision(engine: Any, location: Path | str | None = None, connect_args: dict | None = None, *,
                    fresh: bool = False) -> str:
    """Bring the store to HEAD (see the module's docstring); the revision it is at. `fresh`: the
    store had no schema before this opening, so the frozen steps made the current schema (HEAD's)."""
    with engine.connect() as conn:
        if recorded_revision(conn) == HEAD:
            return HEAD
    with engine.begin() as conn:
        if recorded_revision(conn) is None:  # new (at HEAD), or made before Alembic (at the baseline)
            conn.execute(_VERSION_TABLE)
            conn.execute("INSERT INTO alembic_version (version_num) VALUES (?)", (HEAD if fresh else BASELINE,))
    with engine.connect() as conn:
        if recorded_revision(conn) == HEAD:
            return HEAD
    return upgrade(location if location is not None else engine.url, connect_args)


class BoundConnection:
    """A SQLAlchemy connection as the store's `Connection` (`execute` with `?`/`:name` SQL, `dialect`),
    so the hand-written steps run inside Alembic's transaction unchanged."""

    def __init__(self, bind: Any) -> None:
        self.bind = bind
        self.dialect = bind.dialect.name

    def execute(self, sql: str, params: Any = ()) -> Any:
        if self.dialect == "postgresql":
            from app.storage.pg_engine import translate

            sql = translate(sql)
        return self.bind.exec_driver_sql(sql, params if isinstance(params, dict) else tuple(params))


def _sqlalchemy_url(location: Path | str) -> Any:
    from sqlalchemy.engine import make_url

    from app.storage.location import is_server_url

    if is_server_url(location):
        return make_url(str(location)).set(drivername="postgresql+psycopg")
    return make_url(f"sqlite:///{Path(location)}")


def scripts() -> Any:
    """Alembic's view of app/storage/revisions/."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(SCRIPTS))
    return config, ScriptDirectory.from_config(config)


def upgrade(location: Path | str, connect_args: dict | None = None) -> str:
    """Run Alembic's pending revisions on the store at `location` (a SQLite path or a PostgreSQL URL),
    under the store's write lock; the revision reached."""
    from alembic import command
    from sqlalchemy import create_engine, event

    from app.storage.pg_engine import WRITE_LOCK_KEY

    url = _sqlalchemy_url(location)
    engine = create_engine(url, poolclass=_null_pool(), connect_args=dict(connect_args or {}))
    if url.get_backend_name() == "sqlite":
        @event.listens_for(engine, "connect")
        def _no_driver_transactions(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.isolation_level = None  # BEGIN comes from below, as in app/storage/engine.py

        @event.listens_for(engine, "begin")
        def _write_lock(connection: Any) -> None:
            connection.exec_driver_sql("BEGIN IMMEDIATE")
    config, _ = scripts()
    try:
        with engine.connect() as connection:
            with connection.begin():
                if url.get_backend_name() == "postgresql":
                    connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({WRITE_LOCK_KEY})")
                config.attributes["connection"] = connection
                command.upgrade(config, "head")
            with connection.begin():
                return connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
    finally:
        engine.dispose()


def _null_pool() -> Any:
    from sqlalchemy.pool import NullPool

    return NullPool
