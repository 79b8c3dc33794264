"""The "Always" dialog: the narrowest rule(s) for a call, editable, and where to keep them.

Dismisses with (rules, scope) — scope being workstream, project or user — or None when cancelled.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, RadioSet, Static

from widgets.toggles import MarkedRadioButton

from app.engine.events import ApprovalItem
from app.vocabulary.inert import inert
from styles import STYLES_DIR

SCOPES = (("workstream", "this workstream"), ("project", "this project"), ("user", "everywhere"))


class RuleSaveScreen(ModalScreen[tuple[list[str], str] | None]):
    """Edit the offered rules, pick a scope, see which file they go to; Enter saves, Esc cancels."""

    CSS_PATH = STYLES_DIR / "approval.tcss"
    BINDINGS = [Binding("escape", "cancel", "Cancel", priority=True, id="rule_save.cancel")]

    def __init__(self, item: ApprovalItem, places: dict[str, str] | None = None) -> None:
        super().__init__()
        self.item = item
        self.places = places or {}
        self.scope = "workstream"

    def compose(self) -> ComposeResult:
        suggestions = self.item.suggestions or [self.item.name]
        with Vertical(id="rule-dialog"):
            yield Static(Text(f"Always allow — {inert(self.item.name, multiline=False)}", style="bold"),
                         id="rule-heading")
            yield Static(Text("Rules to save (edit them; each part of a command line needs its own rule):",
                              style="dim"))
            for number, rule in enumerate(suggestions):
                yield Input(value=rule, id=f"rule-{number}", classes="rule-input")
            with RadioSet(id="rule-scope"):
                for index, (key, label) in enumerate(SCOPES):
                    yield MarkedRadioButton(label, value=index == 0, id=f"scope-{key}")
            yield Static(self._where(), id="rule-where")
            with Horizontal(id="rule-buttons"):
                yield Button("Save and approve", variant="primary", id="rule-save")
                yield Button("Cancel", id="rule-cancel")

    def _where(self) -> Text:
        place = self.places.get(self.scope, {"workstream": "kept with this conversation"}.get(self.scope, ""))
        return Text(f"Written to: {inert(place, multiline=False)}", style="italic")

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        self.scope = SCOPES[event.index][0]
        self.query_one("#rule-where", Static).update(self._where())

    def rules(self) -> list[str]:
        return [i.value.strip() for i in self.query(".rule-input").results(Input) if i.value.strip()]

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss((self.rules(), self.scope))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss((self.rules(), self.scope) if event.button.id == "rule-save" else None)

    def action_cancel(self) -> None:
        self.dismiss(None)
