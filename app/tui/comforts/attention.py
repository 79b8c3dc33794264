"""Telling the user that a background workstream needs them: terminal bell and desktop notification.

Notifications use terminal escape sequences (OSC 9, understood by iTerm2, WezTerm, kitty, Windows
Terminal; OSC 777, understood by VTE terminals such as GNOME Terminal), so no extra process runs.
In a browser (`whimbrel serve`) the page's terminal shows neither a bell nor those sequences, so the
alert is a notification inside the page instead.
"""

from __future__ import annotations

from typing import Any

from widgets.textual_internals import write_to_terminal


def osc_notification(title: str, body: str) -> str:
    """Both notification sequences; terminals ignore the one they do not know."""
    clean = lambda s: "".join(ch for ch in s if ch.isprintable() and ch not in ";\x07\x1b")  # noqa: E731
    return f"\x1b]9;{clean(title)}: {clean(body)}\x07\x1b]777;notify;{clean(title)};{clean(body)}\x07"


class Attention:
    """Rings and notifies per the [ui] bell / notifications settings."""

    def __init__(self, app: Any, *, bell: bool = True, notifications: bool = True) -> None:
        self.app = app
        self.bell = bell
        self.notifications = notifications
        self.sent: list[str] = []  # what was emitted, for tests and the log

    def alert(self, title: str, body: str) -> None:
        if self.app.is_web:
            if self.bell or self.notifications:
                self.app.notify(body, title=title, markup=False)
            return
        if self.bell:
            self.app.bell()
        if self.notifications:
            sequence = osc_notification(title, body)
            self.sent.append(sequence)
            write_to_terminal(self.app, sequence)
