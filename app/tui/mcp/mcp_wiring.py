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
        """Start connecting to the configured servers; returns config problems to show the user.

        The project's `.mcp.json` counts only as the permission setup read it with its review state:
        not accepted, none of its servers starts (a line says how to review it); accepted later on the
        policy screen, its servers start then."""
        config = self.options.config
        if config is None:
            return []
        from app.mcp.config import McpConfigError, servers_from_app_config

        setup = self.permissions
        if setup is not None:
            setup.on_accepted.append(self._project_accepted)
        project = setup.loaded.mcp if setup is not None and setup.loaded is not None else None
        try:
            servers, problems = servers_from_app_config(config, self.options.workdir, project=project)
        except McpConfigError as error:
            return [f"MCP configuration: {error}"]
        if not servers:
            return list(problems)
        self.mcp = self._new_mcp_manager(servers)
        return [*problems, *self.mcp.problems]

    def _new_mcp_manager(self, servers):
        """A started manager with the config's timeouts (defaults without a config)."""
        from app.mcp.manager import McpManager
        from app.tui.mcp.mcp_client_ui import browser_opener, client_hooks

        config = self.options.config
        limits = {} if config is None else dict(
            call_timeout=config.mcp_call_timeout, connect_timeout=config.mcp_connect_timeout,
            refresh_interval=config.mcp_refresh_interval)
        from app.tui.screens.mcp_oauth import authorization_hook

        hooks = client_hooks(self)
        hooks.authorization = authorization_hook(self, opener=browser_opener(self))  # OAuth sign-ins: a dialog, the browser on request
        manager = McpManager(servers, workspace=self.options.workdir, listener=self._mcp_changed,
                             hooks=hooks, data_dir=self.options.data_dir, **limits)
        manager.start()
        return manager

    async def _project_accepted(self, loaded) -> None:
        """The user accepted the project's files: start the servers of `.mcp.json` as accepted."""
        from app.mcp.config import load_servers
        from app.permissions.project import project_env

        if loaded.mcp is None or loaded.mcp.state != "accepted" or self.options.config is None:
            return
        servers, problems = load_servers({}, workspace=self.options.workdir, project=loaded.mcp,
                                         project_env=project_env(self.options.config))
        manager = self.ensure_mcp() if servers else None
        for config in servers.values():
            current = manager.servers.get(config.name)
            if current is None or current.config != config:  # new, or changed since it was accepted
                manager.add_server(config)
        for problem in problems:
            self.notify(problem, title="MCP servers", severity="warning", timeout=12)
        if servers:
            self.notify(f"Starting the project's MCP servers: {', '.join(servers)}", title="MCP servers", timeout=6)

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
