"""OpenAI Responses API provider (`provider = "openai-responses"`): POST /v1/responses, streamed.

Engine messages become Responses input items: system, user and assistant text as messages,
assistant tool calls as `function_call` items, tool results as `function_call_output` items.
Reasoning models stream a reasoning summary; their encrypted reasoning items are kept under
`Message.raw["openai-responses"]` and sent back only when the capabilities say so. Requests go
through the real `openai` SDK (`responses.with_streaming_response`), the event stream is decoded
as plain dicts (app/providers/sse.py). Where the model has Responses' tool search
(`native_tool_search`), deferred tools go out with `defer_loading` beside a `tool_search` tool, and
the functions its `tool_search_output` loads come back as a `ToolsFoundChunk`. `openai` is imported
inside functions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, AsyncIterator, Iterator

from app.vocabulary.messages import Message
from app.providers import errors
from app.providers.base import (
    Chunk,
    ContentChunk,
    FinishChunk,
    ModelSettings,
    ProviderDataChunk,
    ProviderError,
    ReasoningChunk,
    ToolCallChunk,
    ToolsFoundChunk,
    UsageChunk,
)
from app.providers.capabilities import Capabilities, capabilities_for
from app.providers.sdk_client import SdkClientProvider, openai_client

if TYPE_CHECKING:
    from openai import AsyncOpenAI

NAME = "openai-responses"
WORDING = errors.ErrorWording()
INCOMPLETE = {"max_output_tokens": "length", "content_filter": "content_filter"}
# Error codes of a failed response, as the HTTP statuses they stand for (others: 400).
ERROR_STATUS = {"server_error": 500, "rate_limit_exceeded": 429, "vector_store_timeout": 504}


def to_responses_input(messages: list[Message], *, replay_reasoning: bool = False) -> list[dict[str, Any]]:
    """Engine messages as Responses input items."""
    items: list[dict[str, Any]] = []
    for msg in messages:
        if msg.role == "tool":
            items.append({"type": "function_call_output", "call_id": msg.tool_call_id or "",
                          "output": msg.content or "(no output)"})
        elif msg.role == "assistant":
            stored = (msg.raw or {}).get(NAME) or {}
            if replay_reasoning and not msg.interrupted:
                items += [dict(item) for item in stored.get("reasoning_items", [])]
            if msg.content:
                items.append({"role": "assistant", "content": msg.content})
            items += [{"type": "function_call", "call_id": call.id, "name": call.name,
                       "arguments": call.arguments or "{}"} for call in msg.tool_calls]
        elif msg.role == "user" and (images := (msg.raw or {}).get("images")):
            items.append({"role": "user", "content": [{"type": "input_text", "text": msg.content or " "}, *(
                {"type": "input_image", "image_url": f"data:{i['media_type']};base64,{i['data']}"} for i in images)]})
        else:  # system, developer, user
            items.append({"role": msg.role, "content": msg.content or " "})
    return items


def to_responses_tools(tools: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """Chat-style function schemas as Responses function tools (not strict: our schemas are not)."""
    out = []
    for tool in tools or []:
        if tool.get("type") == "native_web_search":  # OpenAI's built-in search: it runs server-side
            out.append({"type": "web_search"})
            continue
        if tool.get("type") == "native_tool_search":  # its hosted search over the deferred functions
            out.append({"type": "tool_search"})
            continue
        fn = tool.get("function", tool)
        out.append({"type": "function", "name": fn["name"], "description": fn.get("description", ""),
                    "parameters": fn.get("parameters") or {"type": "object", "properties": {}},
                    "strict": False, **({"defer_loading": True} if tool.get("defer_loading") else {})})
    return out


def failure(error: Any, settings: ModelSettings) -> ProviderError:
    """A `response.failed` / `error` event as a ProviderError; server errors and rate limits retry."""
    code = error.get("code") if isinstance(error, dict) else None
    text = error.get("message") if isinstance(error, dict) else str(error)
    detail = f"{text} ({code})" if code and text else (text or code or "")
    return errors.status_error(ERROR_STATUS.get(code or "", 400), detail, settings, WORDING)


class ResponsesTranslator:
    """Turns Responses API stream events (decoded SSE JSON) into normalized chunks.

    `complete` turns true at response.completed / .incomplete: a stream without either was cut short.
    """

    end_marker = "response.completed"

    def __init__(self, settings: ModelSettings) -> None:
        self.settings = settings
        self.complete = False
        self.calls: dict[int, int] = {}  # output index -> tool-call ordinal
        self.reasoning_items: list[dict[str, Any]] = []

    def translate(self, event: dict[str, Any]) -> Iterator[Chunk]:
        kind = event.get("type")
        if kind == "response.output_text.delta" or kind == "response.refusal.delta":
            if event.get("delta"):
                yield ContentChunk(event["delta"])
        elif kind == "response.function_call_arguments.delta":
            if event.get("delta"):
                yield ToolCallChunk(index=self.calls.get(event.get("output_index", 0), 0), arguments=event["delta"])
        elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            if event.get("delta"):
                yield ReasoningChunk(event["delta"])
        elif kind == "response.reasoning_summary_part.added" and event.get("summary_index"):
            yield ReasoningChunk("\n\n")  # between the parts of a summary
        elif kind == "response.output_item.added":
            yield from self._item_added(event.get("output_index", 0), event.get("item") or {})
        elif kind == "response.output_item.done":
            item = event.get("item") or {}
            if item.get("type") == "tool_search_output":  # its tool search ran: the functions it loaded
                names = [t.get("name") for t in item.get("tools") or [] if isinstance(t, dict)
                         and t.get("type") == "function" and isinstance(t.get("name"), str)]
                if names:
                    yield ToolsFoundChunk(names)
            if item.get("type") == "reasoning" and item.get("encrypted_content"):
                self.reasoning_items.append({key: item[key] for key in
                                             ("type", "id", "summary", "encrypted_content") if key in item})
        elif kind in ("response.completed", "response.incomplete"):
            self.complete = True
            yield from self._finished(event.get("response") or {})
        elif kind == "response.failed":
            raise failure((event.get("response") or {}).get("error"), self.settings)
        elif kind == "error":
            raise failure(event.get("error") or event, self.settings)

    def _item_added(self, output_index: int, item: dict[str, Any]) -> Iterator[Chunk]:
        if item.get("type") != "function_call":
            return
        ordinal = self.calls[output_index] = len(self.calls)
        yield ToolCallChunk(index=ordinal, id=item.get("call_id"), name=item.get("name"))
        if item.get("arguments"):
            yield ToolCallChunk(index=ordinal, arguments=item["arguments"])

    def _finished(self, response: dict[str, Any]) -> Iterator[Chunk]:
        reason = (response.get("incomplete_details") or {}).get("reason")
        if response.get("status") == "incomplete":
            yield FinishChunk(INCOMPLETE.get(reason or "", reason or "length"))
        else:
            yield FinishChunk("tool_calls" if self.calls else "stop")
        usage = response.get("usage")
        if usage:
            details = usage.get("input_tokens_details") or {}
            prompt, completion = usage.get("input_tokens") or 0, usage.get("output_tokens") or 0
            yield UsageChunk(prompt, completion, usage.get("total_tokens") or prompt + completion,
                             cache_read_tokens=details.get("cached_tokens") or 0,
                             cache_write_tokens=details.get("cache_write_tokens") or 0)
        if self.reasoning_items:
            yield ProviderDataChunk(NAME, {"reasoning_items": self.reasoning_items})


class OpenAIResponsesProvider(SdkClientProvider):
    """Streams OpenAI Responses. Never retries by itself."""

    name = NAME

    def __init__(self, settings: ModelSettings) -> None:
        self.settings = settings
        self.capabilities: Capabilities = capabilities_for(settings)

    @property
    def native_tool_search(self) -> bool:
        """Whether this model defers tools itself (a `tool_search` tool and `defer_loading`)."""
        return self.capabilities.native_tool_search

    def _new_client(self) -> AsyncOpenAI:
        return openai_client(self.settings)

    def request(self, messages: list[Message], tools: list[dict[str, Any]] | None) -> dict[str, Any]:
        """Keyword arguments for responses.create (without `stream`); nothing is stored server-side."""
        caps = self.capabilities
        kwargs: dict[str, Any] = {"model": self.settings.model, "store": False,
                                  "input": to_responses_input(messages, replay_reasoning=caps.reasoning_replay)}
        if tools:
            kwargs["tools"] = to_responses_tools(tools)
        if self.settings.max_tokens is not None:
            kwargs["max_output_tokens"] = self.settings.max_tokens
        if self.settings.temperature is not None and caps.temperature:
            kwargs["temperature"] = self.settings.temperature
        if caps.thinking == "effort":
            effort = {"effort": self.settings.reasoning_effort} if self.settings.reasoning_effort else {}
            kwargs["reasoning"] = {**effort, "summary": "auto"}
            if caps.reasoning_replay:
                kwargs["include"] = ["reasoning.encrypted_content"]
        return kwargs

    def stream(self, messages: list[Message],
               tools: list[dict[str, Any]] | None = None) -> AsyncIterator[Chunk]:
        """Stream one response as normalized chunks. Raises ProviderError."""
        import openai

        return self._chunks(self.client.responses.with_streaming_response.create, self.request(messages, tools),
                            openai, WORDING, ResponsesTranslator(self.settings))

    async def complete(self, messages: list[Message], max_tokens: int = 64) -> str:
        """One non-streamed response's text (titles, summaries). Raises ProviderError."""
        import openai

        kwargs = self.request(messages, None)
        kwargs.pop("reasoning", None)
        kwargs.pop("include", None)
        kwargs["max_output_tokens"] = max(16, max_tokens)  # the API's minimum
        result = await self._create(self.client.responses.create, kwargs, openai, WORDING)
        return (result.output_text or "").strip()

