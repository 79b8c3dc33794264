"""Turn a scripted reply into OpenAI Responses API wire data: SSE events or one Response object.

Events carry an `event: <type>` line and the same type in their data, with sequence numbers,
as api.openai.com sends them: response.created / in_progress, then per output item
output_item.added, its deltas (reasoning summary, output text, function-call arguments) and
output_item.done, then response.completed (or .incomplete / .failed) with usage.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from typing import Any, AsyncIterator, Iterator

from tests.fake_llm.openai_chunks import StreamReply, call_ids
from tests.fake_llm.script import (
    EchoReply,
    SearchedReply,
    ToolSearchedReply,
    deferred_names,
    TextReply,
    TokensReply,
    ToolCallReply,
    approx_tokens,
    last_user_text,
    split_text,
)

INCOMPLETE = {"length": "max_output_tokens", "content_filter": "content_filter"}


def last_input_text(body: dict[str, Any]) -> str:
    """The text of the last user input item (`input` may also be a plain string)."""
    items = body.get("input")
    return items if isinstance(items, str) else last_user_text(items or [])


def resolve(reply: EchoReply | StreamReply, body: dict[str, Any]) -> StreamReply:
    """An echo becomes the text reply it stands for; other replies pass through."""
    return reply.as_text(last_input_text(body)) if isinstance(reply, EchoReply) else reply


def usage(reply: StreamReply, body: dict[str, Any], cache: tuple[int, int]) -> dict[str, Any]:
    """The Responses usage object; `cache` = (read, write) tokens, part of the input tokens."""
    if reply.usage is not None:
        prompt, completion = reply.usage
    else:
        prompt = approx_tokens(json.dumps(body.get("input", "")) + str(body.get("instructions", "")))
        if isinstance(reply, TokensReply):
            completion = reply.count
        elif isinstance(reply, ToolCallReply):
            completion = approx_tokens(reply.text + "".join(c[0] + c[1] for c in reply.calls))
        else:
            completion = approx_tokens(reply.reasoning + reply.text)
    reasoning = approx_tokens(reply.reasoning) if isinstance(reply, TextReply) else 0
    return {"input_tokens": prompt,
            "input_tokens_details": {"cached_tokens": cache[0], "cache_write_tokens": cache[1]},
            "output_tokens": completion, "output_tokens_details": {"reasoning_tokens": reasoning},
            "total_tokens": prompt + completion}


def _text(reply: StreamReply) -> list[str]:
    if isinstance(reply, TokensReply):
        return reply.pieces()
    return [p for p in split_text(reply.text, reply.chunk_size) if p] if reply.text else []


def items(reply: StreamReply, body: dict[str, Any] | None = None
          ) -> Iterator[tuple[dict[str, Any], list[tuple[str, dict[str, Any]]], dict[str, Any]]]:
    """(item as added, its (event type, fields) deltas, item as done) for each output item."""
    if isinstance(reply, TextReply) and reply.reasoning:
        rid = f"rs_{uuid.uuid4().hex[:12]}"
        deltas = [("response.reasoning_summary_part.added", {"summary_index": 0,
                                                              "part": {"type": "summary_text", "text": ""}})]
        deltas += [("response.reasoning_summary_text.delta", {"summary_index": 0, "delta": p})
                   for p in split_text(reply.reasoning, reply.chunk_size)]
        deltas.append(("response.reasoning_summary_text.done", {"summary_index": 0, "text": reply.reasoning}))
        yield ({"type": "reasoning", "id": rid, "summary": []}, deltas,
               {"type": "reasoning", "id": rid, "summary": [{"type": "summary_text", "text": reply.reasoning}],
                "encrypted_content": "enc-" + uuid.uuid4().hex[:16], "status": "completed"})
    if isinstance(reply, SearchedReply):
        wid = f"ws_{uuid.uuid4().hex[:12]}"
        yield ({"type": "web_search_call", "id": wid, "status": "in_progress"},
               [("response.web_search_call.searching", {"item_id": wid}),
                ("response.web_search_call.completed", {"item_id": wid})],
               {"type": "web_search_call", "id": wid, "status": "completed",
                "action": {"type": "search", "query": reply.query}})
    if isinstance(reply, ToolSearchedReply):
        sid, call_id = f"tsc_{uuid.uuid4().hex[:12]}", f"call_{uuid.uuid4().hex[:8]}"
        loaded = [t for t in (body or {}).get("tools") or [] if t.get("name") in reply.found
                  and t.get("name") in deferred_names(body or {})]
        call = {"type": "tool_search_call", "id": sid, "call_id": call_id, "execution": "server",
                "arguments": {"query": reply.query}}
        yield {**call, "status": "in_progress"}, [], {**call, "status": "completed"}
        output = {"type": "tool_search_output", "id": f"tso_{uuid.uuid4().hex[:12]}", "call_id": call_id,
                  "execution": "server", "tools": [{**t, "defer_loading": False} for t in loaded]}
        yield {**output, "status": "in_progress", "tools": []}, [], {**output, "status": "completed"}
    pieces = _text(reply)
    if pieces:
        mid = f"msg_{uuid.uuid4().hex[:12]}"
        text = "".join(pieces)
        deltas = [("response.content_part.added", {"content_index": 0, "part": _output_text("")})]
        deltas += [("response.output_text.delta", {"content_index": 0, "delta": p, "logprobs": []})
                   for p in pieces]
        deltas += [("response.output_text.done", {"content_index": 0, "text": text, "logprobs": []}),
                   ("response.content_part.done", {"content_index": 0, "part": _output_text(text)})]
        yield (_message(mid, "", "in_progress"), deltas, _message(mid, text, "completed"))
    if isinstance(reply, ToolCallReply):
        for name, arguments, call_id in call_ids(reply):
            fid = f"fc_{uuid.uuid4().hex[:12]}"
            deltas = [("response.function_call_arguments.delta", {"delta": p})
                      for p in split_text(arguments, reply.chunk_size) if p]
            deltas.append(("response.function_call_arguments.done", {"arguments": arguments}))
            call = {"type": "function_call", "id": fid, "call_id": call_id or f"call_{uuid.uuid4().hex[:8]}",
                    "name": name}
            yield ({**call, "arguments": "", "status": "in_progress"}, deltas,
                   {**call, "arguments": arguments, "status": "completed"})


def _output_text(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def _message(mid: str, text: str, status: str) -> dict[str, Any]:
    content = [_output_text(text)] if text else []
    return {"type": "message", "id": mid, "role": "assistant", "status": status, "content": content}


def response_object(body: dict[str, Any], status: str, output: list[dict[str, Any]], **fields: Any) -> dict:
    """A `response` object as the events and the non-streamed reply carry it."""
    return {"id": fields.pop("id", f"resp_{uuid.uuid4().hex[:12]}"), "object": "response",
            "created_at": int(time.time()), "status": status, "model": body.get("model", "fake-model"),
            "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": body.get("tools", []),
            "error": None, "incomplete_details": None, "usage": None, **fields}


def sse(kind: str, sequence: int, fields: dict[str, Any]) -> bytes:
    """One SSE event: an `event:` line and a `data:` line holding the type and sequence number."""
    data = {"type": kind, "sequence_number": sequence, **fields}
    return f"event: {kind}\ndata: ".encode() + json.dumps(data, separators=(",", ":")).encode() + b"\n\n"


async def sse_stream(reply: StreamReply, body: dict[str, Any],
                     cache: tuple[int, int] = (0, 0)) -> AsyncIterator[bytes]:
    """The whole event stream for `reply`. A `fail_with` reply ends with response.failed after its
    first item's deltas (or at once when it has none)."""
    rid = f"resp_{uuid.uuid4().hex[:12]}"
    seq = iter(range(1_000_000))
    yield sse("response.created", next(seq), {"response": response_object(body, "in_progress", [], id=rid)})
    yield sse("response.in_progress", next(seq), {"response": response_object(body, "in_progress", [], id=rid)})
    done: list[dict[str, Any]] = []
    for index, (added, deltas, finished) in enumerate(items(reply, body)):
        where = {"output_index": index, "item_id": added["id"]}
        yield sse("response.output_item.added", next(seq), {"output_index": index, "item": added})
        for kind, fields in deltas:
            yield sse(kind, next(seq), {**where, **fields})
            if reply.delay and kind.endswith(".delta"):
                await asyncio.sleep(reply.delay)
        if reply.fail_with:
            break
        yield sse("response.output_item.done", next(seq), {"output_index": index, "item": finished})
        done.append(finished)
    if reply.fail_with:
        error = {"code": reply.fail_type or "server_error", "message": reply.fail_with}
        yield sse("response.failed", next(seq), {"response": response_object(body, "failed", done, id=rid,
                                                                            error=error)})
        return
    used = None if reply.omit_usage else usage(reply, body, cache)
    if reply.finish_reason in INCOMPLETE:
        details = {"reason": INCOMPLETE[reply.finish_reason]}
        yield sse("response.incomplete", next(seq), {"response": response_object(
            body, "incomplete", done, id=rid, incomplete_details=details, usage=used)})
        return
    yield sse("response.completed", next(seq), {"response": response_object(body, "completed", done, id=rid,
                                                                            usage=used)})


def response_body(reply: StreamReply, body: dict[str, Any], cache: tuple[int, int] = (0, 0)) -> dict[str, Any]:
    """The non-streamed Response object for `reply`."""
    output = [finished for _added, _deltas, finished in items(reply, body)]
    return response_object(body, "completed", output, usage=None if reply.omit_usage else usage(reply, body, cache))
