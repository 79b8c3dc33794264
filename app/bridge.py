"""Engine events → Textual Messages for one workstream's view.

Text arrives a token at a time; posting a message per token makes the UI fall behind a fast
model. The emitter therefore merges consecutive text deltas of the same stream and posts them
at most once per frame, while every other event is posted at once and in order.
"""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message
from textual.message_pump import MessagePump

if TYPE_CHECKING:
    from app.engine.events import EngineEvent

FRAME_SECONDS = 1 / 60
# Each flush re-renders the growing last Markdown block (a paragraph, a code block) and lays out the
# message, which both cost more as they grow. So flushes slow down with them: one more millisecond
# per 100 characters since the last blank line and per 1,000 characters of the message, down to
# one flush a second.
BLOCK_CHARS_PER_MS = 100
MESSAGE_CHARS_PER_MS = 1000
MAX_FRAME_SECONDS = 1.0


@dataclass
class EngineEventMessage(Message):
    """Carries one engine event to the view that shows its workstream."""

    event: EngineEvent


def _same_stream(a: EngineEvent, b: EngineEvent) -> bool:
    return type(a) is type(b) and getattr(a, "call_id", None) == getattr(b, "call_id", None)


class CoalescingEmitter:
    """An `emit` callback for a Session: posts to `target`, merging text deltas per frame."""

    def __init__(self, target: MessagePump, frame_seconds: float = FRAME_SECONDS) -> None:
        self.target = target
        self.frame_seconds = frame_seconds
        from app.engine.events import ContentDelta, ReasoningDelta, ToolOutput  # kept off the startup path

        self._mergeable = (ContentDelta, ReasoningDelta, ToolOutput)
        self._pending: EngineEvent | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._block = 0  # characters streamed since the last blank line: the block being re-rendered
        self._message = 0  # characters streamed since the last other event: the message so far

    def _frame(self) -> float:
        slowdown_ms = self._block / BLOCK_CHARS_PER_MS + self._message / MESSAGE_CHARS_PER_MS
        return min(MAX_FRAME_SECONDS, self.frame_seconds + slowdown_ms / 1000)

    def __call__(self, event: EngineEvent) -> None:
        if isinstance(event, self._mergeable):
            text = event.text
            self._message += len(text)
            self._block = len(text) - text.rindex("\n\n") - 2 if "\n\n" in text else self._block + len(text)
            if self._pending is not None and _same_stream(self._pending, event):
                self._pending.text += event.text
                return
            self.flush()
            self._pending = dataclasses.replace(event)  # a copy: the engine's event stays as sent
            self._timer = asyncio.get_running_loop().call_later(self._frame(), self.flush)
            return
        self._block = self._message = 0
        self.flush()
        self.target.post_message(EngineEventMessage(event))

    def flush(self) -> None:
        """Post the merged text now (also done before any other event, so order is kept)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._pending is not None:
            pending, self._pending = self._pending, None
            self.target.post_message(EngineEventMessage(pending))


def make_emitter(target: MessagePump) -> CoalescingEmitter:
    return CoalescingEmitter(target)
