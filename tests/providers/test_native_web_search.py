"""[tools] web_search_native: the provider's own web search. The request carries Anthropic's server
tool or Responses' built-in tool in place of ours, and the searched reply (its server-side search
blocks or items in the stream) comes back as plain text, nothing to run on our side."""

from __future__ import annotations

from tests.fake_llm.script import SearchedReply
from tests.providers import test_anthropic, test_openai_responses
from tests.providers.streams import collect, text_of, tool_calls_of
from app.vocabulary.messages import Message
from tools.web_search import with_native_search

OURS = [{"type": "function", "function": {"name": "web_search", "description": "search",
                                          "parameters": {"type": "object", "properties": {}}}},
        {"type": "function", "function": {"name": "read_file", "description": "read",
                                          "parameters": {"type": "object", "properties": {}}}}]
REPLY = SearchedReply("Python 3.14 came out in October 2025.", query="python 3.14 release date",
                      results=(("Python 3.14 released", "https://python.org/downloads/"),))


async def test_anthropic_gets_its_server_tool_and_the_searched_reply_is_text(fake_anthropic) -> None:
    fake_anthropic.queue(REPLY)
    provider = test_anthropic.provider(fake_anthropic)
    chunks = await collect(provider, [Message(role="user", content="when is 3.14?")],
                           with_native_search(OURS, provider.name))
    await provider.close()
    tools = fake_anthropic.requests[-1]["tools"]
    assert [t.get("type") for t in tools] == [None, "web_search_20250305"]
    assert [t["name"] for t in tools] == ["read_file", "web_search"]
    assert text_of(chunks) == "Python 3.14 came out in October 2025." and tool_calls_of(chunks) == {}


async def test_responses_gets_its_built_in_tool_and_the_searched_reply_is_text(fake_openai) -> None:
    fake_openai.queue(REPLY)
    provider = test_openai_responses.provider(fake_openai)
    chunks = await collect(provider, [Message(role="user", content="when is 3.14?")],
                           with_native_search(OURS, provider.name))
    await provider.close()
    tools = fake_openai.requests[-1]["tools"]
    assert [t["type"] for t in tools] == ["function", "web_search"] and tools[0]["name"] == "read_file"
    assert text_of(chunks) == "Python 3.14 came out in October 2025." and tool_calls_of(chunks) == {}


def test_a_provider_without_one_keeps_our_tool() -> None:
    assert with_native_search(OURS, "openai") == OURS
