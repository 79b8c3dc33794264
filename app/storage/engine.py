"""Create the SQLAlchemy engine for a SQLite file, with the pragmas Whimbrel relies on.

WAL lets readers run alongside the writer; synchronous=NORMAL keeps every committed
transaction across a process crash (only a power loss can drop the newest ones);
foreign_keys=ON enforces the schema's references.

Python's sqlite3 module opens transactions lazily and never around DDL, so the engine
takes over: the driver runs in autocommit mode and SQLAlchemy emits BEGIN itself
(the recipe from SQLAlchemy's pysqlite docs). That makes migrations truly transactional.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event

PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=NORMAL",
    "PRAGMA foreign_keys=ON",
    "PRAGMA busy_timeout=5000",
)


def _on_connect(dbapi_conn: sqlite3.Connection, _record: Any) -> None:
    dbapi_conn.isolation_level = None  # autocommit at the driver; BEGIN comes from _on_begin
    cursor = dbapi_conn.cursor()
    try:
        for pragma in PRAGMAS:
            cursor.execute(pragma)
    finally:
        cursor.close()


def _on_begin(conn: Connection) -> None:
    conn.exec_driver_sql("BEGIN")


def make_engine(path: Path) -> Engine:
    """An engine on the SQLite file at `path`; its parent directory is created if needed."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(
        f"sqlite:///{path}",
        connect_args={"check_same_thread": False},
    )
    event.listen(engine, "connect", _on_connect)
    event.listen(engine, "begin", _on_begin)
    return engine
