"""A workstream: one conversation with its session, its storage row and its live state.

The workstream sits between its Session and a frontend: it keeps the facts a tab or status bar
shows (state, tokens, pending approvals, unread output) up to date from the session's events and
forwards every event to `listener` (the UI sets it to post into the workstream's view).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any, Callable

from app.engine import events as ev
from app.engine.ownership import HeldElsewhere
from app.engine.session import Session

if TYPE_CHECKING:
    from app.storage.leases import Lease

Listener = Callable[[ev.EngineEvent], None]

# The stored state while a turn waits for the user's approval, so other instances' team view
# (/team) can say so; back to "idle" once nothing waits (app/storage/drafts.py keeps "streaming").
APPROVAL = "approval"


class Workstream:
    """Live state of one conversation; the storage row exists from creation (empty ones are pruned)."""

    def __init__(self, make_session: Callable[[Listener], Session], *, store: Any = None, title: str = "",
                 alias: str | None = None, model: str = "", workdir: str = "") -> None:
        self.session = make_session(self._on_event)
        session = self.session
        self.store = store
        self.title = title or "new workstream"
        self.alias = alias
        self.model = model
        self.workdir = workdir
        self.state: str = "idle"
        self.tokens = 0
        self.context_window: int | None = session.context_window()
        if session.provider is not None:
            self.model = session.provider.settings.model
        self.cost: float | None = None
        self.cost_estimated = False
        self.pending: list[ev.ApprovalRequested] = []
        self._notes: set[Any] = set()  # state notes being stored (kept referenced until done)
        self.unread = False
        self.last_active = time.monotonic()
        self.listener: Listener | None = None
        self.turns = 0
        self.title_generated = bool(title)  # a saved title (or alias) is kept; new ones get named once
        # Set while another live instance holds this workstream's lease: shown read-only, never run.
        self.held_by: Lease | None = None
        self.takeover_ready = False  # held_by's instance has gone or gone stale: it may be taken over
        self.seen_update = 0.0  # the stored updated_at last shown (a read-only view reloads on change)
        self.streaming_elsewhere = False  # read-only: its holder's reply is streaming (not interrupted)

    @property
    def id(self) -> str:
        return self.session.workstream_id

    @property
    def name(self) -> str:
        """What tabs show: the alias when set, else the title."""
        return self.alias or self.title

    @property
    def read_only(self) -> bool:
        """Open in another window: shown, refreshed, but no turn runs here."""
        return self.held_by is not None

    @property
    def busy(self) -> bool:
        return self.state in ("thinking", "running", "attention")

    @property
    def needs_attention(self) -> bool:
        return bool(self.pending)

    def _on_event(self, event: ev.EngineEvent) -> None:
        """Book-keeping every frontend needs, then hand the event on."""
        self.last_active = time.monotonic()
        if isinstance(event, ev.StateChanged):
            self.state = event.state
        elif isinstance(event, ev.UsageUpdated):
            self.tokens = event.total_tokens
            self.context_window = event.context_window or self.context_window
        elif isinstance(event, ev.UsageRecorded):
            self.cost, self.cost_estimated = event.session_cost, event.estimated
        elif isinstance(event, ev.ModelChanged):
            self.model, self.context_window = event.model, event.context_window
        elif isinstance(event, ev.CompactionDone):
            self.tokens = 0
        elif isinstance(event, ev.ApprovalRequested):
            self.pending.append(event)
            event.future.add_done_callback(lambda _f, e=event: self._drop_pending(e))
            if len(self.pending) == 1:
                self._note_state(APPROVAL)
        elif isinstance(event, (ev.ContentDelta, ev.ToolOutput, ev.TurnFinished, ev.UserNotified)):
            self.unread = True
        if isinstance(event, ev.TurnFinished):
            self.turns += 1
            if event.outcome != "error":
                self.state = "idle"
        if self.listener is not None:
            self.listener(event)

    def breaker_view(self) -> tuple[str, str, float] | None:
        """The current model's backend breaker as (backend, state, seconds until a retry), or None
        while it is closed. Read live: every workstream on that backend shares the breaker, so an
        event seen by one of them would leave the others' view stale."""
        models, alias = self.session.models, self.session.model_alias
        if models is None or alias is None or alias not in models:
            return None
        breaker = models.breaker(alias)
        state = breaker.state
        return None if state == "closed" else (breaker.name, state, breaker.retry_in())

    def _drop_pending(self, event: ev.ApprovalRequested) -> None:
        if event in self.pending:
            self.pending.remove(event)
            if not self.pending:
                self._note_state("idle")

    def _note_state(self, state: str) -> None:
        """Store the workstream's state for the other instances to see, without waiting for it: a
        failed note (the store gone, the lease lost) only leaves the team view a step behind."""
        if self.store is None or not self.id:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        task = loop.create_task(self._store_state(state))
        self._notes.add(task)
        task.add_done_callback(self._notes.discard)

    async def _store_state(self, state: str) -> None:
        try:
            await self.store.update_workstream(self.id, state=state)
        except Exception as error:  # noqa: BLE001 - see _note_state
            logging.getLogger(__name__).info("state %r of %s not stored: %s", state, self.id, error)

    async def submit(self, text: str, images: list[dict] | None = None) -> None:
        """Run one user turn to completion (the caller runs this as a cancellable task)."""
        if self.held_by is not None:
            raise HeldElsewhere(self.held_by)
        if self.title == "new workstream":
            self.title = _title_from(text)
            if self.store is not None and self.id:
                await self.store.update_workstream(self.id, title=self.title)
        await self.session.run_turn(text, images)


def _title_from(text: str, limit: int = 40) -> str:
    """A provisional title: the first line of the first prompt, shortened."""
    first = " ".join(text.strip().splitlines()[0].split()) if text.strip() else "new workstream"
    return first if len(first) <= limit else first[: limit - 1] + "…"
