"""MCP servers a client hands over in `session/new` or `session/load`: connected for that session only.

The servers become an `McpManager` of the session's own; once each has settled (ready or failed) its
tools join the session's registry as `mcp__<server>__<tool>`, asking for approval like any MCP tool.
A server that cannot be used is reported in words; the session goes on without it.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

CONNECT_WAIT = 30.0  # seconds session/new waits for the servers to settle before answering
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def server_configs(mcp_servers: list[Any] | None) -> tuple[list[Any], list[str]]:
    """Whimbrel's ServerConfigs for the ACP server list, and the problems of those it cannot use."""
    from app.mcp.config import McpConfigError, server_from_dict

    configs, problems, taken = [], [], set()
    for server in mcp_servers or []:
        name = _UNSAFE.sub("_", getattr(server, "name", "") or "server").replace("__", "_").strip("_") or "server"
        while name in taken:
            name += "_"
        taken.add(name)
        if getattr(server, "command", None) is not None:
            data: dict[str, Any] = {"command": server.command, "args": list(server.args or []),
                                    "env": {item.name: item.value for item in server.env or []}}
        else:
            kind = "sse" if getattr(server, "type", "") == "sse" else "http"
            data = {"type": kind, "url": server.url, "oauth": False,  # nobody here could sign in
                    "headers": {item.name: item.value for item in server.headers or []}}
        try:
            # no ${VAR} expansion: the client sent finished values
            config = server_from_dict(name, data, source="the ACP client", allow_vars=())
        except McpConfigError as error:
            problems.append(str(error))
            continue
        configs.append(config)
    return configs, problems


class SessionServers:
    """The client's MCP servers for one ACP session, and the session registry built from them."""

    def __init__(self, configs: list[Any], workspace: Path) -> None:
        from app.mcp.manager import McpManager

        self.manager = McpManager(configs, workspace=workspace, protocol_log=False)
        self.session: Any = None

    async def start(self, session: Any, timeout: float = CONNECT_WAIT) -> list[str]:
        """Connect, wait for every server to settle, give `session` their tools; the problems, in words."""
        self.session = session
        self.manager.add_listener(self._changed)
        self.manager.start()
        try:
            await self.manager.wait_settled(timeout=timeout)
        except asyncio.TimeoutError:
            pass  # the slow ones are reported below and join the session when they are ready
        self._rebuild()
        problems = []
        for name, (status, reason) in self.manager.statuses().items():
            if status != "ready":
                problems.append(f"MCP server '{name}' from the client is {status}" + (f": {reason}" if reason else ""))
        return problems

    def _changed(self, server: str, what: str) -> None:
        if what in ("tools", "status") and self.session is not None:
            self._rebuild()

    def _rebuild(self) -> None:
        session = self.session
        used = {call.name for message in session.messages for call in message.tool_calls}
        session.registry = self.manager.build_registry(session.registry, keep=used)

    async def stop(self) -> None:
        await self.manager.stop()
