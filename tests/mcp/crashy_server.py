"""A stdio MCP server whose `crash` tool kills the process mid-call (run as a script)."""

import os

from mcp.server.mcpserver import MCPServer

server = MCPServer("crashy")


@server.tool(description="Answer normally.")
def ok() -> str:
    return "fine"


@server.tool(description="Exit the process without answering.")
def crash() -> str:
    os._exit(3)


@server.tool(description="Report an environment variable.")
def env(name: str) -> str:
    return os.environ.get(name, "<unset>")


if __name__ == "__main__":
    server.run("stdio")
