"""A yes/no question as a small modal."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from widgets.key_hints import key_hint
from styles import STYLES_DIR


class ConfirmScreen(ModalScreen[bool]):
    """Dismisses with True on y, False on n or Esc."""

    CSS_PATH = STYLES_DIR / "screens.tcss"

    BINDINGS = [Binding("y", "answer(True)", "Yes", id="confirm.yes"), Binding("n,escape", "answer(False)", "No", id="confirm.no")]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog"):
            yield Static(self.question, markup=False)
            yield Static(f"[b]{key_hint(self, 'confirm.yes')}[/b] yes    [b]{key_hint(self, 'confirm.no')}[/b] no",
                         classes="confirm-keys")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
