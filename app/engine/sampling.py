"""MCP sampling on a workstream's model: one short completion a server asked for (after approval).

The call goes to the workstream's current model, with the server's token limit (never above the
model's own) and temperature, and without thinking (the answer is meant to be short). Its usage
is stored and counted in the workstream's cost like any other request, but it does not move the
context gauge: the server's messages are not part of the conversation.
"""

from __future__ import annotations

import dataclasses

from app.engine import events as ev
from app.vocabulary.messages import Message
from app.mcp.features import SamplingRequest, SamplingResponse
from app.providers.base import ContentChunk, FinishChunk, ProviderError, UsageChunk
from app.providers.registry import import_sdk_off_loop, make_provider

STOP_REASONS = {"length": "maxTokens", "stop": "endTurn", "tool_calls": "endTurn"}


class SamplingFailed(Exception):
    """The model call failed; the message says why (it goes to the server and the transcript)."""


def model_label(session) -> str:
    """`alias (model)` of the model that would answer, or '' when the workstream has none."""
    if session.provider is None:
        return ""
    settings = session.provider.settings
    return f"{settings.alias} ({settings.model})" if settings.alias and settings.alias != settings.model \
        else settings.model


def sampling_messages(request: SamplingRequest) -> list[Message]:
    messages = [Message(role="system", content=request.system_prompt)] if request.system_prompt else []
    for message in request.messages:
        role = "assistant" if message.get("role") == "assistant" else "user"
        messages.append(Message(role=role, content=message.get("text", "")))
    return messages


async def answer_sampling(session, request: SamplingRequest) -> SamplingResponse:
    """Run the completion on `session`'s model; raises SamplingFailed with the reason."""
    if session.provider is None:
        raise SamplingFailed("no model is configured for this workstream")
    base = session.provider.settings
    limit = min(request.max_tokens, base.max_tokens) if base.max_tokens else request.max_tokens
    settings = dataclasses.replace(
        base, max_tokens=max(1, limit), reasoning_effort=None, thinking_budget=None,
        temperature=request.temperature if request.temperature is not None else base.temperature)
    await import_sdk_off_loop(settings)
    provider = make_provider(settings)
    parts: list[str] = []
    finish: str | None = None
    try:
        async for chunk in provider.stream(sampling_messages(request), None):
            if isinstance(chunk, ContentChunk):
                parts.append(chunk.text)
            elif isinstance(chunk, UsageChunk):
                await _record_usage(session, settings, chunk)
            elif isinstance(chunk, FinishChunk):
                finish = chunk.reason
    except ProviderError as error:
        raise SamplingFailed(f"the model request failed: {error.message}") from None
    finally:
        await provider.close()
    return SamplingResponse("".join(parts), model=settings.model, stop_reason=STOP_REASONS.get(finish or "stop",
                                                                                                 "endTurn"))


async def _record_usage(session, settings, chunk: UsageChunk) -> None:
    """Store the request's usage and update the cost, keeping the context gauge where it was."""
    usage = session.usage
    context_tokens = usage.last_prompt_tokens
    record = usage.record(settings, chunk)
    usage.last_prompt_tokens = context_tokens
    store = session.store
    if store is not None and session.workstream_id and hasattr(store, "add_usage"):
        await store.add_usage(session.workstream_id, **record.fields())
    session.emit(ev.UsageRecorded(record.model, record.prompt_tokens, record.completion_tokens,
                                  record.cache_read_tokens, record.cache_write_tokens, record.cost,
                                  record.cost_estimated, usage.session_cost, usage.session_tokens))
