"""Dialogs show their own keys: a footer is mounted into each modal screen when it is first shown.

The main screen's footer stays visible under a dialog and listed the main screen's keys ("esc
Cancel turn" under the setup dialog). A footer of the dialog's own, docked at the bottom, covers it.
"""

from __future__ import annotations

from textual.app import App
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer

from widgets.footer import KeysFooter


def follow_dialogs(app: App) -> None:
    """From now on, every modal screen `app` shows gets a footer with its keys."""
    app.screen_change_signal.subscribe(app, give_footer)


def give_footer(screen: Screen) -> None:
    """Once a modal `screen` has composed, mount a KeysFooter into it unless it has a footer."""
    if isinstance(screen, ModalScreen):
        screen.call_after_refresh(_mount_footer, screen)


async def _mount_footer(screen: Screen) -> None:
    if screen.is_attached and not screen.query(Footer):
        await screen.mount(KeysFooter(classes="dialog-footer"))
        screen.refresh_bindings()  # the footer shows keys from the next change of bindings on
