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
import random
import time
from pathlib import Path
from typing import Any, Callable, Iterable

from app.mcp import convert
from app.mcp.authorization import Authorization, DeadlinePassed
from app.mcp.breaker import CircuitBreaker
from app.mcp.callers import CallTracker
from app.mcp.client_callbacks import ClientCallbacks
from app.mcp.config import ServerConfig
from app.mcp.features import ClientHooks
from app.mcp.inspection import McpInspection
from app.mcp.naming import server_name_problem
from app.mcp.requests import McpRequests
from app.mcp.server_state import (  # re-exported: callers import these from the manager
    AUTHORIZING, CIRCUIT_OPEN, CONNECTING, DISABLED, FAILED, READY, McpCallError, McpUnavailable, ServerState,
    describe_error,
)
from app.mcp.stdio_exit import end_process_group, exit_reason, process_group
from app.mcp.tool_bridge import ToolBridge
from app.mcp.transport import open_transport
from tools.spec import ToolSpec

__all__ = ["McpManager", "McpCallError", "McpUnavailable", "ServerState",
           "CONNECTING", "AUTHORIZING", "READY", "FAILED", "CIRCUIT_OPEN", "DISABLED"]

Listener = Callable[[str, str], None]
"""`listener(server, what)`: what is 'status', 'tools', 'resources', 'prompts' or 'log'."""


_SDK_IMPORT: asyncio.Future | None = None


def import_sdk() -> None:
    """Import what connecting needs (the SDK's client, transports and types: ~0.8 s of CPU)."""
    from app.mcp.sdk_client import import_whole

    import_whole()


async def _sdk_imported() -> None:
    """The SDK imported once, on a thread, so a UI's event loop never stalls on it."""
    global _SDK_IMPORT
    loop = asyncio.get_running_loop()
    if _SDK_IMPORT is None or _SDK_IMPORT.get_loop() is not loop:
        _SDK_IMPORT = asyncio.ensure_future(asyncio.to_thread(import_sdk))
    await asyncio.shield(_SDK_IMPORT)


# Seconds a disconnect may take: the SDK closes a stdio server's stdin, waits 2 s, sends SIGTERM,
# waits 2 s, sends SIGKILL and waits up to 2 s more (about 6.5 s with its flush) for a stubborn one.
STOP_GRACE = 10.0


class McpManager(ClientCallbacks, McpRequests, McpInspection, ToolBridge, Authorization):
    """Connections to MCP servers, their catalogs, and requests to them.

    Life cycle: `start()` (inside a running event loop; returns at once), then use, then
    `await stop()`. `listener(server, what)` is called on the loop for every change.
    `data_dir` keeps OAuth tokens of http/sse servers (`<data_dir>/mcp-oauth/`); None keeps them in memory.
    `retry`: after a failed connection, try again on the breaker's schedule; False (the CLI's one-shot
    verbs) leaves a failed server failed, started once.
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
        data_dir: Path | str | None = None,
        retry: bool = True,
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
        self.data_dir = Path(data_dir).expanduser() if data_dir is not None else None
        self._breaker = breaker
        self.retry = retry
        self._listeners: list[Listener] = [listener] if listener else []
        self.servers: dict[str, ServerState] = {}
        self.problems: list[str] = []
        self._started = False
        self._stopping = False
        self.generation = 0  # bumps whenever the tool snapshot changes
        self._snapshot: tuple[ToolSpec, ...] | None = None
        self.calls = CallTracker()  # running tool calls: whom a sampling/elicitation request belongs to
        # what a connection lists before it is ready; a one-shot caller (`whimbrel mcp VERB`) asks only its own
        self.initial_lists: set[str] = {"tools", "resources", "prompts"}
        self.follow_changes = True  # re-list on list_changed; a one-shot caller has what it asked for already
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
        if status not in (CONNECTING, AUTHORIZING):  # a sign-in settles when it ends
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
            self._cancel_sign_in(state, "Whimbrel is stopping")
            if state._handshaking and state.task is not None:
                state.task.cancel()  # a handshake does not look at _closed; cancelled, the SDK cleans up
        if tasks:
            # Cancelling a connection while the SDK shuts its server down wedges that shutdown and leaves
            # the server running: connections get the SDK's own bound, and only a task still running
            # after it is cancelled.
            done, pending = await asyncio.wait(tasks, timeout=STOP_GRACE)
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending, timeout=5)
        for state in self.servers.values():
            await self._end_server_process(state)  # what a cancelled connection's cleanup left running
            if state.stderr is not None:
                with contextlib.suppress(OSError):
                    state.stderr.close()
                state.stderr = None

    async def wait_settled(self, servers: Iterable[str] | None = None, timeout: float | None = None) -> None:
        """Wait until each server has left 'connecting' (and 'authorizing') once (ready, failed, ...)."""
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
        while (state.status in (CONNECTING, AUTHORIZING)
               or (through_retries and state.status in (FAILED, CIRCUIT_OPEN))) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
            if state.status == AUTHORIZING:  # a person signing in is not the server being slow
                deadline += 0.02
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
        self._cancel_sign_in(state, "reconnecting")
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
        try:
            await _sdk_imported()
        except Exception as exc:  # noqa: BLE001 - a broken install is a status, not a crash
            self._set_status(state, FAILED, f"the mcp SDK could not be imported: {describe_error(exc)}")
            return
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
                lost = describe_error(exc)
                if self._runs_a_process(state):
                    lost = exit_reason(state.stderr_tail(), lost)
            if self._stopping or not state.config.enabled:
                break
            if lost is None:  # asked to reconnect
                continue
            if lost == "the connection closed" and self._runs_a_process(state):  # the transport is closed by now,
                lost = exit_reason(state.stderr_tail(), "the server process exited")  # so the status is written
            auth_failure = self._auth_failure(state)
            if auth_failure is not None:
                lost = f"authorization failed: {auth_failure[0]}"
                if auth_failure[1]:  # retrying would prompt again: wait for a reconnect instead
                    if not state._wake.is_set():
                        self._set_status(state, FAILED, f"{lost} (reconnect to sign in again)")
                        await state._wake.wait()
                    continue
            breaker.record_failure(lost)
            status = CIRCUIT_OPEN if breaker.failures >= breaker.threshold else FAILED
            self._set_status(state, status, lost if status == FAILED else
                             f"{lost} ({breaker.failures} failures in a row)")
            if not self.retry:
                break
            await self._sleep(state, breaker.seconds_until_retry())
        if not state.config.enabled:
            self._set_status(state, DISABLED, "disabled")

    async def _sleep(self, state: ServerState, seconds: float) -> None:
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(state._wake.wait(), max(0.0, seconds))

    def _client(self, state: ServerState, target: Any) -> Any:
        from mcp.client.client import Client
        import mcp.types as types

        return Client(
            target,
            mode="auto",
            cache=None,
            client_info=types.Implementation(name="whimbrel", version="0.1.0"),
            sampling_callback=self._sampling_callback(state) if self.hooks.sampling_enabled else None,
            elicitation_callback=self._elicitation_callback(state) if self.hooks.elicitation_enabled else None,
            list_roots_callback=self._roots_callback(state) if self.hooks.roots_enabled else None,
            logging_callback=self._logging_callback(state),
            message_handler=self._message_handler(state),
            log_level=self.log_level,
        )

    async def _connect_once(self, state: ServerState, index: int) -> str | None:
        """Connect, discover, serve until the connection ends. Returns why it was lost (None: on request)."""
        try:
            return await self._connect_and_serve(state, index)
        finally:  # also after a handshake timeout or a cancel, which can leave the SDK's kill undone
            await self._end_server_process(state)

    async def _connect_and_serve(self, state: ServerState, index: int) -> str | None:
        async with contextlib.AsyncExitStack() as stack:
            client = self._client(state, open_transport(state, stack, workspace=self.workspace,
                                                        protocol_log=self.protocol_log, auth=self._auth_for(state)))
            # The handshake has its own deadline, stopped while a person signs in. The Client must be
            # entered and exited in this task (anyio scopes), so the deadline cancels this task's wait
            # rather than wrapping the enter in another task or scope.
            timed_out = f"handshake timed out (no answer within {self.connect_timeout:g}s)"
            state._handshaking = True
            try:  # the status says so at the deadline, not after the transport's cleanup (seconds for stdio)
                await self._within(state, client.__aenter__(), self.connect_timeout, here=True,
                                   on_expire=lambda: self._set_status(state, FAILED, timed_out))
            except DeadlinePassed:
                return timed_out
            finally:
                state._handshaking = False
            try:
                state.client = client
                self._record_identity(state, client)
                await self._fetch(state, self.initial_lists)
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
                return lost
            finally:
                state.client = None
                state.inspection.connection_ended()
                if state.specs:
                    state.specs = ()
                    self.generation += 1
                    self._snapshot = None
                # in this task: the SDK's anyio scopes must exit where they were entered
                with contextlib.suppress(Exception):
                    await client.__aexit__(None, None, None)

    async def end_processes(self) -> None:
        """End every stdio server's process group now (SIGTERM, then SIGKILL after a grace): for a signal that
        says stop, where the SDK's own shutdown would first wait for the server to notice its closed stdin."""
        await asyncio.gather(*(self._end_server_process(state) for state in self.servers.values()))

    async def _end_server_process(self, state: ServerState) -> None:
        """Kill the stdio server's process group if it outlived its connection (see app/mcp/stdio_exit)."""
        if self._runs_a_process(state):
            pgid = process_group(state.stderr_head())
            if pgid is not None:
                await end_process_group(pgid)

    @staticmethod
    def _runs_a_process(state: ServerState) -> bool:
        return state.config.transport == "stdio" and state.config.inprocess is None

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
            tools = await self._within(state, self._list_all(client.list_tools, "tools"), timeout)
            state.tools = tools
            state.specs = tuple(self._make_specs(state, tools))
        for key, capability in (("resources", "resources"), ("prompts", "prompts")):
            if key not in what or not self._has(state, capability):
                continue
            try:
                if key == "resources":
                    state.resources = await self._within(
                        state, self._list_all(client.list_resources, "resources"), timeout)
                    state.templates = await self._within(
                        state, self._list_all(client.list_resource_templates, "resource_templates"), timeout)
                else:
                    state.prompts = await self._within(
                        state, self._list_all(client.list_prompts, "prompts"), timeout)
            except Exception as exc:  # noqa: BLE001 - a server may declare but not implement a list
                state.logs.log("warning", "whimbrel", f"listing {key} failed: {describe_error(exc)}")
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
                state.logs.log("error", "whimbrel", f"refresh failed: {describe_error(exc)}")
                continue
            for what in ("tools", "resources", "prompts"):
                self._notify(name, what)

    def _schedule_refresh(self, state: ServerState, what: str) -> None:
        """Debounce list_changed bursts into one re-list per category."""
        if not self.follow_changes:
            return
        state._pending_refresh.add(what)
        if state._refresh_task is None or state._refresh_task.done():
            state._refresh_task = asyncio.get_running_loop().create_task(self._debounced_refresh(state))

    async def _debounced_refresh(self, state: ServerState) -> None:
        await asyncio.sleep(self.debounce)
        what, state._pending_refresh = state._pending_refresh, set()
        try:
            await self._fetch(state, what)
        except Exception as exc:  # noqa: BLE001
            state.logs.log("error", "whimbrel", f"refresh after list_changed failed: {describe_error(exc)}")
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
            state.logs.log("info", "whimbrel", f"list-change subscription ended: {describe_error(exc)}")

