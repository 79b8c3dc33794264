"""The hostile model server does what each keyword says, on the wire (so later tests can rely on it)."""

from __future__ import annotations

import asyncio
import json

import httpx2
import pytest

from tests.hostile.model_fixtures import hostile_model, hostile_model_session  # noqa: F401

CHAT = {"model": "m", "stream": True}


async def post(server, path: str, body: dict, headers: dict | None = None) -> httpx2.Response:
    async with httpx2.AsyncClient(timeout=10) as client:
        return await client.post(server.anthropic_url + path, json=body, headers=headers or {})


def chat(text: str) -> dict:
    return {**CHAT, "messages": [{"role": "user", "content": text}]}


async def test_errors_and_the_echo(hostile_model):
    failed = await post(hostile_model, "/v1/chat/completions", chat("500 now"))
    assert failed.status_code == 500 and failed.json()["error"]["message"] == "hostile 500"
    limited = await post(hostile_model, "/v1/messages", chat("429"))
    assert limited.status_code == 429 and limited.headers["retry-after"] == "0"
    assert limited.json()["error"]["type"] == "rate_limit_error"  # Anthropic's shape on /v1/messages
    echoed = await post(hostile_model, "/v1/chat/completions", chat("hello"))
    assert "data: [DONE]" in echoed.text and '"finish_reason":"stop"' in echoed.text
    assert hostile_model.seen == ["500", "429", ""]


@pytest.mark.parametrize("path, text_delta, end_marker", [
    ("/v1/chat/completions", '"content":"This', "[DONE]"),
    ("/v1/messages", '"text_delta","text":"This', "message_stop"),
    ("/v1/responses", "response.output_text.delta", "response.completed"),
])
async def test_cut_sends_text_but_no_end(hostile_model, path, text_delta, end_marker):
    body = chat("cut") if path != "/v1/responses" else {**CHAT, "input": "cut"}
    cut = await post(hostile_model, path, body)
    assert cut.status_code == 200 and text_delta in cut.text
    assert end_marker not in cut.text and '"finish_reason":"' not in cut.text


async def test_the_header_wins_and_garbage_and_escapes(hostile_model):
    garbage = await post(hostile_model, "/v1/chat/completions", chat("hello"), {"X-Hostile": "garbage"})
    assert garbage.text.endswith("data: {this is not json\n\n")
    escaped = await post(hostile_model, "/v1/chat/completions", chat("escape"))
    text = "".join(json.loads(line[6:])["choices"][0]["delta"].get("content") or ""
                   for line in escaped.text.splitlines() if line.startswith("data: {"))
    assert "\x1b]0;PWNED\x07" in text and "\x1b[2J" in text


async def test_hang_holds_the_request_open_until_the_client_leaves(hostile_model):
    request = asyncio.create_task(post(hostile_model, "/v1/chat/completions", chat("hang")))
    for _ in range(500):
        if hostile_model.hanging == 1:
            break
        await asyncio.sleep(0.02)
    assert hostile_model.hanging == 1 and not request.done()
    request.cancel()
    await asyncio.gather(request, return_exceptions=True)
    for _ in range(500):
        if hostile_model.hanging == 0:
            break
        await asyncio.sleep(0.02)
    assert hostile_model.hanging == 0
