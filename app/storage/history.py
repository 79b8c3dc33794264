"""Store methods over history: search, prompt history, app state, pruning, /clear, /rewind.

`HistoryMixin` is mixed into `Store` (which supplies `_engine`, `_reads`, `_clock` and `_touch`).

/clear and /rewind
------------------
`clear_context` records a *context reset* in `context_resets`: the workstream's highest
message `seq` at that moment. Nothing is deleted. `load_messages` still returns the whole
conversation for display; `load_conversation` returns it together with the index where the
model's context starts (`Conversation.context_start`, after the latest reset) and where every
reset sits (`Conversation.clears`, for dividers in the transcript). The engine sends
`messages_for_model(conv.messages, conv.context_start)` (app/vocabulary/messages.py).

`rewind(ws, n)` deletes the last `n` user messages and every row after the earliest of them,
together with any reset recorded after that point, so a /clear made inside the rewound turns
is undone as well. Rows are deleted, not hidden: what was rewound is gone from search too.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from app.storage.codec import rows_to_messages
from app.storage.engine import Connection, Engine
from app.storage.pieces import with_pieces
from app.storage.leases import live_lease_ids
from app.storage.search import Order, SearchHit, search

if TYPE_CHECKING:
    from app.vocabulary.messages import Message

DAY = 86_400.0
PROMPT_HISTORY_KEEP = 1_000  # entries kept per workstream; older ones are trimmed on add
# Seconds an empty workstream survives pruning: another running instance may have just made it.
EMPTY_GRACE = 600.0


def last_seq(conn: Connection, workstream_id: str) -> int:
    """The highest `seq` of the workstream's message rows, 0 when it has none."""
    return conn.execute("SELECT coalesce(max(seq), 0) FROM messages WHERE workstream_id = ?",
                        (workstream_id,)).scalar()


def workstream_rows(conn: Connection, workstream_id: str) -> list[Mapping[str, Any]]:
    """The workstream's `messages` rows in `seq` order, texts whole (`with_pieces`)."""
    rows = conn.execute("SELECT * FROM messages WHERE workstream_id = ? ORDER BY seq", (workstream_id,))
    return with_pieces(conn, [r._mapping for r in rows])


@dataclass
class Conversation:
    """A workstream's whole history plus where /clear cut the model's context.

    `clears` holds, in order, the index into `messages` of the first message after each
    /clear (equal to len(messages) when nothing followed it yet).
    """

    messages: list[Message]
    clears: list[int] = field(default_factory=list)

    @property
    def context_start(self) -> int:
        """Index of the first message the model sees (0 when never cleared)."""
        return self.clears[-1] if self.clears else 0


class HistoryMixin:
    _engine: Engine  # writes (BEGIN IMMEDIATE)
    _reads: Engine  # reads (never take the write lock)
    _clock: Callable[[], float]
    fts_enabled: bool
    if TYPE_CHECKING:
        def _touch(self, conn: Connection, workstream_id: str, **fields: Any) -> None: ...

    # -- search ------------------------------------------------------------------------

    def search(self, query: str, limit: int = 50, *, order: Order = "relevance",
               workstream_id: str | None = None) -> list[SearchHit]:
        """Messages (user, assistant, tool result) containing every term of `query`.

        Any text is accepted: FTS syntax characters are quoted, never interpreted.
        `order='relevance'` ranks by bm25 with FTS5 (newest first in the LIKE fallback);
        `'recent'` is newest first. `workstream_id` limits the search to one workstream.
        """
        with self._reads.connect() as conn:
            return search(conn, query, limit=limit, use_fts=self.fts_enabled, order=order,
                          workstream_id=workstream_id)

    # -- prompt history ------------------------------------------------------------------

    def add_prompt_history(self, workstream_id: str, text: str) -> None:
        """Remember a submitted prompt; blank text and a repeat of the last entry are skipped.

        Raises LookupError for an unknown workstream.
        """
        if not text.strip():
            return
        newest = "FROM prompt_history WHERE workstream_id = ? ORDER BY id DESC"
        try:
            with self._engine.begin() as conn:
                last = conn.execute(f"SELECT text {newest} LIMIT 1", (workstream_id,)).scalar()
                if last == text:
                    return
                conn.insert("prompt_history", {"workstream_id": workstream_id, "text": text,
                                               "created_at": self._clock()})
                cutoff = conn.execute(f"SELECT id {newest} LIMIT 1 OFFSET ?",
                                      (workstream_id, PROMPT_HISTORY_KEEP)).scalar()
                if cutoff is not None:
                    conn.execute("DELETE FROM prompt_history WHERE workstream_id = ? AND id <= ?",
                                 (workstream_id, cutoff))
        except sqlite3.IntegrityError:
            raise LookupError(f"no workstream with id '{workstream_id}'") from None

    def prompt_history(self, workstream_id: str, limit: int = 500) -> list[str]:
        """The newest `limit` prompts, oldest first, consecutive duplicates collapsed."""
        query = "SELECT text FROM prompt_history WHERE workstream_id = ? ORDER BY id DESC LIMIT ?"
        with self._reads.connect() as conn:
            texts = conn.execute(query, (workstream_id, max(limit, 0))).scalars()
        out: list[str] = []
        for t in reversed(texts):
            if not out or out[-1] != t:
                out.append(t)
        return out

    # -- app state -----------------------------------------------------------------------

    def set_app_state(self, key: str, value: Any) -> None:
        """Store a JSON-serializable value under `key`; None removes the key.

        Raises TypeError (from json) for a value that is not JSON-serializable.
        """
        with self._engine.begin() as conn:
            if value is None:
                conn.execute('DELETE FROM app_state WHERE "key" = ?', (key,))
                return
            conn.execute(
                'INSERT INTO app_state ("key", value, updated_at) VALUES (?, ?, ?) ON CONFLICT ("key") '
                "DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
                (key, json.dumps(value), self._clock()))

    def get_app_state(self, key: str) -> Any:
        """The value stored under `key`, decoded from JSON; None when there is none."""
        with self._reads.connect() as conn:
            raw = conn.execute('SELECT value FROM app_state WHERE "key" = ?', (key,)).scalar()
        return None if raw is None else json.loads(raw)

    # -- pruning -------------------------------------------------------------------------

    def prune(self, retention_days: float, now: float | None = None, *,
              keep: Iterable[str] = (), empty_grace: float = EMPTY_GRACE) -> int:
        """Delete workstreams nobody will miss; return how many were deleted.

        - Empty ones (no messages) not active for `empty_grace` seconds.
        - Unnamed ones (no alias) whose last activity is more than `retention_days` old;
          `retention_days <= 0` keeps them forever.
        Ids in `keep` (e.g. the ones in the saved layout) and workstreams a running instance
        has open (a live lease) are never deleted. Messages,
        settings, prompt history and /clear points go with them (foreign-key cascade).
        """
        now = self._clock() if now is None else now
        empty = "NOT EXISTS (SELECT * FROM messages WHERE messages.workstream_id = workstreams.id)"
        doomed = [f"({empty} AND updated_at < ?)"]
        params: list[Any] = [now - empty_grace]
        if retention_days > 0:
            doomed.append("((alias IS NULL OR alias = '') AND updated_at < ?)")
            params.append(now - retention_days * DAY)
        live, live_params = live_lease_ids(now)  # open in another window
        sql = f"DELETE FROM workstreams WHERE ({' OR '.join(doomed)}) AND id NOT IN ({live})"
        params += live_params
        keep = list(keep)
        if keep:
            sql += f" AND id NOT IN ({', '.join('?' * len(keep))})"
            params += keep
        with self._engine.begin() as conn:
            return conn.execute(sql, params).rowcount

    # -- /clear and /rewind --------------------------------------------------------------

    def clear_context(self, workstream_id: str) -> None:
        """Start the model's context afresh after the current last message (history stays).

        Raises LookupError for an unknown workstream.
        """
        with self._engine.begin() as conn:
            self._touch(conn, workstream_id)
            conn.execute("INSERT INTO context_resets (workstream_id, seq, created_at) VALUES (?, ?, ?) "
                         "ON CONFLICT DO NOTHING", (workstream_id, last_seq(conn, workstream_id), self._clock()))

    def load_conversation(self, workstream_id: str) -> Conversation:
        """All messages (as `load_messages`) plus the positions of /clear resets."""
        resets = "SELECT seq FROM context_resets WHERE workstream_id = ? ORDER BY seq"
        with self._reads.connect() as conn:
            rows = workstream_rows(conn, workstream_id)
            cuts = conn.execute(resets, (workstream_id,)).scalars()
        out: list[Message] = []
        clears: list[int] = []
        i = 0
        for cut in cuts:  # convert segment by segment so a reset never splits a message
            j = i
            while j < len(rows) and rows[j]["seq"] <= cut:
                j += 1
            out.extend(rows_to_messages(rows[i:j]))
            clears.append(len(out))
            i = j
        out.extend(rows_to_messages(rows[i:]))
        return Conversation(messages=out, clears=clears)

    def rewind(self, workstream_id: str, turns: int) -> int:
        """Delete the last `turns` user messages and everything after the earliest of them.

        Returns how many user turns were removed (fewer than asked when the history is
        shorter; 0 when there is nothing to rewind). Raises ValueError for turns < 0.
        """
        if turns < 0:
            raise ValueError("cannot rewind a negative number of turns")
        if turns == 0:
            return 0
        with self._engine.begin() as conn:
            seqs = conn.execute(
                "SELECT seq FROM messages WHERE workstream_id = ? AND role = 'user' ORDER BY seq DESC LIMIT ?",
                (workstream_id, turns)).scalars()
            if not seqs:
                return 0
            cut = min(seqs)
            for table in ("messages", "context_resets"):
                conn.execute(f"DELETE FROM {table} WHERE workstream_id = ? AND seq >= ?", (workstream_id, cut))
            self._touch(conn, workstream_id)
        return len(seqs)
