"""tests/hostile/mcp_server.py does what its keywords say, seen through the real MCP client over stdio."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from tests.hostile import mcp_server
from tests.hostile.mcp_server import CLEAR, HOSTILE, RETITLE

HANDSHAKE_SECONDS = 30  # generous on a loaded machine; a working server answers in about a second


def hostile(behaviour: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=[mcp_server.__file__, behaviour])


def running_hostile_servers(behaviour: str) -> list[int]:
    """Pids of hostile servers with this behaviour still running (none may outlive a test)."""
    pids = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            args = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        if mcp_server.__file__.encode() in args and behaviour.encode() in args:
            pids.append(int(cmdline.parent.name))
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
