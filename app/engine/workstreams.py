"""The set of open workstreams: creation, opening saved ones, lookup, aliases and eviction.

Each open workstream is leased to this instance (app/engine/ownership.py); one that another live
instance holds opens read-only and can be taken over once that instance has gone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from app.vocabulary.messages import Message
from app.engine.ownership import HeldElsewhere, Ownership
from app.engine.session import Session
from app.engine.workstream import Listener, Workstream


@dataclass
class SavedState:
    """What a reopened workstream's session is rebuilt from."""

    messages: list[Message] = field(default_factory=list)
    context_start: int = 0  # first message after the last /clear
    model_alias: str | None = None
    compaction: tuple[str, int] | None = None  # (summary, id of the last summarized message)
    settings: dict[str, Any] = field(default_factory=dict)  # its stored config (ACP agent, permission mode and rules, …)


# (workstream_id, saved state, listener) -> its Session
SessionFactory = Callable[[str, SavedState, Listener], Session]


class WorkstreamLimitError(RuntimeError):
    """Raised when the open-workstream limit is reached and none is idle to evict."""


class WorkstreamManager:
    """Open workstreams in tab order. Closing or evicting keeps them saved and resumable."""

    def __init__(self, *, store: Any, session_factory: SessionFactory, max_open: int = 20,
                 model: str = "", workdir: str = "", ownership: Ownership | None = None) -> None:
        self.store = store
        self.ownership = ownership or Ownership(store)
        self.session_factory = session_factory
        self.max_open = max_open
        self.model = model
        self.workdir = workdir
        self.workstreams: list[Workstream] = []

    def __len__(self) -> int:
        return len(self.workstreams)

    def __iter__(self):
        return iter(self.workstreams)

    def _build(self, workstream_id: str, saved: SavedState, *, title: str = "", alias: str | None = None,
               model: str = "") -> Workstream:
        return Workstream(lambda listener: self.session_factory(workstream_id, saved, listener),
                          store=self.store, title=title, alias=alias, model=model or self.model,
                          workdir=self.workdir)

    async def _make_room(self, protect: set[str], full: str) -> Workstream | None:
        """At the limit, close (and return) the oldest idle workstream; WorkstreamLimitError(full) if none."""
        if len(self.workstreams) < self.max_open:
            return None
        evicted = self.eviction_candidate(protect)
        if evicted is None:
            raise WorkstreamLimitError(full)
        await self.close(evicted)
        return evicted

    async def create(self, *, protect: set[str] = frozenset(),
                     settings: dict[str, Any] | None = None) -> tuple[Workstream, Workstream | None]:
        """Open a new, empty workstream; at the limit, first evict the oldest idle one (not in `protect`)."""
        evicted = await self._make_room(protect, (
            f"All {self.max_open} open workstreams are busy, so none can be closed to make room. "
            "Wait for one to finish, close one with /ws close N, or raise [workstreams] max_open."))
        workstream_id = await self.store.create_workstream(model=self.model or None, workdir=self.workdir)
        await self.ownership.claim(workstream_id)  # nobody else knows it yet
        for key, value in (settings or {}).items():
            await self.store.set_config(workstream_id, key, value)
        workstream = self._build(workstream_id, SavedState(settings=dict(settings or {})))
        self.workstreams.append(workstream)
        return workstream, evicted

    async def open(self, ref: str, *, protect: set[str] = frozenset(),
                   only_if_free: bool = False) -> tuple[Workstream, Workstream | None]:
        """Open a saved workstream (id, prefix or alias); returns the open one if it already is.

        A workstream another live instance holds opens read-only (`held_by` set), or, with
        `only_if_free`, raises HeldElsewhere (restoring the last session's tabs uses that).
        """
        info = await self.store.find_workstream(ref)
        existing = self.get(info.id)
        if existing is not None:
            return existing, None
        holder = await self.ownership.claim(info.id)
        if holder is not None and only_if_free:
            raise HeldElsewhere(holder)
        try:
            evicted = await self._make_room(protect, f"All {self.max_open} open workstreams are busy; close one first.")
        except WorkstreamLimitError:
            await self.ownership.release(info.id)
            raise
        workstream = await self._load(info)
        workstream.held_by = holder
        self.workstreams.append(workstream)
        return workstream, evicted

    async def _load(self, info: Any) -> Workstream:
        """Build a workstream and its session from what the store holds for it."""
        conversation = await self.store.load_conversation(info.id)
        settings = await self.store.get_config(info.id)
        compaction = await self.store.latest_compaction(info.id)
        saved = SavedState(conversation.messages, conversation.context_start, settings.get("model_alias"),
                           (compaction.summary, compaction.last_message_id) if compaction else None, settings)
        workstream = self._build(info.id, saved, title=info.title or "", alias=info.alias, model=info.model or "")
        workstream.seen_update = info.updated_at
        if hasattr(self.store, "list_usage"):  # the gauge reads as it did, not 0 until the next turn
            from app.engine.usage import context_at_resume

            cleared = conversation.context_start > 0 and conversation.context_start >= len(conversation.messages)
            workstream.tokens = 0 if cleared else context_at_resume(
                await self.store.list_usage(info.id), compaction.created_at if compaction else 0.0)
        return workstream

    async def close(self, workstream: Workstream) -> None:
        """Close a workstream (it stays saved) and give its lease back."""
        if workstream in self.workstreams:
            self.workstreams.remove(workstream)
            if not workstream.read_only:
                await self.ownership.release(workstream.id)

    async def take_over(self, workstream: Workstream) -> Workstream:
        """Reopen a read-only workstream as this instance's own, in the same tab, with its latest history.

        Raises HeldElsewhere while its holder is still alive and beating.
        """
        holder = await self.ownership.claim(workstream.id)
        if holder is not None:
            workstream.held_by, workstream.takeover_ready = holder, False
            raise HeldElsewhere(holder)
        info = await self.store.find_workstream(workstream.id)
        fresh = await self._load(info)
        index = self.workstreams.index(workstream)
        self.workstreams[index] = fresh
        return fresh

    async def heartbeat(self) -> list[Workstream]:
        """Refresh this instance's leases; workstreams taken over elsewhere meanwhile become read-only.

        (A lease can be lost only while this instance looked stale, say suspended with Ctrl+Z.) One
        whose taker has since gone is simply claimed back.
        """
        lost = []
        for workstream_id in await self.ownership.heartbeat():
            workstream = self.get(workstream_id)
            holder = await self.ownership.claim(workstream_id) if workstream is not None else None
            if holder is not None:
                workstream.held_by = holder
                lost.append(workstream)
        return lost

    async def poll_read_only(self) -> list[Workstream]:
        """Check read-only workstreams: reload any with new messages (a streaming reply's saves
        included), note holders that left and replies that stopped streaming.

        Returns those whose history or take-over readiness changed (their views redraw).
        """
        changed = []
        for workstream in [w for w in self.workstreams if w.read_only]:
            info = await self.store.get_workstream(workstream.id)
            if info is None:
                continue
            lease = await self.store.lease(workstream.id)
            ready = self.ownership.free_now(lease)
            moved = info.updated_at != workstream.seen_update
            if moved:
                conversation = await self.store.load_conversation(workstream.id)
                workstream.session.messages[:] = conversation.messages
                workstream.seen_update = info.updated_at
            # Its last reply is still streaming while its writer lives and has not said it stopped (the
            # state app/storage/drafts.py keeps); a writer gone mid-stream leaves it interrupted.
            streaming = info.state == "streaming" and lease is not None and not ready
            if moved or ready != workstream.takeover_ready or streaming != workstream.streaming_elsewhere:
                workstream.held_by = lease or workstream.held_by
                workstream.takeover_ready = ready
                workstream.streaming_elsewhere = streaming
                changed.append(workstream)
        return changed

    def get(self, workstream_id: str) -> Workstream | None:
        return next((w for w in self.workstreams if w.id == workstream_id), None)

    def find(self, ref: str) -> Workstream:
        """An open workstream by tab number (1-based), alias, title or id prefix."""
        ref = ref.strip()
        if ref.isdigit() and 1 <= int(ref) <= len(self.workstreams):
            return self.workstreams[int(ref) - 1]
        for match in (lambda w: w.alias == ref, lambda w: w.id.startswith(ref) and len(ref) >= 4,
                      lambda w: w.title.lower() == ref.lower()):
            found = [w for w in self.workstreams if match(w)]
            if len(found) == 1:
                return found[0]
        raise LookupError(f"no open workstream matches '{ref}' (use a tab number 1-{len(self.workstreams)} "
                          "or an alias)")

    def eviction_candidate(self, protect: set[str] = frozenset()) -> Workstream | None:
        """The idle workstream that has been quiet the longest, never one in `protect`."""
        idle = [w for w in self.workstreams if not w.busy and not w.pending and w.id not in protect]
        return min(idle, key=lambda w: w.last_active, default=None)

    async def rename(self, workstream: Workstream, alias: str) -> None:
        """Give a workstream a unique alias (persisted); ValueError when taken or malformed."""
        alias = alias.strip()
        if not alias or any(c.isspace() for c in alias) or alias.isdigit():
            raise ValueError("an alias is one word and not a number, e.g. /name api-refactor")
        await self.store.update_workstream(workstream.id, alias=alias)
        workstream.alias = alias

    def next_needing_attention(self, after: Workstream | None = None) -> Workstream | None:
        """The next workstream (cycling in tab order after `after`) with a pending approval."""
        if not self.workstreams:
            return None
        start = self.workstreams.index(after) + 1 if after in self.workstreams else 0
        ordered = self.workstreams[start:] + self.workstreams[:start]
        return next((w for w in ordered if w.pending and w is not after), None) or (
            after if after is not None and after.pending else None)
