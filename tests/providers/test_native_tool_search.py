"""Provider-native deferred tool loading: the request carries the provider's own tool search and the
deferred tools marked `defer_loading` (Anthropic: tool_search_tool_bm25; Responses: tool_search),
and what its search loaded comes back as a ToolsFoundChunk before the calls, over the real SDKs."""

from __future__ import annotations

import json

from app.providers.base import ModelSettings, ToolsFoundChunk
from app.providers.capabilities import capabilities_for
from app.providers.openai_chat import OpenAIChatProvider
from app.vocabulary.messages import Message
from tests.fake_llm.script import ToolSearchedReply
from tests.providers import test_anthropic, test_openai_responses
from tests.providers.streams import collect, tool_calls_of
from tools.tool_search import NATIVE_TOOL_SEARCH, deferred_schema
from tests.tools.test_visibility import mcp_spec

LOADED = {"type": "function", "function": {"name": "read_file", "description": "read",
                                           "parameters": {"type": "object", "properties": {}}}}
TOOLS = [LOADED, deferred_schema(mcp_spec("mcp__wx__forecast", "Weather forecast for a city")),
         deferred_schema(mcp_spec("mcp__pad__tool_1", "padding")), NATIVE_TOOL_SEARCH]
REPLY = ToolSearchedReply([("mcp__wx__forecast", json.dumps({"city": "Oslo"}), "f1")], query="weather",
                          found=("mcp__wx__forecast",))
NATIVE = {"native_tool_search": True}


def found_of(chunks) -> list[str]:
    return [name for c in chunks if isinstance(c, ToolsFoundChunk) for name in c.names]


async def ask(server, provider, tools=TOOLS) -> tuple[list[dict], list]:
    """(the tools the request carried, the chunks of the reply) for one scripted tool search."""
    server.queue(REPLY)
    assert provider.native_tool_search
    chunks = await collect(provider, [Message(role="user", content="weather in Oslo?")], tools)
    await provider.close()
    return server.requests[-1]["tools"], chunks


async def test_anthropic_gets_its_tool_search_tool_and_deferred_tools(fake_anthropic) -> None:
    tools, chunks = await ask(fake_anthropic, test_anthropic.provider(fake_anthropic, capabilities=NATIVE))
    assert [(t["name"], t.get("defer_loading", False)) for t in tools] == [
        ("read_file", False), ("mcp__wx__forecast", True), ("mcp__pad__tool_1", True), ("tool_search_tool_bm25", False)]
    assert tools[-1]["type"] == "tool_search_tool_bm25_20251119"
    assert [t["name"] for t in tools if "cache_control" in t] == ["tool_search_tool_bm25"]  # never on a deferred one
    assert found_of(chunks) == ["mcp__wx__forecast"]
    assert tool_calls_of(chunks)[0]["name"] == "mcp__wx__forecast"


async def test_anthropic_caches_up_to_the_last_loaded_tool(fake_anthropic) -> None:
    tools, _chunks = await ask(fake_anthropic, test_anthropic.provider(fake_anthropic, capabilities=NATIVE), TOOLS[:3])
    assert [t["name"] for t in tools if "cache_control" in t] == ["read_file"]


async def test_responses_gets_its_tool_search_and_deferred_functions(fake_openai) -> None:
    tools, chunks = await ask(fake_openai, test_openai_responses.provider(fake_openai, capabilities=NATIVE))
    assert [(t["type"], t.get("name"), t.get("defer_loading", False)) for t in tools] == [
        ("function", "read_file", False), ("function", "mcp__wx__forecast", True),
        ("function", "mcp__pad__tool_1", True), ("tool_search", None, False)]
    assert found_of(chunks) == ["mcp__wx__forecast"]
    assert tool_calls_of(chunks)[0]["name"] == "mcp__wx__forecast"


def test_which_models_defer_natively() -> None:
    def native(provider: str, model: str) -> bool:
        return capabilities_for(ModelSettings(model=model, provider=provider)).native_tool_search

    assert native("anthropic", "claude-sonnet-4-5-20250929") and native("anthropic", "claude-opus-4-6")
    assert not native("anthropic", "claude-3-5-haiku-latest") and not native("anthropic", "claude-sonnet-4-0")
    assert native("openai-responses", "gpt-5.4") and not native("openai-responses", "gpt-4.1")
    assert capabilities_for(ModelSettings(model="qwen", provider="anthropic",
                                          capabilities={"native_tool_search": True})).native_tool_search
    # chat completions has no native deferral, whatever the model: it keeps our BM25 tool_search
    assert not getattr(OpenAIChatProvider(ModelSettings(model="gpt-5.4")), "native_tool_search", False)
