"""Whom a server's elicitation belongs to: the workstream whose tool call the server is handling."""

from __future__ import annotations

import asyncio
import contextvars
from pathlib import Path
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from pydantic import BaseModel

from app.mcp.callers import CallTracker
from app.mcp.config import ServerConfig
from app.mcp.features import ClientHooks, ElicitationResponse
from app.mcp.manager import McpManager
from tools.context import ToolContext

HERE = Path(__file__).resolve().parent


class Name(BaseModel):
    name: str


def ask_name() -> Elicit[Name]:
    return Elicit("Who are you?", Name)


def asking_server() -> MCPServer:
    """A 2026-07-28 server whose tool needs an answer first (input_required round trip)."""
    server = MCPServer("asker")

    @server.tool(description="Greets whoever answers.")
    async def greet(who: Annotated[Name, Resolve(ask_name)]) -> str:
        return f"hello {who.name}"

    return server


async def test_concurrent_calls_each_get_their_own_workstream():
    seen: list[list[str]] = []

    async def elicit(request):
        seen.append(request.callers)
        await asyncio.sleep(0.05)  # both requests are open at once
        return ElicitationResponse("accept", {"name": request.callers[0]})

    m = McpManager([ServerConfig("asker", inprocess=asking_server())], workspace=HERE, refresh_interval=0,
                   hooks=ClientHooks(elicitation=elicit))
    m.start()
    try:
        state = await m.wait_ready("asker", 20)
        assert state.protocol_version == "2026-07-28"
        greet = next(s for s in m.tool_specs() if s.name == "mcp__asker__greet")
        results = await asyncio.gather(*(greet.implementation({}, ToolContext(workspace=HERE, workstream_id=w))
                                         for w in ("ws-one", "ws-two")))
        assert results == ["hello ws-one", "hello ws-two"]
        assert sorted(seen) == [["ws-one"], ["ws-two"]]  # exact, never both
        assert m.calls.callers("asker") == []  # nothing runs any more
    finally:
        await m.stop()


def test_without_an_exact_caller_the_running_calls_are_candidates_newest_first():
    tracker = CallTracker()
    elsewhere = contextvars.Context()  # a legacy connection's reader task: not inside any call
    with tracker.running("s", "a"):
        assert tracker.callers("s") == ["a"]  # inside the call itself: exact
        with tracker.running("s", "b"), tracker.running("other", "c"):
            assert tracker.callers("other") == ["c"]
            assert elsewhere.run(tracker.callers, "s") == ["b", "a"]
        assert elsewhere.run(tracker.callers, "s") == ["a"]
    assert tracker.callers("s") == [] and elsewhere.run(tracker.callers, "s") == []
