"""One time budget per event-loop iteration for all streams together, so keys and paints come first.

Streams parse their chunks on the event loop that also handles keystrokes and paints the screen.
A stream that yields after a few milliseconds is not enough once several run: every iteration of
the loop would run each of their slices before a key moves one step further, and a key needs
several iterations to be echoed. So the streams share one budget per iteration: once the streams
together have used BUDGET seconds of it, each one yields at its next chunk and waits for its turn
in a later iteration (round robin, so no stream starves another). When nothing else wants the
loop, iterations are short and the streams still get nearly all of it.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from typing import Callable

BUDGET = 0.001  # seconds of stream work per loop iteration, for all streams together


class LoopShare:
    """The streams' running total for the current loop iteration, and who waits to go next."""

    def __init__(self, budget: float = BUDGET) -> None:
        self.budget = budget
        self.used = 0.0
        self.turns: deque[StreamSlice] = deque()  # streams that yielded, in the order they go again
        self._reset_pending = False

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
            await asyncio.sleep(0)
            while share.spent or share.turns[0] is not self:
                await asyncio.sleep(0)
        finally:
            share.turns.remove(self)
        self._since = self.clock()
