"""`McpManager`: connects every configured MCP server in the background and keeps it current.

Each server runs in its own asyncio task (`start()` returns at once), with a live status
(connecting / ready / failed / circuit-open / disabled) reported through change listeners. A
failing server never affects the others. Tools become `ToolSpec`s named `mcp__<server>__<tool>`;
`tool_specs()` is an immutable snapshot, so a session keeps the specs it was built with until it
asks for a new registry (`build_registry`). The `mcp` SDK is imported on the connect path only.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from app.mcp import convert
from app.mcp.breaker import CircuitBreaker
from app.mcp.config import ServerConfig, stdio_environment
from app.mcp.features import (
    ClientHooks,
    Declined,
    ElicitationRequest,
    SamplingRequest,
)
from app.mcp.naming import server_name_problem, split_tool_name, tool_name
from app.mcp.protocol_log import LoggedTransport, ServerLogs
from tools.errors import ToolError
from tools.registry import ToolRegistry, ToolSpec

CONNECTING, READY, FAILED, CIRCUIT_OPEN, DISABLED = "connecting", "ready", "failed", "circuit-open", "disabled"
MAX_CATALOG_RESOURCES = 50
MAX_CATALOG_PROMPTS = 30
STDERR_TAIL = 4000
Listener = Callable[[str, str], None]
"""`listener(server, what)`: what is 'status', 'tools', 'resources', 'prompts' or 'log'."""


class McpUnavailable(ToolError):
    """The server cannot take requests now (not connected, failed, circuit open, unknown)."""


class McpCallError(ToolError):
    """A request failed: timeout, lost connection, or an error answer from the server."""


@dataclass
class ServerState:
    """Everything known about one server; the inspector reads it, the manager writes it."""

    config: ServerConfig
    status: str = CONNECTING
    reason: str = ""
    breaker: CircuitBreaker = field(default_factory=CircuitBreaker)
    logs: ServerLogs = field(default_factory=ServerLogs)
    protocol_version: str | None = None
    server_info: dict[str, Any] = field(default_factory=dict)
    capabilities: dict[str, Any] = field(default_factory=dict)
    instructions: str | None = None
    tools: list[Any] = field(default_factory=list)
    resources: list[Any] = field(default_factory=list)
    templates: list[Any] = field(default_factory=list)
    prompts: list[Any] = field(default_factory=list)
    specs: tuple[ToolSpec, ...] = ()
    schema_problems: dict[str, str] = field(default_factory=dict)
    connected_at: float | None = None
    last_refresh: float | None = None
    client: Any = None
    task: asyncio.Task | None = None
    stderr: Any = None  # a temp file the stdio process writes its stderr to
    _closed: asyncio.Event = field(default_factory=asyncio.Event)
    _wake: asyncio.Event = field(default_factory=asyncio.Event)
    _settled: asyncio.Event = field(default_factory=asyncio.Event)
    _pending_refresh: set[str] = field(default_factory=set)
    _refresh_task: asyncio.Task | None = None
    _tool_names: dict[str, str] = field(default_factory=dict)  # model-facing name -> MCP tool name
    _tripped: bool = False

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def transport(self) -> str:
        return "in-process" if self.config.inprocess is not None else self.config.transport

    def stderr_tail(self, limit: int = STDERR_TAIL) -> str:
        if self.stderr is None:
            return ""
        try:
            self.stderr.flush()
            self.stderr.seek(0, 2)
            size = self.stderr.tell()
            self.stderr.seek(max(0, size - limit))
            return self.stderr.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""

    def summary(self) -> dict[str, Any]:
        """A JSON-ready view for the CLI and the inspector."""
        return {
            "name": self.name, "transport": self.transport, "target": self.config.describe(),
            "status": self.status, "reason": self.reason, "enabled": self.config.enabled,
            "protocol_version": self.protocol_version, "server_info": self.server_info,
            "capabilities": self.capabilities, "instructions": self.instructions,
            "tools": len(self.tools), "resources": len(self.resources), "templates": len(self.templates),
            "prompts": len(self.prompts), "consecutive_failures": self.breaker.failures,
            "retry_in": round(self.breaker.seconds_until_retry(), 1) if self.status in (FAILED, CIRCUIT_OPEN)
            else None,
        }


def _describe_error(exc: BaseException) -> str:
    """Words for a connection failure, unwrapping anyio's exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or exc}"
    if isinstance(exc, PermissionError):
        return f"permission denied: {exc.filename or exc}"
    error = getattr(exc, "error", None)  # MCPError
    if error is not None and getattr(error, "message", None):
        return f"{error.message} (code {error.code})"
    text = str(exc) or type(exc).__name__
    if type(exc).__name__ not in text:
        text = f"{type(exc).__name__}: {text}"
    return text


def _first_line(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1].strip()[:300] if lines else ""


def _text_of(data: Any) -> str:
    return data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)


class McpManager:
    """Connections to MCP servers, their catalogs, and requests to them.

    Life cycle: `start()` (inside a running event loop; returns at once), then use, then
    `await stop()`. `listener(server, what)` is called on the loop for every change.
    """

    def __init__(
        self,
        servers: dict[str, ServerConfig] | Iterable[ServerConfig] = (),
        *,
        workspace: Path | str = ".",
        hooks: ClientHooks | None = None,
        listener: Listener | None = None,
        call_timeout: float = 120.0,
        connect_timeout: float = 30.0,
        refresh_interval: float = 4 * 3600.0,
        debounce: float = 0.3,
        log_level: str | None = "info",
        breaker: Callable[[], CircuitBreaker] = CircuitBreaker,
        protocol_log: bool = True,
    ) -> None:
        configs = list(servers.values()) if isinstance(servers, dict) else list(servers)
        self.workspace = Path(workspace).expanduser().resolve()
        self.hooks = hooks or ClientHooks()
        self.call_timeout = call_timeout
        self.connect_timeout = connect_timeout
        self.refresh_interval = refresh_interval
        self.debounce = debounce
        self.log_level = log_level
        self.protocol_log = protocol_log
        self._breaker = breaker
        self._listeners: list[Listener] = [listener] if listener else []
        self.servers: dict[str, ServerState] = {}
        self.problems: list[str] = []
        self._started = False
        self._stopping = False
        self.generation = 0  # bumps whenever the tool snapshot changes
        self._snapshot: tuple[ToolSpec, ...] | None = None
        for config in configs:
            self._add_state(config)

    # -- listeners and status ----------------------------------------------------------
    def add_listener(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        with contextlib.suppress(ValueError):
            self._listeners.remove(listener)

    def _notify(self, server: str, what: str) -> None:
        if what in ("tools", "resources", "prompts", "status"):
            self._snapshot = None
            if what != "status":
                self.generation += 1
        for listener in list(self._listeners):
            try:
                listener(server, what)
            except Exception as exc:  # noqa: BLE001 - a broken listener must not break a connection
                state = self.servers.get(server)
                if state:
                    state.logs.log("error", "whimbrel", f"status listener failed: {exc!r}")

    def _set_status(self, state: ServerState, status: str, reason: str = "") -> None:
        changed = (state.status, state.reason) != (status, reason)
        state.status, state.reason = status, reason
        if status != CONNECTING:
            state._settled.set()
        if status != READY and state.specs:
            state.specs = ()
            self.generation += 1
        if changed:
            if reason:
                state.logs.log("error" if status in (FAILED, CIRCUIT_OPEN) else "info", "whimbrel",
                               f"{status}: {reason}")
            self._notify(state.name, "status")

    def status(self, server: str) -> tuple[str, str]:
        state = self._state(server)
        return state.status, state.reason

    def statuses(self) -> dict[str, tuple[str, str]]:
        return {name: (s.status, s.reason) for name, s in self.servers.items()}

    def _state(self, server: str) -> ServerState:
        state = self.servers.get(server)
        if state is None:
            known = ", ".join(self.servers) or "none configured"
            raise McpUnavailable(f"Unknown MCP server {server!r} (configured: {known}).")
        return state

    # -- life cycle ----------------------------------------------------------------------
    def _add_state(self, config: ServerConfig) -> ServerState | None:
        problem = server_name_problem(config.name)
        if problem:
            self.problems.append(problem)
            return None
        state = ServerState(config=config, breaker=self._breaker())
        if not config.enabled:
            state.status = DISABLED
            state._settled.set()
        self.servers[config.name] = state
        return state

    def start(self) -> None:
        """Begin connecting every enabled server in background tasks; returns immediately."""
        self._started = True
        self._stopping = False
        for index, state in enumerate(self.servers.values()):
            self._launch(state, index)

    def _launch(self, state: ServerState, index: int | None = None) -> None:
        if state.config.enabled and (state.task is None or state.task.done()):
            if index is None:
                index = list(self.servers).index(state.name)
            state.task = asyncio.get_running_loop().create_task(
                self._supervise(state, index), name=f"mcp:{state.name}")

    async def stop(self) -> None:
        """Disconnect everything (stdio processes are terminated)."""
        self._stopping = True
        tasks = [s.task for s in self.servers.values() if s.task and not s.task.done()]
        for state in self.servers.values():
            state._closed.set()
            state._wake.set()
        if tasks:
            done, pending = await asyncio.wait(tasks, timeout=5)
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending, timeout=5)
        for state in self.servers.values():
            if state.stderr is not None:
                with contextlib.suppress(OSError):
                    state.stderr.close()
                state.stderr = None

    async def wait_settled(self, servers: Iterable[str] | None = None, timeout: float | None = None) -> None:
        """Wait until each server has left 'connecting' once (ready, failed, ...)."""
        names = list(servers) if servers is not None else list(self.servers)
        waits = [self.servers[n]._settled.wait() for n in names if n in self.servers]
        if waits:
            await asyncio.wait_for(asyncio.gather(*waits), timeout)

    async def wait_ready(self, server: str, timeout: float = 30.0, *, through_retries: bool = False) -> ServerState:
        """Wait until `server` is ready; raises McpUnavailable with the reason if it settles otherwise.

        `through_retries`: keep waiting across failed attempts and breaker retries until the timeout.
        """
        state = self._state(server)
        deadline = time.monotonic() + timeout
        while (state.status == CONNECTING or (through_retries and state.status in (FAILED, CIRCUIT_OPEN))) \
                and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        if state.status != READY:
            raise McpUnavailable(self._unavailable_message(state))
        return state

    async def reconnect(self, server: str) -> None:
        """Drop the connection (if any) and connect again now, ignoring the breaker's wait."""
        state = self._state(server)
        state.config.enabled = True
        state.breaker.reset_wait()
        state._settled.clear()
        state._closed.set()
        state._wake.set()
        self._set_status(state, CONNECTING, "reconnecting")
        if self._started and (state.task is None or state.task.done()):
            self._launch(state)

    async def set_enabled(self, server: str, enabled: bool) -> None:
        state = self._state(server)
        state.config.enabled = enabled
        if enabled:
            await self.reconnect(server)
            return
        state._closed.set()
        state._wake.set()
        if state.task is not None:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(state.task), 5)
        self._set_status(state, DISABLED, "disabled by the user")

    def add_server(self, config: ServerConfig) -> None:
        """Add (or replace) a server at run time and connect it when the manager is running."""
        old = self.servers.get(config.name)
        if old is not None:
            old.config.enabled = False
            old._closed.set()
            old._wake.set()
            del self.servers[config.name]
        state = self._add_state(config)
        if state is None:
            raise McpUnavailable(self.problems[-1])
        if self._started:
            self._launch(state)
        self._notify(config.name, "status")

    async def remove_server(self, server: str) -> None:
        state = self._state(server)
        state.config.enabled = False
        state._closed.set()
        state._wake.set()
        if state.task is not None:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(state.task), 5)
        self.servers.pop(server, None)
        self._notify(server, "tools")

    # -- the per-server connection loop ----------------------------------------------------
    async def _supervise(self, state: ServerState, index: int) -> None:
        while not self._stopping and state.config.enabled:
            breaker = state.breaker
            if not breaker.allow():
                self._set_status(state, CIRCUIT_OPEN,
                                 f"{breaker.last_error} ({breaker.failures} failures in a row)")
                await self._sleep(state, breaker.seconds_until_retry())
                continue
            state._closed.clear()
            state._wake.clear()
            self._set_status(state, CONNECTING, "half-open: trying again" if breaker.failures >= breaker.threshold
                             else "")
            try:
                lost = await self._connect_once(state, index)
            except asyncio.CancelledError:
                self._set_status(state, FAILED, "stopped")
                raise
            except BaseException as exc:  # noqa: BLE001 - every failure becomes a status, never a crash
                lost = _describe_error(exc)
                tail = _first_line(state.stderr_tail())
                if tail and tail not in lost:
                    lost += f" (stderr: {tail})"
            if self._stopping or not state.config.enabled:
                break
            if lost is None:  # asked to reconnect
                continue
            breaker.record_failure(lost)
            status = CIRCUIT_OPEN if breaker.failures >= breaker.threshold else FAILED
            self._set_status(state, status, lost if status == FAILED else
                             f"{lost} ({breaker.failures} failures in a row)")
            await self._sleep(state, breaker.seconds_until_retry())
        if not state.config.enabled:
            self._set_status(state, DISABLED, "disabled")

    async def _sleep(self, state: ServerState, seconds: float) -> None:
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(state._wake.wait(), max(0.0, seconds))

    def _transport(self, state: ServerState, stack: contextlib.AsyncExitStack) -> Any:
        """The `server` argument for the SDK Client: a (logged) transport or an in-process server."""
        config = state.config
        if config.inprocess is not None:
            return config.inprocess
        on_eof = state._closed.set
        if config.transport == "stdio":
            from mcp import StdioServerParameters
            from mcp.client.stdio import stdio_client

            if state.stderr is None:
                state.stderr = tempfile.TemporaryFile()
            else:
                state.stderr.seek(0)
                state.stderr.truncate()
            cwd = Path(config.cwd).expanduser() if config.cwd else self.workspace
            if not cwd.is_absolute():
                cwd = self.workspace / cwd
            params = StdioServerParameters(command=config.command or "", args=list(config.args),
                                           env=stdio_environment(config), cwd=str(cwd))
            inner = stdio_client(params, errlog=state.stderr)
        elif config.transport == "sse":
            from mcp.client.sse import sse_client

            inner = sse_client(config.url or "", headers=dict(config.headers) or None)
        else:
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            http = create_mcp_http_client(headers=dict(config.headers) or None)
            stack.push_async_callback(http.aclose)
            inner = streamable_http_client(config.url or "", http_client=http)
        if not self.protocol_log:
            return _EofTransport(inner, on_eof)
        return LoggedTransport(inner, state.logs, on_eof)

    def _client(self, state: ServerState, target: Any) -> Any:
        from mcp import Client
        import mcp.types as types

        return Client(
            target,
            mode="auto",
            cache=None,
            client_info=types.Implementation(name="whimbrel", version="0.1.0"),
            sampling_callback=self._sampling_callback(state) if self.hooks.sampling_enabled else None,
            elicitation_callback=self._elicitation_callback(state) if self.hooks.elicitation_enabled else None,
            list_roots_callback=self._roots_callback(),
            logging_callback=self._logging_callback(state),
            message_handler=self._message_handler(state),
            log_level=self.log_level,
        )

    async def _connect_once(self, state: ServerState, index: int) -> str | None:
        """Connect, discover, serve until the connection ends. Returns why it was lost (None: on request)."""
        async with contextlib.AsyncExitStack() as stack:
            client = self._client(state, self._transport(state, stack))
            # The handshake has its own deadline. The Client must be entered and exited in this task
            # (anyio scopes), so the deadline cancels this task's wait rather than wrapping the enter
            # in another task or scope.
            task = asyncio.current_task()
            assert task is not None
            fired: list[bool] = []

            def expire() -> None:
                fired.append(True)
                task.cancel()

            timer = asyncio.get_running_loop().call_later(self.connect_timeout, expire)
            try:
                await client.__aenter__()
            except asyncio.CancelledError:
                if not fired or self._stopping:
                    raise
                task.uncancel()
                return f"no answer to the handshake within {self.connect_timeout:g}s"
            finally:
                timer.cancel()
            try:
                state.client = client
                self._record_identity(state, client)
                await self._fetch(state, {"tools", "resources", "prompts"})
                state.breaker.record_success()
                state.connected_at = time.time()
                self._set_status(state, READY)
                for what in ("tools", "resources", "prompts"):
                    self._notify(state.name, what)
                background = [asyncio.create_task(self._periodic_refresh(state, index))]
                if self._is_modern(client):
                    background.append(asyncio.create_task(self._listen(state, client)))
                try:
                    await state._closed.wait()
                finally:
                    for task in background:
                        task.cancel()
                    await asyncio.gather(*background, return_exceptions=True)
                    if state._refresh_task is not None:
                        state._refresh_task.cancel()
                tripped, state._tripped = state._tripped, False
                lost = None if (self._stopping or state._wake.is_set() or not state.config.enabled or tripped) \
                    else "the connection closed"
                if lost and state.config.transport == "stdio" and state.config.inprocess is None:
                    tail = _first_line(state.stderr_tail())
                    lost = "the server process exited" + (f" (stderr: {tail})" if tail else "")
                return lost
            finally:
                state.client = None
                if state.specs:
                    state.specs = ()
                    self.generation += 1
                    self._snapshot = None
                # in this task: the SDK's anyio scopes must exit where they were entered
                with contextlib.suppress(Exception):
                    await client.__aexit__(None, None, None)

    @staticmethod
    def _is_modern(client: Any) -> bool:
        try:
            from mcp_types.version import MODERN_PROTOCOL_VERSIONS

            return client.protocol_version in MODERN_PROTOCOL_VERSIONS
        except Exception:  # noqa: BLE001
            return False

    def _record_identity(self, state: ServerState, client: Any) -> None:
        state.protocol_version = client.protocol_version
        info = client.server_info
        state.server_info = convert.dump(info) if info is not None else {}
        state.capabilities = convert.dump(client.server_capabilities) or {}
        state.instructions = client.instructions

    def _has(self, state: ServerState, capability: str) -> bool:
        return capability in state.capabilities

    # -- catalogs and refresh ------------------------------------------------------------------
    async def _list_all(self, method: Callable[..., Any], attr: str) -> list[Any]:
        items: list[Any] = []
        cursor = None
        for _ in range(100):  # a paginator that never ends cannot hang discovery
            result = await method(cursor=cursor) if cursor else await method()
            items.extend(getattr(result, attr) or [])
            cursor = getattr(result, "next_cursor", None)
            if not cursor:
                break
        return items

    async def _fetch(self, state: ServerState, what: set[str]) -> None:
        client = state.client
        if client is None:
            return
        timeout = self.connect_timeout
        if "tools" in what and self._has(state, "tools"):
            tools = await asyncio.wait_for(self._list_all(client.list_tools, "tools"), timeout)
            state.tools = tools
            state.specs = tuple(self._make_specs(state, tools))
        for key, capability in (("resources", "resources"), ("prompts", "prompts")):
            if key not in what or not self._has(state, capability):
                continue
            try:
                if key == "resources":
                    state.resources = await asyncio.wait_for(
                        self._list_all(client.list_resources, "resources"), timeout)
                    state.templates = await asyncio.wait_for(
                        self._list_all(client.list_resource_templates, "resource_templates"), timeout)
                else:
                    state.prompts = await asyncio.wait_for(self._list_all(client.list_prompts, "prompts"), timeout)
            except Exception as exc:  # noqa: BLE001 - a server may declare but not implement a list
                state.logs.log("warning", "whimbrel", f"listing {key} failed: {_describe_error(exc)}")
        state.last_refresh = time.time()

    async def refresh(self, server: str | None = None) -> None:
        """Re-list tools, resources and prompts now: one server, or every ready one."""
        names = [server] if server else [n for n, s in self.servers.items() if s.status == READY]
        for name in names:
            state = self._state(name)
            if state.client is None:
                continue
            try:
                await self._fetch(state, {"tools", "resources", "prompts"})
            except Exception as exc:  # noqa: BLE001
                state.logs.log("error", "whimbrel", f"refresh failed: {_describe_error(exc)}")
                continue
            for what in ("tools", "resources", "prompts"):
                self._notify(name, what)

    def _schedule_refresh(self, state: ServerState, what: str) -> None:
        """Debounce list_changed bursts into one re-list per category."""
        state._pending_refresh.add(what)
        if state._refresh_task is None or state._refresh_task.done():
            state._refresh_task = asyncio.get_running_loop().create_task(self._debounced_refresh(state))

    async def _debounced_refresh(self, state: ServerState) -> None:
        await asyncio.sleep(self.debounce)
        what, state._pending_refresh = state._pending_refresh, set()
        try:
            await self._fetch(state, what)
        except Exception as exc:  # noqa: BLE001
            state.logs.log("error", "whimbrel", f"refresh after list_changed failed: {_describe_error(exc)}")
            return
        for item in sorted(what):
            self._notify(state.name, item)

    async def _periodic_refresh(self, state: ServerState, index: int) -> None:
        """Refresh every `refresh_interval`, the first one offset by the server's place (staggered)."""
        if not self.refresh_interval or self.refresh_interval <= 0:
            return
        count = max(1, len(self.servers))
        first = self.refresh_interval * (1 + index / count) + random.uniform(0, self.refresh_interval / 20)
        await asyncio.sleep(first)
        while True:
            await self.refresh(state.name)
            await asyncio.sleep(self.refresh_interval)

    async def _listen(self, state: ServerState, client: Any) -> None:
        """2026-07-28 servers announce list changes on a `subscriptions/listen` stream."""
        caps = state.capabilities
        wanted = {k: bool((caps.get(k) or {}).get("listChanged")) for k in ("tools", "resources", "prompts")}
        if not any(wanted.values()):
            return
        try:
            async with client.listen(tools_list_changed=wanted["tools"],
                                     resources_list_changed=wanted["resources"],
                                     prompts_list_changed=wanted["prompts"]) as sub:
                async for event in sub:
                    kind = type(event).__name__.lower()
                    for what in ("tools", "resources", "prompts"):
                        if kind.startswith(what):
                            self._schedule_refresh(state, what)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - fall back to periodic/manual refresh
            state.logs.log("info", "whimbrel", f"list-change subscription ended: {_describe_error(exc)}")

    # -- client features ---------------------------------------------------------------------------
    def _message_handler(self, state: ServerState) -> Callable[[Any], Any]:
        async def handle(message: Any) -> None:
            if isinstance(message, Exception):
                state.logs.log("error", "transport", _describe_error(message))
                return
            root = getattr(message, "root", message)
            name = type(root).__name__
            if name == "ToolListChangedNotification":
                self._schedule_refresh(state, "tools")
            elif name == "ResourceListChangedNotification":
                self._schedule_refresh(state, "resources")
            elif name == "PromptListChangedNotification":
                self._schedule_refresh(state, "prompts")
        return handle

    def _logging_callback(self, state: ServerState) -> Callable[[Any], Any]:
        async def on_log(params: Any) -> None:
            level = str(getattr(params, "level", "info"))
            state.logs.log(level, getattr(params, "logger", None) or state.name, _text_of(params.data))
            self._notify(state.name, "log")
        return on_log

    def _roots_callback(self) -> Callable[[Any], Any]:
        async def roots(context: Any) -> Any:
            import mcp.types as types

            return types.ListRootsResult(roots=[types.Root(uri=self.workspace.as_uri(), name=self.workspace.name)])
        return roots

    def _sampling_callback(self, state: ServerState) -> Callable[..., Any]:
        async def sample(context: Any, params: Any) -> Any:
            import mcp.types as types

            messages = [{"role": str(m.role), "text": convert.content_to_text(m.content)
                         if not isinstance(m.content, list) else
                         "\n".join(convert.content_to_text(c) for c in m.content)} for m in params.messages]
            prefs = params.model_preferences
            hints = [h.name for h in (prefs.hints or [])] if prefs is not None and prefs.hints else []
            request = SamplingRequest(server=state.name, messages=messages, system_prompt=params.system_prompt,
                                      max_tokens=params.max_tokens, temperature=params.temperature,
                                      stop_sequences=list(params.stop_sequences or []), model_hints=hints,
                                      include_context=params.include_context)
            state.logs.log("info", "whimbrel", "sampling requested")
            try:
                response = await self.hooks.sampling(request)
            except Declined as exc:
                return types.ErrorData(code=-1, message=str(exc))
            except Exception as exc:  # noqa: BLE001 - the server gets words, never a hung request
                return types.ErrorData(code=types.INTERNAL_ERROR, message=f"sampling failed: {exc}")
            return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text=response.text),
                                             model=response.model, stop_reason=response.stop_reason)
        return sample

    def _elicitation_callback(self, state: ServerState) -> Callable[..., Any]:
        async def elicit(context: Any, params: Any) -> Any:
            import mcp.types as types

            mode = getattr(params, "mode", None) or "form"
            schema = getattr(params, "requested_schema", None)
            request = ElicitationRequest(
                server=state.name, message=params.message, mode="url" if mode == "url" else "form",
                schema=convert.dump(schema) if schema is not None else {},
                url=getattr(params, "url", None), elicitation_id=getattr(params, "elicitation_id", None))
            state.logs.log("info", "whimbrel", f"elicitation requested: {params.message}")
            try:
                response = await self.hooks.elicitation(request)
            except Declined:
                return types.ElicitResult(action="decline")
            except Exception as exc:  # noqa: BLE001
                return types.ErrorData(code=types.INTERNAL_ERROR, message=f"elicitation failed: {exc}")
            return types.ElicitResult(action=response.action,
                                      content=response.content if response.action == "accept" else None)
        return elicit

    # -- requests --------------------------------------------------------------------------------------
    def _unavailable_message(self, state: ServerState) -> str:
        if state.status == CIRCUIT_OPEN:
            return (f"MCP server '{state.name}' is unavailable: the circuit breaker is open after "
                    f"{state.breaker.failures} failures in a row ({state.breaker.last_error}); next try in "
                    f"{state.breaker.seconds_until_retry():.0f}s.")
        if state.status == CONNECTING:
            return f"MCP server '{state.name}' is still connecting; try again shortly."
        if state.status == DISABLED:
            return f"MCP server '{state.name}' is disabled."
        return f"MCP server '{state.name}' is not connected: {state.reason or state.status}."

    def _ready(self, server: str) -> tuple[ServerState, Any]:
        state = self._state(server)
        client = state.client
        if state.status != READY or client is None or not state.breaker.allow():
            raise McpUnavailable(self._unavailable_message(state))
        return state, client

    async def _request(self, state: ServerState, what: str, timeout: float, call: Callable[[], Any]) -> Any:
        """Run one request with the timeout; map failures to words and feed the breaker."""
        from mcp.shared.exceptions import MCPError
        from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

        log_call = state.config.inprocess is not None and self.protocol_log
        started = time.perf_counter()
        if log_call:
            state.logs.record("->", {"method": what, "id": f"call-{started}"})
        try:
            result = await call()
        except MCPError as exc:
            code = exc.error.code
            if code == REQUEST_TIMEOUT:
                self._transport_failure(state, f"{what} timed out after {timeout:g}s")
                raise McpCallError(f"MCP server '{state.name}' did not answer {what} within {timeout:g}s; "
                                   f"the request was cancelled.") from None
            if code == CONNECTION_CLOSED:
                state._closed.set()
                raise McpCallError(f"The connection to MCP server '{state.name}' was lost during {what}.") from None
            raise McpCallError(f"MCP server '{state.name}' returned an error for {what}: "
                               f"{exc.error.message} (code {code}).") from None
        except (TimeoutError, asyncio.TimeoutError):
            self._transport_failure(state, f"{what} timed out after {timeout:g}s")
            raise McpCallError(f"MCP server '{state.name}' did not answer {what} within {timeout:g}s; "
                               f"the request was cancelled.") from None
        except (OSError, EOFError) as exc:
            state._closed.set()
            raise McpCallError(f"The connection to MCP server '{state.name}' failed during {what}: "
                               f"{_describe_error(exc)}.") from None
        if log_call:
            state.logs.record("<-", {"id": f"call-{started}", "result": {}})
        if state.breaker.failures:
            state.breaker.record_success()
        return result

    def _transport_failure(self, state: ServerState, reason: str) -> None:
        state.breaker.record_failure(reason)
        if state.breaker.failures >= state.breaker.threshold:
            # the server is wedged: drop the connection; the supervisor retries after the backoff
            state.logs.log("error", "whimbrel", f"circuit opened: {reason}")
            state._tripped = True  # already counted: the supervisor just waits out the backoff
            state._closed.set()

    async def call_tool_raw(self, server: str, tool: str, arguments: dict[str, Any] | None = None, *,
                            timeout: float | None = None,
                            on_progress: Callable[[float, float | None, str | None], None] | None = None) -> Any:
        """Call a tool by its MCP name; returns the SDK CallToolResult (for the inspector and CLI)."""
        state, client = self._ready(server)
        limit = timeout or state.config.timeout or self.call_timeout

        async def progress(value: float, total: float | None, message: str | None) -> None:
            if on_progress is not None:
                on_progress(value, total, message)

        return await self._request(state, f"tools/call {tool}", limit, lambda: client.call_tool(
            tool, arguments or {}, read_timeout_seconds=limit,
            progress_callback=progress if on_progress is not None else None))

    async def call_tool(self, server: str, tool: str, arguments: dict[str, Any] | None = None, *,
                        timeout: float | None = None, on_output: Callable[[str], None] | None = None
                        ) -> tuple[str, bool]:
        """Call a tool; (text for the model, is_error). Progress lines go to `on_output`."""
        def progress(value: float, total: float | None, message: str | None) -> None:
            if on_output is not None:
                of = f"/{total:g}" if total else ""
                on_output(f"progress {value:g}{of}" + (f": {message}" if message else "") + "\n")

        result = await self.call_tool_raw(server, tool, arguments, timeout=timeout,
                                          on_progress=progress if on_output is not None else None)
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
            await self._request(state, "ping", timeout, lambda: asyncio.wait_for(client.send_ping(), timeout))
        return (time.perf_counter() - started) * 1000

    # -- tools for the model -------------------------------------------------------------------------------
    def _make_specs(self, state: ServerState, tools: list[Any]) -> list[ToolSpec]:
        specs: list[ToolSpec] = []
        names: dict[str, str] = {}
        state.schema_problems = {}
        for tool in tools:
            name = tool_name(state.name, tool.name)
            if name in names:
                state.logs.log("warning", "whimbrel", f"tool {tool.name!r} clashes with {names[name]!r} "
                                                      f"as {name}; skipped")
                continue
            names[name] = tool.name
            parameters, problem = convert.convert_input_schema(tool.input_schema)
            description = tool.description or tool.title or f"{tool.name} (MCP server {state.name})"
            if problem:
                state.schema_problems[tool.name] = problem
                state.logs.log("warning", "whimbrel", f"tool {tool.name!r}: {problem}")
            specs.append(ToolSpec(
                name=name, schema=convert.function_schema(name, description, parameters),
                implementation=self._implementation(state.name, tool.name), auto_approve=False,
                approval_reason=f"MCP tool {tool.name!r} from server '{state.name}'"))
        state._tool_names = names
        return specs

    def _implementation(self, server: str, tool: str) -> Callable[[dict[str, Any], Any], Any]:
        async def run(args: dict[str, Any], ctx: Any) -> str:
            text, is_error = await self.call_tool(server, tool, args, on_output=getattr(ctx, "on_output", None))
            if is_error:
                raise ToolError(text)
            return text
        return run

    def tool_specs(self) -> tuple[ToolSpec, ...]:
        """The current MCP tools (ready servers, config order) plus read_resource/use_prompt when useful.

        An immutable snapshot: later changes build a new tuple, never mutate this one.
        """
        if self._snapshot is None:
            specs: list[ToolSpec] = []
            for state in self.servers.values():
                if state.status == READY:
                    specs.extend(state.specs)
            from app.mcp.builtin_tools import builtin_specs

            specs.extend(builtin_specs(self))
            self._snapshot = tuple(specs)
        return self._snapshot

    def build_registry(self, base: ToolRegistry, keep: Iterable[str] = ()) -> ToolRegistry:
        """A new registry: `base`'s non-MCP tools, then the current MCP tools (copy-on-write).

        `keep` names tools the session has already used: if one vanished from the snapshot (server
        down, tool removed), its previous spec from `base` stays, so the conversation can still
        refer to it and a call gets a clear error instead of 'unknown tool'.
        """
        from app.mcp.builtin_tools import BUILTIN_NAMES

        registry = ToolRegistry()
        mcp_names = set()
        for name in base.names():
            spec = base.get(name)
            if spec is None:
                continue
            if split_tool_name(name) is not None or name in BUILTIN_NAMES:
                mcp_names.add(name)
                continue
            registry.register(spec)
        current = self.tool_specs()
        for spec in current:
            registry.register(spec)
        for name in keep:
            if name in mcp_names and registry.get(name) is None:
                old = base.get(name)
                if old is not None:
                    registry.register(old)
        return registry

    def catalog_text(self) -> str:
        from app.mcp.builtin_tools import catalog_text

        return catalog_text(self)


class _EofTransport:
    """A transport wrapper that only reports end-of-stream (protocol log off)."""

    def __init__(self, inner: Any, on_eof: Callable[[], None]) -> None:
        self._logged = LoggedTransport(inner, ServerLogs(enabled=False), on_eof)

    async def __aenter__(self) -> Any:
        return await self._logged.__aenter__()

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._logged.__aexit__(*exc)
