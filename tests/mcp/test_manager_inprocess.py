"""The manager against in-process SDK servers and a crashing stdio script: the edge cases."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import pytest

from app.mcp.breaker import CircuitBreaker
from app.mcp.config import ServerConfig
from app.mcp.features import ClientHooks
from app.mcp.manager import McpManager, McpUnavailable
from tests.mcp.servers import basic_server, invalid_schema_server
from tools.context import ToolContext
from tools.errors import ToolError
from tools.registry import ToolRegistry

HERE = Path(__file__).resolve().parent


def manager(*configs, **kw):
    kw.setdefault("refresh_interval", 0)
    kw.setdefault("workspace", HERE)
    return McpManager(list(configs), **kw)


async def test_start_returns_at_once_and_tools_are_named_and_converted():
    events = []
    m = manager(ServerConfig("basic", inprocess=basic_server()),
                ServerConfig("missing", command="whimbrel-no-such-command-xyz"),
                listener=lambda s, w: events.append((s, w)))
    started = time.perf_counter()
    m.start()
    assert time.perf_counter() - started < 0.05
    assert m.status("basic")[0] == "connecting"
    try:
        await m.wait_ready("basic", 20)
        await m.wait_settled(timeout=20)
        assert m.status("missing") == ("failed", "command not found: whimbrel-no-such-command-xyz")
        specs = {s.name: s for s in m.tool_specs()}
        assert {"mcp__basic__echo", "mcp__basic__add", "read_resource", "use_prompt"} <= set(specs)
        add = specs["mcp__basic__add"]
        assert add.auto_approve is False and add.schema["type"] == "function"
        assert add.schema["function"]["description"] == "Add two integers."
        assert add.parameters["type"] == "object" and set(add.parameters["required"]) == {"a", "b"}
        ctx = ToolContext(workspace=HERE)
        assert await add.implementation({"a": 2, "b": 3}, ctx) == "5"
        with pytest.raises(ToolError, match="Error executing tool fail"):
            await specs["mcp__basic__fail"].implementation({}, ctx)
        text, is_error = await m.call_tool("basic", "picture", {})
        assert text == "[image: image/png, 8 bytes]" and not is_error
        assert "hello from a resource" in await specs["read_resource"].implementation(
            {"server": "basic", "uri": "test://greeting"}, ctx)
        assert "Please review MCP." in await specs["use_prompt"].implementation(
            {"server": "basic", "name": "review", "arguments": {"topic": "MCP"}}, ctx)
        catalog = m.catalog_text()
        assert "[basic] test://greeting" in catalog and "[basic] review(topic*)" in catalog
        assert ("basic", "status") in events and ("missing", "status") in events
        # a failing server never affects the others
        with pytest.raises(McpUnavailable, match="not connected: command not found"):
            await m.call_tool("missing", "x", {})
        assert (await m.call_tool("basic", "echo", {"text": "still fine"}))[0] == "still fine"
    finally:
        await m.stop()


async def test_timeout_cancels_the_request_and_protocol_errors_do_not_trip_the_breaker():
    server = basic_server()
    m = manager(ServerConfig("basic", inprocess=server))
    m.start()
    try:
        await m.wait_ready("basic", 20)
        with pytest.raises(ToolError, match="did not answer tools/call hang within 0.3s; the request was cancelled"):
            await m.call_tool("basic", "hang", {}, timeout=0.3)
        for _ in range(50):
            if server.state["cancelled"]:
                break
            await asyncio.sleep(0.02)
        assert server.state == {"started": 1, "cancelled": 1}  # the server saw the cancellation
        assert m.servers["basic"].breaker.failures == 1
        # protocol errors: an unknown tool and a failing tool are answers, not transport failures
        text, is_error = await m.call_tool("basic", "no_such_tool", {})
        assert is_error
        assert (await m.call_tool("basic", "fail", {}))[1] is True
        assert m.servers["basic"].breaker.failures == 0  # a success closed it again
        assert (await m.call_tool("basic", "slow", {"seconds": 0.05}))[0] == "slept 0.05"
    finally:
        await m.stop()


async def test_three_timeouts_open_the_circuit_then_half_open_recovers():
    breaker = lambda: CircuitBreaker(base_delay=0.3, max_delay=1.0, jitter=0.0)  # noqa: E731
    events = []
    m = manager(ServerConfig("basic", inprocess=basic_server()), breaker=breaker,
                listener=lambda s, w: events.append(m.status(s)[0]) if w == "status" else None)
    m.start()
    try:
        await m.wait_ready("basic", 20)
        for _ in range(3):
            with pytest.raises(ToolError, match="did not answer"):
                await m.call_tool("basic", "hang", {}, timeout=0.1)
        await asyncio.sleep(0.1)
        assert m.status("basic")[0] == "circuit-open"
        with pytest.raises(McpUnavailable, match="circuit breaker is open after 3 failures"):
            await m.call_tool("basic", "echo", {"text": "x"})
        await m.wait_ready("basic", 10, through_retries=True)  # half-open retry after the backoff reconnects
        assert (await m.call_tool("basic", "echo", {"text": "back"}))[0] == "back"
        assert "circuit-open" in events and events[-1] == "ready"
    finally:
        await m.stop()


async def test_invalid_schema_and_odd_names_still_give_usable_tools():
    m = manager(ServerConfig("invalid", inprocess=invalid_schema_server()))
    m.start()
    try:
        state = await m.wait_ready("invalid", 20)
        names = [s.name for s in m.tool_specs()]
        assert names == ["mcp__invalid__weird", "mcp__invalid__ok_tool_with_spaces"]
        assert "invalid" in state.schema_problems["weird"]
        weird = m.tool_specs()[0]
        assert weird.parameters["additionalProperties"] is True
        assert await m.tool_specs()[1].implementation({}, None) == "called ok.tool/with spaces"
    finally:
        await m.stop()


def test_double_underscore_server_is_refused_and_others_load():
    m = manager(ServerConfig("bad__name", inprocess=basic_server()), ServerConfig("ok", inprocess=basic_server()))
    assert list(m.servers) == ["ok"]
    assert "contains '__'" in m.problems[0]


async def test_slow_handshake_does_not_block_others_and_times_out():
    from mcp.server.mcpserver import MCPServer
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def slow_start(server):
        await asyncio.sleep(30)
        yield {}

    slow = MCPServer("slow", lifespan=slow_start)
    m = manager(ServerConfig("slow", inprocess=slow), ServerConfig("basic", inprocess=basic_server()),
                connect_timeout=0.5)
    m.start()
    try:
        await m.wait_ready("basic", 20)
        assert m.status("slow")[0] == "connecting"
        await m.wait_settled(["slow"], timeout=10)
        assert m.status("slow") == ("failed", "handshake timed out (no answer within 0.5s)")
    finally:
        await m.stop()


async def test_crash_mid_call_marks_failed_next_call_fails_cleanly_and_reconnect_restores(tmp_path):
    config = ServerConfig("crashy", command=sys.executable, args=[str(HERE / "crashy_server.py")],
                          env={"DECLARED": "yes"})
    m = manager(config, breaker=lambda: CircuitBreaker(base_delay=30, jitter=0.0))
    m.start()
    try:
        await m.wait_ready("crashy", 30)
        assert (await m.call_tool("crashy", "env", {"name": "DECLARED"}))[0] == "yes"
        assert (await m.call_tool("crashy", "env", {"name": "PYTEST_CURRENT_TEST"}))[0] == "<unset>"
        with pytest.raises(ToolError, match="connection to MCP server 'crashy' was lost"):
            await m.call_tool("crashy", "crash", {})
        for _ in range(100):
            if m.status("crashy")[0] == "failed":
                break
            await asyncio.sleep(0.05)
        status, reason = m.status("crashy")
        assert status == "failed" and reason.startswith("the server process exited with status 3")  # os._exit(3)
        assert m.tool_specs() == ()
        with pytest.raises(McpUnavailable, match="not connected: the server process exited"):
            await m.call_tool("crashy", "ok", {})
        await m.reconnect("crashy")
        await m.wait_ready("crashy", 30)
        assert (await m.call_tool("crashy", "ok", {}))[0] == "fine"
        log = [e.method for e in m.servers["crashy"].logs.protocol]
        assert "tools/call" in log and "tools/list" in log
    finally:
        await m.stop()


async def test_registry_is_rebuilt_copy_on_write_and_keeps_tools_in_use():
    m = manager(ServerConfig("basic", inprocess=basic_server()))
    m.start()
    try:
        await m.wait_ready("basic", 20)
        builtin = ToolRegistry.load_builtin()
        first = m.build_registry(builtin)
        assert first.names()[:len(builtin.names())] == builtin.names()  # built-ins first
        assert "mcp__basic__echo" in first.names() and builtin.get("mcp__basic__echo") is None
        snapshot = m.tool_specs()
        await m.set_enabled("basic", False)
        assert m.tool_specs() == () and snapshot  # the old snapshot is untouched
        second = m.build_registry(first, keep=["mcp__basic__echo"])
        assert "mcp__basic__echo" in second.names() and "mcp__basic__add" not in second.names()
        assert "mcp__basic__echo" in first.names() and "mcp__basic__add" in first.names()
        with pytest.raises(McpUnavailable, match="disabled"):
            await second.get("mcp__basic__echo").implementation({"text": "x"}, None)
    finally:
        await m.stop()


async def test_default_hooks_decline_with_clear_messages():
    from app.mcp.features import ElicitationRequest, SamplingRequest, Declined, SAMPLING_DECLINED

    hooks = ClientHooks()
    with pytest.raises(Declined, match="declined the sampling request"):
        await hooks.sampling(SamplingRequest(server="s", messages=[]))
    with pytest.raises(Declined, match="no interactive frontend"):  # the server is told "decline"
        await hooks.elicitation(ElicitationRequest(server="s", message="?"))
    assert "not approved" in SAMPLING_DECLINED or "has not approved" in SAMPLING_DECLINED
