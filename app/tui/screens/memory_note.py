"""The question a '#' prompt asks before its text is saved as a memory: name, type and scope."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, RadioSet, Static

from widgets.toggles import MarkedRadioButton

from widgets.key_hints import key_hint
from app.memory.records import SCOPES, TYPES, InvalidMemory, check_name, suggest_name

TYPE_HELP = {"user": "about you", "project": "about this project", "feedback": "how the agent should work",
             "reference": "where to find things"}
SCOPE_HELP = {"global": "every session", "workstream": "this workstream only", "workspace": "this workspace",
              "team": "everyone on the store"}


class MemoryNoteScreen(ModalScreen[tuple[str, str, str] | None]):
    """Dismisses with (name, type, scope) on Enter, or None on Esc."""

    DEFAULT_CSS = """
    MemoryNoteScreen { align: center middle; }
    #note-dialog { width: 96; height: auto; border: round $accent; padding: 0 1; background: $surface; }
    #note-text { color: $text-muted; margin-bottom: 1; max-height: 6; }
    #note-choices { height: auto; }
    #note-choices RadioSet { width: 1fr; height: auto; }
    #note-error { color: $error; height: auto; }
    .note-keys { color: $text-muted; }
    """
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="memory_note.cancel"), Binding("ctrl+s", "save", "Save", id="memory_note.save")]

    def __init__(self, note: str) -> None:
        super().__init__()
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical(id="note-dialog"):
            yield Label("[b]Save as a memory[/b]")
            yield Static(self.note, id="note-text", markup=False)
            yield Input(suggest_name(self.note), placeholder="name_in_snake_case", id="note-name")
            with Horizontal(id="note-choices"):
                with RadioSet(id="note-type"):
                    for kind in TYPES:
                        yield MarkedRadioButton(f"{kind} — {TYPE_HELP[kind]}", value=kind == "project", name=kind)
                with RadioSet(id="note-scope"):
                    for scope in SCOPES:
                        yield MarkedRadioButton(f"{scope} — {SCOPE_HELP[scope]}", value=scope == "workspace", name=scope)
            yield Static("", id="note-error")
            yield Static(f"[b]Enter[/b] or [b]{key_hint(self, 'memory_note.save')}[/b] save · [b]Tab[/b] next · "
                         f"[b]{key_hint(self, 'memory_note.cancel')}[/b] cancel",
                         classes="note-keys")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @staticmethod
    def _chosen(radios: RadioSet) -> str:
        button = radios.pressed_button
        return button.name if button is not None and button.name else ""

    @on(Input.Submitted)
    def action_save(self) -> None:
        try:
            name = check_name(self.query_one("#note-name", Input).value)
        except InvalidMemory as error:
            self.query_one("#note-error", Static).update(str(error))
            return
        self.dismiss((name, self._chosen(self.query_one("#note-type", RadioSet)),
                      self._chosen(self.query_one("#note-scope", RadioSet))))
