"""Helpers for provider tests: drain a stream and fold its chunks back together."""

from __future__ import annotations

from typing import Any

from app.vocabulary.messages import Message
from app.providers.base import Chunk, ContentChunk, ReasoningChunk, ToolCallChunk


async def collect(provider: Any, messages: list[Message] | None = None,
                  tools: list[dict[str, Any]] | None = None) -> list[Chunk]:
    """Every chunk of one streamed completion."""
    messages = messages or [Message(role="user", content="hello")]
    return [chunk async for chunk in provider.stream(messages, tools or [])]


def text_of(chunks: list[Chunk]) -> str:
    return "".join(c.text for c in chunks if isinstance(c, ContentChunk))


def reasoning_of(chunks: list[Chunk]) -> str:
    return "".join(c.text for c in chunks if isinstance(c, ReasoningChunk))


def tool_calls_of(chunks: list[Chunk]) -> dict[int, dict[str, Any]]:
    """Tool-call fragments folded by index into {"id", "name", "arguments"}."""
    calls: dict[int, dict[str, Any]] = {}
    for chunk in chunks:
        if isinstance(chunk, ToolCallChunk):
            call = calls.setdefault(chunk.index, {"id": None, "name": None, "arguments": ""})
            if chunk.id is not None:
                call["id"] = chunk.id
            if chunk.name:
                call["name"] = chunk.name
            call["arguments"] += chunk.arguments
    return calls
