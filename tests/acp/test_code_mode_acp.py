"""Code mode in `whimbrel acp`: --tools-mode applies; a program's calls are judged one by one
like native calls (what would ask goes to the client), and each is a tool call of its own."""

from __future__ import annotations

from tests.acp.harness import RecordingClient, whimbrel_acp
from tests.acp.test_agent import prompt
from tests.engine.test_code_mode import run_code
from tests.fake_llm.script import TextReply
from tests.headless.test_run import workspace  # noqa: F401 - a fixture: a workspace with notes.md

PROGRAM = ("text = await tools.read_file(path='notes.md')\n"
           "try:\n    await tools.write_file(path='x.txt', content=text.split()[-1])\n    print('wrote x.txt')\n"
           "except ToolCallError as error:\n    print('refused:', error)\n")


async def test_a_programs_write_asks_the_client_and_each_call_is_a_tool_call(fake_openai, workspace, tmp_path):
    fake_openai.queue(run_code(PROGRAM), TextReply("Done."))
    client = RecordingClient("allow")
    async with whimbrel_acp(client, workspace, fake_openai.base_url, tmp_path / "agent.log",
                            "--tools-mode", "code") as (conn, _proc):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        assert (await prompt(conn, session.session_id, "copy the last word")).stop_reason == "end_turn"
    assert [t["function"]["name"] for t in fake_openai.requests[0]["tools"]] == ["run_code"]
    assert (workspace / "x.txt").read_text() == "hello"
    [(asked, _options)] = client.permission_requests  # the read ran unasked, like a native read
    assert asked.tool_call_id == "rc1:code:2" and asked.title.startswith("from code · write_file")
    assert asked.kind == "edit" and asked.raw_input == {"path": "x.txt", "content": "hello"}
    assert [u.tool_call_id for u in client.of_kind("tool_call")] == ["rc1", "rc1:code:1", "rc1:code:2"]
    told = [m for m in fake_openai.requests[-1]["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in told] == ["wrote x.txt"]


async def test_plan_mode_refuses_a_programs_write_inside_the_program(fake_openai, workspace, tmp_path):
    fake_openai.queue(run_code(PROGRAM), TextReply("It was refused."))
    client = RecordingClient("allow")
    async with whimbrel_acp(client, workspace, fake_openai.base_url, tmp_path / "agent.log",
                            "--tools-mode", "code", "--mode", "plan") as (conn, _proc):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await prompt(conn, session.session_id, "copy the last word")
    assert not (workspace / "x.txt").exists() and client.permission_requests == []
    told = [m for m in fake_openai.requests[-1]["messages"] if m["role"] == "tool"]
    assert told[0]["content"].startswith("refused: Whimbrel's permission policy refused this call: plan mode")
    assert "plan" in told[0]["content"]
    failed = [u for u in client.of_kind("tool_call_update") if u.tool_call_id == "rc1:code:2"]
    assert failed[-1].status == "failed"
