"""One turn of an external agent: its updates as engine events, and its messages as they are stored.

Text and reasoning stream into a reply; a tool call closes the reply's text part; text after tool
calls opens a new reply, and the previous one is stored with its calls and their results (the same
shape a model turn leaves, so the transcript draws a resumed agent workstream like any other).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from app.engine import events as ev
from app.vocabulary.messages import Message, ToolCall

STATUS = {"pending": "pending", "in_progress": "running", "completed": "done", "failed": "error"}


def _text_of(content: Any) -> str:
    """The text of an ACP tool-call content list (text blocks and diffs)."""
    parts = []
    for item in content or []:
        kind = getattr(item, "type", "")
        if kind == "content" and getattr(item.content, "type", "") == "text":
            parts.append(item.content.text)
        elif kind == "diff":
            parts.append(f"{item.path}: edited")
    return "\n".join(parts)


def _diff_of(content: Any, workspace: Any) -> str:
    """The first diff of the content, its file named as Whimbrel's own tools name it (relative inside
    the workspace, absolute outside)."""
    from pathlib import Path

    from tools.preview import unified_diff
    from tools.workspace import display_path

    for item in content or []:
        if getattr(item, "type", "") == "diff":
            shown = display_path(Path(str(item.path)), Path(workspace)) if Path(str(item.path)).is_absolute() \
                else str(item.path)
            return unified_diff(item.old_text or "", item.new_text or "", shown.lstrip("/"))
    return ""


class TurnRecord:
    def __init__(self, session: Any) -> None:
        self.session = session
        self.content: list[str] = []
        self.reasoning: list[str] = []
        self.calls: dict[str, ToolCall] = {}  # this reply's calls, in order
        self.results: dict[str, tuple[str, bool]] = {}
        self.open = False  # a reply is streaming
        self._storing: list[asyncio.Task] = []
        self._in_order = asyncio.Lock()  # replies are stored in the order they ended
        self._asking: set[asyncio.Future] = set()  # approvals shown now (cancelled when the turn ends)
        self.approved: set[str] = set()  # the agent's calls the user allowed in this turn
        self._requests = 0  # approvals of the agent's fs/terminal requests, numbered for their ids

    # -- updates -----------------------------------------------------------------------------
    def update(self, update: Any) -> None:
        kind = getattr(update, "session_update", "")
        if kind in ("agent_message_chunk", "agent_thought_chunk"):
            text = getattr(update.content, "text", "") or ""
            if text:
                self._text(text, reasoning=kind == "agent_thought_chunk")
        elif kind == "tool_call":
            self._tool_call(update)
        elif kind == "tool_call_update":
            self._tool_update(update)

    def _text(self, text: str, *, reasoning: bool) -> None:
        if self.calls:  # text after tool calls: the previous reply (with its calls) is complete
            self._store_reply()
        if not self.open:
            self.open = True
            self.session.emit(ev.AssistantStarted())
        (self.reasoning if reasoning else self.content).append(text)
        self.session.emit(ev.ReasoningDelta(text) if reasoning else ev.ContentDelta(text))

    def _tool_call(self, update: Any) -> None:
        call_id = update.tool_call_id
        if call_id in self.calls:
            self._tool_update(update)
            return
        if self.open:  # the reply's text part ends where its first call begins
            self.open = False
            self.session.emit(ev.AssistantFinished("".join(self.content), "".join(self.reasoning), "tool_calls"))
        name = update.kind or "tool"
        arguments = json.dumps(update.raw_input) if update.raw_input is not None else "{}"
        self.calls[call_id] = ToolCall(call_id, name, arguments)
        self.session.emit(ev.ToolCallAdded(call_id, name, update.title or "", arguments))
        if update.status and update.status != "pending":
            self._tool_update(update)

    def _tool_update(self, update: Any) -> None:
        call_id = update.tool_call_id
        if call_id not in self.calls:
            self._tool_call(update if getattr(update, "title", None) is not None else _titled(update))
            return
        status = STATUS.get(update.status or "", None)
        if status in ("done", "error"):
            output = _text_of(update.content) or (str(update.raw_output) if update.raw_output is not None else "")
            self.results[call_id] = (output, status == "error")
            self.session.emit(ev.ToolCallUpdated(call_id, status))
            self.session.emit(ev.ToolResultReady(call_id, output, status == "error"))
        elif status is not None:
            self.session.emit(ev.ToolCallUpdated(call_id, status))

    # -- permission --------------------------------------------------------------------------
    async def ask(self, tool_call: Any, options: list[Any]) -> str | None:
        """The agent's permission request in Whimbrel's approval modal; the chosen option id."""
        call_id = tool_call.tool_call_id
        if call_id not in self.calls:
            self._tool_call(_titled(tool_call))
        call, workspace = self.calls[call_id], self.session.tool_context.workspace
        item = ev.ApprovalItem(call_id, call.name, tool_call.title or "", _diff_of(tool_call.content, workspace),
                               f"agent {self.session.agent.name} asks permission" + _outside(tool_call, workspace))
        decision = await self._decide(item)
        if decision is None:
            return None
        if decision.decision != "deny":
            self.approved.add(call_id)
        wanted = {"approve": ("allow_once", "allow_always"), "always": ("allow_always", "allow_once"),
                  "deny": ("reject_once", "reject_always")}.get(decision.decision, ("allow_once", "allow_always"))
        for kind in wanted:
            for option in options:
                if option.kind == kind:
                    self.session.emit(ev.ToolCallUpdated(call_id, "denied" if kind.startswith("reject")
                                                         else "approved", decision.feedback))
                    return option.option_id
        return None

    async def approve(self, tool: str, preview: str, diff: str, why: str) -> bool:
        """An fs/terminal request of the agent in the approval modal; True when the user allows it."""
        self._requests += 1
        item = ev.ApprovalItem(f"agent-request-{self._requests}", tool, preview, diff,
                               f"a request of agent {self.session.agent.name}: {why}")
        decision = await self._decide(item)
        return decision is not None and decision.decision != "deny"

    def approved_call_running(self) -> bool:
        """Is a call the user allowed still running? Its reads, writes and commands are what was allowed."""
        return any(call_id in self.approved and call_id not in self.results for call_id in self.calls)

    async def _decide(self, item: ev.ApprovalItem) -> ev.ApprovalDecision | None:
        """The modal's answer for one item; None when the turn ended while it was shown."""
        future = asyncio.get_running_loop().create_future()
        self._asking.add(future)
        future.add_done_callback(self._asking.discard)
        self.session.emit(ev.StateChanged("attention"))
        self.session.emit(ev.ApprovalRequested([item], future))
        try:
            decisions = await future
        except asyncio.CancelledError:
            return None
        finally:
            self.session.emit(ev.StateChanged("running"))
        return decisions.get(item.call_id) or ev.ApprovalDecision("deny")

    # -- storing -----------------------------------------------------------------------------
    def _store_reply(self, interrupted: bool = False) -> None:
        message = Message(role="assistant", content="".join(self.content), reasoning="".join(self.reasoning),
                          tool_calls=list(self.calls.values()), interrupted=interrupted)
        results = [Message(role="tool", content=self.results.get(c.id, ("The agent reported no result.", True))[0],
                           tool_call_id=c.id, name=c.name, is_error=self.results.get(c.id, ("", True))[1])
                   for c in self.calls.values()]
        if self.open:
            self.session.emit(ev.AssistantFinished(message.content, message.reasoning, None, interrupted))
        self.content, self.reasoning, self.calls, self.results, self.open = [], [], {}, {}, False
        if message.content or message.reasoning or message.tool_calls:
            self._storing.append(asyncio.ensure_future(self._persist_all([message, *results])))

    async def _persist_all(self, messages: list[Message]) -> None:
        async with self._in_order:
            for message in messages:
                await self.session._persist(message)

    async def close(self, *, interrupted: bool) -> None:
        """The turn ended: close its approval dialogs, store what is left and wait until it is stored."""
        for future in list(self._asking):
            future.cancel()  # the agent hears "cancelled"; the frontend closes the dialog
        self._store_reply(interrupted)
        await asyncio.gather(*self._storing)


def _outside(tool_call: Any, workspace: Any) -> str:
    """A warning naming the paths of the call (its locations and diffs) that lie outside the workspace.

    The agent's own tools may act on them directly (opencode writes files itself): the modal is then
    the only check, so the user is told."""
    from tools.workspace import resolve_path

    paths = [getattr(location, "path", "") for location in getattr(tool_call, "locations", None) or []]
    paths += [str(item.path) for item in tool_call.content or [] if getattr(item, "type", "") == "diff"]
    outside = sorted({raw for raw in paths if raw and not resolve_path(raw, workspace)[1]})
    return f"; outside the workspace: {', '.join(outside)}" if outside else ""


def _titled(update: Any) -> Any:
    """A tool_call_update for a call never announced, read as its announcement."""
    from acp.schema import ToolCallStart

    return ToolCallStart(session_update="tool_call", tool_call_id=update.tool_call_id,
                         title=getattr(update, "title", None) or "tool call", kind=getattr(update, "kind", None),
                         status=getattr(update, "status", None), content=getattr(update, "content", None),
                         raw_input=getattr(update, "raw_input", None), raw_output=getattr(update, "raw_output", None))
