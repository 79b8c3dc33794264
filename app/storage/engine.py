"""The store's engine: a small pool of sqlite3 connections with the pragmas and transactions Whimbrel relies on.

WAL lets readers run alongside the writer; synchronous=NORMAL keeps every committed
transaction across a process crash (only a power loss can drop the newest ones);
foreign_keys=ON enforces the schema's references.

Python's sqlite3 module would open transactions lazily and never around DDL, so every
connection runs in autocommit mode and the engine emits BEGIN itself. That makes
migrations truly transactional.

Several Whimbrel processes may share one file (two terminals in one project). A transaction
that starts with a plain BEGIN reads first and asks for the write lock later; if another
process wrote in between, SQLite fails it at once with "database is locked", busy timeout or
not. So `engine.begin()` starts with BEGIN IMMEDIATE (the write lock up front, waited for,
retried with backoff), and reads go through `reader(engine).connect()`, whose transactions
start with a plain BEGIN and never take the lock: in WAL mode they never block a writer.

This is plain `sqlite3` (SQLAlchemy alone was 13 MB of an idle app's memory).
Statements are SQL text with `:name` or `?` parameters; rows are tuples that also answer
`row.column` and `row._mapping`; BOOLEAN columns come back as `bool`.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from app.storage.reachability import StoreUnavailable  # noqa: F401 - raised by pg_engine.py, caught by name from here

BUSY_TIMEOUT_MS = 2000  # SQLite's own wait for the lock, per attempt
LOCK_PATIENCE = 60.0  # seconds of attempts before a write gives up and says why
POOL_SIZE = 5  # idle connections kept open for reuse

PRAGMAS = (
    f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}",  # first: switching to WAL needs the lock too
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=NORMAL",
    "PRAGMA foreign_keys=ON",
)

Params = Mapping[str, Any] | Sequence[Any]

sqlite3.register_converter("BOOLEAN", lambda value: value not in (b"0", b""))


def marks(values: Sequence[Any]) -> str:
    """`?, ?, …`, one per value, for `IN (…)` only; for no values `NULL`, which no value is IN on either
    database (PostgreSQL has no empty list)."""
    return ", ".join("?" * len(values)) or "NULL"


class StoreLockedError(RuntimeError):
    """Another process held the database's write lock for longer than LOCK_PATIENCE."""


class Row(tuple):
    """One result row: a tuple whose values are also attributes named after their columns."""

    __slots__ = ()
    _index: dict[str, int] = {}

    def __getattr__(self, name: str) -> Any:
        try:
            return self[self._index[name]]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def _mapping(self) -> dict[str, Any]:
        """The row as a dict, column name to value."""
        return dict(zip(self._index, self))


_ROW_CLASSES: dict[tuple[str, ...], type[Row]] = {}


def _row_class(names: tuple[str, ...]) -> type[Row]:
    cls = _ROW_CLASSES.get(names)
    if cls is None:
        cls = type("Row", (Row,), {"__slots__": (), "_index": {n: i for i, n in enumerate(names)}})
        _ROW_CLASSES[names] = cls
    return cls


def _row_factory(cursor: sqlite3.Cursor, values: tuple) -> Row:
    return _row_class(tuple(d[0] for d in cursor.description))(values)


class Result:
    """A statement's outcome: its rows (read once, like a cursor), `rowcount` and `lastrowid` (None on
    PostgreSQL, whose psycopg cursor this also wraps: an insert there returns its id by RETURNING)."""

    def __init__(self, cursor: Any) -> None:
        self._cursor = cursor
        self.rowcount: int = cursor.rowcount
        self.lastrowid: int | None = getattr(cursor, "lastrowid", None)

    def __iter__(self) -> Iterator[Row]:
        return iter(self._cursor)

    def all(self) -> list[Row]:
        return self._cursor.fetchall()

    def first(self) -> Row | None:
        """The first row (None when there is none); the rest are dropped."""
        row = self._cursor.fetchone()
        self._cursor.close()
        return row

    def one(self) -> Row:
        """The only row; LookupError when there is none or more than one."""
        rows = self._cursor.fetchmany(2)
        if len(rows) != 1:
            raise LookupError(f"expected one row, got {'none' if not rows else 'several'}")
        return rows[0]

    def scalar(self) -> Any:
        """The first column of the first row, None when there is no row."""
        row = self.first()
        return None if row is None else row[0]

    def scalars(self) -> list[Any]:
        """The first column of every row."""
        return [row[0] for row in self._cursor]


class Connection:
    """One pooled sqlite3 connection, lent out for one `with` block."""

    dialect = "sqlite"  # statements that differ between databases ask (app/storage/dialect.py)

    def __init__(self, raw: sqlite3.Connection) -> None:
        self.raw = raw
        self.discard = False  # set by `invalidate()`: closed on return instead of pooled

    def execute(self, sql: str, params: Params = ()) -> Result:
        return Result(self.raw.execute(sql, params))

    def executemany(self, sql: str, rows: Iterable[Params]) -> Result:
        return Result(self.raw.executemany(sql, rows))

    def insert(self, table: str, values: Mapping[str, Any]) -> int:
        """INSERT one row into `table`, the schema's defaults filled in for columns not given; its rowid."""
        from app.storage.schema import DEFAULTS

        row = {**DEFAULTS.get(table, {}), **values}
        columns = ", ".join(f'"{name}"' for name in row)
        marks = ", ".join(f":{name}" for name in row)
        rowid = self.raw.execute(f"INSERT INTO {table} ({columns}) VALUES ({marks})", row).lastrowid
        assert rowid is not None  # an INSERT always sets it
        return rowid

    def defer(self, sql: str, params: Params = ()) -> None:
        """Run a statement whose result nobody reads (PostgreSQL sends it with the next one: pg_engine.py)."""
        self.raw.execute(sql, params)

    def start(self, opening: str) -> None:
        """Open a transaction with the statement `opening` (a reader's BEGIN)."""
        self.raw.execute(opening)

    def finish(self) -> None:
        """Commit the transaction `start` opened."""
        self.raw.execute("COMMIT")

    @contextmanager
    def begin(self) -> Iterator["Connection"]:
        """A write transaction on this connection (BEGIN IMMEDIATE), committed when the block ends."""
        begin_immediate(self.raw.execute)
        try:
            yield self
        except BaseException:
            if self.raw.in_transaction:  # SQLite itself rolls back on some errors (disk full, I/O)
                self.raw.execute("ROLLBACK")
            raise
        self.raw.execute("COMMIT")

    def invalidate(self) -> None:
        """Close this connection when the block ends (it may hold large statements' bindings)."""
        self.discard = True


def set_pragmas(dbapi_conn: sqlite3.Connection) -> None:
    """Set the pragmas on a new connection. Switching a fresh file to WAL needs the lock, and
    SQLite may answer "locked" at once (no busy wait) while another process creates the file,
    so each pragma is retried like a write."""
    dbapi_conn.isolation_level = None  # autocommit at the driver; BEGIN comes from the engine
    for pragma in PRAGMAS:
        retry_while_locked(dbapi_conn.execute, pragma)


def _is_busy(error: Exception) -> bool:
    text = str(error).lower()
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
        except sqlite3.OperationalError as error:
            if not _is_busy(error):
                raise
            if time.monotonic() + delay > deadline:
                raise StoreLockedError(
                    f"the database stayed locked by another process for {patience:.0f} s; "
                    "close the other Whimbrel or whatever holds the file, then try again"
                ) from error
        sleep(delay)
        delay = min(delay * 2, 1.0)


def connect_raw(path: Path) -> sqlite3.Connection:
    """A new sqlite3 connection on `path` with Whimbrel's pragmas, rows and BOOLEAN converter."""
    raw = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False,
                          detect_types=sqlite3.PARSE_DECLTYPES)
    raw.row_factory = _row_factory
    try:
        set_pragmas(raw)
    except BaseException:
        raw.close()
        raise
    return raw


class Lending:
    """Transactions on lent connections, the same on both databases: a reader's block is one read
    transaction (READ_BEGIN … COMMIT), a writer's `begin()` the connection's write transaction, a
    writer's `connect()` autocommit. The engine supplies `_checkout`, `_checkin` and `_reads_only`."""

    READ_BEGIN = "BEGIN"
    _reads_only: bool

    def _checkout(self) -> Any:
        raise NotImplementedError

    def _checkin(self, conn: Any) -> None:
        raise NotImplementedError

    @contextmanager
    def begin(self) -> Iterator[Any]:
        """A transaction, committed when the block ends and rolled back when it raises. On a writer it
        takes the write lock up front (SQLite: BEGIN IMMEDIATE); on a reader none."""
        conn = self._checkout()
        try:
            if self._reads_only:
                conn.start(self.READ_BEGIN)  # PostgreSQL sends it with the first statement, a lost connection said in words
                try:
                    yield conn
                finally:
                    raw = conn.raw  # a PostgreSQL connection the server dropped has nothing to end
                    if not (getattr(raw, "closed", False) or getattr(raw, "broken", False)):
                        conn.finish()  # a read's end (COMMIT): nothing to keep or undo
            else:
                with conn.begin():
                    yield conn
        finally:
            self._checkin(conn)

    @contextmanager
    def connect(self) -> Iterator[Any]:
        """On a reader, a read transaction (one snapshot for the block). On a writer, a connection in
        autocommit mode: each statement is its own transaction."""
        if self._reads_only:
            with self.begin() as conn:
                yield conn
            return
        conn = self._checkout()
        try:
            yield conn
        finally:
            self._checkin(conn)


class Engine(Lending):
    """Connections to one SQLite file, lent out per transaction and pooled (safe across threads)."""

    dialect = "sqlite"

    def __init__(self, path: Path, *, reads_only: bool = False, pool: "Engine | None" = None) -> None:
        self.path = Path(path)
        self._reads_only = reads_only
        self._pool = pool if pool is not None else self  # a reader shares its writer's connections
        self._idle: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self.notices: list[str] = []  # what was found wrong with the file's place at opening (file modes)

    def for_reads(self) -> "Engine":
        """The same pool, for reads only: its transactions never take the write lock."""
        return Engine(self.path, reads_only=True, pool=self._pool)

    def _checkout(self) -> Connection:
        pool = self._pool
        with pool._lock:
            raw = pool._idle.pop() if pool._idle else None
        return Connection(raw if raw is not None else connect_raw(self.path))

    def _checkin(self, conn: Connection) -> None:
        pool = self._pool
        if conn.raw.in_transaction:  # a block that raised mid-statement: leave nothing open
            try:
                conn.raw.execute("ROLLBACK")
            except sqlite3.Error:
                conn.discard = True
        with pool._lock:
            if not conn.discard and len(pool._idle) < POOL_SIZE:
                pool._idle.append(conn.raw)
                return
        conn.raw.close()

    def dispose(self) -> None:
        """Close every idle connection (lent ones close when they come back, if disposed again)."""
        pool = self._pool
        with pool._lock:
            idle, pool._idle = pool._idle, []
        for raw in idle:
            raw.close()


def reader(engine: Any) -> Any:
    """The same pool, for reads only: its transactions never take the write lock (either database)."""
    return engine.for_reads()


def make_engine(path: Path) -> Engine:
    """An engine on the SQLite file at `path`; its parent directory is created if needed (0700), the
    file 0600 before SQLite opens it (its WAL and SHM take the same mode). In Whimbrel's data dir, a
    looser mode found is tightened and said in `engine.notices` (app/storage/private.py).

    Its transactions take the write lock up front; use `reader(engine)` for reads.
    """
    from app.storage.private import create_private_file, private_dir, secure

    path = Path(path)
    private_dir(path.parent)
    notices = secure(path.parent) if path.name == "whimbrel.db" else []
    create_private_file(path)
    engine = Engine(path)
    engine.notices = notices
    return engine
