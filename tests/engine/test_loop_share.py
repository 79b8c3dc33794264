"""Streams share one time budget per event-loop iteration and take turns (app/engine/loop_share.py).

A fake clock makes every chunk cost the same, so the turns are deterministic.
"""

from __future__ import annotations

import asyncio
import time

from app.engine.loop_share import LoopShare, StreamSlice

CHUNK = 0.0004  # seconds each chunk "takes"
BUDGET = 0.001  # so a stream gets 3 chunks per turn


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def stream(name: str, chunks: int, share: LoopShare, clock: Clock, log: list[str]) -> None:
    piece = StreamSlice(share, clock)
    for _ in range(chunks):
        clock.now += CHUNK  # this chunk's work
        log.append(name)
        await piece.maybe_yield()


def turns(log: list[str]) -> list[tuple[str, int]]:
    """Consecutive chunks of one stream, as (stream, how many)."""
    runs: list[tuple[str, int]] = []
    for name in log:
        if runs and runs[-1][0] == name:
            runs[-1] = (name, runs[-1][1] + 1)
        else:
            runs.append((name, 1))
    return runs


async def test_streams_take_turns_within_the_budget() -> None:
    share, clock, log = LoopShare(BUDGET), Clock(), []
    await asyncio.gather(stream("a", 30, share, clock, log), stream("b", 30, share, clock, log))
    runs = turns(log)[:-1]  # the last run is the stream left alone at the end, over several turns
    assert log.count("a") == log.count("b") == 30  # both finish
    assert all(count <= 3 for _, count in runs)  # no turn runs past the shared budget
    names = [name for name, _ in runs]
    assert all(x != y for x, y in zip(names, names[1:]))  # strictly alternating: nobody starves


async def test_other_tasks_run_between_turns() -> None:
    share, clock, log = LoopShare(BUDGET), Clock(), []

    async def ticker() -> None:  # stands in for the UI: one step per loop iteration
        for _ in range(200):
            log.append("ui")
            await asyncio.sleep(0)

    await asyncio.gather(stream("a", 30, share, clock, log), stream("b", 30, share, clock, log), ticker())
    between_ui = [run for run in " ".join(log).split("ui") if run.strip()]
    assert max(len(run.split()) for run in between_ui) <= 3 + 1  # one turn, plus one chunk of the other


async def test_a_cancelled_stream_gives_up_its_turn() -> None:
    share, clock, log = LoopShare(BUDGET), Clock(), []
    first = asyncio.create_task(stream("a", 1000, share, clock, log))
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    first.cancel()
    await asyncio.gather(first, return_exceptions=True)
    await asyncio.wait_for(stream("b", 10, share, clock, log), timeout=5)  # not stuck behind "a"
    assert log.count("b") == 10 and not share.turns


async def test_while_the_user_types_streams_leave_the_loop_to_the_keyboard() -> None:
    """After a key, a stream that used the budget pauses TYPING_PAUSE: the UI gets many iterations."""
    from app.engine.loop_share import TYPING_PAUSE

    async def ui_steps_during(typing: bool) -> int:
        share, clock, log = LoopShare(BUDGET), Clock(), []
        if typing:
            share.defer_to_typing(60)
        steps = 0
        done = asyncio.Event()

        async def ui() -> None:
            nonlocal steps
            while not done.is_set():
                steps += 1
                await asyncio.sleep(0)

        ticker = asyncio.create_task(ui())
        await stream("a", 12, share, clock, log)  # four turns of three chunks
        done.set()
        await ticker
        return steps

    idle_steps = await ui_steps_during(typing=False)
    typing_steps = await ui_steps_during(typing=True)
    assert idle_steps < 20  # the stream takes a turn every iteration or two
    assert typing_steps > 3 * idle_steps  # ... but waits TYPING_PAUSE between turns while typing
    assert TYPING_PAUSE >= 0.005


async def test_while_the_user_types_all_streams_together_take_one_turn_per_pause() -> None:
    """Four streams do not take four turns per TYPING_PAUSE: one budget per pause is shared by all."""
    from app.engine.loop_share import TYPING_PAUSE

    share, clock, log = LoopShare(BUDGET), Clock(), []
    share.defer_to_typing(60)
    share.echo_painted()
    started = time.monotonic()
    tasks = [asyncio.create_task(stream(name, 1000, share, clock, log)) for name in "abcd"]
    await asyncio.sleep(TYPING_PAUSE * 10)
    for task in tasks:
        task.cancel()
    pauses = (time.monotonic() - started) / TYPING_PAUSE  # ten, or more on a loaded machine
    await asyncio.gather(*tasks, return_exceptions=True)
    first_chunks = 4  # each stream's first chunk runs before it ever has to yield
    turns_taken = (len(log) - first_chunks) / 3  # three chunks per turn
    assert 1 <= turns_taken <= pauses + 1  # at most one per pause, for all four together (not four)


async def test_no_stream_takes_a_turn_before_the_key_is_painted() -> None:
    from app.engine.loop_share import ECHO_POLL, TYPING_PAUSE

    share, clock, log = LoopShare(BUDGET), Clock(), []
    share.defer_to_typing(60)
    share.resume_at = 0.0  # no pause left from an earlier turn: only the echo holds the streams
    share.echo_due = time.monotonic() + 60  # an echo that takes long (ECHO_WAIT is 0.1 s: a loaded machine can
    # stall that long, and the stream would then go on because the echo is late, not because it was painted)
    task = asyncio.create_task(stream("a", 1000, share, clock, log))
    await asyncio.sleep(TYPING_PAUSE * 3)
    held = len(log)
    assert held == 3  # the first turn ran out of budget; the next waits for the echo
    share.echo_painted()
    deadline = time.monotonic() + 10
    while len(log) == held and time.monotonic() < deadline:
        await asyncio.sleep(ECHO_POLL)
    assert len(log) > held  # painted: the stream goes on (well before the echo's 60 s)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_streams_go_back_to_full_speed_when_typing_stops() -> None:
    share, clock, log = LoopShare(BUDGET), Clock(), []
    share.defer_to_typing(0.05)
    await asyncio.sleep(0.06)
    started = asyncio.get_running_loop().time()
    await stream("a", 30, share, clock, log)
    assert asyncio.get_running_loop().time() - started < 0.05  # ten turns, no pauses
