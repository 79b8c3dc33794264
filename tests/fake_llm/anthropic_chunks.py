"""Turn a scripted reply into Anthropic Messages wire data: SSE events or one JSON body.

Every SSE event carries its `event: <type>` line (the SDK silently skips events without
one). Order: message_start, ping, per block content_block_start / _delta / _stop,
message_delta (stop_reason, output usage), message_stop — see /work/shared/sdk-facts.md.
Reasoning text in a TextReply streams as a signed `thinking` block.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any, AsyncIterator, Iterator

from tests.fake_llm.openai_chunks import StreamReply, call_ids
from tests.fake_llm.script import (
    EchoReply,
    SearchedReply,
    TextReply,
    ToolSearchedReply,
    deferred_names,
    TokensReply,
    ToolCallReply,
    approx_tokens,
    last_user_text,
    split_text,
)

STOP = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens",
        "content_filter": "refusal"}


def resolve(reply: EchoReply | StreamReply, body: dict[str, Any]) -> StreamReply:
    """An echo becomes the text reply it stands for; other replies pass through."""
    return reply.as_text(last_user_text(body.get("messages", []))) if isinstance(reply, EchoReply) else reply


def stop_reason(reply: StreamReply) -> str:
    if reply.finish_reason:
        return STOP.get(reply.finish_reason, reply.finish_reason)
    return "tool_use" if isinstance(reply, ToolCallReply) and reply.calls else "end_turn"


def token_counts(reply: StreamReply, body: dict[str, Any]) -> tuple[int, int]:
    """(prompt, completion) tokens: scripted, or estimated from the texts."""
    if reply.usage is not None:
        return reply.usage
    prompt = approx_tokens(json.dumps(body.get("messages", [])) + json.dumps(body.get("system", "")))
    if isinstance(reply, TokensReply):
        return prompt, reply.count
    if isinstance(reply, ToolCallReply):
        return prompt, approx_tokens(reply.text + "".join(c[0] + c[1] for c in reply.calls))
    return prompt, approx_tokens(reply.reasoning + reply.text)


def event(kind: str, data: dict[str, Any]) -> bytes:
    """One SSE event as Anthropic frames it: an `event:` line, a `data:` line, a blank line."""
    return (f"event: {kind}\ndata: ".encode() + json.dumps({"type": kind, **data},
                                                          separators=(",", ":")).encode() + b"\n\n")


def _text_pieces(reply: StreamReply) -> list[str]:
    if isinstance(reply, TokensReply):
        return reply.pieces()
    return [p for p in split_text(reply.text, reply.chunk_size) if p] if reply.text else []


def blocks(reply: StreamReply, body: dict[str, Any] | None = None
           ) -> Iterator[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """(content_block_start block, its deltas) for each content block, in order."""
    if isinstance(reply, TextReply) and reply.reasoning:
        deltas = [{"type": "thinking_delta", "thinking": p}
                  for p in split_text(reply.reasoning, reply.chunk_size)]
        deltas.append({"type": "signature_delta", "signature": "sig-" + uuid.uuid4().hex[:16]})
        yield {"type": "thinking", "thinking": "", "signature": ""}, deltas
    if isinstance(reply, SearchedReply):
        use_id = f"srvtoolu_{uuid.uuid4().hex[:12]}"
        yield ({"type": "server_tool_use", "id": use_id, "name": "web_search", "input": {}},
               [{"type": "input_json_delta", "partial_json": json.dumps({"query": reply.query})}])
        yield ({"type": "web_search_tool_result", "tool_use_id": use_id, "content": [
            {"type": "web_search_result", "title": title, "url": url, "encrypted_content": "enc", "page_age": None}
            for title, url in reply.results]}, [])
    if isinstance(reply, ToolSearchedReply):
        use_id = f"srvtoolu_{uuid.uuid4().hex[:12]}"
        loaded = [name for name in reply.found if name in deferred_names(body or {})]
        yield ({"type": "server_tool_use", "id": use_id, "name": "tool_search_tool_bm25", "input": {}},
               [{"type": "input_json_delta", "partial_json": json.dumps({"query": reply.query})}])
        yield ({"type": "tool_search_tool_result", "tool_use_id": use_id, "content": {
            "type": "tool_search_tool_search_result",
            "tool_references": [{"type": "tool_reference", "tool_name": name} for name in loaded]}}, [])
    pieces = _text_pieces(reply)
    if pieces:
        yield {"type": "text", "text": ""}, [{"type": "text_delta", "text": p} for p in pieces]
    if isinstance(reply, ToolCallReply):
        for name, arguments, call_id in call_ids(reply):
            deltas = [{"type": "input_json_delta", "partial_json": p}
                      for p in split_text(arguments, reply.chunk_size) if p]
            yield ({"type": "tool_use", "id": call_id or f"toolu_{uuid.uuid4().hex[:12]}",
                    "name": name, "input": {}}, deltas)


def message_start(model: str, input_tokens: int, cache: tuple[int, int]) -> bytes:
    return event("message_start", {"message": {
        "id": f"msg_fake_{uuid.uuid4().hex[:12]}", "type": "message", "role": "assistant",
        "model": model, "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": 1,
                  "cache_read_input_tokens": cache[0], "cache_creation_input_tokens": cache[1]}}})


async def sse_stream(reply: StreamReply, body: dict[str, Any],
                     cache: tuple[int, int] = (0, 0)) -> AsyncIterator[bytes]:
    """The whole event stream for `reply`. `cache` = (read, write) prompt-cache tokens.

    A `fail_with` reply sends an `error` event after its first block's deltas (or right after
    `ping` when it has no content, as an overloaded API does) and ends there.
    """
    prompt, completion = token_counts(reply, body)
    yield message_start(body.get("model", "fake-claude"), max(0, prompt - sum(cache)), cache)
    yield event("ping", {})
    failure = event("error", {"error": {"type": reply.fail_type or "api_error", "message": reply.fail_with}})
    for index, (start, deltas) in enumerate(blocks(reply, body)):
        yield event("content_block_start", {"index": index, "content_block": start})
        for delta in deltas:
            yield event("content_block_delta", {"index": index, "delta": delta})
            if reply.delay:
                await asyncio.sleep(reply.delay)
        if reply.fail_with:
            yield failure
            return
        yield event("content_block_stop", {"index": index})
    if reply.fail_with:
        yield failure
        return
    usage = {"output_tokens": completion}
    yield event("message_delta", {"delta": {"stop_reason": stop_reason(reply), "stop_sequence": None},
                                  "usage": usage})
    yield event("message_stop", {})


def message_body(reply: StreamReply, body: dict[str, Any], cache: tuple[int, int] = (0, 0)) -> dict:
    """The non-streaming Message object for `reply`."""
    prompt, completion = token_counts(reply, body)
    content: list[dict[str, Any]] = []
    for start, deltas in blocks(reply, body):
        block = dict(start)
        if block["type"] == "thinking":
            block["thinking"] = "".join(d.get("thinking", "") for d in deltas)
            block["signature"] = "".join(d.get("signature", "") for d in deltas)
        elif block["type"] == "text":
            block["text"] = "".join(d["text"] for d in deltas)
        else:
            block["input"] = json.loads("".join(d["partial_json"] for d in deltas) or "{}")
        content.append(block)
    return {"id": f"msg_fake_{uuid.uuid4().hex[:12]}", "type": "message", "role": "assistant",
            "model": body.get("model", "fake-claude"), "content": content,
            "stop_reason": stop_reason(reply), "stop_sequence": None,
            "usage": {"input_tokens": max(0, prompt - sum(cache)), "output_tokens": completion,
                      "cache_read_input_tokens": cache[0], "cache_creation_input_tokens": cache[1]}}
