"""`whimbrel mcp serve` as a real process: the `mcp` SDK client over stdio and HTTP, Whimbrel's own
MCP client and manager, the read-only default, refusals with reasons, the token, redaction."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from app.mcp.config import ServerConfig
from app.mcp.manager import McpManager
from app.mcp.serve import ToolServer, environment_secrets
from tests.mcp.conftest import VENV_BIN, server_path
from tests.subprocesses import stopped_at_exit
from tools.context import ToolContext
from tools.registry import ToolRegistry

WHIMBREL = str(VENV_BIN / "whimbrel")
READ_ONLY = ["man", "math", "read_file", "search", "web_fetch"]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.md").write_text("the key is in the drawer\n")
    return root


def stdio_params(workspace: Path, *extra: str):
    from mcp import StdioServerParameters

    return StdioServerParameters(command=WHIMBREL, args=["mcp", "serve", "--workdir", str(workspace), *extra],
                                 env={"PATH": server_path(), "HOME": os.environ["HOME"],
                                      "WHIMBREL_DATA_DIR": os.environ["WHIMBREL_DATA_DIR"],
                                      # the code under test (a worktree's) rather than the installed copy
                                      **({"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ
                                         else {})})


async def test_sdk_client_over_stdio_sees_read_only_tools_and_write_is_refused(workspace: Path) -> None:
    from mcp import Client

    async with Client(stdio_params(workspace), read_timeout_seconds=60) as client:
        listed = await client.list_tools()
        assert sorted(t.name for t in listed.tools) == READ_ONLY
        assert all(t.annotations and t.annotations.read_only_hint for t in listed.tools)
        result = await client.call_tool("read_file", {"path": "notes.md"})
        assert not result.is_error and "the key is in the drawer" in result.content[0].text
        result = await client.call_tool("write_file", {"path": "x.txt", "content": "no"})
        assert result.is_error and "Unknown tool 'write_file'" in result.content[0].text
        result = await client.call_tool("math", {"code": "1 + 1"})  # read-only, but it asks in the TUI
        assert result.is_error and "Refused by Whimbrel's permission policy: ask mode: no rule allows math" in \
            result.content[0].text and "--allow math" in result.content[0].text
        result = await client.call_tool("read_file", {"path": "/etc/hostname"})
        assert result.is_error and "path outside the workspace" in result.content[0].text
    assert not (workspace / "x.txt").exists()


async def test_other_tools_only_with_flags_and_still_gated(workspace: Path) -> None:
    from mcp import Client

    async with Client(stdio_params(workspace, "--tools", "write_file"), read_timeout_seconds=60) as client:
        result = await client.call_tool("write_file", {"path": "x.txt", "content": "no"})
        assert result.is_error and "no rule allows write_file; nobody is here to approve it over MCP" in \
            result.content[0].text
    assert not (workspace / "x.txt").exists()
    async with Client(stdio_params(workspace, "--tools", "write_file", "--allow", "write_file,math"),
                      read_timeout_seconds=60) as client:
        result = await client.call_tool("write_file", {"path": "x.txt", "content": "yes\n"})
        assert not result.is_error, result.content[0].text
        result = await client.call_tool("math", {"code": "6 * 7"})
        assert (result.content[0].text, result.is_error) == ("42", False)
    assert (workspace / "x.txt").read_text() == "yes\n"


def test_whimbrels_own_cli_lists_and_refuses(workspace: Path) -> None:
    """Acceptance 4: `whimbrel mcp tools "stdio:whimbrel mcp serve"`; write_file through it is refused."""
    env = {**os.environ, "PATH": server_path()}
    listed = subprocess.run([WHIMBREL, "mcp", "tools", "stdio:whimbrel mcp serve"], cwd=workspace, env=env,
                            capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr
    assert [t["name"] for t in json.loads(listed.stdout)] == READ_ONLY
    called = subprocess.run([WHIMBREL, "mcp", "call", "stdio:whimbrel mcp serve", "write_file", "path=x.txt",
                             "content=hi"], cwd=workspace, env=env, capture_output=True, text=True, timeout=120)
    assert called.returncode == 1 and "write_file" in called.stderr and not (workspace / "x.txt").exists()


async def test_a_workstream_whose_mcp_server_is_another_whimbrel(workspace: Path) -> None:
    manager = McpManager([ServerConfig("peer", command=WHIMBREL, args=["mcp", "serve", "--workdir", str(workspace)],
                                       env={"PATH": server_path(), "HOME": os.environ["HOME"],
                                            "WHIMBREL_DATA_DIR": os.environ["WHIMBREL_DATA_DIR"]})],
                          refresh_interval=0, workspace=workspace)
    manager.start()
    try:
        await manager.wait_ready("peer", 60)
        specs = {s.name: s for s in manager.tool_specs()}
        assert sorted(specs) == [f"mcp__peer__{n}" for n in READ_ONLY]
        text = await specs["mcp__peer__search"].implementation({"pattern": "drawer"}, ToolContext(workspace=workspace))
        assert "notes.md" in text
    finally:
        await manager.stop()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def until_listening(port: int, proc: subprocess.Popen, timeout: float = 60.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else "server exited"
        try:
            _reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return
        except OSError:
            if asyncio.get_running_loop().time() > deadline:
                pytest.fail(f"whimbrel mcp serve --http did not listen on {port} within {timeout:g} s")
            await asyncio.sleep(0.1)


async def test_http_needs_the_bearer_token_and_redacts_secrets(workspace: Path) -> None:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    port, token, secret = free_port(), "t0ken-for-the-test", "sk-live-1234567890abcdef"
    (workspace / ".env").write_text(f"OPENAI_API_KEY={secret}\n")
    env = {"PATH": server_path(), "HOME": os.environ["HOME"], "WHIMBREL_MCP_TOKEN": token, "OPENAI_API_KEY": secret,
           "WHIMBREL_DATA_DIR": os.environ["WHIMBREL_DATA_DIR"]}
    proc = subprocess.Popen([WHIMBREL, "mcp", "serve", "--http", f"127.0.0.1:{port}", "--workdir", str(workspace),
                             "--allow", "read(.env)"],  # a secret file is read only where a rule says so
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    with stopped_at_exit(proc):
        await until_listening(port, proc)
        url = f"http://127.0.0.1:{port}/mcp"
        async with httpx2.AsyncClient() as plain:
            response = await plain.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
            assert response.status_code == 401
            wrong = await plain.post(url, json={}, headers={"Authorization": "Bearer nope"})
            assert wrong.status_code == 401
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http:
            async with Client(streamable_http_client(url, http_client=http), read_timeout_seconds=60) as client:
                assert sorted(t.name for t in (await client.list_tools()).tools) == READ_ONLY
                result = await client.call_tool("read_file", {"path": ".env"})
                text = result.content[0].text
                assert not result.is_error and "OPENAI_API_KEY=[redacted]" in text and secret not in text


async def test_tool_server_redacts_its_token_and_credential_env(workspace: Path) -> None:
    (workspace / "leak.txt").write_text("token=abcdef123456 and pw hunter2hunter2\n")
    secrets = environment_secrets({"DB_PASSWORD": "hunter2hunter2", "HOME": "/home/x"}) + ["abcdef123456"]
    server = ToolServer(ToolRegistry.load_builtin(), workspace, secrets=secrets)
    text, is_error = await server.call("read_file", {"path": "leak.txt"})
    assert not is_error and "hunter2" not in text and "abcdef123456" not in text and text.count("[redacted]") == 2


def test_unknown_tool_names_in_flags_are_a_usage_error(workspace: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "app.cli", "mcp", "serve", "--tools", "nope"], cwd=workspace,
                            capture_output=True, text=True, timeout=60,
                            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert result.returncode == 2 and "unknown tool(s): nope" in result.stderr


async def test_http_401_says_a_static_token_is_expected_and_streams_prime_a_reconnect(workspace: Path) -> None:
    """What an MCP client reads from a 401 (parsed with the SDK's own helpers), the RFC 9728 metadata it finds,
    and the SSE priming event with `retry:` that opens a stream (2025-11-25)."""
    import httpx2
    from mcp.client.auth.utils import extract_field_from_www_auth, extract_resource_metadata_from_www_auth

    port, token = free_port(), "t0ken-for-the-test"
    env = {"PATH": server_path(), "HOME": os.environ["HOME"], "WHIMBREL_MCP_TOKEN": token,
           "WHIMBREL_DATA_DIR": os.environ["WHIMBREL_DATA_DIR"], "PYTHONPATH": str(Path(__file__).parents[2])}
    proc = subprocess.Popen([sys.executable, "-m", "app.cli", "mcp", "serve", "--http", f"127.0.0.1:{port}",
                             "--workdir", str(workspace)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    with stopped_at_exit(proc):
        await until_listening(port, proc)
        url = f"http://127.0.0.1:{port}/mcp"
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
        accept = {"Accept": "application/json, text/event-stream"}
        async with httpx2.AsyncClient(timeout=60) as http:
            refused = await http.post(url, json=initialize, headers=accept)
            assert refused.status_code == 401
            assert extract_field_from_www_auth(refused, "error") == "invalid_token"
            assert "static bearer token" in extract_field_from_www_auth(refused, "error_description")
            metadata_url = extract_resource_metadata_from_www_auth(refused)
            metadata = (await http.get(metadata_url)).json()
            assert metadata["resource"] == url and metadata["bearer_methods_supported"] == ["header"]
            assert "authorization_servers" not in metadata  # nothing to sign in with
            wrong = await http.post(url, json=initialize, headers={**accept, "Authorization": "Bearer nope"})
            assert wrong.status_code == 401 and "not this server's" in wrong.headers["www-authenticate"]
            async with http.stream("POST", url, json=initialize,
                                   headers={**accept, "Authorization": f"Bearer {token}"}) as answer:
                assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/event-stream")
                first = ""
                async for chunk in answer.aiter_text():
                    first += chunk.replace("\r\n", "\n")
                    if "\n\n" in first:
                        break
        priming = dict(line.split(": ", 1) if ": " in line else (line.rstrip(":"), "")
                       for line in first.split("\n\n")[0].splitlines())
        assert priming.get("id") and priming.get("retry") == "1000" and priming.get("data", "") == ""
