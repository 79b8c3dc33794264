"""Shown when the conversation store cannot be opened: says why and offers the ways out.

Without storage nothing could be saved, so the app does not pretend: the user retries (after
fixing permissions or disk space), continues with a temporary store that is thrown away at exit,
or quits.
"""

from __future__ import annotations

from typing import Literal

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from widgets.key_hints import key_hint
from styles import STYLES_DIR

Choice = Literal["retry", "temporary", "quit"]


class StorageErrorScreen(ModalScreen[Choice]):
    """Dismisses with 'retry' (r), 'temporary' (t) or 'quit' (q / Esc, and Ctrl+Q: the app hands its
    quit key here). Quitting from this dialog, by any key, exits with status 1: nothing was opened, and a
    script that started Whimbrel can tell that from a normal quit (0)."""

    CSS_PATH = STYLES_DIR / "screens.tcss"
    BINDINGS = [
        Binding("r", "choose('retry')", "Retry", id="storage_error.retry"),
        Binding("t", "choose('temporary')", "Temporary store", id="storage_error.temporary_store"),
        Binding("q,escape", "choose('quit')", "Quit", id="storage_error.quit"),
    ]

    def __init__(self, path: str, reason: str) -> None:
        super().__init__()
        self.path = path
        self.reason = reason

    def compose(self) -> ComposeResult:
        with Vertical(id="storage-error-dialog"):
            yield Static("Whimbrel cannot open its conversation store", classes="dialog-title")
            yield Static(f"{self.path}\n{self.reason}", id="storage-error-reason", markup=False)
            yield Static("Conversations could not be saved or resumed. Fix the cause (permissions, disk "
                         "space, --data-dir) and retry, or continue with a temporary store that is deleted "
                         "when Whimbrel exits. Quitting here exits with status 1.", classes="storage-error-help")
            yield Static(f"[b]{key_hint(self, 'storage_error.retry')}[/b] retry    "
                         f"[b]{key_hint(self, 'storage_error.temporary_store')}[/b] temporary store    "
                         f"[b]{key_hint(self, 'storage_error.quit')}[/b] quit", classes="confirm-keys")

    def action_choose(self, choice: Choice) -> None:
        self.dismiss(choice)
