"""Keys typed before the first screen has focused its prompt are held, then handed on in order.

The terminal is read from the moment the app starts, while the first screen is still being
composed: keys typed then reach the app before the boot prompt is mounted and focused, and Textual
would give them to the bare screen, which drops them. Until the main screen has focused its boot
prompt, such keys (and pastes) are kept here; then they are delivered in the order they came,
before any later key. Boot holds them again for the moment it hands the boot prompt over.
"""

from __future__ import annotations

from textual import events

HELD_EVENTS = (events.Key, events.Paste)


class EarlyKeys:
    """An App mixin: holds keys and pastes that arrive before the first prompt has focus."""

    _held_keys: list[events.Event] | None = None
    _prompt_focused = False  # the main screen has focused its boot prompt: keys have a home

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, HELD_EVENTS) and not event.is_forwarded:
            if not self._prompt_focused:
                self._held_keys = [*(self._held_keys or []), event]
                return
            await self.release_held_keys()
        await super().on_event(event)  # type: ignore[misc]

    def hold_keys(self) -> None:
        """Hold keys again until `release_held_keys`: while boot moves the prompt's text to the
        restored workstream, a key must neither land in the prompt going away nor overtake it."""
        self._prompt_focused = False

    async def release_held_keys(self) -> None:
        """Deliver the held keys to what has focus now. The main screen calls this once its prompt
        is focused; a later key calls it first, so the order typed is the order delivered."""
        self._prompt_focused = True
        while self._held_keys:
            event, *self._held_keys = self._held_keys
            await super().on_event(event)  # type: ignore[misc]
