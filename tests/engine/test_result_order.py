"""Parallel tool calls finish in any order; their results go back to the model in the order of the calls."""

from __future__ import annotations

import json

from app.vocabulary.messages import Message, ToolCall, messages_for_model
from tests.engine.harness import Recorder, make_session, shutdown
from tests.fake_llm.script import TextReply, ToolCallReply


def test_results_stored_as_they_finished_are_sent_in_call_order():
    calls = [ToolCall("a", "bash", "{}"), ToolCall("b", "bash", "{}"), ToolCall("c", "bash", "{}")]
    stored = [Message("user", "go"), Message("assistant", "", tool_calls=calls),
              Message("tool", "C", tool_call_id="c"), Message("tool", "A", tool_call_id="a"),
              Message("tool", "B", tool_call_id="b"), Message("assistant", "done")]
    sent = messages_for_model(stored)
    assert [m.content for m in sent] == ["go", "", "A", "B", "C", "done"]


async def test_a_call_that_finishes_second_is_still_sent_first(fake_openai, tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    # waits for the second call's flag: 30,000 short sleeps (3,000 ran out once on a loaded machine)
    slow = "for i in $(seq 30000); do [ -e flag ] && break; sleep 0.01; done; echo first-call"
    fast = "touch flag; echo second-call"
    fake_openai.queue(ToolCallReply([("bash", json.dumps({"command": slow}), "c1"),
                                     ("bash", json.dumps({"command": fast}), "c2")]), TextReply("ok"))
    recorder = Recorder()
    session, store = await make_session(fake_openai, workspace, tmp_path / "data", recorder)
    await session.run_turn("run both")
    stored = [m.tool_call_id for m in session.messages if m.role == "tool"]
    assert stored == ["c2", "c1"]  # the second finished first, and is kept that way
    sent = [(m["tool_call_id"], m["content"]) for m in fake_openai.requests[1]["messages"] if m["role"] == "tool"]
    assert [call_id for call_id, _ in sent] == ["c1", "c2"]
    assert "first-call" in sent[0][1] and "second-call" in sent[1][1]
    await shutdown(session, store)
