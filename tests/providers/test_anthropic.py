"""Anthropic specifics: message mapping, caching, thinking, cache tokens, in-band errors."""

from __future__ import annotations

import pytest

from app.vocabulary.messages import Message, ToolCall
from app.providers.anthropic import AnthropicProvider, sdk_base_url, to_anthropic
from app.providers.base import ModelSettings, ProviderDataChunk, ProviderError, UsageChunk
from app.providers.openai_chat import to_openai_messages
from app.providers.retry import stream_with_retry
from tests.fake_llm.script import ErrorReply, TextReply
from tests.providers.streams import collect, reasoning_of, text_of


async def no_sleep(_seconds: float) -> None:
    return None


def provider(server, model: str = "fake-claude", **fields) -> AnthropicProvider:
    return AnthropicProvider(ModelSettings(model=model, base_url=server.base_url, api_key="k",
                                           provider="anthropic", timeout=10.0, **fields))


THOUGHT = {"type": "thinking", "thinking": "plan", "signature": "sig-1"}
HISTORY = [
    Message(role="system", content="You are terse."),
    Message(role="user", content="fix it"),
    Message(role="assistant", content="Reading both.", raw={"anthropic": {"thinking_blocks": [THOUGHT]}},
            tool_calls=[ToolCall("t1", "read_file", '{"path": "a"}'), ToolCall("t2", "read_file", "{bad")]),
    Message(role="tool", content="A", tool_call_id="t1", name="read_file"),
    Message(role="tool", content="no such file", tool_call_id="t2", name="read_file", is_error=True),
    Message(role="user", content="and now?"),
]


def test_mapping_groups_tool_results_and_maps_system() -> None:
    system, wire = to_anthropic(HISTORY)
    assert system == [{"type": "text", "text": "You are terse."}]
    assert [m["role"] for m in wire] == ["user", "assistant", "user"]
    assistant = wire[1]["content"]
    assert assistant[0] == THOUGHT and assistant[1] == {"type": "text", "text": "Reading both."}
    assert assistant[2]["input"] == {"path": "a"} and assistant[3]["input"] == {"_unparsed_arguments": "{bad"}
    results = wire[2]["content"]
    assert [b["type"] for b in results] == ["tool_result", "tool_result", "text"]  # one user turn
    assert results[1]["is_error"] is True


def test_reasoning_is_replayed_only_where_the_capability_says() -> None:
    _, wire = to_anthropic(HISTORY, replay_reasoning=False)
    assert all(b["type"] != "thinking" for b in wire[1]["content"])
    assert "thinking" not in str(to_openai_messages(HISTORY))  # never sent to a foreign provider


def test_base_url_with_v1_is_accepted() -> None:
    assert sdk_base_url("http://h:1/v1/") == "http://h:1"
    assert sdk_base_url("http://h:1") == "http://h:1"


async def test_prompt_caching_marks_system_tools_and_last_turns(fake_anthropic) -> None:
    fake_anthropic.queue(TextReply("ok"))
    p = provider(fake_anthropic)
    tools = [{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}]
    await collect(p, HISTORY, tools)
    await p.close()
    body = fake_anthropic.requests[0]
    assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    marked = [b for m in body["messages"] for b in m["content"] if "cache_control" in b]
    assert 1 <= len(marked) <= 2 and body["messages"][-1]["content"][-1] in marked


async def test_cache_tokens_are_counted(fake_anthropic) -> None:
    fake_anthropic.cache_usage = (800, 150)
    fake_anthropic.queue(TextReply("ok", usage=(1000, 20)))
    p = provider(fake_anthropic)
    usage = [c for c in await collect(p) if isinstance(c, UsageChunk)][0]
    await p.close()
    assert (usage.prompt_tokens, usage.cache_read_tokens, usage.cache_write_tokens) == (1000, 800, 150)


async def test_thinking_streams_and_its_signed_block_is_kept(fake_anthropic) -> None:
    fake_anthropic.queue(TextReply("Answer.", reasoning="Let me think this through."))
    p = provider(fake_anthropic, model="claude-sonnet-4-fake", reasoning_effort="medium", max_tokens=20000)
    chunks = await collect(p)
    await p.close()
    assert reasoning_of(chunks) == "Let me think this through." and text_of(chunks) == "Answer."
    data = [c for c in chunks if isinstance(c, ProviderDataChunk)][0]
    block = data.data["thinking_blocks"][0]
    assert block["thinking"] == "Let me think this through." and block["signature"].startswith("sig-")
    assert fake_anthropic.requests[0]["thinking"] == {"type": "enabled", "budget_tokens": 8192}


async def test_adaptive_thinking_sends_effort(fake_anthropic) -> None:
    fake_anthropic.queue(TextReply("ok"))
    p = provider(fake_anthropic, model="claude-opus-4-6-fake", reasoning_effort="high", temperature=0.2)
    await collect(p)
    await p.close()
    body = fake_anthropic.requests[0]
    assert body["thinking"] == {"type": "adaptive"} and body["output_config"] == {"effort": "high"}
    assert "temperature" not in body  # thinking requires the default temperature


async def test_capability_override_turns_thinking_off(fake_anthropic) -> None:
    fake_anthropic.queue(TextReply("ok"))
    p = provider(fake_anthropic, model="claude-opus-4-6-fake", reasoning_effort="high",
                 capabilities={"thinking": "none"}, temperature=0.2)
    await collect(p)
    await p.close()
    assert "thinking" not in fake_anthropic.requests[0]
    assert fake_anthropic.requests[0]["temperature"] == 0.2


async def test_error_in_the_middle_of_the_stream(fake_anthropic) -> None:
    fake_anthropic.queue(TextReply("partial answer", fail_with="the model crashed"))
    p = provider(fake_anthropic)
    with pytest.raises(ProviderError) as info:
        await collect(p)
    await p.close()
    assert "the model crashed" in info.value.message


async def test_in_band_overloaded_error_before_any_text_is_retried(fake_anthropic) -> None:
    fake_anthropic.queue(TextReply("", fail_with="Overloaded", fail_type="overloaded_error"),
                         TextReply("second try"))
    p = provider(fake_anthropic)
    notes: list[str] = []
    chunks = [c async for c in stream_with_retry(lambda: p.stream([Message(role="user", content="x")], []),
                                                 notify=notes.append, base_delay=0.0, sleep=no_sleep)]
    await p.close()
    assert text_of(chunks) == "second try"
    assert len(notes) == 1 and "529" in notes[0] and len(fake_anthropic.requests) == 2


async def test_http_overloaded_and_auth_errors_in_words(fake_anthropic) -> None:
    fake_anthropic.queue(ErrorReply(529, "Overloaded", headers={"retry-after": "2"}))
    p = provider(fake_anthropic)
    with pytest.raises(ProviderError) as overloaded:
        await collect(p)
    assert (overloaded.value.retryable, overloaded.value.status, overloaded.value.retry_after) == (True, 529, 2.0)
    assert "overloaded (529)" in overloaded.value.message
    fake_anthropic.api_key = "right"
    with pytest.raises(ProviderError) as denied:
        await collect(p)
    await p.close()
    assert not denied.value.retryable and "check ANTHROPIC_API_KEY" in denied.value.message
    assert "invalid x-api-key" in denied.value.message
