"""Keys typed before anything has focus are held and handed on, in order, once something has it.

The terminal is read from the moment the app starts, while the first screen is still being
composed: keys typed then reach the app before the boot prompt is mounted and focused, and Textual
would give them to the bare screen, which drops them. Until boot has finished, such keys (and
pastes) are kept here and delivered, in the order they came, as soon as a widget has focus.
"""

from __future__ import annotations

from textual import events
from textual.app import ScreenStackError

HELD_EVENTS = (events.Key, events.Paste)


class EarlyKeys:
    """An App mixin: holds keys and pastes that arrive with nothing focused before boot is done."""

    _held_keys: list[events.Event] | None = None

    def _holds_keys(self) -> bool:
        """Whether a key arriving now would have nowhere to go: before boot, nothing focused."""
        if self.ready.is_set():  # type: ignore[attr-defined]
            return False
        try:
            return self.focused is None  # type: ignore[attr-defined]
        except ScreenStackError:  # no screen yet
            return True

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, HELD_EVENTS) and not event.is_forwarded:
            if self._holds_keys():
                self._held_keys = [*(self._held_keys or []), event]
                return
            await self.release_held_keys()
        await super().on_event(event)  # type: ignore[misc]

    async def release_held_keys(self) -> None:
        """Deliver the held keys to what has focus now; called once the boot prompt is focused, and
        before any later key, so the order typed is the order delivered."""
        while self._held_keys and not self._holds_keys():
            event, *self._held_keys = self._held_keys
            await super().on_event(event)  # type: ignore[misc]
