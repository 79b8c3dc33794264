"""A stdio MCP server that will not stop when asked: it ignores SIGTERM and keeps running after its
stdin closes (run as a script). Only SIGKILL ends it, so a client's shutdown has to escalate."""

import signal
import time

from mcp.server.mcpserver import MCPServer

server = MCPServer("stubborn")


@server.tool(description="Answer normally.")
def ok() -> str:
    return "fine"


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    server.run("stdio")
    while True:  # stdin is closed: a well-behaved server would exit here
        time.sleep(60)
