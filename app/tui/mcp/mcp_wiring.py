"""Connects the app's workstreams to MCP servers: tools appear to every session as they come and go.

The App holds one McpWiring (the App passed in: its options, permission set-up, workstreams and
Textual's App API). It connects in the background (startup never waits); whenever a server's tools,
resources or prompts change, each session gets a fresh registry (copy-on-write), and the
resource/prompt catalog is added to the system message.
"""

from __future__ import annotations


class McpWiring:
    """The window's MCP servers for one App: the manager (`manager`, None until a server is configured
    or added from the inspector), the outages already told, the inspector, `/mcp`'s summary."""

    def __init__(self, app) -> None:
        self.app = app
        self.manager = None  # app.mcp.manager.McpManager (app.manager is the workstreams' manager)
        self._reported: set[str] = set()  # servers whose current outage the user was told about

    def start(self) -> list[str]:
        """Start connecting to the configured servers; returns config problems to show the user.

        The project's `.mcp.json` counts only as the permission setup read it with its review state:
        not accepted, none of its servers starts (a line says how to review it); accepted later on the
        policy screen, its servers start then."""
        app = self.app
        config = app.options.config
        if config is None:
            return []
        from app.mcp.config import McpConfigError, servers_from_app_config

        setup = app.permissions.setup
        if setup is not None:
            setup.on_accepted.append(self._project_accepted)
        project = setup.loaded.mcp if setup is not None and setup.loaded is not None else None
        try:
            servers, problems = servers_from_app_config(config, app.options.workdir, project=project)
        except McpConfigError as error:
            return [f"MCP configuration: {error}"]
        if not servers:
            return list(problems)
        self.manager = self._new_manager(servers)
        return [*problems, *self.manager.problems]

    def _new_manager(self, servers):
        """A started manager with the config's timeouts (defaults without a config)."""
        from app.mcp.manager import McpManager
        from app.tui.mcp.mcp_client_ui import browser_opener, client_hooks

        app = self.app
        config = app.options.config
        limits = {} if config is None else dict(
            call_timeout=config.mcp_call_timeout, connect_timeout=config.mcp_connect_timeout,
            refresh_interval=config.mcp_refresh_interval)
        from app.tui.screens.mcp_oauth import authorization_hook

        hooks = client_hooks(app)
        hooks.authorization = authorization_hook(app, opener=browser_opener(app))  # OAuth sign-ins: a dialog, the browser on request
        manager = McpManager(servers, workspace=app.options.workdir, listener=self.server_changed,
                             hooks=hooks, data_dir=app.options.data_dir, **limits)
        manager.start()
        return manager

    async def _project_accepted(self, loaded) -> None:
        """The user accepted the project's files: start the servers of `.mcp.json` as accepted."""
        from app.mcp.config import load_servers
        from app.permissions.project import project_env

        app = self.app
        if loaded.mcp is None or loaded.mcp.state != "accepted" or app.options.config is None:
            return
        servers, problems = load_servers({}, workspace=app.options.workdir, project=loaded.mcp,
                                         project_env=project_env(app.options.config))
        manager = self.ensure_manager() if servers else None
        for config in servers.values():
            current = manager.servers.get(config.name)
            if current is None or current.config != config:  # new, or changed since it was accepted
                manager.add_server(config)
        for problem in problems:
            app.notify(problem, title="MCP servers", severity="warning", timeout=12)
        if servers:
            app.notify(f"Starting the project's MCP servers: {', '.join(servers)}", title="MCP servers", timeout=6)

    def ensure_manager(self):
        """The manager, created (empty, started) when the first server is added from the inspector."""
        if self.manager is None:
            self.manager = self._new_manager({})
        return self.manager

    def open_inspector(self) -> None:
        """F9, /mcp and the palette: the MCP inspector (F9 or Esc closes it again)."""
        from app.tui.screens.mcp_inspector import McpInspectorScreen

        app = self.app
        if isinstance(app.screen, McpInspectorScreen) or not app.booted():
            return
        app.push_screen(McpInspectorScreen(app.options.config_path))

    def session_registry(self, builtin):
        """The tool registry a new session starts with: the built-ins plus the MCP tools known now."""
        return self.manager.build_registry(builtin) if self.manager is not None else builtin

    def server_changed(self, server: str, what: str) -> None:
        """The manager's listener: new tools reach every session; a server's outage is told once."""
        if what in ("tools", "resources", "prompts"):
            for workstream in self.app.manager or ():
                session = workstream.session
                used = {call.name for m in session.messages for call in m.tool_calls}
                session.registry = self.manager.build_registry(session.registry, keep=used)
        elif what == "status":
            status, reason = self.manager.status(server)
            if status == "ready":
                self._reported.discard(server)
            elif status == "failed" and server not in self._reported:  # once per outage, not per retry
                self._reported.add(server)
                self.app.notify(f"MCP server “{server}” failed: {reason} (F9 shows its status)",
                                severity="warning", timeout=8)

    def catalog(self) -> str:
        """The servers' resources and prompts, for each session's system message."""
        return self.manager.catalog_text() if self.manager is not None else ""

    def summary(self) -> str:
        """One line per server for `/mcp`: status, reason, tool count."""
        if self.manager is None:
            return "No MCP servers are configured ([mcp.servers.<name>] in config.toml, or .mcp.json)."
        lines = []
        for name, (status, reason) in self.manager.statuses().items():
            tools = sum(1 for spec in self.manager.tool_specs() if spec.name.startswith(f"mcp__{name}__"))
            detail = f" — {reason}" if reason else ""
            lines.append(f"{name}: {status}{detail} ({tools} tools)")
        return "MCP servers:\n" + "\n".join(lines)

    async def stop(self) -> None:
        if self.manager is not None:
            await self.manager.stop()
