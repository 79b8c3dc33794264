"""Code mode when the tool set changes: a tool tool_search finds, or an MCP server adds,
during a program can be called from that same program; a tool that went away is refused at call
time (the one visibility function decides each call); the next request's API says what changed,
byte-identical for the same tool set."""

from __future__ import annotations

import dataclasses

from mcp.server.mcpserver import Context, MCPServer

from app.engine.code_mode import API_HEADER, code_api
from tests.engine.harness import Recorder
from tests.engine.test_code_mode import code_place, run_code, start, tool_message  # noqa: F401 - a fixture
from tests.fake_llm.script import TextReply
from tests.tools.test_visibility import mcp_spec
from tools.registry import ToolRegistry

FIND_AND_CALL = """
try:
    await tools.wx.forecast(city="Oslo")
except ToolCallError as error:
    print("before:", error)
print((await tools.tool_search(query="weather forecast city")).splitlines()[0])
print("after:", await tools.wx.forecast(city="Oslo"))
"""


def api_part(request: dict) -> str:
    system = request["messages"][0]["content"]
    return system[system.index(API_HEADER):]


def add_deferred_tools(session) -> None:
    for i in range(25):
        session.registry.register(mcp_spec(f"mcp__pad__tool_{i}", f"padding tool {i}"))
    session.registry.register(mcp_spec("mcp__wx__forecast", "Weather forecast for a city", {"city": {"type": "string"}}))


async def test_a_tool_tool_search_finds_is_callable_in_the_same_program_and_in_the_next_api(fake_openai, code_place):
    fake_openai.queue(run_code(FIND_AND_CALL), TextReply("Rain."), TextReply("Still rain."))
    recorder = Recorder()
    app, session = await start(fake_openai, code_place, recorder)
    add_deferred_tools(session)
    before = code_api(session).text
    await session.run_turn("weather in Oslo?")
    after = code_api(session).text
    await session.run_turn("and now?")
    await app.stop()
    first, second, third = (api_part(r) for r in fake_openai.requests)
    assert "class Server_wx" not in first and "async def tool_search" in first
    assert "class Server_wx" in second and "async def forecast(self, *, city: str | None = None)" in second
    assert "mcp__pad__tool_0" not in second and "class Server_pad" not in second  # still deferred
    assert second == third  # the same tool set: byte-identical, so a prompt cache holds
    assert first.endswith(f"```python\n{before}```") and second.endswith(f"```python\n{after}```")
    lines = tool_message(fake_openai, 1)["content"].splitlines()
    assert lines[0].startswith("before: there is no tool tools.wx in this mode")
    assert lines[1].startswith("Found ") and lines[2] == 'after: mcp__wx__forecast ran with {"city": "Oslo"}'


def server_control(session, removed: str):
    """mcp__ctl__drop: stands for an MCP server's tools/list_changed, applied as the app applies it
    (app/tui/mcp/mcp_wiring.py): the session gets a new registry without `removed`."""
    async def run(_args, _ctx) -> str:
        old = session.registry
        fresh = ToolRegistry()
        for name in old.names():
            if name != removed:
                fresh.register(old.get(name))
        session.registry = fresh
        return f"{removed} is gone"

    spec = mcp_spec("mcp__ctl__drop", "Drop a tool")
    return dataclasses.replace(spec, implementation=run, auto_approve=True)


async def test_a_call_is_dispatched_only_if_the_tool_is_visible_when_it_is_made(fake_openai, code_place):
    """A tool bound when the program started but gone by the time it is called is refused inside the
    program; so is a call the program makes on its own channel to a tool it was never shown."""
    program = ("print(await tools.wx.forecast(city='Oslo'))\n"
               "print(await tools.ctl.drop())\n"
               "try:\n    await tools.wx.forecast(city='Oslo')\nexcept ToolCallError as error:\n"
               "    print('gone:', error)\n"
               "try:\n    tools._channel.call('mcp__pad__tool_0', {})\nexcept ToolCallError as error:\n"
               "    print('hidden:', error)\n")
    fake_openai.queue(run_code(program), TextReply("ok"))
    app, session = await start(fake_openai, code_place, Recorder())
    session.tool_scope.search.mode = "off"
    session.registry.register(mcp_spec("mcp__wx__forecast", "Weather forecast", {"city": {"type": "string"}}))
    session.registry.register(server_control(session, "mcp__wx__forecast"))
    session.registry.register(mcp_spec("mcp__pad__tool_0", "a tool this session does not offer"))
    session.tool_scope.hidden = session.tool_scope.hidden | {"mcp__pad__tool_0"}
    assert "class Server_wx" in code_api(session).text and "Server_pad" not in code_api(session).text
    await session.run_turn("go")
    await app.stop()
    lines = tool_message(fake_openai)["content"].splitlines()
    assert lines[:2] == ['mcp__wx__forecast ran with {"city": "Oslo"}', "mcp__wx__forecast is gone"]
    assert lines[2].startswith("gone: Unknown tool 'mcp__wx__forecast'")
    assert lines[3].startswith("hidden: Unknown tool 'mcp__pad__tool_0'")
    assert "Server_wx" not in api_part(fake_openai.requests[-1])


def changing_server():
    """An in-process MCP server whose `unlock` adds `secret`, drops `echo` and says so (list_changed)."""
    server = MCPServer("lab")

    @server.tool(description="Echo the text back.")
    def echo(text: str) -> str:
        return text

    @server.tool(description="Add the secret tool and drop echo.")
    async def unlock(ctx: Context) -> str:
        def secret() -> str:
            return "the secret"

        server.add_tool(secret, description="A tool that appears later.")
        server.remove_tool("echo")
        await ctx.notify_tools_changed()
        return "unlocked"

    return server


LIST_CHANGED_PROGRAM = """
import asyncio
print(await tools.lab.echo(text="first"))
print(await tools.lab.unlock())
for attempt in range(600):  # until Whimbrel has applied the server's tools/list_changed
    try:
        print(await tools.lab.secret())
        break
    except ToolCallError:
        await asyncio.sleep(0.05)
try:
    await tools.lab.echo(text="again")
except ToolCallError as error:
    print("gone:", error)
"""


async def test_an_mcp_servers_list_changed_during_a_program(fake_openai, code_place):
    """A real tools/list_changed from an in-process server, applied by the app's own wiring
    (McpWiring.server_changed): the new tool is callable in the same program, the dropped one is
    refused there, and the next request's API has the one and not the other."""
    from types import SimpleNamespace

    from app.mcp.config import ServerConfig
    from app.mcp.manager import McpManager
    from app.tui.mcp.mcp_wiring import McpWiring

    fake_openai.queue(run_code(LIST_CHANGED_PROGRAM, timeout=60), TextReply("ok"))
    app, session = await start(fake_openai, code_place, Recorder())
    wiring = McpWiring(SimpleNamespace(manager=[SimpleNamespace(session=session)]))  # an App's workstreams
    manager = McpManager([ServerConfig("lab", inprocess=changing_server())], workspace=code_place[0],
                         listener=wiring.server_changed, refresh_interval=0)
    wiring.manager = manager
    manager.start()
    try:
        await manager.wait_ready("lab", 30)
        assert "mcp__lab__echo" in session.registry.names()
        await session.run_turn("go")
    finally:
        await manager.stop()
        await app.stop()
    before, after = api_part(fake_openai.requests[0]), api_part(fake_openai.requests[1])
    assert "async def echo" in before and "async def secret" not in before
    assert "async def secret" in after and "async def echo" not in after
    lines = tool_message(fake_openai)["content"].splitlines()
    assert lines[:3] == ["first", "unlocked", "the secret"]
    assert lines[3].startswith("gone: there is no tool tools.lab.echo")
