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
seconds after a key, streams that used the budget go one at a time, one budget per TYPING_PAUSE
for all of them together (about a tenth of the loop), and none goes while a key waits to be
painted (`echo_painted`, at most ECHO_WAIT). Reading resumes at full speed once typing pauses.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from typing import Callable

BUDGET = 0.001  # seconds of stream work per loop iteration, for all streams together
TYPING_PAUSE = 0.01  # while the user types, one budget of stream work per this many seconds, for all streams
ECHO_WAIT = 0.1  # ... and none while a key's echo waits to be painted, for at most this long
ECHO_POLL = 0.002  # how often a waiting stream looks whether the echo has been painted


class LoopShare:
    """The streams' running total for the current loop iteration, and who waits to go next."""

    def __init__(self, budget: float = BUDGET) -> None:
        self.budget = budget
        self.used = 0.0
        self.turns: deque[StreamSlice] = deque()  # streams that yielded, in the order they go again
        self._reset_pending = False
        self.typing_until = 0.0  # time.monotonic() before which streams defer to the keyboard
        self.resume_at = 0.0  # while deferring: monotonic time at which the next stream may go
        self.echo_due = 0.0  # while a key's echo is not painted yet: when to stop waiting for it

    def defer_to_typing(self, seconds: float) -> None:
        """The user typed: streams take only a small share of the loop for the next `seconds`, and
        none until `echo_painted` (or ECHO_WAIT)."""
        now = time.monotonic()
        self.typing_until = now + seconds
        self.echo_due = now + ECHO_WAIT

    def echo_painted(self) -> None:
        """The key's echo is on screen: the next stream may take its turn."""
        self.echo_due = 0.0

    def _typing_wait(self) -> float:
        """Seconds a stream must still wait for the keyboard before its turn (0: go)."""
        now = time.monotonic()
        if now >= self.typing_until:
            return 0.0
        return max(self.resume_at - now, min(self.echo_due - now, ECHO_POLL), 0.0)

    def _took_turn(self) -> None:
        """While typing, a turn closes the window for every stream for TYPING_PAUSE."""
        now = time.monotonic()
        if now < self.typing_until:
            self.resume_at = now + TYPING_PAUSE

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
            while (wait := share._typing_wait()) or share.spent or share.turns[0] is not self:
                await asyncio.sleep(wait)  # while typing, until the window opens; else one iteration
        finally:
            share.turns.remove(self)
        share._took_turn()
        self._since = self.clock()
