"""A stdio MCP server whose `nap` tool sleeps for an hour (run as a script): argv[1] is a file it writes its pid to
once the call has started, so a test knows the server is busy in the tool and which process must end."""

import asyncio
import os
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer

server = MCPServer("sleepy")


@server.tool(description="Sleep for an hour.")
async def nap() -> str:
    Path(sys.argv[1]).write_text(str(os.getpid()))
    await asyncio.sleep(3600)
    return "rested"


if __name__ == "__main__":
    server.run("stdio")
