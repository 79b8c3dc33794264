"""Anthropic Messages provider, native: streaming text, tool_use and thinking; prompt caching.

The engine's messages are translated at this boundary: system (and developer) messages become
the `system` parameter, consecutive tool results are grouped into one user turn, assistant
tool calls become `tool_use` blocks. Signed thinking blocks arrive as a `ProviderDataChunk`
stored under `Message.raw["anthropic"]` and are replayed only to Anthropic, only when the
capabilities say so. Where the model has Anthropic's tool search (`native_tool_search`), deferred
tools go out with `defer_loading` beside the tool_search_tool_bm25 server tool, and the tools its
results reference come back as a `ToolsFoundChunk`. The `anthropic` package (~1 s of imports) is
imported inside functions.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, AsyncIterator, Iterator

from app.vocabulary.messages import Message
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
from app.providers import errors
from app.providers.capabilities import Capabilities, capabilities_for
from app.providers.sdk_client import SdkClientProvider

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

STOP_REASONS = {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_calls",
                "max_tokens": "length", "refusal": "content_filter", "pause_turn": "stop",
                "model_context_window_exceeded": "length"}
EFFORT_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384, "xhigh": 32768,
                  "max": 32768}
CACHE = {"type": "ephemeral"}
MAX_CACHED_MESSAGES = 2  # plus system and tools: Anthropic allows four breakpoints
TOOL_SEARCH_TOOL = {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}


def _tool_input(arguments: str) -> dict[str, Any]:
    """A call's arguments as the object Anthropic wants; broken JSON is kept visible."""
    try:
        value = json.loads(arguments or "{}")
    except json.JSONDecodeError:
        return {"_unparsed_arguments": arguments}
    return value if isinstance(value, dict) else {"value": value}


def to_anthropic(messages: list[Message], *, replay_reasoning: bool = True
                 ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(system blocks, messages) for the Messages API.

    Same-role neighbours are merged (tool results after tool results, a user prompt after
    results), since the API wants alternating turns.
    """
    system: list[dict[str, Any]] = []
    out: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})

    for msg in messages:
        role = msg.role
        if role in ("system", "developer"):
            if msg.content:
                system.append({"type": "text", "text": msg.content})
        elif role == "user":
            add("user", [{"type": "text", "text": msg.content or " "}, *(
                {"type": "image", "source": {"type": "base64", "media_type": i["media_type"], "data": i["data"]}}
                for i in (msg.raw or {}).get("images") or [])])
        elif role == "tool":
            block: dict[str, Any] = {"type": "tool_result", "tool_use_id": msg.tool_call_id or "",
                                     "content": msg.content or "(no output)"}
            if msg.is_error:
                block["is_error"] = True
            add("user", [block])
        elif role == "assistant":
            blocks: list[dict[str, Any]] = []
            stored = (msg.raw or {}).get("anthropic") or {}
            if replay_reasoning and not msg.interrupted:
                blocks += [dict(b) for b in stored.get("thinking_blocks", [])]
            if msg.content:
                blocks.append({"type": "text", "text": msg.content})
            for call in msg.tool_calls:
                blocks.append({"type": "tool_use", "id": call.id, "name": call.name,
                               "input": _tool_input(call.arguments)})
            add("assistant", blocks)
    return system, out


def to_anthropic_tools(tools: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """OpenAI-style function schemas as Anthropic tool definitions."""
    out = []
    for tool in tools or []:
        if tool.get("type") == "native_web_search":  # Anthropic's server tool: it searches, we never run it
            out.append({"type": "web_search_20250305", "name": "web_search", "max_uses": 5})
            continue
        if tool.get("type") == "native_tool_search":  # its server-side search over the deferred tools
            out.append(dict(TOOL_SEARCH_TOOL))
            continue
        fn = tool.get("function", tool)
        out.append({"name": fn["name"], "description": fn.get("description", ""),
                    "input_schema": fn.get("parameters") or {"type": "object", "properties": {}},
                    **({"defer_loading": True} if tool.get("defer_loading") else {})})
    return out


def add_cache_breakpoints(system: list[dict[str, Any]], tools: list[dict[str, Any]],
                          messages: list[dict[str, Any]]) -> None:
    """Mark the stable prefix for prompt caching: system, tools, and the last user turns."""
    if system:
        system[-1]["cache_control"] = CACHE
    loaded = [tool for tool in tools if not tool.get("defer_loading")]  # a deferred tool is not in the prefix
    if loaded:
        loaded[-1]["cache_control"] = CACHE
    marked = 0
    for message in reversed(messages):
        if marked == MAX_CACHED_MESSAGES:
            break
        if message["role"] == "user" and message["content"]:
            message["content"][-1]["cache_control"] = CACHE
            marked += 1


# In-band `error` events name an error type; as HTTP statuses they retry (or not) like the real ones.
ERROR_STATUS = {"invalid_request_error": 400, "authentication_error": 401, "billing_error": 402,
                "permission_error": 403, "not_found_error": 404, "request_too_large": 413,
                "rate_limit_error": 429, "api_error": 500, "timeout_error": 504, "overloaded_error": 529}
WORDING = errors.ErrorWording(service="the Anthropic API", key_hint="check ANTHROPIC_API_KEY")


class StreamTranslator:
    """Turns Messages-API stream events (decoded SSE JSON) into normalized chunks, one event at a time.

    Plain dicts, not SDK models: building a pydantic object per token was most of the CPU of a
    fast stream. Text and tool-input deltas are the hot path and come first. `complete` turns
    true at message_stop: a stream without it was cut short.
    """

    end_marker = "message_stop"

    def __init__(self, settings: ModelSettings) -> None:
        self.settings = settings
        self.complete = False
        self.tool_index: dict[int, int] = {}  # content-block index -> tool-call ordinal
        self.blocks: dict[int, dict[str, Any]] = {}  # thinking blocks being built
        self.thinking_blocks: list[dict[str, Any]] = []
        self.input_tokens = self.cache_read = self.cache_write = self.output_tokens = 0

    def _usage(self, usage: dict[str, Any] | None) -> None:
        if not usage:
            return
        for attr, name in (("input_tokens", "input_tokens"), ("cache_read", "cache_read_input_tokens"),
                           ("cache_write", "cache_creation_input_tokens"),
                           ("output_tokens", "output_tokens")):
            value = usage.get(name)
            if value is not None:
                setattr(self, attr, value)

    def usage_chunk(self) -> UsageChunk:
        prompt = self.input_tokens + self.cache_read + self.cache_write
        return UsageChunk(prompt, self.output_tokens, prompt + self.output_tokens,
                          cache_read_tokens=self.cache_read, cache_write_tokens=self.cache_write)

    def translate(self, event: dict[str, Any]) -> Iterator[Chunk]:
        kind = event.get("type")
        if kind == "content_block_delta":
            yield from self._block_delta(event.get("index", 0), event.get("delta") or {})
        elif kind == "content_block_start":
            yield from self._block_start(event.get("index", 0), event.get("content_block") or {})
        elif kind == "content_block_stop":
            block = self.blocks.pop(event.get("index", 0), None)
            if block is not None:
                self.thinking_blocks.append(block)
        elif kind == "message_start":
            self._usage((event.get("message") or {}).get("usage"))
        elif kind == "message_delta":
            self._usage(event.get("usage"))
            reason = (event.get("delta") or {}).get("stop_reason")
            if reason:
                yield FinishChunk(STOP_REASONS.get(reason, reason))
        elif kind == "message_stop":
            self.complete = True
            yield self.usage_chunk()
            if self.thinking_blocks:
                yield ProviderDataChunk("anthropic", {"thinking_blocks": self.thinking_blocks})
        elif kind == "error":
            raise self._error(event.get("error"))

    def _error(self, error: Any) -> ProviderError:
        """An in-band error event: overloaded and rate-limit errors retry like their HTTP statuses."""
        kind = error.get("type") if isinstance(error, dict) else None
        text = error.get("message") if isinstance(error, dict) else str(error)
        detail = f"{text} ({kind})" if kind and text else (text or kind or "")
        return errors.status_error(ERROR_STATUS.get(kind or "", 500), detail, self.settings, WORDING)

    def _block_start(self, index: int, block: dict[str, Any]) -> Iterator[Chunk]:
        kind = block.get("type")
        if kind == "text":
            if block.get("text"):
                yield ContentChunk(block["text"])
        elif kind == "tool_use":
            ordinal = self.tool_index[index] = len(self.tool_index)
            yield ToolCallChunk(index=ordinal, id=block.get("id"), name=block.get("name"))
            if block.get("input"):  # non-streamed input (rare)
                yield ToolCallChunk(index=ordinal, arguments=json.dumps(block["input"]))
        elif kind == "thinking":
            self.blocks[index] = {"type": "thinking", "thinking": block.get("thinking") or "",
                                  "signature": block.get("signature") or ""}
            if block.get("thinking"):
                yield ReasoningChunk(block["thinking"])
        elif kind == "redacted_thinking":
            self.thinking_blocks.append({"type": "redacted_thinking", "data": block.get("data", "")})
        elif kind == "tool_search_tool_result":  # its tool search ran: the deferred tools it loaded
            content = block.get("content") or {}
            names = [ref.get("tool_name") for ref in (content.get("tool_references") or [])
                     if isinstance(ref, dict)] if isinstance(content, dict) else []
            if names:
                yield ToolsFoundChunk([name for name in names if isinstance(name, str)])

    def _block_delta(self, index: int, delta: dict[str, Any]) -> Iterator[Chunk]:
        kind = delta.get("type")
        if kind == "text_delta":
            if delta.get("text"):
                yield ContentChunk(delta["text"])
        elif kind == "input_json_delta":
            if delta.get("partial_json") and index in self.tool_index:  # not a server tool's (web search) input
                yield ToolCallChunk(index=self.tool_index[index], arguments=delta["partial_json"])
        elif kind == "thinking_delta":
            text = delta.get("thinking") or ""
            if index in self.blocks:
                self.blocks[index]["thinking"] += text
            if text:
                yield ReasoningChunk(text)
        elif kind == "signature_delta":
            if index in self.blocks:
                self.blocks[index]["signature"] += delta.get("signature") or ""


def sdk_base_url(base_url: str | None) -> str | None:
    """The SDK adds /v1 itself; accept a URL given with it anyway."""
    if base_url is None:
        return None
    url = base_url.rstrip("/")
    return url[:-3] if url.endswith("/v1") else url


class AnthropicProvider(SdkClientProvider):
    """Streams Anthropic Messages. Never retries by itself."""

    name = "anthropic"

    def __init__(self, settings: ModelSettings) -> None:
        self.settings = settings
        self.capabilities: Capabilities = capabilities_for(settings)

    @property
    def native_tool_search(self) -> bool:
        """Whether this model defers tools itself (its tool search tool and `defer_loading`)."""
        return self.capabilities.native_tool_search

    def _new_client(self) -> AsyncAnthropic:
        from anthropic import AsyncAnthropic

        return AsyncAnthropic(base_url=sdk_base_url(self.settings.base_url),
                              api_key=self.settings.api_key or "not-needed",
                              max_retries=0, timeout=self.settings.timeout)

    def _thinking(self, max_tokens: int) -> tuple[dict[str, Any], dict[str, Any]]:
        """(thinking, output_config) parameters; empty when thinking is off."""
        mode = self.capabilities.thinking
        effort = self.settings.reasoning_effort
        if mode == "adaptive" and (effort or self.settings.thinking_budget):
            return {"type": "adaptive"}, ({"effort": effort} if effort and effort in
                                          ("low", "medium", "high", "xhigh", "max") else {})
        if mode in ("budget", "adaptive"):
            budget = self.settings.thinking_budget or EFFORT_BUDGETS.get(effort or "", 0)
            if budget:
                budget = max(1024, min(budget, max_tokens - 1024))
                return {"type": "enabled", "budget_tokens": budget}, {}
        return {}, {}

    def request(self, messages: list[Message], tools: list[dict[str, Any]] | None) -> dict[str, Any]:
        """Keyword arguments for messages.create (without `stream`)."""
        caps = self.capabilities
        system, wire = to_anthropic(messages, replay_reasoning=caps.reasoning_replay)
        tool_defs = to_anthropic_tools(tools)
        if caps.prompt_caching:
            add_cache_breakpoints(system, tool_defs, wire)
        max_tokens = self.settings.max_tokens or caps.max_output
        kwargs: dict[str, Any] = {"model": self.settings.model, "messages": wire,
                                  "max_tokens": max_tokens}
        if system:
            kwargs["system"] = system
        if tool_defs:
            kwargs["tools"] = tool_defs
        thinking, output_config = self._thinking(max_tokens)
        if thinking:
            kwargs["thinking"] = thinking
        if output_config:
            kwargs["output_config"] = output_config
        if self.settings.temperature is not None and caps.temperature and not thinking:
            # thinking requires the default; this SDK has no keyword for it, the API still takes it
            kwargs["extra_body"] = {"temperature": self.settings.temperature}
        return kwargs

    def stream(self, messages: list[Message],
               tools: list[dict[str, Any]] | None = None) -> AsyncIterator[Chunk]:
        """Stream one message as normalized chunks. Raises ProviderError."""
        import anthropic

        return self._chunks(self.client.messages.with_streaming_response.create, self.request(messages, tools),
                            anthropic, WORDING, StreamTranslator(self.settings))

    async def complete(self, messages: list[Message], max_tokens: int = 64) -> str:
        """One non-streamed reply's text (titles, summaries). Raises ProviderError."""
        import anthropic

        kwargs = self.request(messages, None)
        kwargs.pop("thinking", None)
        kwargs.pop("output_config", None)
        kwargs["max_tokens"] = max_tokens
        result = await self._create(self.client.messages.create, kwargs, anthropic, WORDING)
        return "".join(b.text for b in result.content if b.type == "text").strip()

