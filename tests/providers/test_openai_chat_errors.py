"""Error mapping and cancellation of OpenAIChatProvider, over a real socket."""

from __future__ import annotations

import asyncio
import socket

import pytest

from app.providers.base import ContentChunk, ModelSettings, ProviderError
from app.providers.openai_chat import OpenAIChatProvider
from tests.fake_llm.openai_server import FakeOpenAIServer
from tests.fake_llm.script import ErrorReply, SlowReply, TextReply
from tests.providers.streams import collect, text_of


async def failure(provider: OpenAIChatProvider) -> ProviderError:
    with pytest.raises(ProviderError) as caught:
        await collect(provider)
    return caught.value


async def test_500_is_retryable_and_keeps_the_server_text(fake_openai, provider):
    fake_openai.queue(ErrorReply(500, "backend exploded"))
    err = await failure(provider)
    assert (err.retryable, err.status) == (True, 500)
    assert "backend exploded" in err.message


async def test_503_with_a_plain_text_body_is_retryable(fake_openai, provider):
    fake_openai.queue(ErrorReply(503, body="upstream unavailable"))
    err = await failure(provider)
    assert (err.retryable, err.status) == (True, 503)
    assert "upstream unavailable" in err.message


async def test_429_carries_retry_after(fake_openai, provider):
    fake_openai.queue(ErrorReply(429, "slow down", headers={"Retry-After": "3"}))
    err = await failure(provider)
    assert (err.retryable, err.status, err.retry_after) == (True, 429, 3.0)
    assert "rate limited" in err.message


async def test_401_names_the_api_key(fake_openai):
    fake_openai.api_key = "sk-right"
    chat = OpenAIChatProvider(ModelSettings(model="m", base_url=fake_openai.base_url,
                                            api_key="sk-wrong"))
    err = await failure(chat)
    await chat.close()
    assert (err.retryable, err.status) == (False, 401)
    assert "check the API key" in err.message
    assert "Incorrect API key provided." in err.message


async def test_404_names_the_model(fake_openai, provider):
    fake_openai.queue(ErrorReply(404, "The model `fake-model` does not exist"))
    err = await failure(provider)
    assert (err.retryable, err.status) == (False, 404)
    assert "model 'fake-model' not found (404)" in err.message
    assert "does not exist" in err.message


async def test_400_is_not_retryable(fake_openai, provider):
    fake_openai.queue(ErrorReply(400, "context length exceeded"))
    err = await failure(provider)
    assert (err.retryable, err.status) == (False, 400)
    assert "context length exceeded" in err.message


async def test_in_band_stream_error_after_partial_text(fake_openai, provider):
    fake_openai.queue(TextReply("Half an ans", fail_with="CUDA out of memory"))
    received = []
    with pytest.raises(ProviderError) as caught:
        async for chunk in provider.stream([], []):
            received.append(chunk)
    assert text_of(received) == "Half an ans"
    assert not caught.value.retryable
    assert "CUDA out of memory" in caught.value.message


async def test_connection_refused_is_retryable():
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    chat = OpenAIChatProvider(ModelSettings(model="m", base_url=f"http://127.0.0.1:{port}/v1"))
    err = await failure(chat)
    await chat.close()
    assert err.retryable and err.status is None
    assert f"127.0.0.1:{port}" in err.message


async def test_timeout_is_retryable(fake_openai):
    fake_openai.queue(SlowReply("abcdef", delay=2.0))
    chat = OpenAIChatProvider(ModelSettings(model="m", base_url=fake_openai.base_url,
                                            timeout=0.3))
    err = await failure(chat)
    await chat.close()
    assert err.retryable and "timed out" in err.message


async def test_cancel_mid_stream_stops_promptly_after_partial_output(
        fake_openai: FakeOpenAIServer, provider):
    fake_openai.queue(SlowReply("0123456789" * 10, delay=0.05, chunk_size=1))
    received: list[str] = []
    three_in = asyncio.Event()

    async def consume() -> None:
        async for chunk in provider.stream([], []):
            if isinstance(chunk, ContentChunk) and chunk.text:
                received.append(chunk.text)
                if len(received) == 3:
                    three_in.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(three_in.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 5)
    assert received[:3] == ["0", "1", "2"] and len(received) < 100
    for _ in range(200):  # the server notices the closed connection
        if fake_openai.aborted:
            break
        await asyncio.sleep(0.01)
    assert (fake_openai.aborted, fake_openai.completed) == (1, 0)
