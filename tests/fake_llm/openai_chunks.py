"""Turn a scripted reply into OpenAI chat-completions wire data: SSE chunks or one JSON body.

The shapes follow what api.openai.com sends (see /work/shared/sdk-facts.md), so the real
SDK parses them exactly as it would in production.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from typing import Any, AsyncIterator, Iterator

from tests.fake_llm.script import (
    EchoReply,
    TextReply,
    TokensReply,
    ToolCallReply,
    approx_tokens,
    last_user_text,
    split_text,
)

StreamReply = TextReply | ToolCallReply | TokensReply
DONE = b"data: [DONE]\n\n"


def resolve(reply: EchoReply | StreamReply, body: dict[str, Any]) -> StreamReply:
    """An echo becomes the text reply it stands for; other replies pass through."""
    return reply.as_text(last_user_text(body.get("messages", []))) if isinstance(reply, EchoReply) else reply


def call_ids(reply: ToolCallReply) -> list[tuple[str, str, str]]:
    """(name, arguments, id) for each call; a call given without an id gets "call_<n>"."""
    return [(c[0], c[1], c[2] if len(c) > 2 else f"call_{i}") for i, c in enumerate(reply.calls)]


def finish_reason(reply: StreamReply) -> str:
    if reply.finish_reason:
        return reply.finish_reason
    return "tool_calls" if isinstance(reply, ToolCallReply) and reply.calls else "stop"


def usage(reply: StreamReply, body: dict[str, Any]) -> dict[str, int]:
    """The usage object: the scripted numbers, or estimates from the texts."""
    if reply.usage is not None:
        prompt, completion = reply.usage
    else:
        prompt = approx_tokens(json.dumps(body.get("messages", [])))
        if isinstance(reply, TokensReply):
            completion = reply.count
        elif isinstance(reply, ToolCallReply):
            completion = approx_tokens(reply.text + "".join(c[0] + c[1] for c in reply.calls))
        else:
            completion = approx_tokens(reply.reasoning + reply.text)
    return {"prompt_tokens": prompt, "completion_tokens": completion,
            "total_tokens": prompt + completion}


def deltas(reply: StreamReply) -> Iterator[dict[str, Any]]:
    """The `delta` objects of a streamed reply, in order, before the finishing chunk."""
    yield {"role": "assistant", "content": ""}
    if isinstance(reply, TokensReply):
        for piece in reply.pieces():
            yield {"content": piece}
        return
    if isinstance(reply, TextReply) and reply.reasoning:
        for piece in split_text(reply.reasoning, reply.chunk_size):
            yield {reply.reasoning_field: piece}
    if reply.text:
        for piece in split_text(reply.text, reply.chunk_size):
            yield {"content": piece}
    if isinstance(reply, ToolCallReply):
        yield from _tool_call_deltas(reply)


def _tool_call_deltas(reply: ToolCallReply) -> Iterator[dict[str, Any]]:
    """Per call: a header delta (id, name, empty arguments), then argument fragments."""
    for index, (name, arguments, call_id) in enumerate(call_ids(reply)):
        head = {"index": index, "id": call_id, "type": "function",
                "function": {"name": name, "arguments": ""}}
        parts = [head] + [{"index": index, "function": {"arguments": piece}}
                          for piece in split_text(arguments, reply.chunk_size) if piece]
        for part in parts:
            if reply.omit_index:
                part.pop("index")
            yield {"tool_calls": [part]}


class ChunkWriter:
    """Wraps deltas in chunk envelopes sharing one completion id, as the real API does."""

    def __init__(self, model: str) -> None:
        self.id = f"chatcmpl-fake-{uuid.uuid4().hex[:12]}"
        self.created = int(time.time())
        self.model = model

    def envelope(self, obj: str, **fields: Any) -> dict[str, Any]:
        return {"id": self.id, "object": obj, "created": self.created, "model": self.model,
                "system_fingerprint": None, **fields}

    def chunk(self, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return self.envelope("chat.completion.chunk", choices=[choice])

    def usage_chunk(self, usage_obj: dict[str, int]) -> dict[str, Any]:
        return self.envelope("chat.completion.chunk", choices=[], usage=usage_obj)


def sse(data: dict[str, Any]) -> bytes:
    """One SSE event as the OpenAI API frames it: no event name, a blank line after."""
    return b"data: " + json.dumps(data, separators=(",", ":")).encode() + b"\n\n"


async def sse_stream(reply: StreamReply, body: dict[str, Any]) -> AsyncIterator[bytes]:
    """The whole SSE body for `reply`: deltas, the finishing chunk, usage if asked, [DONE]."""
    writer = ChunkWriter(body.get("model", "fake-model"))
    for delta in deltas(reply):
        yield sse(writer.chunk(delta))
        if reply.delay:
            await asyncio.sleep(reply.delay)
    if reply.fail_with:
        yield sse({"error": {"message": reply.fail_with, "type": reply.fail_type or "server_error", "code": 500}})
        return
    yield sse(writer.chunk({}, finish_reason(reply)))
    include_usage = (body.get("stream_options") or {}).get("include_usage")
    if include_usage and not reply.omit_usage:
        yield sse(writer.usage_chunk(usage(reply, body)))
    yield DONE


def completion_body(reply: StreamReply, body: dict[str, Any]) -> dict[str, Any]:
    """The non-streaming `chat.completion` object for `reply`."""
    message: dict[str, Any] = {"role": "assistant", "content": None}
    if isinstance(reply, TokensReply):
        message["content"] = "".join(reply.pieces())
    else:
        message["content"] = reply.text or None
    if isinstance(reply, TextReply) and reply.reasoning:
        message[reply.reasoning_field] = reply.reasoning
    if isinstance(reply, ToolCallReply) and reply.calls:
        message["tool_calls"] = [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}
            for name, args, call_id in call_ids(reply)
        ]
    choice = {"index": 0, "message": message, "logprobs": None,
              "finish_reason": finish_reason(reply)}
    writer = ChunkWriter(body.get("model", "fake-model"))
    extra = {} if reply.omit_usage else {"usage": usage(reply, body)}
    return writer.envelope("chat.completion", choices=[choice], **extra)
