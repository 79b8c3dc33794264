"""A stdio MCP server whose `private_files` tool needs a browser sign-in first (run as a script).

Until the sign-in page has been visited, the tool answers error -32042 (URL elicitation required)
with a link to that page, served by this process on 127.0.0.1. Visiting it (what the user's browser
would do) marks the step done and sends notifications/elicitation/complete (which clients on protocol
2026-07-28 no longer take: they send the request again to find out).
"""

import asyncio

from mcp import UrlElicitationRequiredError
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ElicitRequestURLParams

server = MCPServer("steps")
state = {"calls": 0, "done": set(), "session": None, "port": 0}


async def sign_in_page(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """GET /authorize?id=<elicitation id>: the step is done."""
    request_line = (await reader.readline()).decode()
    while (await reader.readline()).strip():
        pass
    elicitation_id = request_line.split("id=", 1)[-1].split()[0] if "id=" in request_line else ""
    state["done"].add(elicitation_id)
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\nConnection: close\r\n\r\nsigned in")
    await writer.drain()
    writer.close()
    if state["session"] is not None:
        await state["session"].send_elicit_complete(elicitation_id)


@server.tool(description="List the user's private files (needs a sign-in first).")
async def private_files(ctx: Context) -> str:
    state["calls"] += 1
    state["session"] = ctx.session
    if "auth-1" in state["done"]:
        return f"3 private files (call {state['calls']})"
    raise UrlElicitationRequiredError([ElicitRequestURLParams(
        message="Sign in to your file store", url=f"http://127.0.0.1:{state['port']}/authorize?id=auth-1",
        elicitation_id="auth-1")])


async def main() -> None:
    listener = await asyncio.start_server(sign_in_page, "127.0.0.1", 0)
    state["port"] = listener.sockets[0].getsockname()[1]
    async with listener:
        await server.run_stdio_async()


if __name__ == "__main__":
    asyncio.run(main())
