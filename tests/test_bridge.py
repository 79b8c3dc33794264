"""The bridge merges token deltas per frame and keeps every other event in order.

The frame's timing is tested against a clock the test advances (ManualClock), so what the
emitter does at each moment is exact however busy the machine is.
"""

from __future__ import annotations

import heapq
import itertools

from widgets.bridge import BACKLOG_CHARS, FAST_FACTOR, FAST_MAX_WAIT, MAX_WAIT, PAINT_TIMEOUT, CoalescingEmitter
from app.engine import events as ev


class ManualClock:
    """A clock for the emitter that moves only when the test says: `advance` runs what falls due."""

    def __init__(self) -> None:
        self.now = 0.0
        self._due: list[tuple[float, int, "Timer"]] = []
        self._order = itertools.count()

    def time(self) -> float:
        return self.now

    def call_later(self, delay: float, callback, *args) -> "Timer":
        timer = Timer(callback, args)
        heapq.heappush(self._due, (self.now + delay, next(self._order), timer))
        return timer

    def advance(self, seconds: float) -> None:
        end = self.now + seconds
        while self._due and self._due[0][0] <= end:
            at, _, timer = heapq.heappop(self._due)
            self.now = max(self.now, at)
            if not timer.cancelled:
                timer.callback(*timer.args)
        self.now = end


class Timer:
    def __init__(self, callback, args) -> None:
        self.callback, self.args, self.cancelled = callback, args, False

    def cancel(self) -> None:
        self.cancelled = True


class Target:
    def __init__(self) -> None:
        self.posted: list[ev.EngineEvent] = []

    def post_message(self, message) -> bool:
        self.posted.append(message.event)
        return True


def test_text_deltas_merge_into_one_message_per_frame():
    target, clock = Target(), ManualClock()
    emit = CoalescingEmitter(target, frame_seconds=0.05, clock=clock)
    for word in ["Hel", "lo, ", "wor", "ld"]:
        emit(ev.ContentDelta(word))
    clock.advance(0.049)
    assert target.posted == []  # nothing yet: waiting for the frame
    clock.advance(0.001)
    assert [e.text for e in target.posted] == ["Hello, world"]


def test_other_events_flush_pending_text_first_and_keep_order():
    target = Target()
    emit = CoalescingEmitter(target, frame_seconds=10, clock=ManualClock())
    emit(ev.ReasoningDelta("think "))
    emit(ev.ReasoningDelta("hard"))
    emit(ev.ContentDelta("answer"))
    emit(ev.ToolOutput("c1", "line 1\n"))
    emit(ev.ToolOutput("c1", "line 2\n"))
    emit(ev.ToolOutput("c2", "other\n"))
    emit(ev.TurnFinished("done"))
    kinds = [(type(e).__name__, getattr(e, "text", "")) for e in target.posted]
    assert kinds == [("ReasoningDelta", "think hard"), ("ContentDelta", "answer"),
                     ("ToolOutput", "line 1\nline 2\n"), ("ToolOutput", "other\n"), ("TurnFinished", "")]


def test_the_engine_event_objects_are_not_mutated():
    target = Target()
    emit = CoalescingEmitter(target, frame_seconds=10, clock=ManualClock())
    first = ev.ContentDelta("a")
    emit(first)
    emit(ev.ContentDelta("b"))
    emit.flush()
    assert first.text == "a" and target.posted[0].text == "ab"


class PaintingTarget(Target):
    """A view that reports paints only when the test says the screen has painted."""

    def __init__(self) -> None:
        super().__init__()
        self.waiting: list = []

    def call_after_refresh(self, callback, *args) -> bool:
        self.waiting.append((callback, args))
        return True

    def paint(self) -> None:
        waiting, self.waiting = self.waiting, []
        for callback, args in waiting:
            callback(*args)


def painting(frame_seconds: float = 0.01) -> tuple[PaintingTarget, ManualClock, CoalescingEmitter]:
    """A view that paints when told, the clock the test moves, and the emitter posting to that view."""
    target, clock = PaintingTarget(), ManualClock()
    return target, clock, CoalescingEmitter(target, frame_seconds=frame_seconds, clock=clock)


def test_more_text_waits_until_the_last_update_is_painted():
    target, clock, emit = painting()
    emit(ev.ContentDelta("a"))
    clock.advance(0.05)
    emit(ev.ContentDelta("b"))
    emit(ev.ContentDelta("c"))
    clock.advance(PAINT_TIMEOUT - 0.1)
    assert [e.text for e in target.posted] == ["a"]  # the screen is still busy with "a"
    target.paint()  # "a" took 0.95 s to paint: the next update waits as long, up to MAX_WAIT
    clock.advance(MAX_WAIT - 0.001)
    assert [e.text for e in target.posted] == ["a"]
    clock.advance(0.001)
    assert [e.text for e in target.posted] == ["a", "bc"]


def test_a_paint_that_never_reports_back_stops_blocking_after_the_timeout():
    target, clock, emit = painting()
    emit(ev.ContentDelta("a"))
    clock.advance(0.01)
    emit(ev.ContentDelta("b"))
    clock.advance(PAINT_TIMEOUT + MAX_WAIT)  # a closing view never paints
    assert [e.text for e in target.posted] == ["a", "b"]


def test_other_events_do_not_wait_for_a_paint():
    target, clock, emit = painting()
    emit(ev.ContentDelta("a"))
    clock.advance(0.05)
    emit(ev.ContentDelta("b"))
    emit(ev.TurnFinished("done"))
    assert [type(e).__name__ for e in target.posted] == ["ContentDelta", "ContentDelta", "TurnFinished"]


def _posts_after_paint(backlog: str, checks: tuple[float, ...], paint_takes: float = 0.05) -> list[int]:
    """Post "a", let its paint take `paint_takes` while `backlog` arrives; how many posts exist at
    each check (seconds after the paint)."""
    target, clock, emit = painting(frame_seconds=0.001)
    emit(ev.ContentDelta("a"))
    clock.advance(0.001)  # "a" is posted; its paint starts
    emit(ev.ContentDelta(backlog))
    clock.advance(paint_takes)
    target.paint()
    seen, waited = [], 0.0
    for at in checks:
        clock.advance(at - waited)
        waited = at
        seen.append(len(target.posted))
    return seen


def test_a_slow_stream_is_shown_again_as_soon_as_the_last_update_was_paid_for():
    # the paint took 50 ms: the next update comes 50 ms after it, not a moment later
    assert _posts_after_paint("few words", (0.049, 0.05)) == [1, 2]


def test_a_stream_outrunning_the_screen_gets_fewer_larger_updates():
    assert FAST_FACTOR >= 2
    # the paint took 50 ms with a backlog waiting, so the next update waits FAST_FACTOR times as long
    assert _posts_after_paint("x" * BACKLOG_CHARS, (FAST_FACTOR * 0.05 - 0.001, FAST_FACTOR * 0.05)) == [1, 2]
    # ... and never longer than FAST_MAX_WAIT, however long the paint took
    assert _posts_after_paint("x" * BACKLOG_CHARS, (FAST_MAX_WAIT - 0.001, FAST_MAX_WAIT), paint_takes=0.5) == [1, 2]
