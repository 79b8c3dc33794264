"""The provider contract: one suite, run unchanged against every provider and its fake server.

Each backend streams text, a tool call split across many chunks, usage, survives retryable
errors through `stream_with_retry`, reports non-retryable ones in words, and stops the HTTP
stream when the consumer is cancelled.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, AsyncIterator

import pytest

from app.vocabulary.messages import Message, ToolCall
from app.providers.base import FinishChunk, ModelSettings, ProviderError, UsageChunk
from app.providers.registry import make_provider
from app.providers.retry import stream_with_retry
from tests.fake_llm.script import ErrorReply, SlowReply, TextReply, ToolCallReply
from tests.providers.streams import collect, text_of, tool_calls_of

READ_TOOL = [{"type": "function", "function": {
    "name": "read_file", "description": "Read a file",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}]


@dataclass
class Backend:
    kind: str
    server: Any
    provider: Any


@pytest.fixture(params=["openai", "openai-responses", "anthropic", "google"])
async def backend(request, fake_openai, fake_anthropic) -> AsyncIterator[Backend]:
    kind = request.param
    server = fake_anthropic if kind == "anthropic" else fake_openai
    model = {"openai": "fake-model", "openai-responses": "fake-model", "anthropic": "fake-claude",
             "google": "gemini-fake"}[kind]
    provider = make_provider(ModelSettings(model=model, base_url=server.base_url, api_key="k",
                                           provider=kind, timeout=10.0))
    yield Backend(kind, server, provider)
    await provider.close()


async def no_sleep(_seconds: float) -> None:
    return None


async def test_streams_text(backend: Backend) -> None:
    backend.server.queue(TextReply("Hello, contract world!", chunk_size=3))
    chunks = await collect(backend.provider)
    assert text_of(chunks) == "Hello, contract world!"
    assert [c.reason for c in chunks if isinstance(c, FinishChunk)] == ["stop"]


async def test_tool_call_split_across_chunks(backend: Backend) -> None:
    args = '{"path": "src/app/main.py", "limit": 200}'
    backend.server.queue(ToolCallReply(calls=[("read_file", args, "call_abc123")], chunk_size=3))
    chunks = await collect(backend.provider, tools=READ_TOOL)
    calls = tool_calls_of(chunks)
    assert calls == {0: {"id": "call_abc123", "name": "read_file", "arguments": args}}
    assert sum(1 for c in chunks if getattr(c, "arguments", "")) >= 5  # really fragmented
    assert [c.reason for c in chunks if isinstance(c, FinishChunk)] == ["tool_calls"]


async def test_two_tool_calls_keep_their_order(backend: Backend) -> None:
    backend.server.queue(ToolCallReply(calls=[("read_file", '{"path": "a"}', "c1"),
                                              ("read_file", '{"path": "b"}', "c2")], text="Reading."))
    chunks = await collect(backend.provider, tools=READ_TOOL)
    calls = tool_calls_of(chunks)
    assert [calls[i]["id"] for i in sorted(calls)] == ["c1", "c2"]
    assert text_of(chunks) == "Reading."


async def test_reports_usage(backend: Backend) -> None:
    backend.server.queue(TextReply("counted", usage=(1234, 56)))
    chunks = await collect(backend.provider)
    usage = [c for c in chunks if isinstance(c, UsageChunk)]
    assert len(usage) == 1
    assert (usage[0].prompt_tokens, usage[0].completion_tokens) == (1234, 56)
    assert usage[0].total_tokens == 1290


async def test_replays_a_tool_round_trip(backend: Backend) -> None:
    """The translated history (assistant call + tool result) is accepted and answered."""
    backend.server.queue(TextReply("The file says hi."))
    history = [Message(role="system", content="be brief"), Message(role="user", content="read a"),
               Message(role="assistant", tool_calls=[ToolCall("c1", "read_file", '{"path": "a"}')]),
               Message(role="tool", content="hi", tool_call_id="c1", name="read_file"),
               Message(role="user", content="what does it say?")]
    chunks = await collect(backend.provider, history, READ_TOOL)
    assert text_of(chunks) == "The file says hi."


async def test_retryable_errors_are_retried(backend: Backend) -> None:
    backend.server.queue(ErrorReply(500, "boom"), ErrorReply(429, "slow down", headers={"retry-after": "0"}),
                         TextReply("third time lucky"))
    notes: list[str] = []
    stream = stream_with_retry(lambda: backend.provider.stream([Message(role="user", content="x")], []),
                               notify=notes.append, base_delay=0.0, sleep=no_sleep)
    chunks = [c async for c in stream]
    assert text_of(chunks) == "third time lucky"
    assert len(notes) == 2 and "Server error 500" in notes[0] and "429" in notes[1]
    assert len(backend.server.requests) == 3


async def test_non_retryable_error_is_reported_in_words(backend: Backend) -> None:
    backend.server.queue(ErrorReply(401, "bad key"))
    with pytest.raises(ProviderError) as info:
        await collect(backend.provider)
    assert not info.value.retryable and info.value.status == 401
    assert "authentication failed (401)" in info.value.message


async def test_server_down_is_a_retryable_connection_error(backend: Backend) -> None:
    dead = make_provider(ModelSettings(model="m", base_url="http://127.0.0.1:9" + (
        "" if backend.kind == "anthropic" else "/v1"), api_key="k", provider=backend.kind, timeout=3))
    try:
        with pytest.raises(ProviderError) as info:
            await collect(dead)
    finally:
        await dead.close()
    assert info.value.retryable and "connection" in info.value.message


async def test_cancel_stops_the_http_stream(backend: Backend) -> None:
    backend.server.queue(SlowReply("x" * 1200, delay=0.05))  # a minute of stream: a loaded machine still cancels it midway
    first = asyncio.Event()
    seen: list[Any] = []

    async def consume() -> None:
        async for chunk in backend.provider.stream([Message(role="user", content="go")], []):
            seen.append(chunk)
            first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first.wait(), 30)  # the SDK's import and client build come first
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(1000):  # up to 20 s for the server to see the hang-up, well before the reply would end
        if backend.server.aborted:
            break
        await asyncio.sleep(0.02)
    assert backend.server.aborted == 1 and backend.server.completed == 0
    assert len(seen) < 50
