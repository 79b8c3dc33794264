"""The provider protocol: normalized stream chunks and errors shared by every backend."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, AsyncIterator, Protocol

from app.engine.messages import Message


@dataclass
class ContentChunk:
    text: str


@dataclass
class ReasoningChunk:
    text: str


@dataclass
class ToolCallChunk:
    """A fragment of a tool call. `index` groups fragments; id/name arrive once, arguments in pieces."""

    index: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""


@dataclass
class UsageChunk:
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


@dataclass
class FinishChunk:
    reason: str | None  # "stop", "tool_calls", "length", "content_filter", ...


Chunk = ContentChunk | ReasoningChunk | ToolCallChunk | UsageChunk | FinishChunk


class ProviderError(Exception):
    """A failed request, normalized. `retryable` covers 429, 5xx, timeouts and connection errors."""

    def __init__(self, message: str, *, retryable: bool, status: int | None = None,
                 retry_after: float | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after


@dataclass
class ModelSettings:
    """What a provider needs to talk to one model."""

    model: str
    base_url: str | None = None
    api_key: str | None = None
    context_window: int | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    timeout: float = 120.0


class Provider(Protocol):
    settings: ModelSettings

    def stream(self, messages: list[Message], tools: list[dict[str, Any]]) -> AsyncIterator[Chunk]:
        """Stream one completion. Raises ProviderError; never retries by itself."""
        ...

    async def close(self) -> None: ...
