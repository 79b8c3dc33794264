"""MCP servers handed over by the ACP client in session/new and session/load: real servers (mcp-server-time
over stdio, `whimbrel mcp serve --http` with a bearer header) connected for that session, their tools
offered to the model and called through the session's approval."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess

from tests.acp.harness import DEADLINE, RecordingClient, whimbrel_acp
from tests.fake_llm.script import TextReply, ToolCallReply
from tests.mcp.conftest import require, server_path
from tests.mcp.test_serve import WHIMBREL, free_port, until_listening
from tests.subprocesses import stopped_at_exit


def time_server() -> object:
    from acp.schema import McpServerStdio

    return McpServerStdio(name="time", command=require("mcp-server-time"), args=["--local-timezone", "UTC"], env=[])


async def prompt(conn, session_id: str, text: str):
    import acp

    return await asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[acp.text_block(text)]), DEADLINE)


def offered_tools(request: dict) -> set[str]:
    return {tool["function"]["name"] for tool in request.get("tools", [])}


async def test_a_stdio_server_from_session_new_is_offered_and_called(fake_openai, tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    arguments = json.dumps({"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"})
    fake_openai.queue(ToolCallReply([("mcp__time__convert_time", arguments, "t1")]), TextReply("It is 21:00."))
    client = RecordingClient("allow")
    async with whimbrel_acp(client, workspace, fake_openai.base_url, tmp_path / "agent.log") as (conn, _proc):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[time_server()])
        assert (await prompt(conn, session.session_id, "12:00 UTC in Tokyo?")).stop_reason == "end_turn"
    assert {"mcp__time__convert_time", "mcp__time__get_current_time"} <= offered_tools(fake_openai.requests[0])
    [(asked, _options)] = client.permission_requests  # an MCP tool asks, like any MCP tool
    assert asked.tool_call_id == "t1"
    [result] = [m for m in fake_openai.requests[-1]["messages"] if m["role"] == "tool"]
    assert "21:00" in result["content"]


async def test_load_connects_the_servers_it_is_given_and_a_broken_one_is_reported(fake_openai, tmp_path):
    from acp.schema import McpServerStdio

    workspace = tmp_path / "ws"
    workspace.mkdir()
    fake_openai.queue(TextReply("First."), TextReply("Second."))
    client = RecordingClient()
    async with whimbrel_acp(client, workspace, fake_openai.base_url, tmp_path / "agent.log") as (conn, _proc):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await prompt(conn, session.session_id, "one")
    assert not any(name.startswith("mcp__") for name in offered_tools(fake_openai.requests[0]))
    later = RecordingClient()
    broken = McpServerStdio(name="broken one", command=str(tmp_path / "no-such-server"), args=[], env=[])
    async with whimbrel_acp(later, workspace, fake_openai.base_url, tmp_path / "agent.log") as (conn, _proc):
        await conn.load_session(cwd=str(workspace), session_id=session.session_id,
                                mcp_servers=[time_server(), broken])
        await prompt(conn, session.session_id, "two")
    assert "mcp__time__get_current_time" in offered_tools(fake_openai.requests[-1])
    assert "MCP server 'broken_one' from the client is" in (tmp_path / "agent.log").read_text()  # the log says it
    assert later.text() == "First.Second."  # the loaded history, then the answer: only the model's words


async def test_an_http_server_with_the_clients_headers(fake_openai, tmp_path):
    from acp.schema import HttpHeader, HttpMcpServer

    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "served.txt").write_text("served over http\n")
    port, token = free_port(), "acp-test-token"
    env = {"PATH": server_path(), "HOME": os.environ["HOME"], "WHIMBREL_MCP_TOKEN": token}
    server = subprocess.Popen([WHIMBREL, "mcp", "serve", "--http", f"127.0.0.1:{port}",
                               "--workdir", str(workspace)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    with stopped_at_exit(server):
        await until_listening(port, server)
        fake_openai.queue(ToolCallReply([("mcp__files__read_file", json.dumps({"path": "served.txt"}), "h1")]),
                          TextReply("Read it."))
        client = RecordingClient("allow")
        http = HttpMcpServer(type="http", name="files", url=f"http://127.0.0.1:{port}/mcp",
                             headers=[HttpHeader(name="Authorization", value=f"Bearer {token}")])
        async with whimbrel_acp(client, workspace, fake_openai.base_url, tmp_path / "agent.log") as (conn, _proc):
            session = await conn.new_session(cwd=str(workspace), mcp_servers=[http])
            await prompt(conn, session.session_id, "read served.txt over MCP")
    [result] = [m for m in fake_openai.requests[-1]["messages"] if m["role"] == "tool"]
    assert "served over http" in result["content"]
