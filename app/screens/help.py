"""/help: every slash command with one line each, and the keys."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from app.engine.commands import COMMANDS
from styles import STYLES_DIR

KEYS = (
    ("Enter / Ctrl+J", "send / new line"),
    ("Up / Down", "earlier prompts of this workstream"),
    ("Tab", "complete a /command"),
    ("Ctrl+O", "compose the prompt in $VISUAL / $EDITOR"),
    ("Esc", "cancel the running turn"),
    ("Ctrl+N", "new workstream"),
    ("Alt+1…9, Ctrl+PgUp/PgDn", "switch workstream"),
    ("Ctrl+G", "next workstream waiting for approval"),
    ("F2 / F3 / F4 / F8", "next pane / split side by side / split stacked / close pane"),
    ("F9", "MCP inspector (also /mcp)"),
    ("F1", "this help (also /help)"),
    ("Ctrl+P", "command palette"),
    ("Ctrl+Q", "quit"),
)


def help_table() -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    for command in COMMANDS:
        table.add_row(Text(f"/{command.name} {command.usage}".rstrip()), command.summary)
    table.add_row("", "")
    for keys, what in KEYS:
        table.add_row(Text(keys, style="bold cyan"), what)
    return table


class HelpScreen(ModalScreen[None]):

    CSS_PATH = STYLES_DIR / "screens.tcss"
    BINDINGS = [Binding("escape,q,enter,f1", "dismiss", "Close")]

    def __init__(self, *_args) -> None:
        super().__init__()

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-dialog"):
            yield Static("[b]Commands and keys[/b]   (Esc closes)", id="help-heading")
            yield Static(help_table())
