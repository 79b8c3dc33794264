"""The footer: Textual's, rebuilt once per batch of binding changes instead of once per change.

Textual's Footer recomposes all of its keys after every change of the active bindings. Focus
moving, a screen resuming and a widget mounting each announce one, often several in the same
moment (at startup: the screen is shown, then the prompt takes focus), and each rebuild costs a
few milliseconds per key. This footer folds the changes that arrive before its next rebuild into
that one rebuild, and says when its keys are first on screen (`KeysShown`): the first frame a user
would call complete.
"""

from __future__ import annotations

from textual.message import Message
from textual.screen import Screen

from widgets.textual_internals import BindingsFooter


class KeysFooter(BindingsFooter):
    """A Footer that rebuilds at most once per refresh, however many binding changes arrive."""

    _rebuild_pending = False
    _shown = False

    class KeysShown(Message):
        """The footer's keys have been painted for the first time."""

    def active_bindings_changed(self, screen: Screen) -> None:
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen and not self._rebuild_pending:
            self._rebuild_pending = True
            # The first keys go into the first frame (after a refresh they came one frame late, the
            # last part of the first screen); later changes fold into one rebuild per refresh.
            (self.call_later if not self._shown else self.call_after_refresh)(self._rebuild)

    async def _rebuild(self) -> None:
        self._rebuild_pending = False
        await self.recompose()
        if not self._shown:
            self._shown = True
            self.call_after_refresh(self.post_message, self.KeysShown())
