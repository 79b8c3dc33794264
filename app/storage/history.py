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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable

from sqlalchemy import Connection, Engine, and_, delete, exists, func, insert, or_, select
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError

from app.storage.codec import rows_to_messages
from app.storage.pieces import with_pieces
from app.storage.leases import live_lease_ids
from app.storage.schema import app_state, context_resets, messages, prompt_history, workstreams
from app.storage.search import Order, SearchHit, search

if TYPE_CHECKING:
    from app.vocabulary.messages import Message

DAY = 86_400.0
PROMPT_HISTORY_KEEP = 1_000  # entries kept per workstream; older ones are trimmed on add
# Seconds an empty workstream survives pruning: another running instance may have just made it.
EMPTY_GRACE = 600.0


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
        ph = prompt_history
        try:
            with self._engine.begin() as conn:
                last = conn.execute(select(ph.c.text).where(ph.c.workstream_id == workstream_id)
                                    .order_by(ph.c.id.desc()).limit(1)).scalar()
                if last == text:
                    return
                conn.execute(insert(ph).values(workstream_id=workstream_id, text=text,
                                               created_at=self._clock()))
                cutoff = conn.execute(
                    select(ph.c.id).where(ph.c.workstream_id == workstream_id)
                    .order_by(ph.c.id.desc()).offset(PROMPT_HISTORY_KEEP).limit(1)).scalar()
                if cutoff is not None:
                    conn.execute(delete(ph).where(ph.c.workstream_id == workstream_id,
                                                  ph.c.id <= cutoff))
        except IntegrityError:
            raise LookupError(f"no workstream with id '{workstream_id}'") from None

    def prompt_history(self, workstream_id: str, limit: int = 500) -> list[str]:
        """The newest `limit` prompts, oldest first, consecutive duplicates collapsed."""
        ph = prompt_history
        query = (select(ph.c.text).where(ph.c.workstream_id == workstream_id)
                 .order_by(ph.c.id.desc()).limit(max(limit, 0)))
        with self._reads.connect() as conn:
            texts = list(conn.execute(query).scalars())
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
                conn.execute(delete(app_state).where(app_state.c.key == key))
                return
            stmt = sqlite_insert(app_state).values(key=key, value=json.dumps(value),
                                                   updated_at=self._clock())
            conn.execute(stmt.on_conflict_do_update(
                index_elements=[app_state.c.key],
                set_={"value": stmt.excluded.value, "updated_at": stmt.excluded.updated_at}))

    def get_app_state(self, key: str) -> Any:
        """The value stored under `key`, decoded from JSON; None when there is none."""
        with self._reads.connect() as conn:
            raw = conn.execute(select(app_state.c.value).where(app_state.c.key == key)).scalar()
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
        w = workstreams
        has_messages = exists().where(messages.c.workstream_id == w.c.id)
        doomed = [and_(~has_messages, w.c.updated_at < now - empty_grace)]
        if retention_days > 0:
            unnamed = or_(w.c.alias.is_(None), w.c.alias == "")
            doomed.append(and_(unnamed, w.c.updated_at < now - retention_days * DAY))
        cond = and_(or_(*doomed), w.c.id.not_in(live_lease_ids(now)))  # open in another window
        keep = list(keep)
        if keep:
            cond = and_(cond, w.c.id.not_in(keep))
        with self._engine.begin() as conn:
            return conn.execute(delete(w).where(cond)).rowcount

    # -- /clear and /rewind --------------------------------------------------------------

    def clear_context(self, workstream_id: str) -> None:
        """Start the model's context afresh after the current last message (history stays).

        Raises LookupError for an unknown workstream.
        """
        with self._engine.begin() as conn:
            self._touch(conn, workstream_id)
            seq = conn.execute(
                select(func.coalesce(func.max(messages.c.seq), 0))
                .where(messages.c.workstream_id == workstream_id)).scalar_one()
            conn.execute(sqlite_insert(context_resets).values(
                workstream_id=workstream_id, seq=seq, created_at=self._clock(),
            ).on_conflict_do_nothing())

    def load_conversation(self, workstream_id: str) -> Conversation:
        """All messages (as `load_messages`) plus the positions of /clear resets."""
        query = (select(messages).where(messages.c.workstream_id == workstream_id)
                 .order_by(messages.c.seq))
        resets = (select(context_resets.c.seq)
                  .where(context_resets.c.workstream_id == workstream_id)
                  .order_by(context_resets.c.seq))
        with self._reads.connect() as conn:
            rows = with_pieces(conn, [r._mapping for r in conn.execute(query)])
            cuts = list(conn.execute(resets).scalars())
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
        m = messages
        with self._engine.begin() as conn:
            seqs = list(conn.execute(
                select(m.c.seq).where(m.c.workstream_id == workstream_id, m.c.role == "user")
                .order_by(m.c.seq.desc()).limit(turns)).scalars())
            if not seqs:
                return 0
            cut = min(seqs)
            conn.execute(delete(m).where(m.c.workstream_id == workstream_id, m.c.seq >= cut))
            conn.execute(delete(context_resets).where(
                context_resets.c.workstream_id == workstream_id, context_resets.c.seq >= cut))
            self._touch(conn, workstream_id)
        return len(seqs)
