"""OpenAI Responses API specifics: the fake server against the real SDK, input items, reasoning
summaries and their encrypted replay, cached tokens, incomplete and failed responses, config."""

from __future__ import annotations

import pytest

from app.vocabulary.messages import Message, ToolCall
from app.providers.base import FinishChunk, ModelSettings, ProviderDataChunk, ProviderError, UsageChunk
from app.providers.openai_responses import OpenAIResponsesProvider
from app.providers.retry import stream_with_retry
from tests.fake_llm.script import TextReply, ToolCallReply
from tests.providers.streams import collect, reasoning_of, text_of, tool_calls_of

READ_TOOL = [{"type": "function", "function": {
    "name": "read_file", "description": "Read a file",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}]


def provider(server, model: str = "fake-model", **fields) -> OpenAIResponsesProvider:
    return OpenAIResponsesProvider(ModelSettings(model=model, base_url=server.base_url, api_key="k",
                                                 provider="openai-responses", timeout=10.0, **fields))


async def no_sleep(_seconds: float) -> None:
    return None


async def test_the_fake_server_speaks_what_the_sdk_accepts(fake_openai) -> None:
    """The SDK's own streaming helper accumulates our events into a final Response."""
    from openai import AsyncOpenAI

    fake_openai.queue(ToolCallReply(calls=[("read_file", '{"path": "a"}', "call_1")], text="Let me look."))
    client = AsyncOpenAI(base_url=fake_openai.base_url, api_key="x", max_retries=0)
    async with client.responses.stream(model="fake-model", input="hi") as stream:
        kinds = [event.type async for event in stream]
        final = await stream.get_final_response()
    await client.close()
    assert kinds[:2] == ["response.created", "response.in_progress"] and kinds[-1] == "response.completed"
    assert "response.output_text.delta" in kinds and "response.function_call_arguments.delta" in kinds
    assert final.output_text == "Let me look."
    call = [item for item in final.output if item.type == "function_call"][0]
    assert (call.call_id, call.name, call.arguments) == ("call_1", "read_file", '{"path": "a"}')


async def test_history_becomes_input_items(fake_openai) -> None:
    fake_openai.queue(TextReply("done"))
    p = provider(fake_openai)
    history = [Message(role="system", content="be brief"), Message(role="user", content="read a"),
               Message(role="assistant", content="Reading.", tool_calls=[ToolCall("c1", "read_file", '{"path": "a"}')]),
               Message(role="tool", content="hi", tool_call_id="c1", name="read_file"),
               Message(role="user", content="and?")]
    await collect(p, history, READ_TOOL)
    await p.close()
    body = fake_openai.requests[0]
    assert body["input"] == [
        {"role": "system", "content": "be brief"}, {"role": "user", "content": "read a"},
        {"role": "assistant", "content": "Reading."},
        {"type": "function_call", "call_id": "c1", "name": "read_file", "arguments": '{"path": "a"}'},
        {"type": "function_call_output", "call_id": "c1", "output": "hi"},
        {"role": "user", "content": "and?"}]
    assert body["tools"] == [{"type": "function", "name": "read_file", "description": "Read a file",
                              "parameters": READ_TOOL[0]["function"]["parameters"], "strict": False}]
    assert body["store"] is False and body["stream"] is True and "reasoning" not in body


async def test_reasoning_summary_streams_and_encrypted_reasoning_is_replayed(fake_openai) -> None:
    fake_openai.queue(ToolCallReply(calls=[("read_file", '{"path": "a"}', "c1")]))
    fake_openai.queue(TextReply("Answer.", reasoning="First I look at the file."))
    p = provider(fake_openai, model="gpt-5-fake", reasoning_effort="high")
    first = await collect(p, [Message(role="user", content="x")], READ_TOOL)
    assert tool_calls_of(first)[0]["name"] == "read_file"
    second = await collect(p, [Message(role="user", content="x")])
    assert reasoning_of(second) == "First I look at the file." and text_of(second) == "Answer."
    stored = [c for c in second if isinstance(c, ProviderDataChunk)][0]
    assert stored.provider == "openai-responses"
    item = stored.data["reasoning_items"][0]
    assert item["type"] == "reasoning" and item["encrypted_content"].startswith("enc-")
    fake_openai.queue(TextReply("again"))
    history = [Message(role="user", content="x"),
               Message(role="assistant", content="Answer.", raw={stored.provider: stored.data}),
               Message(role="user", content="more")]
    await collect(p, history)
    await p.close()
    body = fake_openai.requests[-1]
    assert body["input"][1] == item  # replayed before the assistant's text
    assert body["reasoning"] == {"effort": "high", "summary": "auto"}
    assert body["include"] == ["reasoning.encrypted_content"] and "temperature" not in body


async def test_reasoning_is_not_replayed_where_the_capability_says_no(fake_openai) -> None:
    data = {"reasoning_items": [{"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "e"}]}
    history = [Message(role="user", content="x"), Message(role="assistant", content="A", raw={"openai-responses": data}),
               Message(role="user", content="y")]
    for model, overrides in (("gpt-4.1-fake", {}), ("gpt-5-fake", {"reasoning_replay": False})):
        fake_openai.queue(TextReply("ok"))
        p = provider(fake_openai, model=model, capabilities=overrides)
        await collect(p, history)
        await p.close()
        body = fake_openai.requests[-1]
        assert all(item.get("type") != "reasoning" for item in body["input"]) and "include" not in body


async def test_usage_counts_cached_tokens(fake_openai) -> None:
    fake_openai.cache_usage = (800, 120)
    fake_openai.queue(TextReply("cached", usage=(1000, 20)))
    p = provider(fake_openai)
    usage = [c for c in await collect(p) if isinstance(c, UsageChunk)]
    await p.close()
    assert [(u.prompt_tokens, u.completion_tokens, u.total_tokens, u.cache_read_tokens, u.cache_write_tokens)
            for u in usage] == [(1000, 20, 1020, 800, 120)]


async def test_incomplete_response_finishes_with_length(fake_openai) -> None:
    fake_openai.queue(TextReply("cut o", finish_reason="length"))
    p = provider(fake_openai)
    chunks = await collect(p)
    await p.close()
    assert text_of(chunks) == "cut o" and [c.reason for c in chunks if isinstance(c, FinishChunk)] == ["length"]


async def test_failed_response_is_reported_and_rate_limits_retry(fake_openai) -> None:
    fake_openai.queue(TextReply("", fail_with="Too many requests", fail_type="rate_limit_exceeded"),
                      TextReply("later"))
    p = provider(fake_openai)
    notes: list[str] = []
    chunks = [c async for c in stream_with_retry(lambda: p.stream([Message(role="user", content="x")], []),
                                                 notify=notes.append, base_delay=0.0, sleep=no_sleep)]
    assert text_of(chunks) == "later" and len(notes) == 1 and "429" in notes[0]
    fake_openai.queue(TextReply("partial", fail_with="model crashed"))
    with pytest.raises(ProviderError) as info:
        await collect(p)
    await p.close()
    assert info.value.retryable and info.value.status == 500 and "model crashed" in info.value.message


async def test_complete_returns_the_text(fake_openai) -> None:
    fake_openai.queue(TextReply("A short title"))
    p = provider(fake_openai)
    assert await p.complete([Message(role="user", content="name this")], max_tokens=8) == "A short title"
    await p.close()
    assert fake_openai.requests[0]["max_output_tokens"] == 16 and not fake_openai.requests[0].get("stream")


def test_config_and_cli_name_the_provider(tmp_path) -> None:
    from app.cli.entry import build_parser
    from app.settings.config import load_config
    from app.providers.models import ModelRegistry

    path = tmp_path / "config.toml"
    path.write_text('[models.r]\nprovider = "openai-responses"\nmodel = "gpt-5"\n')
    registry = ModelRegistry.from_config(load_config(path), env={"OPENAI_API_KEY": "sk-x"})
    assert isinstance(registry.provider("r"), OpenAIResponsesProvider)
    assert registry.settings("r").api_key == "sk-x"
    args = build_parser().parse_args(["--provider", "openai-responses", "--model", "gpt-5"])
    adhoc = ModelRegistry.from_config(load_config(tmp_path / "none.toml"), provider=args.provider,
                                      model=args.model, env={})
    assert adhoc.settings(adhoc.default).provider == "openai-responses"
