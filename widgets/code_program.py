"""run_code's part of its tool card: the program, highlighted, and one row per tool call
it made with its status (and why it failed). Hidden for every other tool."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Group
from rich.text import Text
from textual.widgets import Static

from app.vocabulary.inert import inert

ICONS = {"pending": "○", "approved": "✔", "denied": "✖", "running": "◐", "done": "●", "error": "✖"}


def program_of(arguments: str) -> str:
    """The `code` argument of a run_code call ('' when it is not there)."""
    try:
        args = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        return ""
    code = args.get("code") if isinstance(args, dict) else None
    return code if isinstance(code, str) else ""


class CodeProgram(Static):
    """The program and its calls, redrawn as the calls move on."""

    DEFAULT_CSS = """
    CodeProgram { display: none; padding: 0 1; }
    CodeProgram.-active { display: block; }
    """

    def __init__(self, code: str = "") -> None:
        super().__init__("", classes="code-program")
        self.code = inert(code.rstrip())
        self.calls: dict[str, list[str]] = {}  # sub-call id -> [name, preview, status, detail]
        if self.code:
            self.add_class("-active")
            self.update(self.rendered())

    def apply(self, event: Any) -> None:
        """A sub-call's event (app/engine/events.py CodeCallEvent.event)."""
        from app.engine import events as ev

        match event:
            case ev.ToolCallAdded():
                self.calls[event.call_id] = [event.name, " ".join(event.preview.split())[:60], "pending", ""]
            case ev.ToolCallUpdated(call_id=call_id) if call_id in self.calls:
                self.calls[call_id][2] = event.status
            case ev.ToolResultReady(call_id=call_id) if call_id in self.calls and event.is_error:
                self.calls[call_id][3] = " ".join(event.output.split())[:80]
            case _:
                return
        self.add_class("-active")
        self.update(self.rendered())

    def rendered(self) -> Group:
        parts: list[Any] = []
        if self.code:
            from rich.syntax import Syntax  # with pygments: only once a program is shown, not at startup

            parts.append(Syntax(self.code, "python", theme="ansi_dark", background_color="default", word_wrap=True))
        if self.calls:
            rows = Text()
            rows.append(f"{len(self.calls)} tool call{'s' if len(self.calls) != 1 else ''} from the program:\n",
                        style="bold")
            for name, preview, status, detail in self.calls.values():
                rows.append(f"  {ICONS.get(status, '?')} {inert(name, multiline=False)}  "
                            f"{inert(preview, multiline=False)}  [{status}]")
                if detail:
                    rows.append(f"  {inert(detail, multiline=False)}", style="red")
                rows.append("\n")
            parts.append(rows)
        return Group(*parts)
