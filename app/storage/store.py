"""The synchronous store: workstreams, their messages and per-workstream settings.

One `Store` owns one engine on one SQLite file or one PostgreSQL database (a `postgresql://` URL). It is not meant to be called from the UI
event loop directly; `AsyncStore` runs it on a worker thread.
"""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from app.vocabulary.messages import Message
from app.storage.dialect import like, table_exists
from app.storage.identity import who
from app.storage.codec import message_rows, rows_to_messages
from app.storage.drafts import DraftMixin
from app.storage.engine import Connection, Engine, Row, make_engine, reader
from app.storage.location import is_server_url
from app.storage.fts import ensure_fts
from app.storage.migrations import migrate
from app.storage.schema_upgrade import ensure_revision
from app.storage.pieces import insert_message, update_row
from app.storage.history import HistoryMixin, last_seq, workstream_rows
from app.storage.search import escape_like
from app.storage.leases import LeaseMixin
from app.storage.team import TeamMixin
from app.storage.usage_store import UsageMixin

LARGE_TEXT = 1_000_000  # characters: a write this large closes its connection afterwards
UPDATABLE_FIELDS = frozenset({"title", "alias", "model", "state"})


@dataclass(frozen=True)
class WorkstreamInfo:
    """A workstream's summary, as listed in the resume browser."""

    id: str
    title: str | None
    alias: str | None
    model: str | None
    workdir: str
    created_at: float
    updated_at: float  # last activity: bumped by every message and update
    message_count: int
    state: str


# every workstream column, and how many of its messages the browser shows (tool calls are part of a turn)
_INFO_QUERY = """SELECT workstreams.*, (SELECT count(*) FROM messages
    WHERE messages.workstream_id = workstreams.id AND messages.role != 'tool_call') AS message_count
FROM workstreams"""


def _info(row: Row) -> WorkstreamInfo:
    m = row._mapping
    return WorkstreamInfo(
        id=m["id"], title=m["title"], alias=m["alias"], model=m["model"],
        workdir=m["workdir"], created_at=m["created_at"], updated_at=m["updated_at"],
        message_count=m["message_count"], state=m["state"],
    )


def _file_identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the file at `path`, None when there is none."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_dev, stat.st_ino


class Store(HistoryMixin, UsageMixin, LeaseMixin, DraftMixin, TeamMixin):
    """Synchronous access to Whimbrel's SQLite database (migrated on open).

    Search, prompt history, app state, pruning, /clear and /rewind live in `HistoryMixin`;
    which instance has a workstream open lives in `LeaseMixin` (app/storage/leases.py); a reply
    while it streams in `DraftMixin` (app/storage/drafts.py).
    `fts=None` uses FTS5 when SQLite has it; `fts=False` forces the LIKE fallback.
    """

    def __init__(self, path: Path | str, *, clock: Callable[[], float] | None = None,
                 fts: bool | None = None, connect_args: dict[str, Any] | None = None) -> None:
        self._clock = clock or time.time
        self._listeners: list[Any] = []  # listen()'s threads, stopped by close()
        self._server_clock = clock is None and is_server_url(path)  # leases by the server's clock (leases.py)
        if is_server_url(path):  # a PostgreSQL store (app/storage/pg_engine.py): no file of ours
            from app.storage.pg_engine import PgEngine

            self.path = None
            self._engine = PgEngine(str(path), connect_args=connect_args)
        else:
            self.path = Path(path)
            self._engine = make_engine(self.path)  # writes: each transaction takes the lock up front
        self._reads = reader(self._engine)
        with self._engine.connect() as conn:
            fresh = not table_exists(conn, "schema_version")
        migrate(self._engine)  # a store made before Alembic: to version 16, the baseline
        ensure_revision(self._engine, path, connect_args, fresh=fresh)  # Alembic (app/storage/schema_upgrade.py)
        if self.path is None:  # PostgreSQL: a GIN index over the words (app/storage/pg_fts.py)
            from app.storage.pg_fts import ensure_index

            self.fts_enabled = fts is not False and ensure_index(self._engine)
        else:
            self.fts_enabled = ensure_fts(self._engine, fts)
        self._identity = _file_identity(self.path) if self.path is not None else None
        self.fold_drafts()  # a reply a killed process was streaming: whole, searchable, interrupted

    @property
    def engine(self) -> Engine:
        """The engine (app/storage/engine.py), for maintenance and tests (normal use goes through methods)."""
        return self._engine

    # -- workstreams -------------------------------------------------------------------

    def create_workstream(self, *, title: str | None = None, model: str | None = None,
                          workdir: str = "") -> str:
        """Create a workstream and return its id (a uuid4 hex string)."""
        ws_id = uuid.uuid4().hex
        now = self._clock()
        with self._engine.begin() as conn:
            conn.insert("workstreams", {
                "id": ws_id, "title": title, "alias": None, "model": model, "workdir": workdir,
                "created_at": now, "updated_at": now, "state": "idle",
            })
        return ws_id

    def get_workstream(self, workstream_id: str) -> WorkstreamInfo | None:
        """The workstream with exactly this id, or None."""
        with self._reads.connect() as conn:
            row = conn.execute(f"{_INFO_QUERY} WHERE workstreams.id = ?", (workstream_id,)).first()
        return _info(row) if row else None

    def find_workstream(self, ref: str) -> WorkstreamInfo:
        """Find a workstream by full id, alias, or unique id prefix.

        Raises LookupError, with a message fit to show the user, when nothing or more
        than one workstream matches.
        """
        ref = ref.strip()
        if not ref:
            raise LookupError("no workstream given: use an id, an id prefix or an alias")
        with self._reads.connect() as conn:
            for column in ("id", "alias"):
                row = conn.execute(f"{_INFO_QUERY} WHERE workstreams.{column} = ?", (ref,)).first()
                if row:
                    return _info(row)
            rows = conn.execute(
                f"{_INFO_QUERY} WHERE workstreams.id {like(conn)} ? || '%' ESCAPE '/' "
                "ORDER BY workstreams.updated_at DESC LIMIT 6", (escape_like(ref.lower()),)
            ).all()
        if not rows:
            raise LookupError(f"no workstream matches '{ref}' (by id, id prefix or alias)")
        if len(rows) > 1:
            shown = ", ".join(r._mapping["id"][:12] for r in rows[:5])
            more = " and more" if len(rows) > 5 else ""
            raise LookupError(
                f"'{ref}' is ambiguous: it starts the ids of several workstreams "
                f"({shown}{more}); type more characters"
            )
        return _info(rows[0])

    def list_workstreams(self) -> list[WorkstreamInfo]:
        """All workstreams, most recently active first."""
        query = f"{_INFO_QUERY} ORDER BY workstreams.updated_at DESC, workstreams.created_at DESC"
        with self._reads.connect() as conn:
            return [_info(r) for r in conn.execute(query)]

    def update_workstream(self, workstream_id: str, **fields: Any) -> None:
        """Change title, alias, model and/or state; bumps `updated_at`.

        Raises ValueError for an unknown field or an alias already in use, LookupError
        for an unknown workstream.
        """
        unknown = set(fields) - UPDATABLE_FIELDS
        if unknown:
            raise ValueError(f"cannot update workstream field(s): {', '.join(sorted(unknown))}"
                             f" (allowed: {', '.join(sorted(UPDATABLE_FIELDS))})")
        try:
            with self._engine.begin() as conn:
                self._touch(conn, workstream_id, **fields)
        except sqlite3.IntegrityError:
            raise ValueError(
                f"alias '{fields.get('alias')}' is already used by another workstream"
            ) from None

    def delete_workstream(self, workstream_id: str) -> None:
        """Delete a workstream with its messages and settings (no error if it is absent)."""
        with self._engine.begin() as conn:
            for table in ("messages", "workstream_config"):
                conn.execute(f"DELETE FROM {table} WHERE workstream_id = ?", (workstream_id,))
            conn.execute("DELETE FROM workstreams WHERE id = ?", (workstream_id,))

    def _touch(self, conn: Connection, workstream_id: str, **fields: Any) -> None:
        """Update fields and bump updated_at; LookupError if the workstream is unknown, WriteRefused
        when another instance holds its lease (checked in the caller's write transaction)."""
        self._check_writer(conn, workstream_id)
        if update_row(conn, "workstreams", workstream_id, {"updated_at": self._clock(), **fields}) == 0:
            raise LookupError(f"no workstream with id '{workstream_id}'")
        if conn.dialect == "postgresql":  # followers are told on commit (app/storage/pg_listen.py)
            from app.storage.pg_listen import notify

            notify(conn, workstream_id)

    # -- messages ----------------------------------------------------------------------

    def add_message(self, workstream_id: str, msg: Message) -> int:
        """Persist `msg` (all its rows in one transaction); set and return `msg.db_id`."""
        with self._engine.begin() as conn:
            self._touch(conn, workstream_id, state="idle")  # no reply streams (app/storage/drafts.py)
            msg.db_id = self._append_rows(conn, workstream_id, message_rows(msg))[0]
        return msg.db_id

    def _append_rows(self, conn: Connection, workstream_id: str, rows: list[dict[str, Any]]) -> list[int]:
        """Insert `rows` after the workstream's last row (consecutive seq numbers); their ids."""
        if not rows:
            return []
        now = self._clock()
        seq = last_seq(conn, workstream_id)
        me = who()  # the instance that wrote them (app/storage/identity.py)
        return [insert_message(conn, {"workstream_id": workstream_id, "seq": seq + offset, "created_at": now,
                                      "who": me, **row})
                for offset, row in enumerate(rows, start=1)]

    # -- a reply while it streams: stored as appended pieces (app/storage/drafts.py) ------

    @contextmanager
    def _writing(self, size: int) -> Iterator[Connection]:
        """A write transaction for `size` characters of text. The sqlite3 module keeps each
        statement it has run, bindings included, so after a huge reply every statement that wrote
        it would hold a copy for as long as the connection lives; such a connection is closed."""
        with self._engine.connect() as conn:
            with conn.begin():
                yield conn
            if size >= LARGE_TEXT:
                conn.invalidate()  # the pool opens a fresh one (its pragmas cost a millisecond)

    def load_messages(self, workstream_id: str) -> list[Message]:
        """The workstream's conversation, in order, as engine Messages."""
        with self._reads.connect() as conn:
            rows = workstream_rows(conn, workstream_id)
        return rows_to_messages(rows)

    # -- per-workstream settings -------------------------------------------------------

    def set_config(self, workstream_id: str, key: str, value: Any) -> None:
        """Store one JSON-serializable setting for a workstream (replacing any old value); WriteRefused
        when another window holds the workstream's lease (its settings are that window's now)."""
        try:
            with self._engine.begin() as conn:
                self._check_writer(conn, workstream_id)
                conn.execute(
                    'INSERT INTO workstream_config (workstream_id, "key", value) VALUES (?, ?, ?) '
                    'ON CONFLICT (workstream_id, "key") DO UPDATE SET value = excluded.value',
                    (workstream_id, key, json.dumps(value)))
        except sqlite3.IntegrityError:
            raise LookupError(f"no workstream with id '{workstream_id}'") from None

    def get_config(self, workstream_id: str) -> dict[str, Any]:
        """All settings stored for a workstream, decoded from JSON."""
        query = 'SELECT "key", value FROM workstream_config WHERE workstream_id = ?'
        with self._reads.connect() as conn:
            return {key: json.loads(value) for key, value in conn.execute(query, (workstream_id,))}

    def file_missing(self) -> bool:
        """True once the database file was deleted (or replaced) after it was opened.

        SQLite keeps writing into a deleted file without an error, so nothing written after that
        is ever seen again: the caller tells the user instead of pretending to save.
        """
        return self.path is not None and _file_identity(self.path) != self._identity

    def listen(self, on_change: Callable[[str | None], None],
               on_lost: Callable[[BaseException], None] | None = None) -> Any:
        """On PostgreSQL: call `on_change(workstream_id)` from a thread as soon as another instance's write
        into that workstream commits (None: after a reconnect, anything may have changed), and
        `on_lost(error)` when the listening connection drops; the Listener, closed with the store. On
        SQLite None: followers poll (app/storage/pg_listen.py says why)."""
        if self.path is not None:
            return None
        from app.storage.pg_listen import Listener

        listener = Listener(self._engine.dedicated_connection, on_change, on_lost).start()
        self._listeners.append(listener)
        return listener

    def close(self) -> None:
        """Release every connection (the WAL is checkpointed by SQLite on last close)."""
        self.close_drafts()  # a streaming reply's queued pieces written first (PostgreSQL)
        for listener in self._listeners:
            listener.close()
        self._listeners.clear()
        self.close_heartbeat()
        self._engine.dispose()
