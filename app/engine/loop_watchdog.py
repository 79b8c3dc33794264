"""A watchdog for the event loop: a callback that holds it too long is caught with the stack that held it.

Everything of the app runs on one asyncio loop: a callback that keeps it (a layout of thousands of
widgets, a parse of a whole reply, a blocking call) freezes the screen and every key behind it. The
loop beats every BEAT seconds (a `call_later` that schedules the next one); how late a beat runs is
how long something held the loop. A thread looks at the beats meanwhile: once one is more than
`threshold` late, it takes the loop thread's stack then (what is holding it), and when the loop beats
again the hold is reported with that stack (`report`, on the loop's thread). The longest hold seen is
kept (`longest`), and how long of it the loop's thread was ready to run but kept waiting for a CPU
(Linux's schedstat): on a loaded machine the system can keep it off the CPUs for a second, which is
no callback's doing, so the tests fail on the hold less that wait (`Hold.own`). A blocking call
(a sleep, a subprocess waited for) still counts whole.

Nothing here imports Textual: the window arms it (logging each hold to the error log), the tests arm
it around each UI and engine test (tests/conftest.py).
"""

from __future__ import annotations

import asyncio
import gc
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from typing import Callable

BEAT = 0.05  # seconds between beats of the loop (the tests' watchdog)
APP_BEAT = 0.5  # the window's: two beats a second keep an idle app nearly as quiet as a bare Textual app
# (at 0.05 s it woke 3x as often); a hold that starts just after a beat is measured short by up to one beat,
# so every hold over APP_BEAT + LOG_THRESHOLD is logged and a shorter one only when it spans a beat
LOG_THRESHOLD = 0.25  # a hold longer than this is written to the error log (the window's watchdog)


@dataclass
class Hold:
    """The loop was held `seconds`; `stack` is its thread's stack while it was held ("" if not seen:
    a C call that keeps the interpreter, such as a garbage collection, lets no other thread look), and
    `collecting` the seconds of garbage collection within the hold."""

    seconds: float
    stack: str
    collecting: float = 0.0
    waiting: float = 0.0  # of it, the loop's thread was ready to run but the system ran others

    @property
    def own(self) -> float:
        """The hold less the time the machine's load kept the loop's thread off a CPU."""
        return self.seconds - self.waiting

    def describe(self) -> str:
        collected = f", {self.collecting:.2f} s of it collecting garbage" if self.collecting >= 0.01 else ""
        return (f"the event loop was held for {self.seconds:.2f} s ({self.waiting:.2f} s of it waiting for a CPU"
                f"{collected})") + (
            f"; held by:\n{self.stack}" if self.stack else "")


class LoopWatchdog:
    """Beats on `loop`; holds longer than `threshold` go to `report` and `holds`."""

    def __init__(self, loop: asyncio.AbstractEventLoop, threshold: float = LOG_THRESHOLD,
                 report: Callable[[Hold], object] = lambda hold: None, beat: float = BEAT) -> None:
        self.loop = loop
        self.threshold = threshold
        self.report = report
        self.beat = beat
        self.holds: list[Hold] = []
        self.longest = 0.0  # the longest hold seen, in seconds
        self.longest_own = 0.0  # ... less the time the loop's thread waited for a CPU (see Hold.own)
        self._waited_at = 0.0
        self._due = 0.0  # monotonic time the next beat is due
        self._stack: tuple[float, str] = (0.0, "")  # (the beat due, the loop thread's stack while it was late)
        self._handle: asyncio.TimerHandle | None = None
        self._stopped = threading.Event()
        self._loop_thread = 0
        self._thread: threading.Thread | None = None
        self._collecting = 0.0  # seconds of garbage collection since the last beat
        self._collection_started = 0.0

    def start(self) -> LoopWatchdog:
        """Start beating (call on the loop's thread) and watching."""
        self._loop_thread = threading.get_ident()
        gc.callbacks.append(self._collection)
        self._schedule()
        self._thread = threading.Thread(target=self._watch, name="loop-watchdog", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopped.set()
        if self._collection in gc.callbacks:
            gc.callbacks.remove(self._collection)
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        if self._thread is not None:
            self._thread.join(timeout=1.0)

    def _schedule(self) -> None:
        self._waited_at = _runqueue_wait()
        self._due = time.monotonic() + self.beat
        self._handle = self.loop.call_later(self.beat, self._beaten)

    def _beaten(self) -> None:
        """A beat: how late it came is how long the loop was held."""
        late = time.monotonic() - self._due
        due, stack = self._stack
        stack = stack if due == self._due else ""  # taken during this hold, not a past one
        collecting, self._collecting = self._collecting, 0.0
        waiting = min(late, max(0.0, _runqueue_wait() - self._waited_at))
        self.longest = max(self.longest, late)
        self.longest_own = max(self.longest_own, late - waiting)
        if late > self.threshold:
            hold = Hold(late, stack, collecting, waiting)
            self.holds.append(hold)
            try:
                self.report(hold)
            except Exception:  # a report that fails must not stop the watching
                pass
        if not self._stopped.is_set():
            self._schedule()

    def _collection(self, phase: str, info: dict) -> None:
        """gc's callback: the time each collection on the loop's thread takes counts towards the hold."""
        if threading.get_ident() != self._loop_thread:
            return
        if phase == "start":
            self._collection_started = time.monotonic()
        else:
            self._collecting += time.monotonic() - self._collection_started

    def _watch(self) -> None:
        """On a thread: take the loop thread's stack once a beat is more than `threshold` late."""
        taken_for = 0.0
        while not self._stopped.wait(self.beat):
            due = self._due
            if time.monotonic() - due > self.threshold and taken_for != due:
                taken_for = due
                frame = sys._current_frames().get(self._loop_thread)
                self._stack = (due, "".join(traceback.format_stack(frame)) if frame is not None else "")
                del frame  # kept, it would keep the held stack's frames, and all their locals, until the next hold


def _runqueue_wait() -> float:
    """Seconds the calling thread has spent ready to run but waiting for a CPU (0 where Linux's
    /proc/thread-self/schedstat is missing: the whole hold counts there)."""
    try:
        with open("/proc/thread-self/schedstat", "rb") as stats:
            return int(stats.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


def log_holds(loop: asyncio.AbstractEventLoop) -> LoopWatchdog:
    """The window's watchdog: each hold longer than LOG_THRESHOLD is written to the error log."""
    import logging

    logger = logging.getLogger("whimbrel")
    return LoopWatchdog(loop, LOG_THRESHOLD, lambda hold: logger.warning("%s", hold.describe()),
                        beat=APP_BEAT).start()
