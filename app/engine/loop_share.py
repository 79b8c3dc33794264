"""One time budget per event-loop iteration for all streams together, so keys and paints come first.

Streams parse their chunks on the event loop that also handles keystrokes and paints the screen.
A stream that yields after a few milliseconds is not enough once several run: every iteration of
the loop would run each of their slices before a key moves one step further, and a key needs
several iterations to be echoed. So the streams share one budget per iteration: once the streams
together have used BUDGET seconds of it, each one yields at its next chunk and waits for its turn
in a later iteration (round robin, so no stream starves another). When nothing else wants the
loop, iterations are short and the streams still get nearly all of it.

While the user types (the UI calls `SHARE.defer_to_typing(seconds)` on each key), a key needs
several iterations to be echoed and each would still carry a budget of stream work. So for those
seconds after a key, streams that used the budget wait TYPING_PAUSE before the next one: they
keep about a tenth of the loop, and reading resumes at full speed once typing pauses.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from typing import Callable

BUDGET = 0.001  # seconds of stream work per loop iteration, for all streams together
TYPING_PAUSE = 0.01  # while the user types, streams wait this long each time they have used the budget


class LoopShare:
    """The streams' running total for the current loop iteration, and who waits to go next."""

    def __init__(self, budget: float = BUDGET) -> None:
        self.budget = budget
        self.used = 0.0
        self.turns: deque[StreamSlice] = deque()  # streams that yielded, in the order they go again
        self._reset_pending = False
        self.typing_until = 0.0  # time.monotonic() before which streams defer to the keyboard
        self.resume_at = 0.0  # while deferring: monotonic time at which the streams go on

    def defer_to_typing(self, seconds: float) -> None:
        """The user typed: streams take only a small share of the loop for the next `seconds`."""
        self.typing_until = time.monotonic() + seconds

    async def _pause_for_typing(self) -> None:
        """While the user types, wait (with the other streams) until TYPING_PAUSE has passed."""
        now = time.monotonic()
        if now >= self.typing_until:
            return
        if self.resume_at <= now:
            self.resume_at = now + TYPING_PAUSE
        await asyncio.sleep(self.resume_at - now)

    def _reset(self) -> None:
        self.used = 0.0
        self._reset_pending = False

    @property
    def spent(self) -> bool:
        return self.used >= self.budget

    def spend(self, seconds: float) -> bool:
        """Count `seconds` of stream work; True when this iteration's budget is used up."""
        self.used += seconds
        if not self._reset_pending:
            self._reset_pending = True
            asyncio.get_running_loop().call_soon(self._reset)  # runs at the start of the next iteration
        return self.spent


SHARE = LoopShare()


class StreamSlice:
    """One stream's side of the budget: how long it has run since it last got the loop back."""

    def __init__(self, share: LoopShare = SHARE, clock: Callable[[], float] = time.perf_counter) -> None:
        self.share = share
        self.clock = clock
        self._since = clock()

    async def maybe_yield(self) -> None:
        """Call between chunks: once the iteration's budget is used up, wait for a later one and
        for this stream's turn."""
        share = self.share
        now = self.clock()
        ran, self._since = now - self._since, now
        if not share.spend(ran):
            return
        share.turns.append(self)
        try:
            await share._pause_for_typing()
            await asyncio.sleep(0)
            while share.spent or share.turns[0] is not self:
                await asyncio.sleep(0)
        finally:
            share.turns.remove(self)
        self._since = self.clock()
