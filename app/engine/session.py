"""The turn loop of one workstream: stream a response, run its tool calls, repeat until done.

The session owns the conversation (a list of `Message`s), persists each message the moment it
completes, and reports everything through `emit(EngineEvent)`. It never imports Textual; the
frontend runs `run_turn` as a task and cancels that task to stop a turn.
"""

from __future__ import annotations

import asyncio
import dataclasses
from contextlib import aclosing
from typing import Any, Callable

from app.engine import events as ev
from app.engine import compaction
from app.engine import gating
from app.engine.assembler import ToolCallAssembler
from app.engine.loop_share import StreamSlice
from app.vocabulary.messages import Message, ToolCall, messages_for_model
from app.engine.prompts import system_prompt
from app.engine.reply_draft import ReplyDraft
from app.engine import unsaved
from app.engine.text_parts import TextParts
from app.storage.write_refused import WriteRefused
from app.engine.skill_settings import budget_spent
from app.engine.usage import UsageTracker
from app.providers.base import (
    ContentChunk,
    FinishChunk,
    ModelSettings,
    Provider,
    ProviderDataChunk,
    ProviderError,
    ReasoningChunk,
    ToolCallChunk,
    ToolsFoundChunk,
    UsageChunk,
)
from app.providers.capabilities import context_window as window_of
from app.providers.registry import prepare_off_loop
from app.providers.retry import stream_with_retry
from tools.context import ToolContext
from tools.errors import ToolError
from tools.guard import CallGuard
from tools.pipeline import PreparedCall, execute, prepare
from tools.registry import ToolRegistry
from app.engine.subagents import Subagents
from tools.session_bound import SESSION_BOUND
from app.engine.tool_setup import request_tools
from tools.web_search import unavailable_tools
from tools.visibility import ToolScope
from tools.truncate import HeadTailBuffer

Emit = Callable[[ev.EngineEvent], None]

FINISH_WARNINGS = {
    "length": "The response was cut off: the model hit its output token limit (finish_reason 'length'). "
    "Ask it to continue, or raise max_tokens.",
    "content_filter": "The provider's content filter stopped the response (finish_reason 'content_filter'). "
    "Rephrase the request to continue.",
}
CANCELLED_RESULT = "The user cancelled this call before it finished."


def cancelled_result(output_so_far: str) -> str:
    """The result of a cancelled call: that it was cancelled, and what it had printed by then."""
    if not output_so_far:
        return CANCELLED_RESULT
    return f"{CANCELLED_RESULT} Its output until then:\n{output_so_far.rstrip()}"


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
        models: Any = None,
        model_alias: str | None = None,
        auto_compact_pct: float = 80.0,
        context_start: int = 0,
        guard: CallGuard | None = None,
    ) -> None:
        """`models` (a providers.models.ModelRegistry) enables /model, fallback and breakers;
        `model_alias` picks the model from it when `provider` is None."""
        self.workstream_id = workstream_id
        self.models = models
        self.model_alias = model_alias or (models.default if models is not None else None)
        if provider is None and models is not None and self.model_alias:
            provider = models.provider(self.model_alias)
        self.provider = provider
        self.auto_compact_pct = auto_compact_pct
        self.usage = UsageTracker()
        self.token_budget: int | None = None  # tokens this workstream may use (a skill's; skill_settings.py)
        self.tokens_before = 0  # tokens it spent before a resume, counted against that budget
        self.registry = registry
        self.tool_context = tool_context
        self.store = store
        self.messages: list[Message] = list(messages or [])
        self.context_start = context_start  # index of the first message the model sees (after /clear)
        # Compaction: the summary stands for messages[:compacted_upto]; self.messages stays the full
        # history (what the transcript shows); _compaction_anchor = (summary, last stored message id).
        self.compaction_summary: Message | None = None
        self.compacted_upto = 0
        self._compaction_anchor: tuple[str, int] | None = None
        # the permission gate (rules, mode, risk, hooks, sandbox, audit): tools/guard.py, app/engine/gating.py
        self.guard = guard or CallGuard.permissive_default(tool_context.workspace)
        self.max_retries = max_retries
        self.retry_base_delay = retry_base_delay
        self._emit = emit
        self._slice = StreamSlice()  # this session's part of the streams' shared loop budget
        self.system_extra: Callable[[], str] | None = None  # e.g. the MCP resource/prompt catalog
        self.checkpoints: Any = None  # app.checkpoints.turns.TurnCheckpoints: a snapshot around each turn
        self.memory_context: Any = None  # app/engine/memory_context.py: instructions and memories
        # what the model sees is what may be dispatched (tools/visibility.py); tool search (deferring MCP
        # tools past [tools] tool_search_threshold) comes with the config (app/engine/tool_setup.py)
        self.tool_scope = ToolScope(hidden=unavailable_tools(tool_context))
        self.subagents = Subagents(self)
        self.native_web_search = False  # [tools] web_search_native: the provider's own search, where it has one
        self.tool_scope.extra.update({k: s for k in SESSION_BOUND if (s := self.subagents.bind(registry.get(k), k))})

    # -- helpers -------------------------------------------------------------------------
    def emit(self, event: ev.EngineEvent) -> None:
        event.workstream_id = self.workstream_id
        self._emit(event)

    async def _persist(self, message: Message, draft: ReplyDraft | None = None) -> None:
        """Keep `message` in the conversation and store it (in its draft's row when it streamed)."""
        self.messages.append(message)
        if draft is not None:
            await draft.finish(message)
        elif self.store is not None:
            await self.store.add_message(self.workstream_id, message)

    def model_messages(self) -> list[Message]:
        """What the model sees: system prompt, the compaction summary if any, then the live context."""
        extras = [self.memory_context.system_text() if self.memory_context is not None else "",
                  self.system_extra() if self.system_extra is not None else ""]
        system = Message(role="system", content="\n\n".join(
            [system_prompt(self.tool_context.workspace), *(e for e in extras if e)]))
        start = self._context_from()
        head = [self.compaction_summary] if self.compaction_summary is not None and \
            self.compacted_upto >= self.context_start else []
        return [system, *head, *map(gating.as_model_sees, messages_for_model(self.messages, start))]

    def _context_from(self) -> int:
        """Index of the first stored message the model sees: after a /clear and after a compaction."""
        compacted = self.compacted_upto if self.compaction_summary is not None else 0
        return max(self.context_start, compacted)

    def restore_compaction(self, summary: str, last_message_id: int) -> bool:
        """On resume: summarize up to the stored message `last_message_id` (False if it is gone)."""
        index = next((i for i, m in enumerate(self.messages) if m.db_id == last_message_id), None)
        if index is None:
            self.compaction_summary, self.compacted_upto, self._compaction_anchor = None, 0, None
            return False
        self.compaction_summary = compaction.summary_message(summary)
        self.compacted_upto = index + 1
        self._compaction_anchor = (summary, last_message_id)
        return True

    # -- history edits -------------------------------------------------------------------
    async def clear_context(self) -> None:
        """/clear: the model starts fresh from here on; the history stays stored and shown."""
        self.context_start = len(self.messages)
        self.tool_context.read_paths.clear()  # files must be read again before they are edited
        if self.store is not None:
            await self.store.clear_context(self.workstream_id)

    async def rewind(self, turns: int) -> int:
        """/rewind N: drop the last N user turns and everything after them; returns messages removed."""
        if self.store is None:
            return 0
        removed = await self.store.rewind(self.workstream_id, turns)
        await self.reload_conversation()
        return removed

    async def reload_conversation(self) -> None:
        """Take the conversation from the store again (after a rewind of app/checkpoints cut it)."""
        conversation = await self.store.load_conversation(self.workstream_id)
        self.messages = conversation.messages
        self.context_start = conversation.context_start
        if self._compaction_anchor is not None:  # a compaction of rewound turns no longer applies
            self.restore_compaction(*self._compaction_anchor)

    # -- the turn ------------------------------------------------------------------------
    async def run_turn(self, text: str, images: list[dict] | None = None) -> None:
        """Add the user's message and loop model → tools until the model stops calling tools.

        `images` (app/mentions/images.py) are stored with the message in `raw` and sent by the provider."""
        if self.provider is None:
            self.emit(ev.Notice("No model is configured, so nothing was sent. "
                                "Start with --model NAME (and --base-url URL), or add [models.*] to the config file.",
                                level="error"))
            return
        hook_context = await gating.screen_prompt(self, text)
        if hook_context is None:
            self.emit(ev.TurnFinished("done"))
            return
        try:
            await self._persist(Message(role="user", content=text, raw=gating.user_raw(images, hook_context)))
        except WriteRefused as error:
            return self._refused(error)
        except Exception as error:  # the disk refused the write, or the store is unreachable: said, not a bug
            return unsaved.stop_turn(self, error, unsent=text)
        self.emit(ev.UserMessageAdded(text, images))
        outcome: str = "done"
        self.usage.turn += 1
        turn_start = len(self.messages) - 1
        await self._checkpoint_begin()
        try:
            if self.memory_context is not None:
                await self.memory_context.start_turn(self)
            while True:
                await self._maybe_compact()
                if self.memory_context is not None:
                    await self.memory_context.before_request(self)
                if (spent := budget_spent(self)) is not None:
                    self.emit(ev.Notice(spent, level="warning"))
                    break
                self.emit(ev.StateChanged("thinking"))
                calls = await self._stream_response()
                if calls is None:
                    outcome = "error"
                    break
                if not calls:
                    break
                await self._run_tools(calls)
        except asyncio.CancelledError:
            await asyncio.shield(self._checkpoint_end(turn_start))
            self.emit(ev.Notice("Turn cancelled.", level="warning"))
            self.emit(ev.StateChanged("idle"))
            self.emit(ev.TurnFinished("cancelled"))
            raise
        except WriteRefused as error:
            return self._refused(error)
        except Exception as error:
            return unsaved.stop_turn(self, error)
        await self._checkpoint_end(turn_start)
        await gating.turn_stopped(self, outcome)
        self.emit(ev.StateChanged("error" if outcome == "error" else "idle"))
        self.emit(ev.TurnFinished("error" if outcome == "error" else "done"))

    def _refused(self, error: WriteRefused | str) -> None:
        """Another window took this workstream over (or the disk refused a write): the turn stops here."""
        self.emit(ev.Notice(error if isinstance(error, str) else f"Stopped: {error}.", level="error"))
        self.emit(ev.StateChanged("idle"))
        self.emit(ev.TurnFinished("error"))

    async def _checkpoint_begin(self) -> None:
        """Snapshot the workspace before the turn changes it (app/checkpoints/turns.py)."""
        if self.checkpoints is not None:
            warning = await self.checkpoints.begin(self.messages[-1])
            if warning:
                self.emit(ev.Notice(warning, level="warning"))

    async def _checkpoint_end(self, turn_start: int) -> None:
        """Record what the turn changed, by file tools and shell commands alike."""
        if self.checkpoints is not None:
            _row, warning = await self.checkpoints.end(self.messages[turn_start:])
            if warning:
                self.emit(ev.Notice(warning, level="warning"))

    async def _stream_response(self) -> list[ToolCall] | None:
        """Stream one model response; returns its tool calls, or None when the request failed.

        A request that fails before its first chunk, after its retries, moves on to the next
        model of the fallback chain (announced in the transcript); open breakers are skipped.
        """
        assert self.provider is not None
        content, reasoning = TextParts(), TextParts()  # not a list of tokens: see text_parts.py
        self.emit(ev.AssistantStarted(reply_text=content.text))
        raw: dict[str, Any] = {}
        assembler = ToolCallAssembler()
        finish_reason: str | None = None
        messages = self.model_messages()
        draft = ReplyDraft(self.store, self.workstream_id, content, reasoning) \
            if ReplyDraft.supported(self.store) else None

        async def finish(interrupted: bool) -> Message:
            message = Message(role="assistant", content=content.text(), reasoning=reasoning.text(),
                              tool_calls=[] if interrupted else assembler.calls(), interrupted=interrupted,
                              raw=raw or None)
            self.emit(ev.AssistantFinished(message.content, message.reasoning, finish_reason, interrupted))
            if message.content or message.reasoning or message.tool_calls:
                await unsaved.persist_reply(self, message, draft)  # a refused write: said, never "saved"
            elif draft is not None:
                await draft.discard()
            return message

        if draft is not None:
            draft.on_failed = lambda error: unsaved.draft_failed(self, draft, error)
            draft.start()
        try:
            async with aclosing(self._chunks_with_fallback(messages, lambda p: request_tools(self, p))) as chunks:
                async for provider, chunk in chunks:
                    await self._share_the_loop()
                    if isinstance(chunk, ContentChunk):
                        content.append(chunk.text)
                        self.emit(ev.ContentDelta(chunk.text))
                    elif isinstance(chunk, ReasoningChunk):
                        reasoning.append(chunk.text)
                        self.emit(ev.ReasoningDelta(chunk.text))
                    elif isinstance(chunk, ToolCallChunk):
                        assembler.add(chunk)
                    elif isinstance(chunk, UsageChunk):
                        await self._record_usage(provider.settings, chunk)
                    elif isinstance(chunk, ProviderDataChunk):
                        raw[chunk.provider] = chunk.data
                    elif isinstance(chunk, ToolsFoundChunk) and self.tool_scope.search is not None:
                        if loaded := self.tool_scope.search.found_natively(chunk.names):  # before its calls run
                            self.emit(ev.Notice(f"The model's tool search loaded {', '.join(loaded)}."))
                    elif isinstance(chunk, FinishChunk):
                        finish_reason = chunk.reason
        except asyncio.CancelledError:
            await asyncio.shield(finish(interrupted=True))
            raise
        except ProviderError as error:
            partial = await finish(interrupted=True)
            kept = (" The partial reply is kept, marked as interrupted."
                    if partial.content or partial.reasoning else "")
            self.emit(ev.Notice(f"The model request failed: {error.message.rstrip('.')}.{kept}", level="error"))
            return None
        except BaseException:
            if draft is not None:  # an unexpected error: what was saved stays, marked interrupted
                await asyncio.shield(draft.discard())
            raise
        message = await finish(interrupted=False)
        if finish_reason in FINISH_WARNINGS:
            self.emit(ev.Notice(FINISH_WARNINGS[finish_reason], level="warning"))
        return message.tool_calls

    # -- models: fallback, breakers, usage, switching -------------------------------------
    def _candidates(self, first: str | None = None) -> list[tuple[str | None, Provider]]:
        """The current model (or `first`), then the fallback chain (when a model registry is known)."""
        alias = first or self.model_alias
        if self.models is None or alias is None or alias not in self.models:
            return [(None, self.provider)]
        chain = self.models.chain(alias)
        provider = self.provider if alias == self.model_alias else self.models.provider(alias)
        return [(alias, provider)] + [(a, self.models.provider(a)) for a in chain[1:]]

    def _breaker_event(self, alias: str, before: str) -> None:
        breaker = self.models.breaker(alias)
        if breaker.state != before:
            self.emit(ev.BreakerChanged(breaker.name, breaker.state, breaker.retry_in()))

    async def _chunks_with_fallback(self, messages: list[Message],
                                    tools: list[dict[str, Any]] | Callable[[Provider], list[dict[str, Any]]],
                                    first: str | None = None):
        """Yield (provider, chunk) from the first model in the chain (from `first`, else the current
        model) that answers; `tools` is the tool list, or a function giving each candidate's
        (app/engine/tool_setup.request_tools)."""
        candidates = self._candidates(first)
        skipped: list[str] = []

        def notify(line: str) -> None:
            self.emit(ev.Notice(line, level="warning"))

        for position, (alias, provider) in enumerate(candidates):
            last = position == len(candidates) - 1
            breaker = self.models.breaker(alias) if alias is not None else None
            before = breaker.state if breaker else "closed"
            if breaker is not None and not breaker.allow():
                skipped.append(alias)
                if last:
                    raise ProviderError(
                        f"{', '.join(skipped)}: the endpoint failed repeatedly, so requests are "
                        f"paused (circuit open; next try in {breaker.retry_in():.0f} s)", retryable=False)
                self.emit(ev.Notice(f"Skipping {alias}: its endpoint is failing (circuit open); "
                                    f"using {candidates[position + 1][0]}.", level="warning"))
                continue
            started = False
            await prepare_off_loop(provider)
            offered = tools(provider) if callable(tools) else tools
            stream = stream_with_retry(lambda p=provider: p.stream(messages, offered), notify=notify,
                                       max_retries=self.max_retries, base_delay=self.retry_base_delay)
            try:
                async for chunk in stream:
                    started = True
                    yield provider, chunk
            except ProviderError as error:
                if breaker is not None and error.retryable:
                    breaker.record_failure()
                    self._breaker_event(alias, before)
                if started or not error.retryable or last:
                    raise
                target = candidates[position + 1][0]
                self.emit(ev.Notice(f"{alias} is unreachable ({error.message}); falling back to "
                                    f"{target}.", level="warning"))
                self.emit(ev.FallbackUsed(alias, target, error.message))
                continue
            finally:
                if breaker is not None:  # cancelled or not counted: a half-open trial must not stay out
                    breaker.release_trial()
            if breaker is not None:
                breaker.record_success()
                self._breaker_event(alias, before)
            return

    async def ask_model(self, prompt: str) -> str:
        """One prompt without tools (web_fetch's question) to [model] agent_model when one is set, else
        to this workstream's model; usage is recorded."""
        parts: list[str] = []
        agent = self.models.agent_model if self.models is not None else None
        try:
            async for provider, chunk in self._chunks_with_fallback([Message(role="user", content=prompt)], [],
                                                                    first=agent):
                if isinstance(chunk, ContentChunk):
                    parts.append(chunk.text)
                elif isinstance(chunk, UsageChunk):
                    await self._record_usage(provider.settings, chunk)
        except ProviderError as error:
            raise ToolError(f"the model could not read the page: {error.message}") from None
        return "".join(parts)

    def context_window(self) -> int | None:
        """The current model's context window (configured, else known for the model)."""
        if self.provider is None:
            return None
        return window_of(self.provider.settings)

    async def _record_usage(self, settings: ModelSettings, chunk: UsageChunk) -> None:
        """Emit the gauge update, store a usage row, emit the running cost."""
        self.emit(ev.UsageUpdated(chunk.prompt_tokens, chunk.completion_tokens, chunk.total_tokens,
                                  settings.context_window or window_of(settings),
                                  chunk.cache_read_tokens, chunk.cache_write_tokens))
        record = self.usage.record(settings, chunk)
        if self.store is not None and self.workstream_id and hasattr(self.store, "add_usage"):
            await self.store.add_usage(self.workstream_id, **record.fields())
        self.emit(ev.UsageRecorded(record.model, record.prompt_tokens, record.completion_tokens,
                                   record.cache_read_tokens, record.cache_write_tokens, record.cost,
                                   record.cost_estimated, self.usage.session_cost,
                                   self.usage.session_tokens))

    async def set_model(self, alias: str) -> ModelSettings:
        """Switch this workstream to `alias` (`/model <alias>`); persisted for resume.

        Raises KeyError (with the known aliases) for an unknown alias.
        """
        if self.models is None:
            raise KeyError("no model registry: models come from [models.*] in the config")
        settings = self.models.settings(alias)
        self.provider = self.models.provider(alias)
        self.model_alias = alias
        if self.store is not None and self.workstream_id:
            await self.store.set_config(self.workstream_id, "model_alias", alias)
            await self.store.update_workstream(self.workstream_id, model=settings.model)
        self.emit(ev.ModelChanged(alias, settings.model, settings.provider, window_of(settings)))
        return settings

    # -- compaction ----------------------------------------------------------------------
    async def _maybe_compact(self) -> None:
        window = self.context_window()
        if compaction.should_compact(self.usage.last_prompt_tokens, window, self.auto_compact_pct):
            await self.compact(auto=True)

    async def compact(self, focus: str | None = None, *, auto: bool = False) -> str | None:
        """Summarize older context into one message (`/compact [focus]`); returns the summary.

        History stays in storage (a `compactions` row marks the point); files must be read
        again before they are edited. Returns None when there was nothing to compact or
        the summary request failed (a Notice says which).
        """
        if self.provider is None:
            self.emit(ev.Notice("No model is configured, so there is nothing to compact.", level="error"))
            return None
        start = self._context_from()
        context = self.messages[start:]
        split = compaction.split_index(context)
        if split <= 0:
            self.emit(ev.Notice("Nothing to compact yet.", level="info"))
            return None
        old = context[:split]
        if self.compaction_summary is not None and self.compacted_upto >= self.context_start:
            old = [self.compaction_summary, *old]  # the previous summary is folded into the new one
        tokens_before = self.usage.last_prompt_tokens
        self.emit(ev.CompactionStarted(auto, focus or ""))
        request = compaction.summary_request(old, focus)
        parts: list[str] = []
        try:
            async for provider, chunk in self._chunks_with_fallback(request, []):
                if isinstance(chunk, ContentChunk):
                    parts.append(chunk.text)
                elif isinstance(chunk, UsageChunk):
                    await self._record_usage(provider.settings, chunk)
        except ProviderError as error:
            self.emit(ev.Notice(f"Compaction failed: {error.message}", level="error"))
            return None
        summary = "".join(parts).strip()
        if not summary:
            self.emit(ev.Notice("Compaction failed: the model returned an empty summary.", level="error"))
            return None
        ids = [m.db_id for m in old if m.db_id is not None]
        if self.store is not None and self.workstream_id and ids and hasattr(self.store, "add_compaction"):
            await self.store.add_compaction(self.workstream_id, summary=summary, focus=focus,
                                            last_message_id=max(ids), tokens_before=tokens_before)
        self.compaction_summary = compaction.summary_message(summary)
        self.compacted_upto = start + split
        self._compaction_anchor = (summary, max(ids)) if ids else None
        self.tool_context.read_paths.clear()
        self.usage.last_prompt_tokens = 0
        self.emit(ev.CompactionDone(summary, len(old), tokens_before, auto, focus or ""))
        if self.memory_context is not None:  # instructions and memories again, after the summary
            await self.memory_context.after_compaction(self)
        return summary

    async def _share_the_loop(self) -> None:
        """Yield to the event loop once the streams have used this loop iteration's budget.

        A fast stream arrives in large buffered reads, and the SDK hands those chunks over without
        ever yielding; the UI (keys, repaints) and other workstreams would wait until the read is
        used up. All streams share one budget per iteration (app/engine/loop_share.py), so with
        several of them a key still moves on every iteration; when the UI is idle, iterations are
        short and the streams get nearly all of the loop.
        """
        await self._slice.maybe_yield()

    async def _run_tools(self, calls: list[ToolCall]) -> None:
        """Prepare, gate, approve and execute one response's tool calls; persist every result."""
        prepared = [prepare(call, self.registry, self.tool_context, self.tool_scope) for call in calls]
        for item in prepared:
            self.emit(ev.ToolCallAdded(item.call.id, item.call.name.strip(), item.preview, item.call.arguments))
        runnable, asking = await gating.screen_calls(self, prepared)
        if asking:
            runnable += await self._ask_approval(asking)
        runnable.sort(key=prepared.index)
        if runnable:
            await self._execute_all(runnable)

    async def _ask_approval(self, asking: list[PreparedCall]) -> list[PreparedCall]:
        """Ask the frontend about every call needing approval; returns the approved ones."""
        async def record_cancelled() -> None:
            for item in asking:
                await self._finish_call(item, CANCELLED_RESULT, is_error=True, decision="denied",
                                        decided_by="user: cancelled")

        items = [gating.approval_item(self, p) for p in asking]
        decisions = await gating.ask_user(self, items, notify=True, on_cancel=record_cancelled)
        return [item for item in asking if await gating.apply_decision(self, item, decisions)]

    async def _execute_all(self, runnable: list[PreparedCall]) -> None:
        """Run approved calls in parallel (bounded); cancelled calls get a cancellation result."""
        self.emit(ev.StateChanged("running"))
        limit = asyncio.Semaphore(MAX_PARALLEL_TOOLS)
        done: set[str] = set()

        streamed: dict[str, HeadTailBuffer] = {}  # what each call printed so far, kept if it is cancelled

        def on_output(call_id: str, text: str) -> None:
            streamed[call_id].append(text)
            self.emit(ev.ToolOutput(call_id, text))

        async def run_one(item: PreparedCall) -> None:
            async with limit:
                call_id = item.call.id
                streamed[call_id] = HeadTailBuffer(self.tool_context.output_limit)
                ctx = dataclasses.replace(
                    self.tool_context, on_output=lambda text: on_output(call_id, text),
                    wrap_command=gating.wrapper(self, item), unreadable=self.guard.unreadable,
                    ask_model=self.tool_context.ask_model or self.ask_model, call_id=call_id,
                    notify=lambda message: gating.user_notified(self, message),
                    on_progress=lambda value, total, message: self.emit(
                        ev.ToolProgress(call_id, value, total, message)),
                    workstream_id=self.workstream_id)
                self.emit(ev.ToolCallUpdated(call_id, "running"))
                output, is_error = await gating.execute_guarded(self, item, ctx, execute)
                done.add(call_id)
                await self._finish_call(item, output, is_error=is_error)

        try:
            await asyncio.gather(*(run_one(item) for item in runnable))
        except asyncio.CancelledError:
            for item in runnable:
                if item.call.id not in done:
                    so_far = streamed[item.call.id].text() if item.call.id in streamed else ""
                    await asyncio.shield(self._finish_call(item, cancelled_result(so_far), is_error=True))
            raise

    async def _finish_call(self, item: PreparedCall, output: str, *, is_error: bool,
                           status: str | None = "auto", decision: str | None = None,
                           decided_by: str | None = None) -> None:
        """Record one call's result: event for the card, a tool message persisted for the model, the
        audit row."""
        await gating.audit(self, item, is_error=is_error, cancelled=output.startswith(CANCELLED_RESULT),
                           decision=decision, decided_by=decided_by)
        if status == "auto":
            self.emit(ev.ToolCallUpdated(item.call.id, "error" if is_error else "done"))
        self.emit(ev.ToolResultReady(item.call.id, output, is_error))
        await self._persist(Message(role="tool", content=output, tool_call_id=item.call.id,
                                    name=item.call.name.strip(), is_error=is_error))
