"""Through the real turn loop: the tools sent to the model are exactly those a call may use."""

from __future__ import annotations

import json

from app.engine import events as ev
from tests.engine.harness import Recorder, make_session, shutdown
from tests.fake_llm.script import TextReply, ToolCallReply
from tools.visibility import ToolScope


async def test_a_tool_the_model_was_not_shown_is_refused(fake_openai, tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    args = json.dumps({"path": "pwned.txt", "content": "x"})
    fake_openai.queue(ToolCallReply([("write_file", args, "call_1")]), TextReply("ok"))
    recorder = Recorder()
    session, store = await make_session(fake_openai, workspace, tmp_path, recorder)
    session.tool_scope = ToolScope(allowed=frozenset({"read_file", "search"}))
    await session.run_turn("write something")
    sent = [t["function"]["name"] for t in fake_openai.requests[0]["tools"]]
    assert sent == ["read_file", "search"]
    result = recorder.of(ev.ToolResultReady)[0]
    assert result.is_error and "Unknown tool 'write_file'" in result.output
    assert not (workspace / "pwned.txt").exists()
    assert not recorder.approvals  # refused before the approval step: nothing to approve
    await shutdown(session, store)
