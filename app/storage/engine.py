"""Create the SQLAlchemy engine for a SQLite file, with the pragmas Whimbrel relies on.

WAL lets readers run alongside the writer; synchronous=NORMAL keeps every committed
transaction across a process crash (only a power loss can drop the newest ones);
foreign_keys=ON enforces the schema's references.

Python's sqlite3 module opens transactions lazily and never around DDL, so the engine
takes over: the driver runs in autocommit mode and SQLAlchemy emits BEGIN itself
(the recipe from SQLAlchemy's pysqlite docs). That makes migrations truly transactional.

Several Whimbrel processes may share one file (two terminals in one project). A transaction
that starts with a plain BEGIN reads first and asks for the write lock later; if another
process wrote in between, SQLite fails it at once with "database is locked", busy timeout or
not. So every transaction on the engine starts with BEGIN IMMEDIATE (the write lock up front,
waited for, retried with backoff), and reads go through `reader(engine)`, whose transactions
start with a plain BEGIN and never take the lock: in WAL mode they never block a writer.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any, Callable

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.exc import OperationalError

BUSY_TIMEOUT_MS = 2000  # SQLite's own wait for the lock, per attempt
LOCK_PATIENCE = 60.0  # seconds of attempts before a write gives up and says why
_READS = "whimbrel_reads"  # the execution option that marks a read-only engine

PRAGMAS = (
    f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}",  # first: switching to WAL needs the lock too
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=NORMAL",
    "PRAGMA foreign_keys=ON",
)


class StoreLockedError(RuntimeError):
    """Another process held the database's write lock for longer than LOCK_PATIENCE."""


def _on_connect(dbapi_conn: sqlite3.Connection, _record: Any) -> None:
    set_pragmas(dbapi_conn)


def set_pragmas(dbapi_conn: sqlite3.Connection) -> None:
    """Set the pragmas on a new connection. Switching a fresh file to WAL needs the lock, and
    SQLite may answer "locked" at once (no busy wait) while another process creates the file,
    so each pragma is retried like a write."""
    dbapi_conn.isolation_level = None  # autocommit at the driver; BEGIN comes from _on_begin
    cursor = dbapi_conn.cursor()
    try:
        for pragma in PRAGMAS:
            retry_while_locked(cursor.execute, pragma)
    finally:
        cursor.close()


def _is_busy(error: Exception) -> bool:
    text = str(getattr(error, "orig", error)).lower()
    return "locked" in text or "busy" in text


def begin_immediate(execute: Callable[[str], Any], *, patience: float = LOCK_PATIENCE,
                    sleep: Callable[[float], None] = time.sleep) -> None:
    """Run BEGIN IMMEDIATE through `execute`, retried with backoff while another process holds
    the write lock; StoreLockedError once `patience` seconds have gone by."""
    retry_while_locked(execute, "BEGIN IMMEDIATE", patience=patience, sleep=sleep)


def retry_while_locked(execute: Callable[[str], Any], sql: str, *, patience: float = LOCK_PATIENCE,
                       sleep: Callable[[float], None] = time.sleep) -> None:
    """Run `sql` through `execute`, retried with backoff while the database answers "locked" or
    "busy"; StoreLockedError once `patience` seconds have gone by."""
    deadline = time.monotonic() + patience
    delay = 0.02
    while True:
        try:
            execute(sql)
            return
        except (OperationalError, sqlite3.OperationalError) as error:
            if not _is_busy(error):
                raise
            if time.monotonic() + delay > deadline:
                raise StoreLockedError(
                    f"the database stayed locked by another process for {patience:.0f} s; "
                    "close the other Whimbrel or whatever holds the file, then try again"
                ) from error
        sleep(delay)
        delay = min(delay * 2, 1.0)


def _on_begin(conn: Connection) -> None:
    if conn.get_execution_options().get(_READS):
        conn.exec_driver_sql("BEGIN")
    else:
        begin_immediate(conn.exec_driver_sql)


def reader(engine: Engine) -> Engine:
    """The same engine (and pool) for reads only: its transactions never take the write lock."""
    return engine.execution_options(**{_READS: True})


def make_engine(path: Path) -> Engine:
    """An engine on the SQLite file at `path`; its parent directory is created if needed.

    Its transactions take the write lock up front; use `reader(engine)` for reads.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(
        f"sqlite:///{path}",
        connect_args={"check_same_thread": False, "timeout": BUSY_TIMEOUT_MS / 1000},
    )
    event.listen(engine, "connect", _on_connect)
    event.listen(engine, "begin", _on_begin)
    return engine
