"""Keys typed before the first screen has focused its prompt are held, then handed on in order.

The terminal is read from the moment the app starts, while the first screen is still being
composed: keys typed then reach the app before the boot prompt is mounted and focused, and Textual
would give them to the bare screen, which drops them. Until the main screen has focused its boot
prompt, such keys (and pastes) are kept here; then they are delivered in the order they came,
before any later key. Boot holds them again for the moment it hands the boot prompt over.
"""

from __future__ import annotations

from typing import Awaitable, Callable

from textual import events

HELD_EVENTS = (events.Key, events.Paste)


class EarlyKeys:
    """Holds keys and pastes that arrive before the first prompt has focus. The App holds one, offers
    it each event first (`took`), and passes `deliver`: its own event handling, for the held ones."""

    def __init__(self, deliver: Callable[[events.Event], Awaitable[None]]) -> None:
        self.deliver = deliver
        self.held: list[events.Event] = []
        self.prompt_focused = False  # the main screen has focused its boot prompt: keys have a home

    async def took(self, event: events.Event) -> bool:
        """Whether `event` is held here (a key or paste before the prompt has focus). A later key
        first delivers what is held, so the order typed is the order delivered."""
        if isinstance(event, HELD_EVENTS) and not event.is_forwarded:
            if not self.prompt_focused:
                self.held.append(event)
                return True
            await self.release()
        return False

    def hold(self) -> None:
        """Hold keys again until `release`: while boot moves the prompt's text to the restored
        workstream, a key must neither land in the prompt going away nor overtake it."""
        self.prompt_focused = False

    async def release(self) -> None:
        """Deliver the held keys to what has focus now. The main screen calls this once its prompt
        is focused; a later key calls it first."""
        self.prompt_focused = True
        while self.held:
            await self.deliver(self.held.pop(0))
