"""The turn loop of one workstream: stream a response, run its tool calls, repeat until done.

The session owns the conversation (a list of `Message`s), persists each message the moment it
completes, and reports everything through `emit(EngineEvent)`. It never imports Textual; the
frontend runs `run_turn` as a task and cancels that task to stop a turn.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any, Callable

from app.engine import events as ev
from app.engine.assembler import ToolCallAssembler
from app.engine.messages import Message, ToolCall, repair_interrupted
from app.engine.prompts import system_prompt
from app.providers.base import (
    ContentChunk,
    FinishChunk,
    Provider,
    ProviderError,
    ReasoningChunk,
    ToolCallChunk,
    UsageChunk,
)
from app.providers.retry import stream_with_retry
from tools.context import ToolContext
from tools.pipeline import PreparedCall, approval_reason, execute, prepare
from tools.registry import ToolRegistry

Emit = Callable[[ev.EngineEvent], None]

FINISH_WARNINGS = {
    "length": "The response was cut off: the model hit its output token limit (finish_reason 'length'). "
    "Ask it to continue, or raise max_tokens.",
    "content_filter": "The provider's content filter stopped the response (finish_reason 'content_filter'). "
    "Rephrase the request to continue.",
}
CANCELLED_RESULT = "The user cancelled this call before it finished."
MAX_PARALLEL_TOOLS = 4


class Session:
    """One workstream's conversation with a model and its tools."""

    def __init__(
        self,
        *,
        workstream_id: str,
        provider: Provider | None,
        registry: ToolRegistry,
        tool_context: ToolContext,
        emit: Emit,
        store: Any = None,
        messages: list[Message] | None = None,
        max_retries: int = 4,
        retry_base_delay: float = 1.0,
    ) -> None:
        self.workstream_id = workstream_id
        self.provider = provider
        self.registry = registry
        self.tool_context = tool_context
        self.store = store
        self.messages: list[Message] = list(messages or [])
        self.always_allowed: set[str] = set()
        self.max_retries = max_retries
        self.retry_base_delay = retry_base_delay
        self._emit = emit

    # -- helpers -------------------------------------------------------------------------
    def emit(self, event: ev.EngineEvent) -> None:
        event.workstream_id = self.workstream_id
        self._emit(event)

    async def _persist(self, message: Message) -> None:
        self.messages.append(message)
        if self.store is not None:
            await self.store.add_message(self.workstream_id, message)

    def model_messages(self) -> list[Message]:
        """What the model sees: the system prompt plus the repaired conversation."""
        system = Message(role="system", content=system_prompt(self.tool_context.workspace))
        return [system, *repair_interrupted(self.messages)]

    # -- the turn ------------------------------------------------------------------------
    async def run_turn(self, text: str) -> None:
        """Add the user's message and loop model → tools until the model stops calling tools."""
        if self.provider is None:
            self.emit(ev.Notice("No model is configured, so nothing was sent. "
                                "Start with --model NAME (and --base-url URL), or add [models.*] to the config file.",
                                level="error"))
            return
        await self._persist(Message(role="user", content=text))
        self.emit(ev.UserMessageAdded(text))
        outcome: str = "done"
        try:
            while True:
                self.emit(ev.StateChanged("thinking"))
                calls = await self._stream_response()
                if calls is None:
                    outcome = "error"
                    break
                if not calls:
                    break
                await self._run_tools(calls)
        except asyncio.CancelledError:
            self.emit(ev.Notice("Turn cancelled.", level="warning"))
            self.emit(ev.StateChanged("idle"))
            self.emit(ev.TurnFinished("cancelled"))
            raise
        self.emit(ev.StateChanged("error" if outcome == "error" else "idle"))
        self.emit(ev.TurnFinished("error" if outcome == "error" else "done"))

    async def _stream_response(self) -> list[ToolCall] | None:
        """Stream one model response; returns its tool calls, or None when the request failed."""
        assert self.provider is not None
        self.emit(ev.AssistantStarted())
        content: list[str] = []
        reasoning: list[str] = []
        assembler = ToolCallAssembler()
        finish_reason: str | None = None
        provider = self.provider
        messages = self.model_messages()
        tools = self.registry.schemas()

        def notify(line: str) -> None:
            self.emit(ev.Notice(line, level="warning"))

        async def finish(interrupted: bool) -> Message:
            message = Message(role="assistant", content="".join(content), reasoning="".join(reasoning),
                              tool_calls=[] if interrupted else assembler.calls(), interrupted=interrupted)
            self.emit(ev.AssistantFinished(message.content, message.reasoning, finish_reason, interrupted))
            if message.content or message.reasoning or message.tool_calls:
                await self._persist(message)
            return message

        try:
            stream = stream_with_retry(lambda: provider.stream(messages, tools), notify=notify,
                                       max_retries=self.max_retries, base_delay=self.retry_base_delay)
            async for chunk in stream:
                if isinstance(chunk, ContentChunk):
                    content.append(chunk.text)
                    self.emit(ev.ContentDelta(chunk.text))
                elif isinstance(chunk, ReasoningChunk):
                    reasoning.append(chunk.text)
                    self.emit(ev.ReasoningDelta(chunk.text))
                elif isinstance(chunk, ToolCallChunk):
                    assembler.add(chunk)
                elif isinstance(chunk, UsageChunk):
                    self.emit(ev.UsageUpdated(chunk.prompt_tokens, chunk.completion_tokens,
                                              chunk.total_tokens, provider.settings.context_window))
                elif isinstance(chunk, FinishChunk):
                    finish_reason = chunk.reason
        except asyncio.CancelledError:
            await asyncio.shield(finish(interrupted=True))
            raise
        except ProviderError as error:
            await finish(interrupted=True)
            self.emit(ev.Notice(f"The model request failed: {error.message}", level="error"))
            return None
        message = await finish(interrupted=False)
        if finish_reason in FINISH_WARNINGS:
            self.emit(ev.Notice(FINISH_WARNINGS[finish_reason], level="warning"))
        return message.tool_calls

    async def _run_tools(self, calls: list[ToolCall]) -> None:
        """Prepare, gate, approve and execute one response's tool calls; persist every result."""
        prepared = [prepare(call, self.registry, self.tool_context) for call in calls]
        for item in prepared:
            self.emit(ev.ToolCallAdded(item.call.id, item.call.name.strip(), item.preview, item.call.arguments))
        runnable: list[PreparedCall] = []
        asking: list[tuple[PreparedCall, str]] = []
        for item in prepared:
            if item.error:
                await self._finish_call(item, item.error, is_error=True)
                continue
            reason = approval_reason(item, self.always_allowed)
            if reason is None:
                runnable.append(item)
            else:
                asking.append((item, reason))
        if asking:
            runnable += await self._ask_approval(asking)
        runnable.sort(key=prepared.index)
        if runnable:
            await self._execute_all(runnable)

    async def _ask_approval(self, asking: list[tuple[PreparedCall, str]]) -> list[PreparedCall]:
        """Ask the frontend about every call needing approval; returns the approved ones."""
        future: asyncio.Future = asyncio.get_running_loop().create_future()
        items = [ev.ApprovalItem(p.call.id, p.call.name.strip(), p.preview, p.diff, reason) for p, reason in asking]
        self.emit(ev.StateChanged("attention"))
        self.emit(ev.ApprovalRequested(items, future))
        try:
            decisions: dict[str, ev.ApprovalDecision] = await future
        except asyncio.CancelledError:
            if not future.done():
                future.cancel()  # tells the frontend to close its approval dialog
            for item, _reason in asking:
                await asyncio.shield(self._finish_call(item, CANCELLED_RESULT, is_error=True))
            raise
        self.emit(ev.StateChanged("running"))
        approved = []
        for item, _reason in asking:
            decision = decisions.get(item.call.id) or ev.ApprovalDecision("deny")
            if decision.decision == "deny":
                text = "The user denied this tool call."
                if decision.feedback.strip():
                    text += f" Their feedback: {decision.feedback.strip()}"
                self.emit(ev.ToolCallUpdated(item.call.id, "denied", decision.feedback.strip()))
                await self._finish_call(item, text, is_error=True, status=None)
                continue
            if decision.decision == "always" and item.spec is not None:
                self.always_allowed.add(item.spec.name)
            self.emit(ev.ToolCallUpdated(item.call.id, "approved"))
            approved.append(item)
        return approved

    async def _execute_all(self, runnable: list[PreparedCall]) -> None:
        """Run approved calls in parallel (bounded); cancelled calls get a cancellation result."""
        self.emit(ev.StateChanged("running"))
        limit = asyncio.Semaphore(MAX_PARALLEL_TOOLS)
        done: set[str] = set()

        async def run_one(item: PreparedCall) -> None:
            async with limit:
                call_id = item.call.id
                ctx = dataclasses.replace(
                    self.tool_context, on_output=lambda text: self.emit(ev.ToolOutput(call_id, text)))
                self.emit(ev.ToolCallUpdated(call_id, "running"))
                output, is_error = await execute(item, ctx)
                done.add(call_id)
                await self._finish_call(item, output, is_error=is_error)

        try:
            await asyncio.gather(*(run_one(item) for item in runnable))
        except asyncio.CancelledError:
            for item in runnable:
                if item.call.id not in done:
                    await asyncio.shield(self._finish_call(item, CANCELLED_RESULT, is_error=True))
            raise

    async def _finish_call(self, item: PreparedCall, output: str, *, is_error: bool,
                           status: str | None = "auto") -> None:
        """Record one call's result: event for the card, a tool message persisted for the model."""
        if status == "auto":
            self.emit(ev.ToolCallUpdated(item.call.id, "error" if is_error else "done"))
        self.emit(ev.ToolResultReady(item.call.id, output, is_error))
        await self._persist(Message(role="tool", content=output, tool_call_id=item.call.id,
                                    name=item.call.name.strip(), is_error=is_error))
