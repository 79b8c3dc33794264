"""The provider protocol: normalized stream chunks and errors shared by every backend."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Protocol

from app.vocabulary.messages import Message


@dataclass
class ContentChunk:
    text: str


@dataclass
class ReasoningChunk:
    text: str


@dataclass
class ProviderDataChunk:
    """Provider-specific data to keep with the assistant message (`Message.raw[provider]`).

    Anthropic sends its signed thinking blocks this way so they can be replayed verbatim;
    other providers never see data stored under a foreign key.
    """

    provider: str
    data: dict[str, Any]


@dataclass
class ToolCallChunk:
    """A fragment of a tool call. `index` groups fragments; id/name arrive once, arguments in pieces."""

    index: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""


@dataclass
class UsageChunk:
    """Token counts of one request.

    `prompt_tokens` is the whole prompt, cached parts included (so it measures how full the
    context is); `cache_read_tokens` / `cache_write_tokens` say how much of it was read from /
    written to the provider's prompt cache.
    """

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


@dataclass
class ToolsFoundChunk:
    """The provider's own tool search (native deferred loading) loaded these deferred tools: they
    may be called from now on, and are sent loaded in later requests."""

    names: list[str]


@dataclass
class FinishChunk:
    reason: str | None  # "stop", "tool_calls", "length", "content_filter", ...


Chunk = (ContentChunk | ReasoningChunk | ToolCallChunk | UsageChunk | FinishChunk | ProviderDataChunk
         | ToolsFoundChunk)


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
    provider: str = "openai"  # "openai" | "openai-responses" | "anthropic" | "google"
    alias: str = ""  # the [models.<alias>] name, or "" for an ad-hoc model
    reasoning_effort: str | None = None  # "low" | "medium" | "high" | ...
    thinking_budget: int | None = None  # Anthropic manual thinking budget (tokens)
    capabilities: dict[str, Any] = field(default_factory=dict)  # overrides, see capabilities.py
    price: dict[str, float] = field(default_factory=dict)  # USD per million tokens, see pricing.py

    @property
    def label(self) -> str:
        """The alias when there is one, else the model name."""
        return self.alias or self.model


class Provider(Protocol):
    settings: ModelSettings
    # Providers that defer tools themselves (Anthropic, Responses) say so per model; the others
    # have no such attribute and get our BM25 tool_search instead (tools/tool_search.py).

    def stream(self, messages: list[Message], tools: list[dict[str, Any]]) -> AsyncIterator[Chunk]:
        """Stream one completion. Raises ProviderError; never retries by itself."""
        ...

    async def close(self) -> None: ...
