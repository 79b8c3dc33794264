"""tests/hostile/mcp_server.py does what its keywords say, seen through the real MCP client over stdio."""

from __future__ import annotations

import asyncio
import json
import sys
import unicodedata
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from app.vocabulary.inert import BIDI_CONTROLS
from tests.hostile import mcp_server
from tests.hostile.mcp_server import CLEAR, HOSTILE, RETITLE
from tests.process_leaks import descendants

HANDSHAKE_SECONDS = 30  # generous on a loaded machine; a working server answers in about a second


def hostile(behaviour: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=[mcp_server.__file__, behaviour])


def running_hostile_servers(behaviour: str) -> list[int]:
    """Pids of this test process's hostile servers with this behaviour still running (none may outlive a
    test). Only descendants count (the worker adopts orphans, tests/process_leaks.py): another worker may be
    running the same server for a test of its own."""
    pids = []
    for pid in descendants():
        try:
            args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if mcp_server.__file__.encode() in args and behaviour.encode() in args:
            pids.append(pid)
    return pids


async def test_escapes_fill_names_descriptions_results_and_errors():
    async with asyncio.timeout(HANDSHAKE_SECONDS):
        async with Client(hostile("escapes"), mode="legacy") as client:
            assert client.server_info.name == f"hostile{RETITLE}"
            assert client.instructions == f"Instructions {HOSTILE}"
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert f"evil{CLEAR}name" in tools and tools["shout"].description == f"Description {HOSTILE}"
            result = await client.call_tool("shout", {})
            assert result.content[0].text == f"result {HOSTILE}"
            failed = await client.call_tool("fail", {})
            assert failed.is_error and HOSTILE in failed.content[0].text
            assert running_hostile_servers("escapes")  # found while it runs ...
    assert not running_hostile_servers("escapes")  # ... and gone with the client


async def test_garbage_on_stdout_comes_before_a_working_server():
    async with asyncio.timeout(HANDSHAKE_SECONDS):
        async with Client(hostile("garbage"), mode="legacy") as client:
            result = await client.call_tool("shout", {})
    assert result.content[0].text == f"result {HOSTILE}"


async def test_crash_ends_the_handshake_with_an_error():
    with pytest.raises(Exception):
        async with asyncio.timeout(HANDSHAKE_SECONDS):
            async with Client(hostile("crash"), mode="legacy"):
                pass
    assert not running_hostile_servers("crash")


async def test_hang_never_answers_the_handshake():
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(2):  # the server reads and never writes: any wait ends here
            async with Client(hostile("hang"), mode="legacy"):
                pass
    assert not running_hostile_servers("hang")


def test_the_cli_prints_hostile_names_and_errors_inert(tmp_path):
    """`whimbrel mcp tools/call`: stdout is JSON that parses to the server's real words, with nothing a
    terminal obeys written raw; the error on stderr shows ␛ marks."""
    from tests.mcp.test_cli import whimbrel

    config = tmp_path / "config.toml"
    config.write_text(f'[mcp.servers.hostile]\ncommand = "{sys.executable}"\n'
                      f'args = ["{mcp_server.__file__}", "escapes"]\n')
    tools = whimbrel("tools", "hostile", config=config, cwd=tmp_path)
    assert tools.returncode == 0, tools.stderr
    assert {t["description"] for t in json.loads(tools.stdout)} >= {f"Description {HOSTILE}"}
    failed = whimbrel("call", "hostile", "fail", config=config, cwd=tmp_path)
    assert failed.returncode == 1 and HOSTILE in json.loads(failed.stdout)["text"]
    assert "fail: error ␛[2J␛[H␛]0;PWNED␇" in failed.stderr
    for written in (tools.stdout, failed.stdout, failed.stderr):
        assert not [c for c in written if unicodedata.category(c) == "Cc" and c != "\n" or ord(c) in BIDI_CONTROLS]
