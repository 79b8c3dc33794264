"""A stdio MCP server whose one tool has a side effect on disk (run as `python -m tests.security.side_effect_server`):
`touch(path)` creates the file. The corpus uses it to check that a mode that must not run a tool did not."""

from __future__ import annotations

from pathlib import Path

from mcp.server.mcpserver import MCPServer

server = MCPServer("side")


@server.tool(name="touch", description="Create an empty file at path.")
async def touch(path: str) -> str:
    Path(path).touch()
    return f"created {path}"


if __name__ == "__main__":
    server.run()
