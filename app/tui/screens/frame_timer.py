"""The main screen's paint timer: a change is painted at the next frame, not up to two frames later.

Textual paints a screen from an interval timer that each change resumes and each paint pauses.
Resumed after a pause, that timer waits for the frame after the next one on its grid, so once
anything has painted in the last frame or two (a streaming pane, a busy tab's pulse) a keystroke
waits 17 to 33 ms for its echo instead of at most one frame (16.7 ms at 60 frames a second).
`FrameTimer` paints at once if a frame has passed since the last paint, else when it has, and
at once whenever `urgent()` says so (the main screen: a typed key's echo is ready to paint).
"""

from __future__ import annotations

import asyncio
from typing import Callable


class FrameTimer:
    """Calls `callback` at most once per `period` while resumed; Screen pauses it in the callback."""

    def __init__(self, callback: Callable[[], object], period: float,
                 on_error: Callable[[Exception], object] | None = None,
                 urgent: Callable[[], bool] = lambda: False,
                 loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.callback = callback
        self.period = period
        self.on_error = on_error
        self.urgent = urgent
        self._loop = loop
        self._active = False
        self._last = float("-inf")  # loop time of the last call
        self._handle: asyncio.TimerHandle | None = None

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return self._loop or asyncio.get_running_loop()

    def resume(self) -> None:
        """Call back at once if a frame has passed since the last call (or it is urgent), else once
        it has."""
        self._active = True
        now = self.loop.time()
        due = now if self.urgent() else max(now, self._last + self.period)
        if self._handle is not None and self._handle.when() > due:
            self._handle.cancel()
            self._handle = None
        if self._handle is None:
            self._handle = self.loop.call_at(due, self._tick)

    def pause(self) -> None:
        self._active = False

    def stop(self) -> None:
        self._active = False
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _tick(self) -> None:
        self._handle = None
        if not self._active:
            return
        self._last = self.loop.time()
        try:
            self.callback()
        except Exception as error:  # as Textual's timers do: the app reports it
            if self.on_error is None:
                raise
            self.on_error(error)
        if self._active:  # not paused by the callback: an interval timer goes on
            self.resume()
