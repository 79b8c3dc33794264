"""Engine events → Textual Messages for one workstream's view.

Text arrives a token at a time; posting a message per token makes the UI fall behind a fast
model. The emitter therefore merges consecutive text deltas of the same stream and posts them
at most once per frame, while every other event is posted at once and in order.

The frame follows how busy the event loop is: after posting merged text the emitter waits until
the screen has painted it, then lets as much time again pass (up to MAX_WAIT) before the next
post. A long reply or a slow terminal thus get fewer, larger updates (down to about ten a second)
and the stream keeps its share of the loop; a slow stream is shown at frame rate.

A stream that outruns the screen (more than BACKLOG_CHARS arrived while the last update was being
painted: far faster than anyone reads) waits FAST_FACTOR times as long (up to FAST_MAX_WAIT): each
update costs a layout of the whole view whatever its size, so fewer, larger ones finish the reply
sooner and leave the loop free for typing meanwhile.
"""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from textual.message import Message
from textual.message_pump import MessagePump

if TYPE_CHECKING:
    from app.engine.events import EngineEvent

FRAME_SECONDS = 1 / 60
MAX_WAIT = 0.1  # the longest pause after a paint before the next update
BACKLOG_CHARS = 400  # text waiting when a paint ends that marks a stream as outrunning the screen
FAST_FACTOR = 3  # ... which then waits this many times as long as the last update took
FAST_MAX_WAIT = 0.3  # ... up to this
PAINT_TIMEOUT = 1.0  # a paint that never reports back (a closing view) stops blocking after this


@dataclass
class EngineEventMessage(Message):
    """Carries one engine event to the view that shows its workstream."""

    event: EngineEvent


class Clock(Protocol):
    """What the emitter needs of time: the event loop has both (tests pass a clock they advance)."""

    def time(self) -> float: ...

    def call_later(self, delay: float, callback, *args) -> asyncio.TimerHandle: ...


def _same_stream(a: EngineEvent, b: EngineEvent) -> bool:
    return type(a) is type(b) and getattr(a, "call_id", None) == getattr(b, "call_id", None)


class CoalescingEmitter:
    """An `emit` callback for a Session: posts to `target`, merging text deltas per frame."""

    def __init__(self, target: MessagePump, frame_seconds: float = FRAME_SECONDS, clock: Clock | None = None) -> None:
        self.target = target
        self.frame_seconds = frame_seconds
        self._given_clock = clock
        from app.engine.events import ContentDelta, ReasoningDelta, ToolOutput  # kept off the startup path

        self._mergeable = (ContentDelta, ReasoningDelta, ToolOutput)
        self._pending: EngineEvent | None = None  # the first event of the text being merged
        self._pieces: list[str] = []  # the merged texts, in order
        self._pending_chars = 0
        self._timer: asyncio.TimerHandle | None = None
        self._painting: object | None = None  # a token while posted text waits to be painted
        self._posted_at = 0.0
        self._watchdog: asyncio.TimerHandle | None = None
        self._ready_at = 0.0  # loop time before which the next merged text is not posted

    def __call__(self, event: EngineEvent) -> None:
        if isinstance(event, self._mergeable):
            if self._pending is not None and _same_stream(self._pending, event):
                self._pieces.append(event.text)  # joined once when posted: `+=` would copy all so far
                self._pending_chars += len(event.text)
                return
            self.flush()
            self._pending, self._pieces, self._pending_chars = event, [event.text], len(event.text)
            self._schedule()
            return
        self.flush()
        self.target.post_message(EngineEventMessage(event))

    def _clock(self) -> Clock:
        return self._given_clock or asyncio.get_running_loop()

    def _schedule(self) -> None:
        """Post the pending text after a frame, once the last update is painted and paid for."""
        if self._timer is not None or self._painting is not None:
            return  # already due, or `_painted` will schedule it
        clock = self._clock()
        delay = max(self.frame_seconds, self._ready_at - clock.time())
        self._timer = clock.call_later(delay, self.flush)

    def flush(self) -> None:
        """Post the merged text now (also done before any other event, so order is kept)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._pending is not None:
            merged = dataclasses.replace(self._pending, text="".join(self._pieces))  # the engine's event stays as sent
            self._pending, self._pieces = None, []
            self.target.post_message(EngineEventMessage(merged))
            self._await_paint()

    def _await_paint(self) -> None:
        """Ask the target to report back once the screen has painted what was just posted."""
        clock = self._clock()
        token = self._painting = object()
        self._posted_at = clock.time()
        if self._watchdog is not None:
            self._watchdog.cancel()
        after_refresh = getattr(self.target, "call_after_refresh", None)
        if after_refresh is None or not after_refresh(self._painted, token):
            self._watchdog = None
            self._painted(token)
            return
        self._watchdog = clock.call_later(PAINT_TIMEOUT, self._painted, token)

    def _painted(self, token: object) -> None:
        if token is not self._painting:
            return  # a later post superseded this one
        now = self._clock().time()
        took = now - self._posted_at
        if self._pending is not None and self._pending_chars >= BACKLOG_CHARS:
            self._ready_at = now + min(FAST_MAX_WAIT, FAST_FACTOR * took)
        else:
            self._ready_at = now + min(MAX_WAIT, took)
        self._painting = None
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        if self._pending is not None:
            self._schedule()


def make_emitter(target: MessagePump) -> CoalescingEmitter:
    return CoalescingEmitter(target)
