"""Opening the transport to one MCP server: stdio, streamable HTTP, SSE or an in-process server.

Every transport is wrapped so the protocol log sees each JSON-RPC message and the manager learns
when the stream ends. SDK modules are imported here, on the connect path only.
"""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path
from typing import Any, Callable

from app.mcp.config import stdio_environment
from app.mcp.protocol_log import LoggedTransport, ServerLogs
from app.mcp.server_state import ServerState
from app.mcp.stdio_exit import wrapped_command


def open_transport(state: ServerState, stack: contextlib.AsyncExitStack, *, workspace: Path,
                   protocol_log: bool = True, auth: Any = None) -> Any:
    """The `server` argument for the SDK Client: a (logged) transport or an in-process server.

    `auth` (an `httpx2.Auth`, see app/mcp/oauth) signs the requests of an http/sse server.
    """
    config = state.config
    if config.inprocess is not None:
        return config.inprocess
    on_eof = state._closed.set
    if config.transport == "stdio" and state.prespawned is not None:  # started already; its stderr is kept
        from app.mcp.prespawn import prespawned_stdio

        process, state.prespawned = state.prespawned, None
        inner = prespawned_stdio(process)
    elif config.transport == "stdio":
        from mcp.client.stdio import StdioServerParameters
        from mcp.client.stdio import stdio_client

        if state.stderr is None:
            state.stderr = tempfile.TemporaryFile()
        else:
            state.stderr.seek(0)
            state.stderr.truncate()
        cwd = Path(config.cwd).expanduser() if config.cwd else workspace
        if not cwd.is_absolute():
            cwd = workspace / cwd
        env = stdio_environment(config)
        command, args = wrapped_command(config.command or "", list(config.args), env.get("PATH"))
        params = StdioServerParameters(command=command, args=args, env=env, cwd=str(cwd))
        inner = stdio_client(params, errlog=state.stderr)
    elif config.transport == "sse":
        from mcp.client.sse import sse_client

        inner = sse_client(config.url or "", headers=dict(config.headers) or None, auth=auth)
    else:
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        http = create_mcp_http_client(headers=dict(config.headers) or None, auth=auth)
        stack.push_async_callback(http.aclose)
        inner = streamable_http_client(config.url or "", http_client=http)
    if not protocol_log:
        return _EofTransport(inner, on_eof)
    return LoggedTransport(inner, state.logs, on_eof)


class _EofTransport:
    """A transport wrapper that only reports end-of-stream (protocol log off)."""

    def __init__(self, inner: Any, on_eof: Callable[[], None]) -> None:
        self._logged = LoggedTransport(inner, ServerLogs(enabled=False), on_eof)

    async def __aenter__(self) -> Any:
        return await self._logged.__aenter__()

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._logged.__aexit__(*exc)
