"""The ACP agent's stdio wire: newline-delimited JSON-RPC, answering a line that is not JSON with a parse error.

The SDK's own stdio framing logs and skips such a line, so a client that sent it waits for an answer forever;
JSON-RPC 2.0 says the answer is an error with code -32700 (-32600 for JSON that is not a request object) and id null.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

LINE_LIMIT = 50 * 1024 * 1024  # bytes in one message, as the SDK's default


class StdioWire:
    """An `acp` Transport over the process's stdin/stdout (`receive` returns None at end of input)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader, self._writer = reader, writer
        self._lock = asyncio.Lock()

    async def send(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode("utf-8")
        async with self._lock:
            self._writer.write(data)
            await self._writer.drain()

    async def receive(self) -> dict[str, Any] | None:
        while True:
            try:
                line = await self._reader.readuntil(b"\n")
            except asyncio.IncompleteReadError as partial:
                line = partial.partial
                if not line:
                    return None
            except asyncio.LimitOverrunError:
                await self._discard_line()
                await self._refuse(-32700, "Parse error", "the message is longer than the agent reads")
                continue
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except (ValueError, UnicodeDecodeError) as error:
                await self._refuse(-32700, "Parse error", f"not JSON: {error}")
                continue
            if not isinstance(message, dict):
                await self._refuse(-32600, "Invalid Request", "a JSON-RPC message is an object")
                continue
            return message

    async def _discard_line(self) -> None:
        while True:
            try:
                await self._reader.readuntil(b"\n")
                return
            except asyncio.LimitOverrunError as over:
                await self._reader.readexactly(over.consumed)
            except asyncio.IncompleteReadError:
                return

    async def _refuse(self, code: int, message: str, details: str) -> None:
        await self.send({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message,
                                                                  "data": {"details": details}}})

    async def close(self) -> None:
        self._writer.close()


async def run_agent(agent: Any) -> None:
    """Serve `agent` on stdin/stdout until the client closes stdin (the SDK's run_agent, with this wire)."""
    from acp import AgentSideConnection
    from acp.stdio import stdio_streams

    reader, writer = await stdio_streams(limit=LINE_LIMIT)
    conn = AgentSideConnection(agent, StdioWire(reader, writer), listening=False)
    try:
        await conn.listen()
    finally:
        await asyncio.shield(conn.close())
