"""In-process MCP servers (built with the `mcp` SDK) for the edge cases real servers do not show."""

import asyncio
from typing import Any

import mcp.types as types
from mcp.server import Server
from mcp.server.mcpserver import MCPServer


def basic_server(name: str = "basic") -> Any:
    """echo, add, a slow tool, a hanging tool, a tool that raises, and a tool returning an image."""
    server = MCPServer(name, instructions="A test server.")
    state = {"cancelled": 0, "started": 0}
    server.state = state  # type: ignore[attr-defined]

    @server.tool(description="Echo the text back.")
    def echo(text: str) -> str:
        return text

    @server.tool(description="Add two integers.")
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool(description="Sleep, then answer.")
    async def slow(seconds: float = 0.2) -> str:
        await asyncio.sleep(seconds)
        return f"slept {seconds}"

    @server.tool(description="Never answers.")
    async def hang() -> str:
        state["started"] += 1
        try:
            await asyncio.sleep(3600)
        except BaseException:
            state["cancelled"] += 1
            raise
        return "unreachable"

    @server.tool(description="Always fails.")
    def fail() -> str:
        raise ValueError("the tool broke on purpose")

    @server.tool(description="A tiny image.")
    def picture() -> types.ImageContent:
        return types.ImageContent(type="image", data="iVBORw0KGgo=", mime_type="image/png")

    @server.resource("test://greeting", description="A greeting.")
    def greeting() -> str:
        return "hello from a resource"

    @server.prompt(description="Ask for a review.")
    def review(topic: str) -> str:
        return f"Please review {topic}."

    return server


def invalid_schema_server() -> Any:
    """A low-level server whose tool has a schema that is not valid JSON Schema."""
    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=[
            types.Tool(name="weird", description="Bad schema.",
                       input_schema={"type": "object", "properties": {"x": {"type": "no-such-type"}}}),
            types.Tool(name="ok.tool/with spaces", description="Odd name.", input_schema={"type": "object"}),
        ])

    async def call_tool(ctx: Any, params: Any) -> Any:
        return types.CallToolResult(content=[types.TextContent(type="text", text=f"called {params.name}")])

    return Server("invalid", on_list_tools=list_tools, on_call_tool=call_tool)

