"""A reply while it streams, stored as appended pieces and assembled once when it completes.

The first save of a streaming reply adds its `messages` row (marked interrupted, holding the text
so far). Every later save appends only the text that came since as one `draft_pieces` row, so a
save costs the size of what it adds: rewriting the whole row and its search index on every save
cost a 10 MB reply seconds of SQLite work and most of the app's memory growth. When the
reply completes, its row gets the whole text (a long one as a head and message pieces,
app/storage/pieces.py, so no write holds all of it) and its draft pieces go.

A reader always sees row + pieces (`with_pieces`), so a read-only window follows a reply streaming
in another one. Every save bumps the workstream's `updated_at` (what a read-only window polls) and
keeps its `state` at "streaming" until the reply completes or stops ("idle"): a follower tells a
reply still streaming (state "streaming", its writer alive) from one that was cut (an interrupted
row otherwise). A process killed mid-stream leaves row and pieces behind: the next Store to open
folds them into the row (`fold_drafts`), so the partial reply is whole, searchable and shown as
interrupted. Folding is safe while the writer still streams: its later pieces append after the
folded text and its completion replaces the whole row.

On PostgreSQL a save is written behind the caller, and saves that wait are written together
(app/storage/pg_drafts.py): a round trip per save would cost a streaming reply many times SQLite's time.

`DraftMixin` is mixed into `Store` (which supplies `_engine`, `_reads`, `_writing`, `_touch`,
`_append_rows`, `_check_writer`, `writer` and `path`).
"""

from __future__ import annotations

import logging
from typing import Any

from app.storage.codec import message_rows
from app.storage.engine import Connection, marks
from app.storage.pieces import update_message, with_pieces
from app.vocabulary.messages import Message

STREAMING = "streaming"  # the workstream's `state` while one of its replies streams into a draft


def fold_drafts(conn: Connection) -> int:
    """Move every draft's pieces into its row; how many drafts were folded."""
    ids = conn.execute("SELECT DISTINCT message_id FROM draft_pieces").scalars()
    if not ids:
        return 0
    rows = [r._mapping for r in conn.execute(f"SELECT * FROM messages WHERE id IN ({marks(ids)})", ids)]
    for row in with_pieces(conn, rows, drafts=ids):
        update_message(conn, row["id"], {"content": row["content"], "reasoning": row["reasoning"]})
    conn.execute(f"DELETE FROM draft_pieces WHERE message_id IN ({marks(ids)})", ids)
    # A writer still streaming marks its workstream streaming again at its next save.
    conn.execute(f"UPDATE workstreams SET state = 'idle' WHERE state = '{STREAMING}' AND id IN "
                 f"(SELECT workstream_id FROM messages WHERE id IN ({marks(ids)}))", ids)
    return len(ids)


class DraftMixin:
    _sender: Any = None  # PostgreSQL: the DraftSender, made by the first save (app/storage/pg_drafts.py)

    def start_draft(self, workstream_id: str, msg: Message) -> int:
        """Store the first text of a streaming reply `msg` (marked interrupted until it completes) and
        mark the workstream as streaming; the row's id."""
        with self._writing(len(msg.content or "") + len(msg.reasoning or "")) as conn:
            self._touch(conn, workstream_id, state=STREAMING)
            msg.db_id = self._append_rows(conn, workstream_id, message_rows(msg))[0]
        return msg.db_id

    def append_draft(self, workstream_id: str, message_id: int, content: str, reasoning: str) -> None:
        """Add the text that streamed since the last save to the draft stored as row `message_id`. On
        PostgreSQL the piece is written behind the caller (app/storage/pg_drafts.py says what holds)."""
        sender = self._draft_sender()
        if sender is None:
            self._append_now(workstream_id, message_id, content, reasoning)
            return
        from app.storage.pg_drafts import Piece

        writer = self.writer.instance_id if self.writer is not None else None
        for piece in sender.put(Piece(workstream_id, message_id, content, reasoning, self._clock(), writer)):
            self._append_now(piece.workstream_id, piece.message_id, piece.content, piece.reasoning)

    def _append_now(self, workstream_id: str, message_id: int, content: str, reasoning: str) -> None:
        """A save as one write transaction here and now (SQLite, and pieces a PostgreSQL sender handed back)."""
        with self._writing(len(content) + len(reasoning)) as conn:
            self._touch(conn, workstream_id, state=STREAMING)  # a follower polls updated_at
            conn.insert("draft_pieces", {"message_id": message_id, "content": content, "reasoning": reasoning})

    def _draft_sender(self) -> Any:
        """The store's DraftSender on PostgreSQL (made on first use; the engine's every checkout waits for
        it), None on SQLite."""
        if self.path is not None:
            return None
        if self._sender is None:
            from app.storage.pg_drafts import DraftSender

            self._sender = DraftSender(self._engine.dedicated_connection)
            self._engine.before_checkout = self._sender.settle
        return self._sender

    def _settle_drafts(self) -> None:
        """Before a draft's completion or stop: its pieces written (or, handed back, written now or refused)."""
        if self._sender is not None:
            self._sender.settle()
            for piece in self._sender.take_returned():
                self._append_now(piece.workstream_id, piece.message_id, piece.content, piece.reasoning)

    def close_drafts(self) -> None:
        """At the store's close: queued pieces written, the sender's thread stopped. Pieces handed back
        are tried once more here; one refused now is not written (and not raised: the store is closing)."""
        sender, self._sender = self._sender, None
        if sender is None:
            return
        for piece in sender.close():
            try:
                self._append_now(piece.workstream_id, piece.message_id, piece.content, piece.reasoning)
            except Exception as error:  # noqa: BLE001 - refused or unreachable: said in the log, not raised
                logging.getLogger(__name__).warning("a streamed piece not saved at close: %s", error)
                break

    def complete_draft(self, workstream_id: str, message_id: int, msg: Message) -> int:
        """Store the finished reply `msg` in the draft row `message_id` and add its tool calls."""
        self._settle_drafts()
        head, *calls = message_rows(msg)
        with self._writing(len(msg.content or "") + len(msg.reasoning or "")) as conn:
            self._touch(conn, workstream_id, state="idle")
            conn.defer("DELETE FROM draft_pieces WHERE message_id = ?", (message_id,))
            update_message(conn, message_id, head)
            self._append_rows(conn, workstream_id, calls)
        msg.db_id = message_id
        return message_id

    def end_draft(self, workstream_id: str) -> None:
        """The reply stopped short (cancelled, failed): its draft stays as it is, marked interrupted,
        and the workstream no longer streams."""
        self._settle_drafts()
        with self._writing(0) as conn:
            self._touch(conn, workstream_id, state="idle")

    def fold_drafts(self) -> int:
        """Fold the pieces of drafts a killed process left (see the module docstring)."""
        with self._reads.connect() as conn:
            if conn.execute("SELECT id FROM draft_pieces LIMIT 1").first() is None:
                return 0  # the common case: a plain read, no write lock taken
        with self._writing(0) as conn:
            return fold_drafts(conn)
