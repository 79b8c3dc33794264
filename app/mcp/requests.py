"""Requests to a connected server (tools/call, resources/read, prompts/get, ping) with timeouts.

Failures become `McpCallError`/`McpUnavailable` with words for the user or the model; transport
failures (timeouts) feed the server's circuit breaker, protocol errors from a healthy server do
not. A mixin of `McpManager`.
"""

from __future__ import annotations

import asyncio
import functools
import json
import time
from typing import Any, Awaitable, Callable

from app.mcp import convert
from app.mcp.server_state import (
    AUTHORIZING, CIRCUIT_OPEN, CONNECTING, DISABLED, READY, McpCallError, McpUnavailable, ServerState, describe_error,
)
from app.mcp.url_elicitation import (
    URL_ELICITATION_REQUIRED, BrowserStepFailed, UrlElicitationNeeded, serve_after_browser_steps,
)


@functools.cache
def _sdk_errors() -> tuple[type[Exception], int, int]:
    """The SDK's error class and codes, imported on first use (not at startup) and then kept."""
    from mcp.shared.exceptions import MCPError
    from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

    return MCPError, CONNECTION_CLOSED, REQUEST_TIMEOUT


def _forward_progress(on_progress: Callable[[float, float | None, str | None], None]) -> Callable[..., Any]:
    """The SDK's async progress callback, handing each update to a plain function."""
    async def progress(value: float, total: float | None, message: str | None) -> None:
        on_progress(value, total, message)
    return progress


def _progress_lines(on_output: Callable[[str], None]) -> Callable[[float, float | None, str | None], None]:
    """Progress updates as lines of tool output ("progress 3/10: copying")."""
    def progress_line(value: float, total: float | None, message: str | None) -> None:
        of = f"/{total:g}" if total else ""
        on_output(f"progress {value:g}{of}" + (f": {message}" if message else "") + "\n")
    return progress_line


class McpRequests:
    def _unavailable_message(self, state: ServerState) -> str:
        if state.status == CIRCUIT_OPEN:
            return (f"MCP server '{state.name}' is unavailable: the circuit breaker is open after "
                    f"{state.breaker.failures} failures in a row ({state.breaker.last_error}); next try in "
                    f"{state.breaker.seconds_until_retry():.0f}s.")
        if state.status == CONNECTING:
            return f"MCP server '{state.name}' is still connecting; try again shortly."
        if state.status == DISABLED:
            return f"MCP server '{state.name}' is disabled."
        if state.status == AUTHORIZING:
            return f"MCP server '{state.name}' is waiting for you to sign in through the browser."
        return f"MCP server '{state.name}' is not connected: {state.reason or state.status}."

    def _ready(self, server: str) -> tuple[ServerState, Any]:
        state = self._state(server)
        client = state.client
        if state.status != READY or client is None or not state.breaker.allow():
            raise McpUnavailable(self._unavailable_message(state))
        return state, client

    async def _request(self, state: ServerState, what: str, timeout: float, call: Callable[[], Any], *,
                       browser_steps: bool = True) -> Any:
        """Run one request with the timeout; map failures to words and feed the breaker. A request
        refused until the user completes a step in the browser (-32042) is sent again once after it."""
        mcp_error, connection_closed, request_timeout = _sdk_errors()
        log_call = state.config.inprocess is not None and self.protocol_log
        if log_call:
            started = time.perf_counter()
            state.logs.record("->", {"method": what, "id": f"call-{started}"})
        try:
            result = await call()
        except mcp_error as exc:
            code = exc.error.code
            if code == request_timeout:
                self._transport_failure(state, f"{what} timed out after {timeout:g}s")
                raise McpCallError(f"MCP server '{state.name}' did not answer {what} within {timeout:g}s; "
                                   f"the request was cancelled.") from None
            if code == connection_closed:
                state._closed.set()
                raise McpCallError(f"The connection to MCP server '{state.name}' was lost during {what}.") from None
            if code == URL_ELICITATION_REQUIRED:
                if not browser_steps:
                    raise UrlElicitationNeeded(exc.error.data) from None
                return await self._after_browser_steps(state, what, timeout, call, exc.error)
            raise McpCallError(f"MCP server '{state.name}' returned an error for {what}: "
                               f"{exc.error.message} (code {code}).") from None
        except (TimeoutError, asyncio.TimeoutError):
            self._transport_failure(state, f"{what} timed out after {timeout:g}s")
            raise McpCallError(f"MCP server '{state.name}' did not answer {what} within {timeout:g}s; "
                               f"the request was cancelled.") from None
        except (OSError, EOFError) as exc:
            state._closed.set()
            raise McpCallError(f"The connection to MCP server '{state.name}' failed during {what}: "
                               f"{describe_error(exc)}.") from None
        if log_call:
            state.logs.record("<-", {"id": f"call-{started}", "result": {}})
        if state.breaker.failures:
            state.breaker.record_success()
        return result

    async def _after_browser_steps(self, state: ServerState, what: str, timeout: float,
                                   call: Callable[[], Any], error: Any) -> Any:
        """Put the browser steps of a -32042 error to the user, then send the request again until
        it is served (app/mcp/url_elicitation.py)."""
        try:
            return await serve_after_browser_steps(
                state.name, what, error.data,
                lambda: self._request(state, what, timeout, call, browser_steps=False),
                state.url_completions, self.hooks.elicitation, self.calls.callers(state.name))
        except BrowserStepFailed as failed:
            raise McpCallError(str(failed)) from None

    def _transport_failure(self, state: ServerState, reason: str) -> None:
        state.breaker.record_failure(reason)
        if state.breaker.failures >= state.breaker.threshold:
            # the server is wedged: drop the connection; the supervisor retries after the backoff
            state.logs.log("error", "whimbrel", f"circuit opened: {reason}")
            state._tripped = True  # already counted: the supervisor just waits out the backoff
            state._closed.set()

    def _tool_request(self, server: str, tool: str, arguments: dict[str, Any] | None, timeout: float | None,
                      on_progress: Callable[[float, float | None, str | None], None] | None) -> Awaitable[Any]:
        """The tools/call request of `call_tool` and `call_tool_raw` (awaited by them: one coroutine
        layer less on every call)."""
        state, client = self._ready(server)
        limit = timeout or state.config.timeout or self.call_timeout
        progress = _forward_progress(on_progress) if on_progress is not None else None
        return self._request(state, f"tools/call {tool}", limit, lambda: client.call_tool(
            tool, arguments or {}, read_timeout_seconds=limit, progress_callback=progress))

    async def call_tool_raw(self, server: str, tool: str, arguments: dict[str, Any] | None = None, *,
                            timeout: float | None = None,
                            on_progress: Callable[[float, float | None, str | None], None] | None = None) -> Any:
        """Call a tool by its MCP name; returns the SDK CallToolResult (for the inspector and CLI)."""
        return await self._tool_request(server, tool, arguments, timeout, on_progress)

    async def call_tool(self, server: str, tool: str, arguments: dict[str, Any] | None = None, *,
                        timeout: float | None = None, on_output: Callable[[str], None] | None = None,
                        on_progress: Callable[[float, float | None, str | None], None] | None = None
                        ) -> tuple[str, bool]:
        """Call a tool; (text for the model, is_error). Progress goes to `on_progress`, else as lines
        to `on_output`."""
        sink = on_progress or (_progress_lines(on_output) if on_output is not None else None)
        result = await self._tool_request(server, tool, arguments, timeout, sink)
        return convert.call_result_to_text(result)

    async def read_resource(self, server: str, uri: str, *, timeout: float | None = None) -> Any:
        state, client = self._ready(server)
        limit = timeout or state.config.timeout or self.call_timeout
        return await self._request(state, f"resources/read {uri}", limit,
                                   lambda: asyncio.wait_for(client.read_resource(uri), limit))

    async def get_prompt(self, server: str, name: str, arguments: dict[str, str] | None = None, *,
                         timeout: float | None = None) -> Any:
        state, client = self._ready(server)
        limit = timeout or state.config.timeout or self.call_timeout
        args = {k: v if isinstance(v, str) else json.dumps(v) for k, v in (arguments or {}).items()}
        return await self._request(state, f"prompts/get {name}", limit,
                                   lambda: asyncio.wait_for(client.get_prompt(name, args or None), limit))

    async def ping(self, server: str, *, timeout: float = 10.0) -> float:
        """Round-trip time in milliseconds."""
        state, client = self._ready(server)
        started = time.perf_counter()
        if self._is_modern(client):  # ping is gone in 2026-07-28: a discover round trip stands in
            await self._request(state, "server/discover", timeout,
                                lambda: asyncio.wait_for(client.session.discover(), timeout))
        else:
            from app.mcp.inspection import legacy_request

            await self._request(state, "ping", timeout,
                                lambda: asyncio.wait_for(legacy_request(client.send_ping), timeout))
        return (time.perf_counter() - started) * 1000
