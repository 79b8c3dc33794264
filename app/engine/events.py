"""Typed events the engine emits to a frontend. Plain dataclasses: no Textual here.

A session calls its `emit` callback with these; `widgets/bridge.py` turns them into Textual
Messages for one pane, a headless frontend can print them as JSON.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Callable, Literal

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
    images: list[dict] | None = None  # sent with it (app/mentions/images.py): the transcript draws them


@dataclass
class AssistantStarted(EngineEvent):
    """A new model response begins streaming. `reply_text` reads its text so far (the session's own
    string, not a copy): a frontend can refer to it instead of keeping the text a second time."""

    reply_text: Callable[[], str] | None = field(default=None, repr=False, compare=False)


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
class ToolProgress(EngineEvent):
    """Progress of a running call (MCP progress notifications): `total` None when unknown."""

    call_id: str
    progress: float
    total: float | None = None
    message: str | None = None


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
    # the permission engine: risk, the rules "Always" offers, a critical call's override
    risk_level: str = ""
    risk_reason: str = ""
    suggestions: list[str] = field(default_factory=list)
    needs_override: bool = False
    mode: str = ""
    # a run_code program's call: `name` labels it "from code · <tool>"; these say what it is
    tool: str = ""
    arguments: str = ""
    review: bool = False  # a plan to accept or reject, not a call: no rule to save, nothing to override


Decision = Literal["approve", "deny", "always", "override"]


@dataclass
class ApprovalDecision:
    decision: Decision
    feedback: str = ""
    rules: list[str] = field(default_factory=list)  # "always": the rules to save (edited by the user)
    scope: str = "workstream"  # "always": workstream | project | user


@dataclass
class PermissionNoted(EngineEvent):
    """What let a call run (or refused it), for its card: `allowed by rule … (project, file:3)`."""

    call_id: str
    note: str


@dataclass
class ModeChanged(EngineEvent):
    """The workstream's permission mode changed (Shift+Tab)."""

    mode: str


@dataclass
class ApprovalRequested(EngineEvent):
    """The frontend resolves `future` with {call_id: ApprovalDecision} for every item."""

    items: list[ApprovalItem]
    future: asyncio.Future


@dataclass
class UsageUpdated(EngineEvent):
    """Tokens of the latest request; `prompt_tokens` / `context_window` is the context gauge."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    context_window: int | None
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


@dataclass
class UsageRecorded(EngineEvent):
    """One request's usage row was stored; carries the session totals for the status bar."""

    model: str
    prompt_tokens: int
    completion_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    cost: float | None  # USD; None when no price is known
    estimated: bool  # the price is a built-in estimate
    session_cost: float | None
    session_tokens: int


@dataclass
class ModelChanged(EngineEvent):
    """The workstream now talks to another model (/model, resume)."""

    alias: str
    model: str
    provider: str
    context_window: int


@dataclass
class FallbackUsed(EngineEvent):
    """A request failed on `from_alias` after its retries and went to `to_alias` instead."""

    from_alias: str
    to_alias: str
    reason: str


BreakerState = Literal["closed", "open", "half-open"]


@dataclass
class BreakerChanged(EngineEvent):
    """A backend's circuit breaker changed state (show it in the status bar)."""

    backend: str
    state: BreakerState
    retry_in: float = 0.0


@dataclass
class CompactionStarted(EngineEvent):
    auto: bool
    focus: str = ""


@dataclass
class CompactionDone(EngineEvent):
    """Older context was replaced by `summary` (history stays in storage).

    Show it as a collapsible block in the transcript.
    """

    summary: str
    messages_summarized: int
    tokens_before: int
    auto: bool
    focus: str = ""


@dataclass
class Notice(EngineEvent):
    """An info/warning/error line for the transcript (retries, finish reasons, failures)."""

    text: str
    level: Level = "info"


@dataclass
class PromptReturned(EngineEvent):
    """The prompt could not be stored (the team store did not answer), so nothing was sent: its text goes
    back to the prompt box; a Notice before it says why (app/engine/unsaved.py)."""

    text: str


@dataclass
class UserNotified(EngineEvent):
    """The model asked to tell the user something now (the notify tool)."""

    message: str


@dataclass
class SubagentEvent(EngineEvent):
    """Something a sub-agent (task/plan) did, shown nested in its parent's tool card `call_id`."""

    call_id: str
    agent: str  # "task-1", "plan-1"
    event: EngineEvent


@dataclass
class CodeCallEvent(EngineEvent):
    """A tool call made by a run_code program, for the nested rows of that call's card."""

    call_id: str  # the run_code call
    event: EngineEvent  # ToolCallAdded / ToolCallUpdated / PermissionNoted / ToolResultReady of the sub-call


@dataclass
class ToolModeChanged(EngineEvent):
    """The workstream's tool mode changed (/tools mode): native, code or both."""

    mode: str


@dataclass
class TurnFinished(EngineEvent):
    outcome: Literal["done", "cancelled", "error"]
