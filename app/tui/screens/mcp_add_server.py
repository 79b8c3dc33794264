"""Add an MCP server from the inspector: name, then a command line (stdio) or a URL (HTTP/SSE) with
optional headers and a bearer token.

Checked with the config loader's own rules (`entry_from_form`); dismisses with the TOML table to write
and the ServerConfig to start, or None when cancelled.
"""

from __future__ import annotations

from typing import Iterable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Select, Static

from app.mcp.config import McpConfigError, entry_from_form
from styles import STYLES_DIR

TRANSPORTS = [("stdio — a local command", "stdio"), ("HTTP — streamable HTTP URL", "http"),
              ("SSE — legacy server-sent events URL", "sse")]


class AddServerScreen(ModalScreen["tuple[dict[str, Any], Any] | None"]):
    CSS_PATH = STYLES_DIR / "mcp.tcss"
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="mcp_add_server.cancel")]

    def __init__(self, taken: Iterable[str], config_path: str) -> None:
        super().__init__()
        self.taken = set(taken)
        self.config_path = config_path

    def compose(self) -> ComposeResult:
        with Vertical(id="add-server-dialog"):
            yield Static("[b]Add an MCP server[/b]", id="add-server-heading")
            yield Static("Name (letters, digits, - and _; tools become mcp__<name>__<tool>)", classes="hint")
            yield Input(placeholder="e.g. time", id="add-name")
            yield Select(TRANSPORTS, value="stdio", allow_blank=False, id="add-transport")
            yield Static("Command line", classes="hint stdio-only")
            yield Input(placeholder="e.g. uvx mcp-server-time --local-timezone UTC", id="add-command",
                        classes="stdio-only")
            yield Static("Environment (optional): KEY=VALUE …, ${VAR} is expanded", classes="hint stdio-only")
            yield Input(placeholder="e.g. API_TOKEN=${MY_TOKEN}", id="add-env", classes="stdio-only")
            yield Static("URL", classes="hint url-only")
            yield Input(placeholder="e.g. http://127.0.0.1:3001/mcp", id="add-url", classes="url-only")
            yield Static("Headers (optional): Name: value; … — ${VAR} is expanded", classes="hint url-only")
            yield Input(placeholder="e.g. X-Api-Key: ${MY_KEY}; X-Team: birds", id="add-headers", classes="url-only")
            yield Static("Bearer token (optional): sent as Authorization: Bearer …", classes="hint url-only")
            yield Input(placeholder="e.g. ${MY_TOKEN} (kept out of the file) or the token itself", id="add-bearer",
                        classes="url-only", password=True)
            yield Static("", id="add-error")
            yield Static(Text(f"Saved to {self.config_path} (comments and layout kept) and started at once.",
                              style="dim"), id="add-where")
            with Horizontal(id="add-buttons"):
                yield Button("Add", id="add-ok", variant="primary")
                yield Button("Cancel", id="add-cancel")

    def on_mount(self) -> None:
        for field in self.query(Input):
            field.cursor_blink = False
        self._show_transport("stdio")
        self.query_one("#add-name", Input).focus()

    @on(Select.Changed, "#add-transport")
    def _transport_changed(self, event: Select.Changed) -> None:
        self._show_transport(str(event.value))

    def _show_transport(self, transport: str) -> None:
        for widget in self.query(".stdio-only"):
            widget.display = transport == "stdio"
        for widget in self.query(".url-only"):
            widget.display = transport != "stdio"

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.add()

    @on(Button.Pressed, "#add-ok")
    def _ok(self) -> None:
        self.add()

    @on(Button.Pressed, "#add-cancel")
    def _cancel(self) -> None:
        self.dismiss(None)

    def add(self) -> None:
        """Validate; on success dismiss with (toml table, ServerConfig), else show the problem."""
        name = self.query_one("#add-name", Input).value.strip()
        transport = str(self.query_one("#add-transport", Select).value)
        error = self.query_one("#add-error", Static)
        if name in self.taken:
            error.update(Text(f"A server named '{name}' already exists; pick another name.", style="red"))
            return
        try:
            entry, config = entry_from_form(name, transport, self.query_one("#add-command", Input).value,
                                            self.query_one("#add-url", Input).value,
                                            self.query_one("#add-env", Input).value,
                                            self.query_one("#add-headers", Input).value,
                                            self.query_one("#add-bearer", Input).value)
        except McpConfigError as exc:
            error.update(Text(str(exc).removeprefix("config.toml [mcp.servers]: "), style="red"))
            return
        self.dismiss((entry, config))
