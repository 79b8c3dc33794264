"""What the session's helpers see of a Session: the attributes and methods they read or call.

The turn loop (session.py) hands itself to its helpers — the gate's side (gating.py), code mode
(code_mode.py, code_calls.py), sub-agents (subagents.py) and a skill's settings (skill_settings.py).
They name it by this Protocol rather than by importing session.py, so no helper imports the module
that imports it, and what each may touch is written down in one place. `Session` satisfies it.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

from app.engine import events as ev
from app.engine.usage import UsageTracker
from app.providers.base import ModelSettings, Provider
from app.vocabulary.messages import Message
from tools.context import ToolContext
from tools.guard import CallGuard
from tools.pipeline import PreparedCall
from tools.registry import ToolRegistry
from tools.visibility import ToolScope


class SessionView(Protocol):
    """A Session as its helpers use it."""

    workstream_id: str
    provider: Provider | None
    models: Any  # a providers.models.ModelRegistry, or None
    model_alias: str | None
    registry: ToolRegistry
    tool_context: ToolContext
    tool_scope: ToolScope
    guard: CallGuard
    store: Any
    messages: list[Message]
    usage: UsageTracker
    token_budget: int | None
    tokens_before: int
    system_extra: Callable[[], str] | None
    native_web_search: bool
    max_retries: int
    retry_base_delay: float
    subagents: Any  # subagents.Subagents (which names its parent by this Protocol)

    def emit(self, event: ev.EngineEvent) -> None: ...

    async def set_model(self, alias: str) -> ModelSettings: ...

    async def _finish_call(self, item: PreparedCall, output: str, *, is_error: bool,
                           status: str | None = "auto", decision: str | None = None,
                           decided_by: str | None = None) -> None: ...
