"""The MCP inspector (F9, /mcp, the palette): every server's status and identity, its tools, resources
and prompts to try by hand, the live protocol log, and the server's own logs; add, remove, enable,
disable, reconnect, refresh and ping servers.

It follows the manager through a change listener (removed when the screen closes) and a short poll
for the log buffers. Every request runs in a worker, so the screen never waits on a server.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any, Callable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, OptionList, Static, TabbedContent, TabPane

from widgets.key_hints import key_hint
from styles import STYLES_DIR
from widgets.footer import KeysFooter
from widgets.mcp_catalog import CatalogPane
from widgets.mcp_history import CallHistory
from widgets.mcp_log import ProtocolLog, ServerMessages
from widgets.mcp_oauth_steps import OAuthStepsView
from widgets.mcp_panes import PromptsPane, ResourcesPane, ToolsPane
from widgets.mcp_roots import RootsEditor
from widgets.mcp_servers import ServerList, ServerOverview

EMPTY = ("No MCP servers are configured yet.\n\nPress [b]{add}[/b] to add one: it is saved to {path} and "
         "started at once.\nServers can also be defined as \\[mcp.servers.<name>] in config.toml or in a "
         "project's .mcp.json.")
POLL_SECONDS = 0.5


class McpInspectorScreen(Screen):
    """Left: the servers with a coloured status. Right: tabs about the highlighted one."""

    CSS_PATH = STYLES_DIR / "mcp.tcss"
    BINDINGS = [
        Binding("escape,f9", "close", "Close", id="mcp.close"),
        Binding("ctrl+r", "refresh", "Refresh", id="mcp.refresh"),
    ]

    class ServerChanged(Message):
        """The manager reported a change: `what` is status, tools, resources, prompts or log."""

        def __init__(self, server: str, what: str) -> None:
            super().__init__()
            self.server = server
            self.what = what

    def __init__(self, config_path: Path | str, *, clock: Callable[[], float] = time.perf_counter) -> None:
        super().__init__()
        self.config_path = Path(config_path)
        self.clock = clock
        self._listening: Any = None  # the manager our listener is registered with
        self._shown: str | None = None  # the server the tabs show

    # -- layout ---------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static("", id="mcp-heading")
        with Horizontal(id="mcp-body"):
            with Vertical(id="mcp-sidebar"):
                yield ServerList(id="mcp-servers")
            with Vertical(id="mcp-main"):
                yield Static(EMPTY.format(path=self.config_path, add=key_hint(self, "mcp.add", owner=ServerList)), id="mcp-empty")
                with TabbedContent(id="mcp-tabs"):
                    with TabPane("Overview", id="tab-overview"):
                        yield ServerOverview(id="mcp-overview")
                    with TabPane("Tools", id="tab-tools"):
                        yield ToolsPane(clock=self.clock, id="mcp-tools")
                    with TabPane("Resources", id="tab-resources"):
                        yield ResourcesPane(clock=self.clock, id="mcp-resources")
                    with TabPane("Prompts", id="tab-prompts"):
                        yield PromptsPane(clock=self.clock, id="mcp-prompts")
                    with TabPane("History", id="tab-history"):
                        yield CallHistory(id="mcp-history")
                    with TabPane("Roots", id="tab-roots"):
                        yield RootsEditor(id="mcp-roots")
                    with TabPane("OAuth", id="tab-oauth"):
                        yield OAuthStepsView(id="mcp-oauth")
                    with TabPane("Protocol log", id="tab-protocol"):
                        yield ProtocolLog(id="mcp-protocol")
                    with TabPane("Server log", id="tab-logs"):
                        yield ServerMessages(id="mcp-messages")
        yield KeysFooter()

    @property
    def manager(self) -> Any:
        return getattr(getattr(self.app, "mcp", None), "manager", None)

    @property
    def selected(self) -> str | None:
        return self.query_one(ServerList).selected

    def state(self, name: str | None = None) -> Any:
        name = name or self.selected
        manager = self.manager
        return manager.servers.get(name) if manager is not None and name else None

    def on_mount(self) -> None:
        self._listen()
        self.show_servers()
        self.query_one(ServerList).focus()
        self.set_interval(POLL_SECONDS, self._poll)

    def on_unmount(self) -> None:
        if self._listening is not None:
            self._listening.remove_listener(self._changed)
            self._listening = None

    def _listen(self) -> None:
        manager = self.manager
        if manager is not None and self._listening is not manager:
            if self._listening is not None:
                self._listening.remove_listener(self._changed)
            manager.add_listener(self._changed)
            self._listening = manager

    def _changed(self, server: str, what: str) -> None:
        """Manager listener (called on the event loop): hand over as a message, never work inline."""
        self.post_message(self.ServerChanged(server, what))

    # -- showing --------------------------------------------------------------------------------
    def show_servers(self) -> None:
        """Redraw the server list and the tabs of the highlighted server."""
        manager = self.manager
        states = list(manager.servers.values()) if manager is not None else []
        self.query_one(ServerList).show([s.summary() for s in states])
        self.query_one("#mcp-empty").display = not states
        self.query_one("#mcp-tabs").display = bool(states)
        ready = sum(1 for s in states if s.status == "ready")
        self.query_one("#mcp-heading", Static).update(
            Text.assemble(("MCP inspector", "bold"), f"   {len(states)} server(s), {ready} ready",
                          (f"   {key_hint(self, 'mcp.close')} closes", "dim")))
        self.show_selected()

    def show_selected(self, what: str | None = None) -> None:
        """Show the highlighted server in the tabs; `what` limits it to the part that changed."""
        manager, name, state = self.manager, self.selected, self.state()
        self._shown = name
        if what in (None, "status"):
            self.query_one(ServerOverview).show(state)
        if what in (None, "status", "tools", "resources", "prompts"):
            for pane in (ToolsPane, ResourcesPane, PromptsPane):
                self.query_one(pane).show_server(manager, name)
            self.query_one(RootsEditor).show_server(manager, name)
            self.query_one(CallHistory).show_server(state)
        if what in (None, "log", "status"):
            self.query_one(ServerMessages).show_server(state)
        if what is None:
            self.query_one(ProtocolLog).show_server(state)
        if what in (None, "status", "oauth"):
            self.query_one(OAuthStepsView).show_server(state)

    @on(ServerChanged)
    def _server_changed(self, message: ServerChanged) -> None:
        self._listen()
        if message.what.startswith("resource-updated:"):
            self.query_one(ResourcesPane).resource_updated(message.server, message.what.partition(":")[2])
        elif message.what in ("subscriptions", "roots"):
            pass  # the pane that asked shows it
        elif message.what == "oauth":
            if message.server == self.selected:
                self.show_selected("oauth")
        elif message.what != "log":
            self.show_servers()  # statuses and counts in the list, and the tabs
        elif message.server == self.selected:
            self.show_selected("log")

    @on(CatalogPane.Called)
    def _called(self, message: CatalogPane.Called) -> None:
        if message.server == self.selected:
            self.query_one(CallHistory).show_server(self.state())

    @on(CallHistory.RunAgain)
    def _run_again(self, message: CallHistory.RunAgain) -> None:
        """Make a call from the history again, in its own tab."""
        pane = self.query_one(f"#mcp-{message.kind}", CatalogPane)
        if pane.run_again(message.key, message.raw):
            self.query_one(TabbedContent).active = f"tab-{message.kind}"
            pane.option_list.focus()  # (focus left in the History tab would switch back to it)
        else:
            self.notify("That item is no longer offered by the server.", severity="warning", timeout=4)

    @on(OptionList.OptionHighlighted, "#mcp-servers")
    def _server_highlighted(self) -> None:
        if self.selected != self._shown:
            self.query_one(ServerOverview).show_ping("")
            self.show_selected()

    def _poll(self) -> None:
        active = self.query_one(TabbedContent).active
        if active == "tab-protocol":
            self.query_one(ProtocolLog).poll()
        elif active == "tab-logs":
            self.query_one(ServerMessages).poll()
        state = self.state()
        if active == "tab-overview" and state is not None and state.status in ("failed", "circuit-open"):
            self.query_one(ServerOverview).show(state)  # the retry countdown moves

    # -- actions ----------------------------------------------------------------------------------
    def action_close(self) -> None:
        """Esc in a form goes back to its list; Esc anywhere else closes the inspector."""
        focused = self.focused
        pane = next((a for a in focused.ancestors_with_self if isinstance(a, CatalogPane)), None) \
            if focused is not None else None
        if pane is not None and focused is not pane.option_list:
            pane.option_list.focus()
            return
        self.dismiss()

    @on(Button.Pressed, "#mcp-overview Button")
    def _overview_button(self, event: Button.Pressed) -> None:
        event.stop()
        action = (event.button.id or "").removeprefix("server-")
        {"ping": self.action_ping, "reconnect": self.action_reconnect, "toggle": self.action_toggle_enabled,
         "refresh": self.action_refresh, "remove": self.action_remove_server}[action]()

    def _chosen(self) -> str | None:
        """The highlighted server, or None with a hint when there is none."""
        name = self.selected
        if name is None or self.state(name) is None:
            self.notify(f"No server selected: press {key_hint(self, 'mcp.add', owner=ServerList)} to add one.",
                        severity="warning", timeout=4)
            return None
        return name

    def _run(self, work: Any, name: str) -> None:
        self.run_worker(self._guarded(work), group=f"mcp-{name}", exit_on_error=False)

    async def _guarded(self, work: Any) -> None:
        """Run an action; whatever goes wrong becomes a notification in words."""
        try:
            await work
        except Exception as exc:  # noqa: BLE001
            from app.runtime.error_log import in_words

            self.notify(in_words("The MCP action", exc), severity="error", timeout=8)

    def action_ping(self) -> None:
        name = self._chosen()
        if name is not None:
            self.query_one(ServerOverview).show_ping(Text(f"Pinging {name}…", style="dim"))
            self._run(self._ping(name), name)

    async def _ping(self, name: str) -> None:
        overview = self.query_one(ServerOverview)
        try:
            ms = await self.manager.ping(name)
        except Exception as exc:  # noqa: BLE001
            from tools.errors import ToolError

            overview.show_ping(Text(f"✖ ping {name}" + (f": {exc}" if isinstance(exc, ToolError) else " failed"),
                                    style="red"))
            raise
        overview.show_ping(Text(f"✔ ping {name}: {ms:.1f} ms round trip", style="green"))
        self.notify(f"{name}: {ms:.1f} ms round trip", title="Ping", timeout=3)

    def action_reconnect(self) -> None:
        name = self._chosen()
        if name is not None:
            self._run(self.manager.reconnect(name), name)

    def action_refresh(self) -> None:
        name = self._chosen()
        if name is not None:
            self._run(self._refresh(name), name)

    async def _refresh(self, name: str) -> None:
        await self.manager.refresh(name)
        self.notify(f"{name}: tools, resources and prompts listed again.", timeout=3)

    def action_toggle_enabled(self) -> None:
        name = self._chosen()
        if name is not None:
            self._run(self._toggle(name), name)

    async def _toggle(self, name: str) -> None:
        from app.settings.config_edit import SERVERS_SOURCE, set_mcp_server_enabled

        state = self.state(name)
        enable = state.status == "disabled"
        await self.manager.set_enabled(name, enable)
        saved = ""
        if state.config.source == SERVERS_SOURCE and \
                await asyncio.to_thread(set_mcp_server_enabled, self.config_path, name, enable):
            saved = f" (saved to {self.config_path})"
        self.notify(f"{name} {'enabled' if enable else 'disabled'}{saved}.", timeout=4)

    def action_add_server(self) -> None:
        from app.tui.screens.mcp_add_server import AddServerScreen

        taken = list(self.manager.servers) if self.manager is not None else []

        def added(answer: tuple[dict[str, Any], Any] | None) -> None:
            if answer is not None:
                self._run(self._add(*answer), answer[1].name)

        self.app.push_screen(AddServerScreen(taken, str(self.config_path)), callback=added)

    async def _add(self, entry: dict[str, Any], config: Any) -> None:
        from app.settings.config_edit import write_mcp_server

        await asyncio.to_thread(write_mcp_server, self.config_path, config.name, entry)
        manager = self.app.mcp.ensure_manager()  # the first server creates the manager
        self._listen()
        manager.add_server(config)
        self.show_servers()
        servers = self.query_one(ServerList)
        servers.highlighted = list(manager.servers).index(config.name)
        self.notify(f"Added {config.name} to {self.config_path}; connecting…", timeout=4)

    def action_remove_server(self) -> None:
        from app.tui.screens.confirm import ConfirmScreen

        name = self._chosen()
        if name is None:
            return
        state = self.state(name)
        where = f"deleted from {self.config_path}" if state.config.source.startswith("config.toml") else \
            f"defined in {state.config.source or 'another file'}: removed for this session only"
        question = f"Remove the MCP server “{name}”? It is stopped and {where}."

        def confirmed(answer: bool | None) -> None:
            if answer:
                self._run(self._remove(name), name)

        self.app.push_screen(ConfirmScreen(question), callback=confirmed)

    async def _remove(self, name: str) -> None:
        from app.settings.config_edit import remove_mcp_server

        removed = await asyncio.to_thread(remove_mcp_server, self.config_path, name)
        await self.manager.remove_server(name)
        self.show_servers()
        self.notify(f"Removed {name}" + (f" from {self.config_path}." if removed else " for this session."),
                    timeout=4)
