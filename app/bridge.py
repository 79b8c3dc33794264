"""Engine events → Textual Messages for one workstream's pane."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from textual.message import Message
from textual.message_pump import MessagePump

from app.engine.events import EngineEvent


@dataclass
class EngineEventMessage(Message):
    """Carries one engine event to the pane that shows its workstream."""

    event: EngineEvent


def make_emitter(target: MessagePump) -> Callable[[EngineEvent], None]:
    """An `emit` callback for a Session that posts each event to `target` (safe from any task)."""

    def emit(event: EngineEvent) -> None:
        target.post_message(EngineEventMessage(event))

    return emit
