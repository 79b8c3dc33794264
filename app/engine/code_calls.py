"""run_code's tool calls through the same pipeline as native ones: prepare (among the tools the API
shows), the policy gate and hooks, the approval modal (marked "from code"), execute, audit row.

`CodeCalls` stands in for the session in app/engine/gating.py's functions: its `_finish_call`
records the audit row and the result for the program instead of a tool message (the model sees
only the program's output), and its `emit` nests each sub-call's events under the run_code card.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import TYPE_CHECKING, Any

from app.engine import events as ev
from app.engine import gating
from app.vocabulary.messages import ToolCall
from tools.code_api import RESERVED
from tools.context import ToolContext
from tools.pipeline import PreparedCall, execute, prepare
from tools.visibility import ToolScope

if TYPE_CHECKING:
    from app.engine.session_view import SessionView as Session  # what a helper sees of the Session

SUB_EVENTS = (ev.ToolCallAdded, ev.ToolCallUpdated, ev.PermissionNoted, ev.ToolResultReady)
FROM_CODE = "from code"


def api_scope(session: Session) -> ToolScope:
    """The session's scope as native mode sees it: the tools the generated API offers."""
    return dataclasses.replace(session.tool_scope, tool_mode=None)


class CodeCalls:
    """The sub-calls of one run_code call, made one at a time in the order the program makes them."""

    def __init__(self, session: Session, ctx: ToolContext) -> None:
        self.session = session
        self.parent_id = ctx.call_id
        self.ctx = ctx
        self.tool_context = ctx  # what gating.py's checks before asking read (web_fetch's address policy)
        self.guard = session.guard
        self.workstream_id = session.workstream_id
        self.count = 0
        self.results: dict[str, tuple[str, bool]] = {}

    # -- what gating.py expects of a session -------------------------------------------------
    def emit(self, event: ev.EngineEvent) -> None:
        if isinstance(event, ev.ApprovalRequested):
            for item in event.items:
                item.name = f"{FROM_CODE} · {item.name}"
                item.reason = f"a run_code program asks: {item.reason}" if item.reason else "a run_code program asks"
            self.session.emit(event)
        elif isinstance(event, SUB_EVENTS):
            self.session.emit(ev.CodeCallEvent(self.parent_id, event))
        else:
            self.session.emit(event)

    async def _finish_call(self, item: PreparedCall, output: str, *, is_error: bool, status: str | None = "auto",
                           decision: str | None = None, decided_by: str | None = None) -> None:
        """The audit row and the card row; the result goes back to the program, not into the context."""
        await gating.audit(self, item, is_error=is_error, cancelled=False, decision=decision,  # type: ignore[arg-type]
                           decided_by=decided_by)
        if status == "auto":
            self.emit(ev.ToolCallUpdated(item.call.id, "error" if is_error else "done"))
        self.emit(ev.ToolResultReady(item.call.id, output, is_error))
        self.results[item.call.id] = (output, is_error)

    # -- one call ------------------------------------------------------------------------------
    async def call(self, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        """Run one of the program's calls; (result text, is_error), where refusals are errors."""
        self.count += 1
        call = ToolCall(f"{self.parent_id}:code:{self.count}", name, json.dumps(arguments))
        session = self.session
        if name in RESERVED:
            item = PreparedCall(call, None, None, error=f"{name} cannot be called from a program")
        else:  # the API is what the workstream sees in native mode (run_code itself excluded)
            item = prepare(call, session.registry, session.tool_context, api_scope(session))
        self.emit(ev.ToolCallAdded(call.id, name, item.preview, call.arguments))
        runnable, asking = await gating.screen_calls(self, [item])  # type: ignore[arg-type]
        if asking and await self._approved(asking[0]):
            runnable = asking
        if runnable:
            await self._run(runnable[0])
        return self.results.get(call.id, ("The call did not run.", True))

    async def _approved(self, item: PreparedCall) -> bool:
        approval = gating.approval_item(self, item)  # type: ignore[arg-type]
        approval.tool, approval.arguments = item.call.name.strip(), item.call.arguments

        async def record_cancelled() -> None:
            await self._finish_call(item, "The run was cancelled before the user answered.", is_error=True,
                                    decision="denied", decided_by="user: cancelled")

        decisions = await gating.ask_user(self, [approval], on_cancel=record_cancelled)  # type: ignore[arg-type]
        return await gating.apply_decision(self, item, decisions)  # type: ignore[arg-type]

    async def _run(self, item: PreparedCall) -> None:
        call_id = item.call.id
        ctx = dataclasses.replace(self.ctx, call_id=call_id, wrap_command=gating.wrapper(self, item),  # type: ignore[arg-type]
                                  unreadable=self.guard.unreadable,
                                  on_output=lambda _text: None,
                                  on_progress=lambda _v, _t, _m: None)
        self.emit(ev.ToolCallUpdated(call_id, "running"))
        try:
            output, is_error = await gating.execute_guarded(self, item, ctx, execute)  # type: ignore[arg-type]
        except asyncio.CancelledError:
            await asyncio.shield(self._cancelled(item))
            raise
        await self._finish_call(item, output, is_error=is_error)

    async def _cancelled(self, item: PreparedCall) -> None:
        await gating.audit(self, item, is_error=True, cancelled=True, decision=None, decided_by=None)  # type: ignore[arg-type]
        self.emit(ev.ToolCallUpdated(item.call.id, "error", "cancelled"))
