"""The line above a read-only pane: this workstream is open in another window, and a way to take it over."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Button, Static

if TYPE_CHECKING:
    from app.engine.workstream import Workstream

TAKE_OVER_ID = "take-over"
READ_ONLY_PLACEHOLDER = "Read-only here: this workstream is open in another window (see above)."  # the prompt's


def held_text(workstream: Workstream) -> str:
    """What the banner says: where the workstream is open, and whether it may be taken over now."""
    from app.engine.ownership import where  # the engine is loaded by the time a workstream exists

    place = where(workstream.held_by) if workstream.held_by is not None else "open in another window"
    if workstream.takeover_ready:
        return (f"Read-only: this workstream was {place}; that window has closed or stopped "
                "responding. Take it over to continue here.")
    return (f"Read-only: this workstream is {place}. New messages from it appear here; "
            "you can take it over once that window is closed.")


class HeldBanner(Horizontal):
    """Hidden unless the view's workstream is held by another instance; the button posts Button.Pressed."""

    def compose(self) -> ComposeResult:
        yield Static(classes="held-text")
        yield Button("Take over", id=TAKE_OVER_ID, variant="warning", compact=True, disabled=True)

    def show(self, workstream: Workstream) -> None:
        self.display = workstream.read_only
        if workstream.read_only:
            self.query_one(".held-text", Static).update(held_text(workstream))
            self.query_one(Button).disabled = not workstream.takeover_ready

    @property
    def button(self) -> Button:
        return self.query_one(Button)
