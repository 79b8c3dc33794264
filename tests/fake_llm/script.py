"""Scripted replies for the fake LLM servers: what the next request gets back.

Tests queue these on a server; the server turns each into SSE chunks (or one JSON body).
They are plain data so a JSON file can carry them too (see `reply_from_dict`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Union


@dataclass(kw_only=True)
class _Streamed:
    """Knobs shared by every reply that streams tokens.

    `usage` is (prompt, completion) tokens; None means computed from the texts.
    `omit_usage` mimics servers that never send a usage chunk. `fail_with` ends the stream
    after its deltas with an in-band `{"error": {"message": …}}` event instead of finishing,
    as vLLM does when generation fails midway; `fail_type` is its error type (Anthropic's
    "overloaded_error", say; the default is the API's generic one).
    """

    delay: float = 0.0
    finish_reason: str | None = None
    usage: tuple[int, int] | None = None
    omit_usage: bool = False
    fail_with: str = ""
    fail_type: str = ""


@dataclass
class TextReply(_Streamed):
    """Plain text, streamed `chunk_size` characters at a time.

    `reasoning` streams first as delta field `reasoning_field` ("reasoning_content" as vLLM
    and DeepSeek send it, or "reasoning" as newer vLLM/Ollama do).
    """

    text: str
    chunk_size: int = 4
    reasoning: str = ""
    reasoning_field: str = "reasoning_content"


@dataclass
class SearchedReply(TextReply):
    """Text after the provider's own web search ran server-side: Anthropic's server_tool_use and
    web_search_tool_result blocks, or a Responses web_search_call item, come before the text."""

    query: str = ""
    results: tuple[tuple[str, str], ...] = ()  # (title, url)


def SlowReply(text: str, delay: float = 0.1, chunk_size: int = 2) -> TextReply:
    """Text streamed slowly, for cancel tests."""
    return TextReply(text, chunk_size=chunk_size, delay=delay)


@dataclass
class ToolCallReply(_Streamed):
    """One or more tool calls, their arguments split into `chunk_size`-character fragments.

    `calls` holds (name, arguments_json_text) or (name, arguments_json_text, id) tuples; an
    id of "" mimics small local models, a missing one becomes "call_<n>". `text` streams
    before the calls. `omit_index` leaves "index" out of tool-call deltas, as some servers do.
    """

    calls: list[tuple[str, ...]] = field(default_factory=list)
    text: str = ""
    chunk_size: int = 8
    omit_index: bool = False


@dataclass
class ToolSearchedReply(ToolCallReply):
    """Tool calls after the provider's own tool search ran server-side over the deferred tools:
    Anthropic's server_tool_use (tool_search_tool_bm25) and tool_search_tool_result blocks, or
    Responses' tool_search_call and tool_search_output items, come before the calls. Like the real
    search, it loads only those of `found` that the request sent with `defer_loading`."""

    query: str = ""
    found: tuple[str, ...] = ()


def deferred_names(body: dict[str, Any]) -> set[str]:
    """The tools a request sent with `defer_loading` (Anthropic or Responses shape)."""
    return {t.get("name", "") for t in body.get("tools") or [] if isinstance(t, dict) and t.get("defer_loading")}


@dataclass
class ErrorReply:
    """An HTTP error: `body` as given, or the OpenAI error shape built from `message`."""

    status: int
    message: str = ""
    body: dict[str, Any] | str | None = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class EchoReply(_Streamed):
    """Text derived from the last user message: `prefix` + that message."""

    prefix: str = "You said: "
    chunk_size: int = 4

    def as_text(self, user_text: str) -> TextReply:
        """The text reply this echo stands for, once the request's last user text is known."""
        return TextReply(self.prefix + user_text, chunk_size=self.chunk_size, delay=self.delay,
                         finish_reason=self.finish_reason, usage=self.usage, omit_usage=self.omit_usage,
                         fail_with=self.fail_with, fail_type=self.fail_type)


@dataclass
class TokensReply(_Streamed):
    """`count` one-word tokens streamed as fast as possible (throughput benchmarks).

    `paragraph_every` ends a paragraph after every N tokens, as prose does; 0 streams one
    endless paragraph (the worst case for a Markdown renderer).
    """

    count: int = 1000
    token: str = "tok "
    paragraph_every: int = 0

    def pieces(self) -> list[str]:
        every = self.paragraph_every
        return [self.token + ("\n\n" if every and (i + 1) % every == 0 else "") for i in range(self.count)]


Reply = Union[TextReply, ToolCallReply, ErrorReply, EchoReply, TokensReply]


def last_user_text(messages: list[dict[str, Any]]) -> str:
    """The text of the last user message of an OpenAI request (content parts joined)."""
    for message in reversed(messages):
        if message.get("role") == "user":
            content = message.get("content") or ""
            if isinstance(content, list):
                return "".join(p.get("text", "") for p in content if isinstance(p, dict))
            return str(content)
    return ""


def approx_tokens(text: str) -> int:
    """A rough token count (4 characters a token), enough for usage numbers."""
    return max(1, (len(text) + 3) // 4) if text else 0


def split_text(text: str, size: int) -> list[str]:
    """`text` in pieces of `size` characters (at least one piece, possibly empty)."""
    size = max(1, size)
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


_TYPES: dict[str, type] = {
    "text": TextReply,
    "tool_call": ToolCallReply,
    "tool_calls": ToolCallReply,
    "error": ErrorReply,
    "echo": EchoReply,
    "tokens": TokensReply,
}


def reply_from_dict(data: dict[str, Any]) -> Reply:
    """Build a reply from its JSON form, e.g. {"type": "text", "text": "hi"}.

    Tool calls are given as {"name", "arguments", "id"?}; `arguments` may be a JSON object.
    """
    fields = dict(data)
    kind = fields.pop("type", "text")
    if kind not in _TYPES:
        raise ValueError(f"unknown reply type {kind!r}; expected one of {sorted(_TYPES)}")
    if "calls" in fields:
        calls = []
        for call in fields["calls"]:
            args = call.get("arguments", "{}")
            args = args if isinstance(args, str) else json.dumps(args)
            calls.append((call["name"], args, call["id"]) if "id" in call else (call["name"], args))
        fields["calls"] = calls
    if isinstance(fields.get("usage"), list):
        fields["usage"] = tuple(fields["usage"])
    return _TYPES[kind](**fields)
