"""The bridge merges token deltas per frame and keeps every other event in order."""

from __future__ import annotations

import asyncio

from app.bridge import CoalescingEmitter
from app.engine import events as ev


class Target:
    def __init__(self) -> None:
        self.posted: list[ev.EngineEvent] = []

    def post_message(self, message) -> bool:
        self.posted.append(message.event)
        return True


async def test_text_deltas_merge_into_one_message_per_frame():
    target = Target()
    emit = CoalescingEmitter(target, frame_seconds=0.05)
    for word in ["Hel", "lo, ", "wor", "ld"]:
        emit(ev.ContentDelta(word))
    assert target.posted == []  # nothing yet: waiting for the frame
    await asyncio.sleep(0.1)
    assert [e.text for e in target.posted] == ["Hello, world"]


async def test_other_events_flush_pending_text_first_and_keep_order():
    target = Target()
    emit = CoalescingEmitter(target, frame_seconds=10)
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


async def test_the_engine_event_objects_are_not_mutated():
    target = Target()
    emit = CoalescingEmitter(target, frame_seconds=10)
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


async def test_more_text_waits_until_the_last_update_is_painted():
    target = PaintingTarget()
    emit = CoalescingEmitter(target, frame_seconds=0.01)
    emit(ev.ContentDelta("a"))
    await asyncio.sleep(0.05)
    emit(ev.ContentDelta("b"))
    emit(ev.ContentDelta("c"))
    await asyncio.sleep(0.1)
    assert [e.text for e in target.posted] == ["a"]  # the screen is still busy with "a"
    target.paint()
    await asyncio.sleep(0.3)  # then at most MAX_WAIT (or as long as the paint took) passes
    assert [e.text for e in target.posted] == ["a", "bc"]


async def test_other_events_do_not_wait_for_a_paint():
    target = PaintingTarget()
    emit = CoalescingEmitter(target, frame_seconds=0.01)
    emit(ev.ContentDelta("a"))
    await asyncio.sleep(0.05)
    emit(ev.ContentDelta("b"))
    emit(ev.TurnFinished("done"))
    assert [type(e).__name__ for e in target.posted] == ["ContentDelta", "ContentDelta", "TurnFinished"]


async def _second_post_after_paint(backlog: str, checks: tuple[float, ...]) -> list[int]:
    """Post "a", let its paint take 50 ms while `backlog` arrives; how many posts exist at each check."""
    target = PaintingTarget()
    emit = CoalescingEmitter(target, frame_seconds=0.001)
    emit(ev.ContentDelta("a"))
    await asyncio.sleep(0.01)
    emit(ev.ContentDelta(backlog))
    await asyncio.sleep(0.05)
    target.paint()
    seen, waited = [], 0.0
    for at in checks:
        await asyncio.sleep(at - waited)
        waited = at
        seen.append(len(target.posted))
    return seen


async def test_a_slow_stream_is_shown_again_as_soon_as_the_last_update_was_paid_for():
    assert await _second_post_after_paint("few words", (0.15,)) == [2]


async def test_a_stream_outrunning_the_screen_gets_fewer_larger_updates():
    from app.bridge import BACKLOG_CHARS, FAST_FACTOR

    assert FAST_FACTOR >= 2
    # the paint took >= 60 ms, so the next update waits >= 120 ms: nothing at 100 ms, then one post
    assert await _second_post_after_paint("x" * BACKLOG_CHARS, (0.1, 0.6)) == [1, 2]
