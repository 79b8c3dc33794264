"""The event-loop watchdog (app/engine/loop_watchdog.py) catches a callback that holds the loop, with
the stack that held it, and says nothing about a loop that only waits."""

from __future__ import annotations

import asyncio
import time

import pytest

from app.engine.loop_watchdog import LoopWatchdog

pytestmark = pytest.mark.holds_loop_on_purpose


def hold_the_loop(seconds: float) -> None:
    time.sleep(seconds)  # a blocking call on the loop, as a freeze would be


async def test_a_callback_holding_the_loop_is_reported_with_its_stack() -> None:
    reported = []
    watchdog = LoopWatchdog(asyncio.get_running_loop(), threshold=0.2, report=reported.append).start()
    try:
        await asyncio.sleep(0.1)
        hold_the_loop(0.6)
        for _ in range(100):  # until the loop has beaten again after the hold
            if reported:
                break
            await asyncio.sleep(0.02)
    finally:
        watchdog.stop()
    assert len(reported) == 1 and reported == watchdog.holds
    assert 0.5 <= reported[0].seconds and watchdog.longest == reported[0].seconds
    assert "hold_the_loop" in reported[0].stack and "time.sleep" in reported[0].stack
    assert reported[0].own >= 0.5  # a blocking call holds the loop whole: it never waited for a CPU


async def test_a_callback_that_computes_holds_the_loop_too() -> None:
    watchdog = LoopWatchdog(asyncio.get_running_loop(), threshold=0.2).start()
    try:
        await asyncio.sleep(0.1)
        end = time.thread_time() + 0.5
        while time.thread_time() < end:  # half a second of the loop thread's own CPU time
            pass
        for _ in range(100):
            if watchdog.holds:
                break
            await asyncio.sleep(0.02)
    finally:
        watchdog.stop()
    assert watchdog.holds and watchdog.holds[0].own >= 0.45 and watchdog.longest_own >= 0.45


async def test_a_loop_that_only_waits_holds_nothing() -> None:
    watchdog = LoopWatchdog(asyncio.get_running_loop(), threshold=0.2).start()
    try:
        await asyncio.sleep(0.5)
    finally:
        watchdog.stop()
    assert watchdog.holds == [] and watchdog.longest < 0.2
