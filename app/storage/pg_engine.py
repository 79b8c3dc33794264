"""The store's engine on PostgreSQL: the same interface as app/storage/engine.py, over psycopg 3.

Every statement in the store is SQL text with `?` or `:name` parameters, written once for both
databases. This engine translates each statement to psycopg's `%s` / `%(name)s` form (once per
distinct text, cached), lends out pooled connections and runs transactions the way the SQLite
engine does, so the code above it is the same for both:

- connections come from SQLAlchemy's pool and run in autocommit at the driver; the engine emits
  BEGIN itself. A connection the server dropped is replaced, not handed out: an idle pooled
  connection has nothing to read unless the server said goodbye (a restart's "terminating
  connection") or hung up, so one whose socket is readable, closed or broken is discarded at
  checkout (`_alive`): no round trip per checkout, which SQLAlchemy's `pool_pre_ping` costs;
- a write transaction (`begin()`) starts with BEGIN and takes one transaction-scoped advisory
  lock for the whole store, which makes writers take turns exactly like SQLite's BEGIN IMMEDIATE
  (the code that reads the last `seq` and then appends after it relies on that). `lock_timeout`
  bounds the wait; a timeout is StoreLockedError, as on SQLite;
- a reader's transaction is REPEATABLE READ READ ONLY: one snapshot for the block, no lock taken;
- round trips are what a write costs on a server (each is a wake-up of two processes), so BEGIN
  and the lock travel with the transaction's first statement, and statements whose answer nobody
  reads (`defer`: a NOTIFY, a DELETE) with the next one or COMMIT: a write of one statement is two
  round trips, and a block that ran nothing sends nothing;
- statements go through psycopg's client-side binding (`ClientCursor`), which types parameters as
  SQLite does (by value), so `? || '%'` or `LIMIT ?` need no casts;
- the driver's errors the store reacts to come out as the sqlite3 classes the code already
  catches (IntegrityError for a broken constraint, OperationalError for a rejected query), so
  callers have one `except` for both databases.

SQLAlchemy and psycopg are imported only here, and this module only when the store's URL is a
PostgreSQL one: the SQLite store never loads them.
"""

from __future__ import annotations

import re
import select
import sqlite3
import threading
import zlib
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, Callable, Iterable, Iterator, Mapping

import psycopg
from sqlalchemy import create_engine
from sqlalchemy.engine import make_url

from app.storage.engine import (LOCK_PATIENCE, Lending, Params, Result, StoreLockedError, StoreUnavailable,
                                _row_class)
from app.storage.location import shown_url

POOL_SIZE = 5
CONNECT_TIMEOUT = 10  # seconds a new connection may take before the server counts as unreachable
# The key of the advisory lock every write transaction takes: one store, one writer at a time.
WRITE_LOCK_KEY = zlib.crc32(b"whimbrel store writes")

# Quoted text and identifiers are copied as they are; outside them `?` and `:name` are parameters
# (`::` is a cast); every `%` is doubled, since psycopg reads `%` as its own marker everywhere.
_TOKENS = re.compile(r"('(?:[^']|'')*')|(\"(?:[^\"]|\"\")*\")|(::)|(\?)|:([A-Za-z_]\w*)|(%)")


@lru_cache(maxsize=512)
def translate(sql: str) -> str:
    """`sql` with `?` and `:name` parameters as psycopg's `%s` and `%(name)s`."""

    def one(match: re.Match[str]) -> str:
        quoted_text, quoted_name, cast, mark, name, percent = match.groups()
        if quoted_text is not None:
            return quoted_text.replace("%", "%%")
        if quoted_name is not None or cast is not None:
            return match.group(0)
        if mark is not None:
            return "%s"
        if name is not None:
            return f"%({name})s"
        return "%%"

    return _TOKENS.sub(one, sql)


def _params(params: Params) -> Mapping[str, Any] | tuple[Any, ...]:
    return params if isinstance(params, Mapping) else tuple(params)


# Errors that mean the server is gone, not that the statement was wrong: a connection exception
# (SQLSTATE class 08) or the server shutting down or starting (57P01-57P03).
_GONE_STATES = ("57P01", "57P02", "57P03")


def _lost(error: psycopg.Error, raw: psycopg.Connection | None) -> bool:
    """Whether `error` is the connection to the server lost (rather than a statement it refused)."""
    state = getattr(error, "sqlstate", None) or ""
    broken = raw is not None and (raw.broken or raw.closed)
    return isinstance(error, psycopg.InterfaceError) or broken or state.startswith("08") or state in _GONE_STATES


def unavailable(url: str, error: BaseException, verb: str = "cannot reach") -> StoreUnavailable:
    """The store's server not answering, in words: its masked URL and the driver's first line."""
    reason = str(getattr(error, "orig", None) or error).strip().splitlines()
    return StoreUnavailable(f"{verb} the PostgreSQL store {shown_url(url)}: "
                            f"{reason[0] if reason else type(error).__name__}")


@contextmanager
def _driver_errors(conn: "Connection | None" = None) -> Iterator[None]:
    """The driver's errors as the sqlite3 classes the store's callers catch; a lost connection as
    StoreUnavailable (the connection is then discarded, not given back to the pool)."""
    try:
        yield
    except psycopg.errors.LockNotAvailable as error:
        raise StoreLockedError(
            f"the store's write lock stayed taken by another Whimbrel for {LOCK_PATIENCE:.0f} s; try again"
        ) from error
    except psycopg.IntegrityError as error:
        raise sqlite3.IntegrityError(str(error).strip()) from error
    except (psycopg.errors.SyntaxError, psycopg.errors.DataException) as error:
        raise sqlite3.OperationalError(str(error).strip()) from error
    except (psycopg.OperationalError, psycopg.InterfaceError) as error:
        if conn is None or not _lost(error, conn.raw):
            raise
        conn.discard = True
        raise unavailable(conn.url, error, "lost the connection to") from None


def _row_factory(cursor: psycopg.Cursor) -> Any:
    """Rows as the SQLite engine's Row: a tuple that also answers `row.column` and `row._mapping`."""
    if cursor.description is None:
        return tuple
    cls = _row_class(tuple(column.name for column in cursor.description))
    return cls


class Connection:
    """One pooled psycopg connection, lent out for one `with` block."""

    dialect = "postgresql"

    def __init__(self, pooled: Any, url: str = "") -> None:
        self.pooled = pooled  # SQLAlchemy's wrapper: `close()` gives it back to the pool
        self.url = url  # the store's, for the words of a lost connection (shown masked)
        self.raw: psycopg.Connection = pooled.driver_connection
        self.discard = False
        # Statements held back (BEGIN and the lock, `defer`red ones): sent in the next statement's round trip.
        self._pending = ""
        self._fresh = False  # a transaction `start`ed that has run nothing yet: nothing to send at its end

    @property
    def in_transaction(self) -> bool:
        return bool(self._pending) or self.raw.info.transaction_status != psycopg.pq.TransactionStatus.IDLE

    def _alive(self) -> bool:
        """Whether this idle connection can be lent out without asking the server (see the module)."""
        if self.raw.closed or self.raw.broken:
            return False
        try:
            readable, _, _ = select.select([self.raw.fileno()], [], [], 0)
        except (OSError, ValueError):
            return False
        return not readable

    def execute(self, sql: str, params: Params = ()) -> Result:
        with _driver_errors(self):  # a closed connection fails at cursor(): said as lost too
            cursor = self.raw.cursor()
            self._fresh = False
            if self._pending:  # one round trip: what was held back (BEGIN, the lock, deferred ones) and this
                pending, self._pending = self._pending, ""
                cursor.execute(pending + cursor.mogrify(translate(sql), _params(params)))
            else:
                cursor.execute(translate(sql), _params(params))
            while cursor.nextset():  # `sql` may be several statements (`SET LOCAL …; SELECT …`): the last one's result
                pass
        return Result(cursor)

    def executemany(self, sql: str, rows: Iterable[Params]) -> Result:
        self._open()
        with _driver_errors(self):  # a closed connection fails at cursor(): said as lost too
            cursor = self.raw.cursor()
            cursor.executemany(translate(sql), [_params(r) for r in rows])
        return Result(cursor)

    def _open(self) -> None:
        """Send a BEGIN still held back, on its own (a statement that cannot carry it)."""
        self._fresh = False
        if self._pending:
            pending, self._pending = self._pending, ""
            with _driver_errors(self):
                self.raw.execute(pending)

    def defer(self, sql: str, params: Params = ()) -> None:
        """In a transaction, send `sql` with the next statement (or COMMIT), in its round trip, in order:
        for a statement whose result nobody reads (a NOTIFY, a DELETE). Its error, if any, is raised by
        that next statement, and the transaction is rolled back as for any. Outside one, run it now."""
        if not self.in_transaction:
            self.execute(sql, params)
            return
        self._fresh = False
        self._pending += self.raw.cursor().mogrify(translate(sql), _params(params)) + "; "

    def insert(self, table: str, values: Mapping[str, Any]) -> int:
        """INSERT one row, the schema's defaults filled in; its `id` (0 for a table keyed otherwise)."""
        from app.storage.schema import DEFAULTS, SERIAL_TABLES

        row = {**DEFAULTS.get(table, {}), **values}
        columns = ", ".join(f'"{name}"' for name in row)
        marks = ", ".join(f":{name}" for name in row)
        returning = " RETURNING id" if table in SERIAL_TABLES else ""
        result = self.execute(f"INSERT INTO {table} ({columns}) VALUES ({marks}){returning}", row)
        return result.scalar() if returning else 0

    def start(self, opening: str) -> None:
        """Open a transaction with `opening` (BEGIN …; held back until the first statement)."""
        self._pending, self._fresh = opening + "; ", True

    def finish(self) -> None:
        """COMMIT the transaction `start` opened, with the deferred statements; nothing when it ran none."""
        pending, self._pending = self._pending, ""
        if self._fresh:  # the block ran no statement: there is no transaction on the server
            self._fresh = False
            return
        with _driver_errors(self):
            self.raw.cursor().execute(pending + "COMMIT")

    def abandon(self) -> None:
        """Roll back the transaction `start` opened (if the server has one); a connection that cannot is
        discarded when it comes back (the error that ended the block is the news, not this one)."""
        self._pending, self._fresh = "", False
        if self.raw.closed or self.raw.broken:
            self.discard = True
        elif self.raw.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            try:
                self.raw.execute("ROLLBACK")
            except psycopg.Error:
                self.discard = True

    @contextmanager
    def begin(self) -> Iterator["Connection"]:
        """A write transaction: BEGIN and the store's write lock, committed when the block ends."""
        self.start(f"BEGIN; SELECT pg_advisory_xact_lock({WRITE_LOCK_KEY})")
        try:
            yield self
        except BaseException:
            self.abandon()
            raise
        self.finish()

    def invalidate(self) -> None:
        self.discard = True


def _configure(dbapi_connection: Any, _record: Any) -> None:
    """Each new connection: autocommit at the driver (BEGIN comes from the engine), client-side
    binding, Whimbrel's rows, and a bound on waiting for the write lock."""
    dbapi_connection.autocommit = True
    dbapi_connection.cursor_factory = psycopg.ClientCursor
    dbapi_connection.row_factory = _row_factory
    dbapi_connection.execute(f"SET lock_timeout = '{int(LOCK_PATIENCE * 1000)}ms'")


class PgEngine(Lending):
    """Pooled connections to one PostgreSQL database, lent out per transaction (safe across threads);
    `begin()` and `connect()` are the SQLite engine's (app/storage/engine.py's Lending)."""

    dialect = "postgresql"
    READ_BEGIN = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
    path = None

    def __init__(self, url: str, *, connect_args: Mapping[str, Any] | None = None,
                 reads_only: bool = False, pool: "PgEngine | None" = None) -> None:
        self.url = url
        self._reads_only = reads_only
        if pool is None:
            from sqlalchemy import event

            if "connect_timeout" not in url:  # libpq would wait for an unanswering host forever
                connect_args = {"connect_timeout": CONNECT_TIMEOUT, **(connect_args or {})}

            target = make_url(url).set(drivername="postgresql+psycopg")
            self._sa = create_engine(target, pool_size=POOL_SIZE, max_overflow=10,
                                     connect_args=dict(connect_args or {}))
            event.listen(self._sa, "connect", _configure)
        else:
            self._sa = pool._sa
        self.notices: list[str] = []
        self._lock = threading.Lock()
        # Shared with the reader: what every checkout waits for first (the store's queued draft pieces,
        # app/storage/pg_drafts.py), and per thread how many connections it holds now, so a thread inside
        # a transaction (holding the write lock the queue's writer may wait for) never waits on it.
        self._shared: dict[str, Any] = pool._shared if pool is not None else {"hook": None, "held": threading.local()}
        self._connect_args = dict(connect_args or {}) if pool is None else pool._connect_args

    def for_reads(self) -> "PgEngine":
        return PgEngine(self.url, reads_only=True, pool=self)

    @property
    def before_checkout(self) -> Callable[[], None] | None:
        return self._shared["hook"]

    @before_checkout.setter
    def before_checkout(self, hook: Callable[[], None] | None) -> None:
        self._shared["hook"] = hook

    def _checkout(self) -> Connection:
        held = self._shared["held"]
        count = getattr(held, "count", 0)
        if count == 0 and self._shared["hook"] is not None:
            self._shared["hook"]()
        conn = self._lend()
        held.count = count + 1
        return conn

    def _lend(self) -> Connection:
        from sqlalchemy.exc import DBAPIError

        try:
            for _ in range(POOL_SIZE + 1):  # every idle one may be dead (a server restart): then a new one
                conn = Connection(self._sa.raw_connection(), self.url)
                if conn._alive():
                    return conn
                conn.pooled.invalidate()
                conn.pooled.close()
            return Connection(self._sa.raw_connection(), self.url)  # a new connection, just made
        except (DBAPIError, psycopg.OperationalError) as error:
            raise unavailable(self.url, error) from None

    def _checkin(self, conn: Connection) -> None:
        held = self._shared["held"]
        held.count = max(0, getattr(held, "count", 1) - 1)
        conn.abandon()  # a block that raised mid-statement (or lost its connection): leave nothing open
        if conn.discard:
            conn.pooled.invalidate()
        conn.pooled.close()

    def dedicated_connection(self) -> psycopg.Connection:
        """A new autocommit connection outside the pool, kept by its caller (app/storage/pg_listen.py)."""
        cargs, cparams = self._sa.dialect.create_connect_args(self._sa.url)
        return psycopg.connect(*cargs, **{**cparams, **self._connect_args, "autocommit": True})

    def ping(self) -> None:
        """One round trip to the server (app/storage/reachability.py's probe); StoreUnavailable when none."""
        with self.connect() as conn:
            conn.execute("SELECT 1")

    def dispose(self) -> None:
        self._sa.dispose()
