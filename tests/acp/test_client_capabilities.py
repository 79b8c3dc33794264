"""`whimbrel acp` with a client that offers its file system and terminals: reads, writes and commands go
through the client (after Whimbrel's own approval), and nothing touches the agent's disk or processes."""

from __future__ import annotations

import asyncio
import json

from tests.acp.device_client import SIDE_VARIABLE, DeviceClient
from tests.acp.harness import DEADLINE, whimbrel_acp
from tests.fake_llm.script import TextReply, ToolCallReply


def call(name: str, call_id: str, **arguments) -> ToolCallReply:
    return ToolCallReply([(name, json.dumps(arguments), call_id)])


async def prompt(conn, session_id: str, text: str):
    import acp

    return await asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[acp.text_block(text)]), DEADLINE)


def tool_results(fake_openai) -> dict[str, str]:
    return {m["tool_call_id"]: m["content"] for m in fake_openai.requests[-1]["messages"] if m["role"] == "tool"}


async def test_reads_writes_and_edits_go_through_the_clients_file_system(fake_openai, tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    buffer = str(workspace / "notes.md")
    fake_openai.queue(call("read_file", "r1", path="notes.md"),
                      call("edit_file", "e1", path="notes.md", old_string="draft", new_string="final"),
                      call("write_file", "w1", path="out/x.txt", content="made by the model\n"),
                      TextReply("Done."))
    client = DeviceClient("allow", files={buffer: "a draft in the editor\n"})
    try:
        async with whimbrel_acp(client, workspace, fake_openai.base_url, tmp_path / "agent.log",
                                capabilities=DeviceClient.capabilities()) as (conn, _proc):
            session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
            assert (await prompt(conn, session.session_id, "tidy the notes")).stop_reason == "end_turn"
    finally:
        await client.aclose()
    results = tool_results(fake_openai)
    assert "a draft in the editor" in results["r1"]  # the editor's buffer, not a file on disk
    assert results["e1"].startswith("Edited notes.md") and results["w1"].startswith("Created out/x.txt")
    assert client.files[buffer] == "a final in the editor\n"
    assert client.files[str(workspace / "out" / "x.txt")] == "made by the model\n"
    assert list(workspace.iterdir()) == []  # nothing was written to the agent's disk
    # Whimbrel's own approval came first: the edit and the write asked the client, the read did not
    assert [request[0].tool_call_id for request in client.permission_requests] == ["e1", "w1"]


async def test_commands_run_in_the_clients_terminal_and_its_output_is_the_result(fake_openai, tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    fake_openai.queue(call("bash", "b1", command="echo ran on the ${" + SIDE_VARIABLE + "} side; pwd"),
                      call("bash", "b2", command="echo failing; exit 3"), TextReply("Ran them."))
    client = DeviceClient("allow")
    try:
        async with whimbrel_acp(client, workspace, fake_openai.base_url, tmp_path / "agent.log",
                                capabilities=DeviceClient.capabilities(fs=False)) as (conn, _proc):
            session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
            assert (await prompt(conn, session.session_id, "run it")).stop_reason == "end_turn"
    finally:
        await client.aclose()
    results = tool_results(fake_openai)
    assert results["b1"] == f"ran on the client side\n{workspace}\n[exit code 0]"
    assert "failing\n[exit code 3]" in results["b2"]
    assert [(command, args[0], cwd) for command, args, cwd in client.commands] == \
        [("bash", "-c", str(workspace))] * 2
    assert client.released == ["t1", "t2"]  # every terminal given back
    terminal_shown = [u for u in client.of_kind("tool_call_update")
                      if any(getattr(c, "type", "") == "terminal" for c in u.content or [])]
    assert [u.tool_call_id for u in terminal_shown] == ["b1", "b2"]


async def test_a_refused_call_never_reaches_the_client_and_outside_paths_still_ask(fake_openai, tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    fake_openai.queue(call("bash", "b1", command="touch should-not-exist"),
                      call("read_file", "r1", path=str(tmp_path / "secret.txt")), TextReply("Understood."))
    client = DeviceClient("reject", files={str(tmp_path / "secret.txt"): "secret\n"})
    try:
        async with whimbrel_acp(client, workspace, fake_openai.base_url, tmp_path / "agent.log",
                                capabilities=DeviceClient.capabilities()) as (conn, _proc):
            session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
            await prompt(conn, session.session_id, "try")
    finally:
        await client.aclose()
    assert client.commands == [] and client.reads == []
    assert [request[0].tool_call_id for request in client.permission_requests] == ["b1", "r1"]
    assert all("denied" in text for text in tool_results(fake_openai).values())


async def test_cancel_kills_and_releases_the_clients_terminal(fake_openai, tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    fake_openai.queue(call("bash", "b1", command="echo started; sleep 120"))
    client = DeviceClient("allow")
    try:
        async with whimbrel_acp(client, workspace, fake_openai.base_url, tmp_path / "agent.log",
                                capabilities=DeviceClient.capabilities(fs=False)) as (conn, _proc):
            session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
            running = asyncio.ensure_future(prompt(conn, session.session_id, "run it"))
            await client.until(lambda: b"started" in b"".join(bytes(t.output) for t in client.terminals.values()),
                               "the command to start in the client's terminal")
            [terminal] = client.terminals.values()
            await conn.cancel(session_id=session.session_id)
            assert (await asyncio.wait_for(running, DEADLINE)).stop_reason == "cancelled"
            await client.until(lambda: client.released == ["t1"], "the terminal to be released")
    finally:
        await client.aclose()
    assert terminal.process.returncode is not None  # killed, not left running
