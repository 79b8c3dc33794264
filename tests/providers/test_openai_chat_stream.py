"""OpenAIChatProvider streaming against the fake server, through the real openai SDK."""

from __future__ import annotations

import json
import subprocess
import sys

from app.vocabulary.messages import Message, ToolCall
from app.providers.base import ContentChunk, FinishChunk, ModelSettings, ToolCallChunk, UsageChunk
from app.providers.openai_chat import OpenAIChatProvider
from tests.fake_llm.script import TextReply, ToolCallReply
from tests.providers.streams import collect, reasoning_of, text_of, tool_calls_of

WRITE_ARGS = json.dumps({"path": "notes/todo.md", "content": "line one\nline two — ünïcode"})
TOOLS = [{"type": "function", "function": {
    "name": "write_file", "description": "Write a file.",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}]


async def test_text_streams_in_order_then_finish_and_usage(fake_openai, provider):
    fake_openai.queue(TextReply("The quick brown fox.", chunk_size=3, usage=(11, 7)))
    chunks = await collect(provider)
    contents = [c.text for c in chunks if isinstance(c, ContentChunk)]
    assert contents == ["The", " qu", "ick", " br", "own", " fo", "x."]
    assert chunks[-2:] == [FinishChunk("stop"), UsageChunk(11, 7, 18)]


async def test_echo_is_the_default_reply(provider):
    chunks = await collect(provider, [Message(role="user", content="ping")])
    assert text_of(chunks) == "You said: ping"


async def test_reasoning_content_arrives_before_the_answer(fake_openai, provider):
    fake_openai.queue(TextReply("42", reasoning="Six times seven."))
    chunks = await collect(provider)
    assert reasoning_of(chunks) == "Six times seven."
    first_content = next(i for i, c in enumerate(chunks) if isinstance(c, ContentChunk) and c.text)
    assert all(not isinstance(c, ContentChunk) or not c.text for c in chunks[:first_content - 1])
    assert text_of(chunks) == "42"


async def test_reasoning_field_named_reasoning_is_read_too(fake_openai, provider):
    fake_openai.queue(TextReply("ok", reasoning="thinking", reasoning_field="reasoning"))
    assert reasoning_of(await collect(provider)) == "thinking"


async def test_split_tool_call_arguments_reassemble_exactly(fake_openai, provider):
    fake_openai.queue(ToolCallReply(calls=[("write_file", WRITE_ARGS, "call_abc")], chunk_size=5))
    chunks = await collect(provider, tools=TOOLS)
    fragments = [c for c in chunks if isinstance(c, ToolCallChunk) and c.arguments]
    assert len(fragments) > 5
    assert tool_calls_of(chunks) == {0: {"id": "call_abc", "name": "write_file",
                                         "arguments": WRITE_ARGS}}
    assert FinishChunk("tool_calls") in chunks


async def test_two_parallel_tool_calls_keep_their_indexes(fake_openai, provider):
    fake_openai.queue(ToolCallReply(text="Doing both.", calls=[
        ("read_file", '{"path": "a.py"}', "call_1"), ("read_file", '{"path": "b.py"}', "call_2")]))
    chunks = await collect(provider, tools=TOOLS)
    assert text_of(chunks) == "Doing both."
    assert tool_calls_of(chunks) == {
        0: {"id": "call_1", "name": "read_file", "arguments": '{"path": "a.py"}'},
        1: {"id": "call_2", "name": "read_file", "arguments": '{"path": "b.py"}'},
    }


async def test_empty_tool_call_id_passes_through(fake_openai, provider):
    fake_openai.queue(ToolCallReply(calls=[("write_file", "{}", "")]))
    calls = tool_calls_of(await collect(provider, tools=TOOLS))
    assert calls[0]["id"] in ("", None)
    assert calls[0]["name"] == "write_file"


async def test_tool_call_deltas_without_index_count_as_index_zero(fake_openai, provider):
    fake_openai.queue(ToolCallReply(calls=[("write_file", WRITE_ARGS, "c1")], omit_index=True))
    calls = tool_calls_of(await collect(provider, tools=TOOLS))
    assert calls == {0: {"id": "c1", "name": "write_file", "arguments": WRITE_ARGS}}


async def test_missing_usage_is_tolerated(fake_openai, provider):
    fake_openai.queue(TextReply("hi", omit_usage=True))
    chunks = await collect(provider)
    assert text_of(chunks) == "hi"
    assert not any(isinstance(c, UsageChunk) for c in chunks)


async def test_request_body_carries_conversation_and_tools(fake_openai, provider):
    conversation = [
        Message(role="system", content="Be brief."),
        Message(role="user", content="Write the todo."),
        Message(role="assistant", content="", reasoning="secret thoughts",
                tool_calls=[ToolCall(id="call_1", name="write_file", arguments=WRITE_ARGS)]),
        Message(role="tool", content="wrote 2 lines", tool_call_id="call_1", name="write_file"),
    ]
    await collect(provider, conversation, TOOLS)
    body = fake_openai.requests[-1]
    assert body["model"] == "fake-model"
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["tools"] == TOOLS
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Write the todo."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "write_file", "arguments": WRITE_ARGS}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "wrote 2 lines"},
    ]
    assert fake_openai.request_headers[-1]["authorization"] == "Bearer not-needed"


async def test_unset_options_are_omitted_and_set_ones_sent(fake_openai):
    bare = OpenAIChatProvider(ModelSettings(model="m", base_url=fake_openai.base_url))
    tuned = OpenAIChatProvider(ModelSettings(model="m", base_url=fake_openai.base_url,
                                             temperature=0.2, max_tokens=99))
    for chat in (bare, tuned):
        await collect(chat)
        await chat.close()
    plain, set_ = fake_openai.requests
    assert not {"tools", "temperature", "max_tokens"} & plain.keys()
    assert (set_["temperature"], set_["max_tokens"]) == (0.2, 99)


async def test_stream_options_rejection_falls_back_once_and_is_remembered(fake_openai, provider):
    fake_openai.reject_stream_options = True
    assert text_of(await collect(provider, [Message(role="user", content="a")])) == "You said: a"
    assert text_of(await collect(provider, [Message(role="user", content="b")])) == "You said: b"
    assert ["stream_options" in body for body in fake_openai.requests] == [True, False, False]


async def test_complete_returns_the_text(fake_openai, provider):
    fake_openai.queue(TextReply("  Fixing the parser  "))
    title = await provider.complete([Message(role="user", content="title this")], max_tokens=12)
    assert title == "Fixing the parser"
    assert fake_openai.requests[-1]["max_tokens"] == 12
    assert not fake_openai.requests[-1].get("stream")


def test_importing_the_provider_does_not_import_openai():
    code = ("import sys, app.providers.openai_chat, app.providers.retry; "
            "print('openai' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
