"""Typed events the engine emits to a frontend. Plain dataclasses: no Textual here.

A session calls its `emit` callback with these; `app/bridge.py` turns them into Textual
Messages for one pane, a headless frontend can print them as JSON.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Literal

State = Literal["idle", "thinking", "running", "attention", "error"]
ToolStatus = Literal["pending", "approved", "denied", "running", "done", "error"]
Level = Literal["info", "warning", "error"]


@dataclass
class EngineEvent:
    """Base class; `workstream_id` says which workstream the event belongs to."""

    workstream_id: str = field(default="", kw_only=True)


@dataclass
class StateChanged(EngineEvent):
    state: State


@dataclass
class UserMessageAdded(EngineEvent):
    text: str


@dataclass
class AssistantStarted(EngineEvent):
    """A new model response begins streaming."""


@dataclass
class ContentDelta(EngineEvent):
    text: str


@dataclass
class ReasoningDelta(EngineEvent):
    text: str


@dataclass
class AssistantFinished(EngineEvent):
    """The response stream ended (completed, cancelled or failed); text is final."""

    content: str
    reasoning: str
    finish_reason: str | None
    interrupted: bool = False


@dataclass
class ToolCallAdded(EngineEvent):
    """A tool call is known (card appears). `preview` is a short argument summary."""

    call_id: str
    name: str
    preview: str
    arguments: str


@dataclass
class ToolCallUpdated(EngineEvent):
    call_id: str
    status: ToolStatus
    detail: str = ""


@dataclass
class ToolOutput(EngineEvent):
    """A chunk of live output (bash lines) for a running call."""

    call_id: str
    text: str


@dataclass
class ToolResultReady(EngineEvent):
    call_id: str
    output: str
    is_error: bool


@dataclass
class ApprovalItem:
    """One call awaiting the user's decision, with what the user needs to judge it."""

    call_id: str
    name: str
    preview: str  # the bash command, a path, a query ...
    diff: str = ""  # unified diff for write_file / edit_file
    reason: str = ""  # why approval is needed (e.g. "path outside the workspace")


Decision = Literal["approve", "deny", "always"]


@dataclass
class ApprovalDecision:
    decision: Decision
    feedback: str = ""


@dataclass
class ApprovalRequested(EngineEvent):
    """The frontend resolves `future` with {call_id: ApprovalDecision} for every item."""

    items: list[ApprovalItem]
    future: asyncio.Future


@dataclass
class UsageUpdated(EngineEvent):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    context_window: int | None


@dataclass
class Notice(EngineEvent):
    """An info/warning/error line for the transcript (retries, finish reasons, failures)."""

    text: str
    level: Level = "info"


@dataclass
class TurnFinished(EngineEvent):
    outcome: Literal["done", "cancelled", "error"]
