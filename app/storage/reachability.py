"""Whether the store's server answers: a lost PostgreSQL connection is noticed, said, and retried.

A team's store is a server, and servers go away (a restart, the network). The store's PostgreSQL
engine turns a connection it cannot make or has lost into `StoreUnavailable`, its words naming the
store by its masked URL (never the password). `StoreLink` is what one running app knows about it:
`lost(error)` (called by AsyncStore when a call fails so, and when the LISTEN connection drops) marks
the store unreachable and starts probing it with back-off (1 s doubling to 30 s; `retry_now()` cuts
a wait short); the first probe that succeeds marks it reachable again. Every change calls
`on_change()`, on the event loop, so a window can show "unreachable — retrying in 4s" and clear it.

Its own module, free of the store's and of any driver: AsyncStore and the engine import it on the
caller's thread, and SQLite (never unreachable) loads nothing more for it.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Awaitable, Callable

if TYPE_CHECKING:  # asyncio is imported when a store first becomes unreachable, not with the engine
    import asyncio

BACKOFF = (1.0, 30.0)  # seconds before the first probe, and the longest wait between two


class StoreUnavailable(RuntimeError):
    """The store's server cannot be reached (PostgreSQL: down, refused, the connection lost, a wrong
    password); said in words that name the store by its masked URL."""


class StoreLink:
    """Reachable or not, and when the next probe runs; one per open store, driven on one event loop."""

    def __init__(self, probe: Callable[[], Awaitable[None]], *, backoff: tuple[float, float] = BACKOFF,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._probe = probe  # raises StoreUnavailable while the server does not answer
        self.backoff = backoff
        self._clock = clock
        self.reachable = True
        self.reason = ""  # the newest failure, in words (StoreUnavailable's)
        self.next_try: float | None = None  # on `clock`: when the next probe runs; None while one runs
        self.outages = 0  # how many times the store became unreachable (tests and the banner read it)
        self.on_change: Callable[[], None] | None = None
        self._task: asyncio.Task | None = None
        self._wake: asyncio.Event | None = None

    def lost(self, error: BaseException) -> None:
        """A call failed because the server did not answer: unreachable until a probe succeeds. Called on
        the event loop; a second failure while unreachable only updates the reason."""
        self.reason = str(error)
        if not self.reachable:
            self._changed()
            return
        import asyncio

        self.reachable = False
        self.outages += 1
        self._wake = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._retry(), name="store-link-retry")
        self._changed()

    def retry_now(self) -> None:
        """Probe at once rather than at the end of the current wait (a sign the server may be back)."""
        if self._wake is not None and not self.reachable:
            self._wake.set()

    def retry_in(self) -> int | None:
        """Whole seconds until the next probe; 0 when due, None while a probe runs or all is well."""
        if self.reachable or self.next_try is None:
            return None
        return max(0, math.ceil(self.next_try - self._clock()))

    async def _retry(self) -> None:
        import asyncio

        delay = self.backoff[0]
        while True:
            self.next_try = self._clock() + delay
            self._changed()
            try:
                await asyncio.wait_for(self._wake.wait(), delay)
            except asyncio.TimeoutError:
                pass
            self._wake.clear()
            self.next_try = None
            self._changed()
            try:
                await self._probe()
            except StoreUnavailable as error:
                self.reason = str(error)
                delay = min(delay * 2, self.backoff[1])
                continue
            self.reachable, self.reason, self._task = True, "", None
            self._changed()
            return

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    def close(self) -> None:
        """Stop probing (the store is closing)."""
        if self._task is not None:
            self._task.cancel()
            self._task = None
