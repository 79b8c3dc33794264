"""Followers told at once on PostgreSQL: NOTIFY on every write into a workstream, LISTEN in a thread.

Every write into a workstream (a message, a streaming reply's draft piece, its state) goes through
`Store._touch`, which on PostgreSQL also runs `pg_notify(CHANNEL, workstream_id)` in the same
transaction: the server delivers it when (and only if) the write commits, so a follower woken by it
reads the write. A `Listener` holds one dedicated connection (outside the engine's pool) that LISTENs
on CHANNEL in a daemon thread and calls `on_change(workstream_id)` from that thread for each
notification. A dropped connection is reported (`on_lost`: the window says the store is unreachable,
app/storage/reachability.py) and reopened with back-off (0.25 s doubling to 8 s); once it is
listening again `on_change(None)` says "anything may have changed meanwhile" so the caller re-reads.

SQLite has no such channel between processes: there, read-only windows keep polling
(app/tui/workstreams/ownership_wiring.py). The poll stays on PostgreSQL too, as the fallback.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

import psycopg

CHANNEL = "whimbrel_workstreams"
BACKOFF = (0.25, 8.0)  # first and longest wait before reconnecting


def notify(conn: Any, workstream_id: str) -> None:
    """Inside a write transaction on PostgreSQL: tell the listeners this workstream changed (delivered on
    commit, and sent to the server with the COMMIT: no round trip of its own; the same id twice in one
    transaction is delivered once)."""
    conn.defer("SELECT pg_notify(?, ?)", (CHANNEL, workstream_id))


class Listener:
    """LISTEN on CHANNEL on its own connection, in its own thread, until `close()`."""

    def __init__(self, connect: Callable[[], psycopg.Connection], on_change: Callable[[str | None], None],
                 on_lost: Callable[[BaseException], None] | None = None) -> None:
        self._connect = connect  # a new autocommit connection to the store's database
        self.on_change = on_change
        self.on_lost = on_lost  # the listening connection dropped (the server may be gone): said once per drop
        self.listening = threading.Event()  # set while the LISTEN is in force
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="whimbrel-listen", daemon=True)

    def start(self) -> "Listener":
        self._thread.start()
        return self

    def _run(self) -> None:
        delay = BACKOFF[0]
        while not self._stop.is_set():
            try:
                with self._connect() as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self.listening.set()
                    delay = BACKOFF[0]
                    self.on_change(None)  # (re)connected: whatever happened while not listening
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=0.5):
                            self.on_change(note.payload)
            except psycopg.Error as error:  # the server went away: retried below, the poll covers the gap
                if self.listening.is_set() and self.on_lost is not None and not self._stop.is_set():
                    self.on_lost(error)
            except Exception as error:  # noqa: BLE001 - on_change's own failure must not end the thread
                import logging

                logging.getLogger(__name__).warning("store listener: %s", error)
            self.listening.clear()
            self._stop.wait(delay)
            delay = min(delay * 2, BACKOFF[1])

    def close(self) -> None:
        """Stop listening; the connection closes within half a second."""
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)
