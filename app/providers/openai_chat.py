"""OpenAI-compatible chat-completions provider (OpenAI, vLLM, llama.cpp, Ollama, LM Studio, Gemini).

Translates engine Messages to the chat-completions wire format, streams normalized chunks
and turns SDK exceptions into ProviderErrors a user can act on. The `openai` package is
imported only inside functions so app startup never pays for it.
"""

from __future__ import annotations

from contextlib import aclosing
from typing import TYPE_CHECKING, Any, AsyncIterator, Iterator

from app.vocabulary.messages import Message
from app.providers.base import (
    Chunk,
    ContentChunk,
    FinishChunk,
    ModelSettings,
    ProviderError,
    ReasoningChunk,
    ToolCallChunk,
    UsageChunk,
)
from app.providers import errors
from app.providers.sdk_client import SdkClientProvider, openai_client
from app.providers.sse import stream_events

if TYPE_CHECKING:
    from openai import AsyncOpenAI

WORDING = errors.ErrorWording()

# Delta fields local servers use for reasoning text (vLLM/DeepSeek, newer vLLM/Ollama).
REASONING_FIELDS = ("reasoning_content", "reasoning")


def to_openai_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """Engine messages as chat-completions messages. Reasoning is not replayed."""
    out: list[dict[str, Any]] = []
    for msg in messages:
        if msg.role == "tool":
            out.append({"role": "tool", "tool_call_id": msg.tool_call_id or "",
                        "content": msg.content})
        elif msg.role == "assistant" and msg.tool_calls:
            out.append({
                "role": "assistant",
                "content": msg.content or None,
                "tool_calls": [
                    {"id": tc.id, "type": "function",
                     "function": {"name": tc.name, "arguments": tc.arguments or "{}"}}
                    for tc in msg.tool_calls
                ],
            })
        elif msg.role == "user" and (images := (msg.raw or {}).get("images")):
            out.append({"role": "user", "content": [{"type": "text", "text": msg.content}, *(
                {"type": "image_url", "image_url": {"url": f"data:{i['media_type']};base64,{i['data']}"}}
                for i in images)]})
        else:
            out.append({"role": msg.role, "content": msg.content})
    return out


def translate_chunk(chunk: dict[str, Any]) -> Iterator[Chunk]:
    """Normalized chunks from one streamed chat-completion chunk (the decoded SSE JSON).

    Plain dicts rather than SDK models: building pydantic objects per token cost most of the
    CPU of a fast stream. Tolerant of sloppy servers (missing index, null fields).
    """
    for choice in chunk.get("choices") or []:
        delta = choice.get("delta") or {}
        for name in REASONING_FIELDS:
            if delta.get(name):
                yield ReasoningChunk(str(delta[name]))
                break
        if delta.get("content"):
            yield ContentChunk(delta["content"])
        for call in delta.get("tool_calls") or []:
            function = call.get("function") or {}
            yield ToolCallChunk(
                index=call.get("index") or 0,  # some servers omit it
                id=call.get("id"),
                name=function.get("name"),
                arguments=function.get("arguments") or "",
            )
        if choice.get("finish_reason"):
            yield FinishChunk(choice["finish_reason"])
    usage = chunk.get("usage")
    if usage:
        cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
        yield UsageChunk(usage.get("prompt_tokens") or 0, usage.get("completion_tokens") or 0,
                         usage.get("total_tokens") or 0, cache_read_tokens=cached)


def _stream_error(event: dict[str, Any], settings: ModelSettings) -> ProviderError:
    """An error the server sent inside the stream (vLLM and others do), as the SDK would report it."""
    error = event.get("error")
    message = error.get("message") if isinstance(error, dict) else str(error)
    return ProviderError(f"{settings.model}: the server reported an error mid-stream: {message}",
                         retryable=False)


def _rejects_stream_options(exc: Exception) -> bool:
    """A 400 whose text blames `stream_options` (some local servers don't know it)."""
    import openai

    if not isinstance(exc, openai.BadRequestError):
        return False
    return "stream_options" in f"{exc.message} {errors.server_detail(exc)}"


class OpenAIChatProvider(SdkClientProvider):
    """Streams chat completions from any OpenAI-compatible endpoint. Never retries by itself."""

    name = "openai"

    def __init__(self, settings: ModelSettings) -> None:
        from app.providers.capabilities import capabilities_for

        self.settings = settings
        self.capabilities = capabilities_for(settings)
        self._stream_options_ok = True

    def _new_client(self) -> AsyncOpenAI:
        return openai_client(self.settings)

    def _request(self, messages: list[Message], tools: list[dict[str, Any]] | None,
                 **extra: Any) -> dict[str, Any]:
        """Keyword arguments for chat.completions.create; unset options are left out."""
        kwargs: dict[str, Any] = {"model": self.settings.model,
                                  "messages": to_openai_messages(messages), **extra}
        if tools:
            kwargs["tools"] = tools
        caps = self.capabilities
        if self.settings.temperature is not None and caps.temperature:
            kwargs["temperature"] = self.settings.temperature
        if "max_tokens" in kwargs and caps.token_param != "max_tokens":
            kwargs[caps.token_param] = kwargs.pop("max_tokens")
        if self.settings.max_tokens is not None and caps.token_param not in kwargs:
            kwargs[caps.token_param] = self.settings.max_tokens
        if self.settings.reasoning_effort and caps.thinking == "effort":
            kwargs["reasoning_effort"] = self.settings.reasoning_effort
        return kwargs

    def _open_stream(self, kwargs: dict[str, Any]) -> Any:
        """The streamed request as a raw response context (the SDK still sends it and maps errors)."""
        create = self.client.chat.completions.with_streaming_response.create
        if self._stream_options_ok:
            return create(**kwargs, stream_options={"include_usage": True})
        return create(**kwargs)

    def _reopen_without_stream_options(self, exc: Exception) -> bool:
        """Some local servers reject `stream_options`: drop it for good and send the request again."""
        if not self._stream_options_ok or not _rejects_stream_options(exc):
            return False
        self._stream_options_ok = False
        return True

    async def stream(self, messages: list[Message],
                     tools: list[dict[str, Any]] | None = None) -> AsyncIterator[Chunk]:
        """Stream one completion as normalized chunks. Raises ProviderError."""
        import openai

        kwargs = self._request(messages, tools, stream=True)
        ended: list[bool] = []  # [DONE] arrived, or a finish reason did (sloppy servers send one of them)
        events = stream_events(lambda: self._open_stream(kwargs), self.settings, openai, WORDING,
                               reopen_after=self._reopen_without_stream_options,
                               on_done=lambda: ended.append(True))
        async with aclosing(events):
            async for event in events:
                if event.get("error"):
                    raise _stream_error(event, self.settings)
                for chunk in translate_chunk(event):
                    if isinstance(chunk, FinishChunk):
                        ended.append(True)
                    yield chunk
        if not ended:
            raise errors.cut_stream(self.settings, "a finish reason or [DONE]")

    async def complete(self, messages: list[Message], max_tokens: int = 64) -> str:
        """One non-streamed completion's text (e.g. for auto-titles). Raises ProviderError."""
        import openai

        result = await self._create(self.client.chat.completions.create,
                                    self._request(messages, None, max_tokens=max_tokens), openai, WORDING)
        if not result.choices:
            return ""
        return (result.choices[0].message.content or "").strip()

