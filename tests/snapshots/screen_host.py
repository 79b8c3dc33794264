"""A bare app that shows one screen, for snapshot and Pilot tests of a screen on its own."""

from __future__ import annotations

from textual.app import App
from textual.screen import Screen


class ScreenHost(App):
    """Pushes `screen` once mounted (none: an empty app) and keeps what it dismisses with in `result`
    ("unset" until then). `animate=False` turns animations off, so a spinner or a pulse shows one frame."""

    TITLE = "Host"  # the window title the snapshot baselines show

    def __init__(self, screen: Screen | None = None, *, animate: bool = True) -> None:
        super().__init__()
        self.to_push = screen
        self.result = "unset"
        if not animate:
            self.animation_level = "none"

    def on_mount(self) -> None:
        if self.to_push is not None:
            self.push_screen(self.to_push, callback=self._done)

    def _done(self, result) -> None:
        self.result = result
