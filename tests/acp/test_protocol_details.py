"""What an editor sees of `whimbrel acp` beyond the turn itself, through the ACP SDK's client: tool calls with their
kind, locations and diff; notices kept out of the answer; one `failed` per refused call; version negotiation,
authentication and malformed input answered as the protocol says."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

import pytest

from tests.acp.harness import AGENT_ENV_KEYS, DEADLINE, RecordingClient, whimbrel_acp
from tests.acp.test_agent import prompt, workspace  # noqa: F401  (the fixture)
from tests.fake_llm.script import ErrorReply, TextReply, ToolCallReply
from tests.subprocesses import stopped_at_exit


def call(name: str, call_id: str, **arguments) -> ToolCallReply:
    return ToolCallReply([(name, json.dumps(arguments), call_id)])


def updates_of(client: RecordingClient, call_id: str) -> list:
    return [u for u in client.of_kind("tool_call_update") if u.tool_call_id == call_id]


async def test_reads_and_edits_carry_their_kind_locations_and_diff(fake_openai, workspace, tmp_path):
    (workspace / "notes.txt").write_text("one\ntwo\n")
    fake_openai.queue(call("read_file", "r1", path="notes.txt"), call("search", "s1", pattern="two"),
                      call("edit_file", "e1", path="notes.txt", old_string="two", new_string="TWO"),
                      call("write_file", "w1", path="sub/new.txt", content="fresh\n"), TextReply("Done."))
    client = RecordingClient("allow")
    async with whimbrel_acp(client, workspace, fake_openai.base_url, tmp_path / "agent.log") as (conn, _proc):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        assert (await prompt(conn, session.session_id, "edit notes")).stop_reason == "end_turn"
    notes, new = str((workspace / "notes.txt").resolve()), str((workspace / "sub" / "new.txt").resolve())
    assert (workspace / "notes.txt").read_text() == "one\nTWO\n"
    starts = {u.tool_call_id: u for u in client.of_kind("tool_call")}
    assert {i: s.kind for i, s in starts.items()} == {"r1": "read", "s1": "search", "e1": "edit", "w1": "edit"}
    assert [loc.path for loc in starts["r1"].locations] == [notes]
    assert [loc.path for loc in starts["s1"].locations] == [str(workspace.resolve())]
    assert starts["r1"].content is None  # a read changes nothing: no diff
    [edit] = starts["e1"].content
    assert (edit.type, edit.path, edit.old_text, edit.new_text) == ("diff", notes, "one\ntwo\n", "one\nTWO\n")
    [write] = starts["w1"].content
    assert (write.type, write.path, write.old_text, write.new_text) == ("diff", new, None, "fresh\n")
    asked = {tool_call.tool_call_id: tool_call for tool_call, _options in client.permission_requests}
    assert asked["e1"].content[0].new_text == "one\nTWO\n" and asked["e1"].locations[0].path == notes
    done = updates_of(client, "e1")[-1]
    assert done.status == "completed" and done.content[0].type == "diff" and done.content[0].path == notes


async def test_notices_stay_out_of_the_answer_and_a_refusal_fails_once(fake_openai, workspace, tmp_path):
    import acp

    fake_openai.queue(ErrorReply(503, "busy now", headers={"Retry-After": "0"}), TextReply("Fine after a retry."),
                      call("write_file", "w1", path="x.txt", content="no\n"), TextReply("Understood."),
                      TextReply("slow " * 2000, chunk_size=5, delay=0.05),
                      ErrorReply(400, "the model refused this request"))
    client = RecordingClient("reject")
    async with whimbrel_acp(client, workspace, fake_openai.base_url, tmp_path / "agent.log") as (conn, _proc):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        assert (await prompt(conn, session.session_id, "hello")).stop_reason == "end_turn"
        assert (await prompt(conn, session.session_id, "write x")).stop_reason == "end_turn"
        running = asyncio.ensure_future(prompt(conn, session.session_id, "a long one"))
        await client.until(lambda: "slow" in client.text(), "the slow reply to stream")
        await conn.cancel(session_id=session.session_id)
        assert (await asyncio.wait_for(running, DEADLINE)).stop_reason == "cancelled"
        with pytest.raises(acp.RequestError) as failed:
            await prompt(conn, session.session_id, "again")
    assert "the model refused this request" in json.dumps(failed.value.data)
    answer = client.text()
    assert answer.startswith("Fine after a retry.Understood.slow") and set(answer[30:].split()) == {"slow"}
    assert [u.status for u in updates_of(client, "w1")] == ["failed"] and not (workspace / "x.txt").exists()
    log = (tmp_path / "agent.log").read_text()
    assert "Turn cancelled" in log and "retrying" in log  # told in the agent's log instead


async def test_version_negotiation_and_authentication(fake_openai, workspace, tmp_path):
    import acp

    client = RecordingClient()
    async with whimbrel_acp(client, workspace, fake_openai.base_url, tmp_path / "agent.log") as (conn, _proc):
        answer = await asyncio.wait_for(conn.initialize(protocol_version=0), DEADLINE)
        assert answer.protocol_version == acp.PROTOCOL_VERSION and not answer.auth_methods
        with pytest.raises(acp.RequestError) as refused:
            await conn.authenticate(method_id="password")
        assert refused.value.code in (-32601, -32602)


def test_a_malformed_line_gets_a_parse_error_and_the_connection_goes_on(tmp_path, fake_openai):
    env = {key: os.environ[key] for key in AGENT_ENV_KEYS if key in os.environ}
    proc = subprocess.Popen([sys.executable, "-m", "app.cli", "acp", "--model", "fake-model", "--base-url",
                             fake_openai.base_url, "--api-key", "x"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=(tmp_path / "agent.log").open("wb"), env=env, cwd=tmp_path)
    with stopped_at_exit(proc):
        proc.stdin.write(b'{"jsonrpc": "2.0", "id": 1, "method": \n[1, 2]\n'
                         b'{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1}}\n')
        proc.stdin.flush()
        answers = [json.loads(proc.stdout.readline()) for _ in range(3)]
        proc.stdin.close()
        assert proc.wait(DEADLINE) == 0
    assert answers[0] == {"jsonrpc": "2.0", "id": None, "error": answers[0]["error"]}
    assert answers[0]["error"]["code"] == -32700 and answers[1]["error"]["code"] == -32600
    assert answers[2]["id"] == 2 and answers[2]["result"]["protocolVersion"] == 1


async def test_a_config_warning_goes_to_the_log_not_into_the_answer(fake_openai, workspace, tmp_path):
    """A rule of config.toml that cannot be read is a warning for the user: the agent's log (its stderr, which
    editors keep) says it; no agent_message_chunk carries it, so the answer is only the model's words."""
    config = tmp_path / "config.toml"
    config.write_text('[policy]\nallow = [42]\n')
    fake_openai.queue(TextReply("Hello."), TextReply("Again."))
    client = RecordingClient("allow")
    log = tmp_path / "agent.log"
    async with whimbrel_acp(client, workspace, fake_openai.base_url, log, "--config", str(config)) as (conn, _proc):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        assert (await prompt(conn, session.session_id, "hi")).stop_reason == "end_turn"
        assert (await prompt(conn, session.session_id, "hi again")).stop_reason == "end_turn"
    told = "a rule must be a string"
    assert told in log.read_text() and session.session_id in log.read_text()
    assert client.text() == "Hello.Again."
    assert not [u for u in client.updates if told in json.dumps(u.model_dump(mode="json"))]
