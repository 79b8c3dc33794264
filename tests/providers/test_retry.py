"""stream_with_retry around the real provider and the fake server."""

from __future__ import annotations

import asyncio

import pytest

from app.vocabulary.messages import Message
from app.providers.base import ContentChunk, ProviderError
from app.providers.retry import backoff_delay, stream_with_retry
from tests.fake_llm.script import ErrorReply, TextReply
from tests.providers.streams import text_of

HELLO = [Message(role="user", content="hello")]


class Waits:
    """Records requested waits and sleeps a token amount, so tests stay fast."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)
        await asyncio.sleep(0)


async def run(provider, notes: list[str], waits: Waits | None = None, **options):
    stream = stream_with_retry(lambda: provider.stream(HELLO, []), notify=notes.append,
                               sleep=waits or Waits(), **options)
    return [chunk async for chunk in stream]


async def test_429_waits_retry_after_then_succeeds(fake_openai, provider):
    fake_openai.queue(ErrorReply(429, headers={"Retry-After": "2"}), TextReply("done"))
    notes: list[str] = []
    waits = Waits()
    chunks = await run(provider, notes, waits, base_delay=0.01)
    assert text_of(chunks) == "done"
    assert waits.delays == [2.0]
    assert notes == ["Rate limited (429) — retrying in 2.0 s (attempt 2 of 5)"]
    assert len(fake_openai.requests) == 2


async def test_retry_after_is_capped_at_max_delay(fake_openai, provider):
    fake_openai.queue(ErrorReply(429, headers={"Retry-After": "120"}), TextReply("ok"))
    waits = Waits()
    await run(provider, [], waits, max_delay=5.0)
    assert waits.delays == [5.0]


async def test_two_500s_then_success_with_real_sleeps(fake_openai, provider):
    fake_openai.queue(ErrorReply(500), ErrorReply(500), TextReply("third time lucky"))
    notes: list[str] = []
    stream = stream_with_retry(lambda: provider.stream(HELLO, []), notify=notes.append,
                               base_delay=0.01, max_delay=0.05)
    chunks = [chunk async for chunk in stream]
    assert text_of(chunks) == "third time lucky"
    assert [n.split(" — ")[0] for n in notes] == ["Server error 500", "Server error 500"]
    assert notes[1].endswith("(attempt 3 of 5)")


async def test_401_is_not_retried(fake_openai, provider):
    fake_openai.queue(ErrorReply(401, "bad key"), TextReply("never sent"))
    notes: list[str] = []
    with pytest.raises(ProviderError) as caught:
        await run(provider, notes)
    assert caught.value.status == 401
    assert notes == [] and len(fake_openai.requests) == 1


async def test_gives_up_after_the_last_attempt_with_the_last_error(fake_openai, provider):
    fake_openai.queue(*[ErrorReply(502, f"try {i}") for i in range(3)])
    notes: list[str] = []
    with pytest.raises(ProviderError) as caught:
        await run(provider, notes, max_retries=2)
    assert "try 2" in caught.value.message
    assert len(notes) == 2 and len(fake_openai.requests) == 3


async def test_error_after_chunks_flowed_is_not_retried():
    calls = 0

    async def flaky():
        nonlocal calls
        calls += 1
        yield ContentChunk("partial")
        raise ProviderError("connection reset", retryable=True)

    received = []
    with pytest.raises(ProviderError):
        async for chunk in stream_with_retry(flaky, notify=lambda _: None, sleep=Waits()):
            received.append(chunk)
    assert received == [ContentChunk("partial")] and calls == 1


def test_backoff_doubles_with_bounded_jitter_and_cap():
    err = ProviderError("server error 500", retryable=True, status=500)
    for retry, base in [(1, 1.0), (2, 2.0), (3, 4.0)]:
        low = backoff_delay(retry, err, base_delay=1.0, max_delay=30.0, rand=lambda: 0.0)
        high = backoff_delay(retry, err, base_delay=1.0, max_delay=30.0, rand=lambda: 1.0)
        assert (low, high) == (0.75 * base, 1.25 * base)
    assert backoff_delay(9, err, base_delay=1.0, max_delay=30.0, rand=lambda: 1.0) == 30.0
