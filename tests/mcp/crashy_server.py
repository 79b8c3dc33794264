"""A stdio MCP server whose `crash` tool kills the process mid-call (run as a script).

`--delay SECONDS` makes the handshake slow: the process waits that long before it reads stdin.
"""

import os
import sys
import time

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
    if "--delay" in sys.argv:
        time.sleep(float(sys.argv[sys.argv.index("--delay") + 1]))
    server.run("stdio")
