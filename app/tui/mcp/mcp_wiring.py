"""Connects the app's workstreams to MCP servers: tools appear to every session as they come and go.

A mixin of WhimbrelApp. The manager connects in the background (startup never waits); whenever a
server's tools, resources or prompts change, each session gets a fresh registry (copy-on-write), and
the resource/prompt catalog is added to the system message.
"""

from __future__ import annotations


class McpWiring:
    mcp = None  # app.mcp.manager.McpManager when servers are configured
    _mcp_reported: set[str] | None = None  # servers whose current outage the user was told about

    def start_mcp(self) -> list[str]:
        """Start connecting to the configured servers; returns config problems to show the user."""
        config = self.options.config
        if config is None:
            return []
        from app.mcp.config import McpConfigError, servers_from_app_config

        try:
            servers, problems = servers_from_app_config(config, self.options.workdir)
        except McpConfigError as error:
            return [f"MCP configuration: {error}"]
        if not servers:
            return list(problems)
        self.mcp = self._new_mcp_manager(servers)
        return [*problems, *self.mcp.problems]

    def _new_mcp_manager(self, servers):
        """A started manager with the config's timeouts (defaults without a config)."""
        from app.mcp.manager import McpManager
        from app.tui.mcp.mcp_client_ui import client_hooks

        config = self.options.config
        limits = {} if config is None else dict(
            call_timeout=config.mcp_call_timeout, connect_timeout=config.mcp_connect_timeout,
            refresh_interval=config.mcp_refresh_interval)
        from app.tui.screens.mcp_oauth import authorization_hook

        hooks = client_hooks(self)
        hooks.authorization = authorization_hook(self)  # OAuth sign-ins: a dialog, the browser on request
        manager = McpManager(servers, workspace=self.options.workdir, listener=self._mcp_changed,
                             hooks=hooks, data_dir=self.options.data_dir, **limits)
        manager.start()
        return manager

    def ensure_mcp(self):
        """The manager, created (empty, started) when the first server is added from the inspector."""
        if self.mcp is None:
            self.mcp = self._new_mcp_manager({})
        return self.mcp

    def action_mcp_inspector(self) -> None:
        """F9, /mcp and the palette: the MCP inspector (F9 or Esc closes it again)."""
        from app.tui.screens.mcp_inspector import McpInspectorScreen

        if isinstance(self.screen, McpInspectorScreen) or not self._booted():
            return
        self.push_screen(McpInspectorScreen(self.options.config_path))

    def session_registry(self):
        """The tool registry a new session starts with: built-ins plus the MCP tools known now."""
        return self.mcp.build_registry(self.registry) if self.mcp is not None else self.registry

    def _mcp_changed(self, server: str, what: str) -> None:
        if what in ("tools", "resources", "prompts"):
            for workstream in self.manager or ():
                session = workstream.session
                used = {call.name for m in session.messages for call in m.tool_calls}
                session.registry = self.mcp.build_registry(session.registry, keep=used)
        elif what == "status":
            status, reason = self.mcp.status(server)
            if self._mcp_reported is None:
                self._mcp_reported = set()
            if status == "ready":
                self._mcp_reported.discard(server)
            elif status == "failed" and server not in self._mcp_reported:  # once per outage, not per retry
                self._mcp_reported.add(server)
                self.notify(f"MCP server “{server}” failed: {reason} (F9 shows its status)",
                            severity="warning", timeout=8)

    def mcp_catalog(self) -> str:
        return self.mcp.catalog_text() if self.mcp is not None else ""

    def mcp_summary(self) -> str:
        """One line per server for `/mcp`: status, reason, tool count."""
        if self.mcp is None:
            return "No MCP servers are configured ([mcp.servers.<name>] in config.toml, or .mcp.json)."
        lines = []
        for name, (status, reason) in self.mcp.statuses().items():
            tools = sum(1 for spec in self.mcp.tool_specs() if spec.name.startswith(f"mcp__{name}__"))
            detail = f" — {reason}" if reason else ""
            lines.append(f"{name}: {status}{detail} ({tools} tools)")
        return "MCP servers:\n" + "\n".join(lines)

    async def stop_mcp(self) -> None:
        if self.mcp is not None:
            await self.mcp.stop()
