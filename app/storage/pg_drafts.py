"""A streaming reply's pieces on PostgreSQL: written behind the caller, those that wait written together.

On SQLite a save is a commit inside the process (tens of microseconds). On a server each transaction
costs a round trip and the server's own work for it, and a save would wait for both. So on
PostgreSQL `append_draft` (app/storage/drafts.py) hands its piece to the store's `DraftSender` and
returns; the sender's thread writes what is queued as one transaction on its own connection, in one
round trip (BEGIN, the store's write lock, one statement per draft that checks the lease, touches the
workstream, inserts the piece and NOTIFYs the followers, COMMIT). Pieces that arrive while a write
is on its way are written together by the next one (a group commit), so a burst of saves costs a
few transactions, not one each.

What holds, as with a save that waits:
- order: a draft's pieces are written in the order given, one after another;
- this process sees its own saves: every other use of the store (a read, another write, the reply's
  completion) first waits until the queued pieces are written (`settle`, from the engine's checkout),
  so a completion replaces pieces that are all there and a read shows what was saved;
- nothing is written past a refusal, and nothing is dropped silently: a batch that wrote nothing (the
  workstream gone, its lease taken by another instance, a broken constraint, a lost connection) is
  handed back with every piece queued after it, and the next draft call writes them through the
  ordinary path, which raises the error that save would have raised. A refusal is reported one call
  later than on SQLite (the next save, the completion or the stop);
- a follower is told of a piece when it commits (the NOTIFY is in the transaction), at once.

What is weaker: a piece is committed a moment after `append_draft` returns, so a SIGKILL of this
process in that moment loses what was queued and not yet sent (at most what arrived during one round
trip; a reply is saved every half second, app/engine/reply_draft.py). Batches commit with
`synchronous_commit` off, so a crash of the server may lose its newest pieces; the final reply
(`complete_draft`) commits as every other write does, so it is never lost that way.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, replace
from typing import Callable

import psycopg

from app.storage.engine import LOCK_PATIENCE
from app.storage.pg_engine import WRITE_LOCK_KEY
from app.storage.pg_listen import CHANNEL

_OPENING = (f"BEGIN; SELECT pg_advisory_xact_lock({WRITE_LOCK_KEY}); SET LOCAL synchronous_commit = off; ")
_OPENING_RESULTS = 3  # BEGIN, the lock, SET: the drafts' results come after these
_LEASE = "AND NOT EXISTS (SELECT 1 FROM workstream_leases WHERE workstream_id = %(ws)s AND instance_id <> %(me)s)"
_WRITE = ("WITH touched AS (UPDATE workstreams SET updated_at = %(at)s, state = 'streaming' WHERE id = %(ws)s {lease} "
          "RETURNING id), piece AS (INSERT INTO draft_pieces (message_id, content, reasoning) "
          "SELECT %(message)s, %(content)s, %(reasoning)s FROM touched) SELECT pg_notify(%(channel)s, id) FROM touched")


@dataclass(frozen=True)
class Piece:
    """One save of a streaming reply: the text since the last, when it was saved, by which writer."""

    workstream_id: str
    message_id: int
    content: str
    reasoning: str
    at: float  # the store's clock at the save: the workstream's updated_at
    writer: str | None  # the instance id whose lease the write needs (None: no lease checked)


def merged(pieces: list[Piece]) -> list[Piece]:
    """`pieces` with each run of one draft's consecutive pieces as one (their texts joined in order: a
    reader joins a draft's pieces anyway, app/storage/pieces.py)."""
    out: list[Piece] = []
    for piece in pieces:
        last = out[-1] if out else None
        if last is not None and (last.workstream_id, last.message_id, last.writer) == \
                (piece.workstream_id, piece.message_id, piece.writer):
            out[-1] = replace(last, content=last.content + piece.content,
                              reasoning=last.reasoning + piece.reasoning, at=piece.at)
        else:
            out.append(piece)
    return out


class DraftSender:
    """The queue of one store's draft pieces and the thread that writes them (see the module)."""

    def __init__(self, connect: Callable[[], psycopg.Connection]) -> None:
        self._connect = connect  # a new autocommit connection to the store's database
        self._conn: psycopg.Connection | None = None
        self._cond = threading.Condition()
        self._waiting: list[Piece] = []
        self._busy = False  # a batch is being written
        self._returned: list[Piece] = []  # not written: for the caller's ordinary path, in order
        self._closed = False
        self._thread: threading.Thread | None = None

    def put(self, piece: Piece) -> list[Piece]:
        """Queue `piece`; what the caller must write itself instead, in order (empty: it was queued):
        after a batch was handed back, that batch, what followed it and this piece."""
        with self._cond:
            if self._returned or self._closed:
                back, self._returned = [*self._returned, piece], []
                return back
            self._waiting.append(piece)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="whimbrel-drafts", daemon=True)
                self._thread.start()
            self._cond.notify_all()
        return []

    def settle(self) -> None:
        """Wait until every queued piece is written or handed back."""
        with self._cond:
            self._cond.wait_for(lambda: not (self._waiting or self._busy))

    def take_returned(self) -> list[Piece]:
        """After `settle`: the pieces handed back, which the caller now writes (or is refused)."""
        with self._cond:
            back, self._returned = self._returned, []
            return back

    def close(self) -> list[Piece]:
        """Write what is queued, stop the thread and close its connection; the pieces handed back."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=LOCK_PATIENCE)
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        return self.take_returned()

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._waiting or self._closed)
                if not self._waiting:
                    return
                batch, self._waiting, self._busy = merged(self._waiting), [], True
            try:
                unwritten = self._write(batch)
            except Exception as error:  # noqa: BLE001 - any failure: the ordinary path retries and says why
                logging.getLogger(__name__).info("draft pieces handed back: %s", error)
                unwritten = batch
            with self._cond:
                self._busy = False
                if unwritten:  # in order: what failed, then what queued meanwhile
                    self._returned, self._waiting = [*self._returned, *unwritten, *self._waiting], []
                self._cond.notify_all()

    def _connection(self) -> psycopg.Connection:
        if self._conn is None or self._conn.closed or self._conn.broken:
            if self._conn is not None:
                self._conn.close()
            self._conn = self._connect()
            self._conn.execute(f"SET lock_timeout = '{int(LOCK_PATIENCE * 1000)}ms'")
        return self._conn

    def _write(self, batch: list[Piece]) -> list[Piece]:
        """Write `batch` in one transaction, one round trip; the pieces that wrote nothing (refused)."""
        conn = self._connection()
        cursor = psycopg.ClientCursor(conn)
        statements = [cursor.mogrify(_WRITE.format(lease=_LEASE if piece.writer else ""), {
            "at": piece.at, "ws": piece.workstream_id, "me": piece.writer, "message": piece.message_id,
            "content": piece.content, "reasoning": piece.reasoning, "channel": CHANNEL}) for piece in batch]
        try:
            cursor.execute(_OPENING + "; ".join(statements) + "; COMMIT")
        except psycopg.Error:
            if not conn.closed and not conn.broken and \
                    conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                try:
                    conn.execute("ROLLBACK")
                except psycopg.Error:
                    conn.close()  # reopened for the next batch
            raise
        unwritten = []
        for _ in range(_OPENING_RESULTS - 1):
            cursor.nextset()
        for piece in batch:
            cursor.nextset()
            if cursor.rowcount != 1:
                unwritten.append(piece)
        return unwritten

