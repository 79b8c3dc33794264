"""The inspector's History tab: each call made by hand on the server on show (tool calls, reads, prompts),
newest first, with its arguments and what it answered; Enter (or Run again) makes the same call again
from its own tab, its form filled as it was.
"""

from __future__ import annotations

import json
import time
from typing import Any

from rich.console import Group
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Button, OptionList, Static
from textual.widgets.option_list import Option

from widgets.mcp_result import pretty_json

KIND_WORDS = {"tools": "call", "resources": "read", "prompts": "prompt"}


class CallHistory(Horizontal):
    """The list of calls on the left, the chosen call's arguments and answer on the right."""

    DEFAULT_CSS = """
    CallHistory #history-list { width: 44; height: 1fr; border: none; border-right: vkey $primary 30%; }
    CallHistory #history-detail { width: 1fr; height: 1fr; padding: 0 1 0 2; }
    CallHistory #history-actions { height: auto; margin: 0 0 1 0; }
    """

    class RunAgain(Message):
        """Make this call again: `kind` names the tab, `key` the item, `raw` the form's values."""

        def __init__(self, kind: str, key: str, raw: dict[str, Any]) -> None:
            super().__init__()
            self.kind, self.key, self.raw = kind, key, raw

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.state: Any = None
        self._records: list[Any] = []

    def compose(self) -> ComposeResult:
        yield OptionList(id="history-list")
        with VerticalScroll(id="history-detail"):
            with Horizontal(id="history-actions"):
                yield Button("Run again", id="history-run", variant="primary", compact=True, disabled=True)
            yield Static("", id="history-shown")

    def show_server(self, state: Any | None) -> None:
        changed = state is not self.state
        self.state = state
        records = list(reversed(state.inspection.history)) if state is not None else []
        if not changed and len(records) == len(self._records):
            return
        options = self.query_one(OptionList)
        self._records = records
        options.clear_options()
        for record in records:
            label = Text("✔ " if record.ok else "✖ ", style="green" if record.ok else "red")
            label.append(f"{KIND_WORDS.get(record.kind, record.kind)} ", style="dim")
            label.append(record.label, style="bold")
            label.append(time.strftime("\n  %H:%M:%S", time.localtime(record.at)) + f"  {record.elapsed_ms:.0f} ms",
                         style="dim")
            options.add_option(Option(label))
        if not records:
            options.add_option(Option(Text("No calls yet: what you call, read or get by hand is listed here.",
                                           style="dim italic"), disabled=True))
            self._show(None)
        else:
            options.highlighted = 0  # the newest call
            self._show(records[0])

    @on(OptionList.OptionHighlighted, "#history-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        index = event.option_index
        self._show(self._records[index] if 0 <= index < len(self._records) else None)

    @on(OptionList.OptionSelected, "#history-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.run_again(event.option_index)

    @on(Button.Pressed, "#history-run")
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        index = self.query_one(OptionList).highlighted
        if index is not None:
            self.run_again(index)

    def run_again(self, index: int) -> None:
        if 0 <= index < len(self._records):
            record = self._records[index]
            self.post_message(self.RunAgain(record.kind, record.key, record.raw))

    def _show(self, record: Any | None) -> None:
        self.query_one("#history-run", Button).disabled = record is None
        shown = self.query_one("#history-shown", Static)
        if record is None:
            shown.update("")
            return
        try:
            arguments: Any = pretty_json(json.loads(json.dumps(record.arguments, default=str)))
        except (TypeError, ValueError):
            arguments = Text(repr(record.arguments))
        parts = [Text(f"{KIND_WORDS.get(record.kind, record.kind)} {record.label}", style="bold"),
                 Text("── arguments", style="bold cyan"), arguments if record.arguments else Text("(none)", style="dim"),
                 Text("── answer", style="bold cyan")]
        if record.shown is not None:
            parts.append(record.shown)
        shown.update(Group(*parts))
