"""/help: every slash command with one line each, and the keys."""

from __future__ import annotations

from typing import Mapping

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from app.engine.commands import COMMANDS
from styles import STYLES_DIR

PROMPT_KEYS = (
    ("Enter / Ctrl+J", "send / new line"),
    ("Up / Down", "earlier prompts of this workstream"),
    ("Tab", "complete a /command"),
    ("Ctrl+P", "command palette"),
)


def help_table(keymap: Mapping[str, str] | None = None) -> Table:
    """Every /command, then the keys in force on the main screen and in each dialog ([keymap] applied)."""
    from app.tui.commands.keymap import dialog_rows, help_rows

    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    for command in COMMANDS:
        table.add_row(Text(f"/{command.name} {command.usage}".rstrip()), command.summary)
    table.add_row("", "")
    for keys, what in (*PROMPT_KEYS, *help_rows(keymap or {})):
        table.add_row(Text(keys, style="bold cyan"), Text(what))
    table.add_row("", "")
    table.add_row(Text("In dialogs", style="bold"), Text("(ids for [keymap]: docs/keys.md)", style="dim"))
    for dialog, keys in dialog_rows(keymap or {}):
        table.add_row(Text(dialog, style="bold cyan"), Text(keys))
    return table


class HelpScreen(ModalScreen[None]):

    CSS_PATH = STYLES_DIR / "screens.tcss"
    BINDINGS = [Binding("escape,q,enter,f1", "dismiss", "Close", id="help.close")]

    def __init__(self, keymap: Mapping[str, str] | None = None) -> None:
        super().__init__()
        self.keymap = keymap or {}

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-dialog"):
            from app.tui.commands.keymap import keys_in_force

            yield Static(f"[b]Commands and keys[/b]   ({keys_in_force('help.close', self.keymap)} closes)",
                         id="help-heading")
            yield Static(help_table(self.keymap))
