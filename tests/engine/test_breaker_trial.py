"""A half-open circuit breaker's trial request that is cancelled (Esc) frees the trial slot.

Before: the cancelled trial recorded neither success nor failure, so every later request, in every
workstream on that backend, failed with "requests are paused (circuit open; next try in 0 s)".
"""

from __future__ import annotations

import asyncio
import time

from app.engine import events as ev
from app.providers.models import CircuitBreaker
from tests.engine.harness import Recorder
from tests.engine.models_harness import close, models_session, openai_model, registry_for
from tests.hostile.model_fixtures import hostile_model, hostile_model_session  # noqa: F401


class Clock:
    """A clock the test moves by hand, so the cooldown passes without waiting for it."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def until(predicate, timeout: float = 15.0) -> None:
    """Wait for `predicate()` (a condition on another thread: the server's), failing after `timeout`."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)


def test_release_frees_only_the_trial_slot() -> None:
    clock = Clock()
    breaker = CircuitBreaker("b", threshold=1, cooldown=10, clock=clock)
    breaker.record_failure()
    breaker.release_trial()
    assert breaker.state == "open" and not breaker.allow()  # releasing never closes an open breaker
    clock.now += 10
    assert breaker.allow() and not breaker.allow()
    breaker.release_trial()
    assert breaker.state == "half-open" and breaker.allow()  # the next request is the trial


async def test_a_cancelled_trial_does_not_pause_requests_forever(hostile_model, tmp_path) -> None:
    clock = Clock()
    models = registry_for({"main": openai_model(hostile_model, "main")}, clock=clock, threshold=3, cooldown=30)
    first, second = Recorder(), Recorder()
    tab_one, store = await models_session(models, tmp_path / "ws", tmp_path, first)
    tab_two, store_two = await models_session(models, tmp_path / "ws", tmp_path / "two", second)
    try:
        for _ in range(3):
            await tab_one.run_turn("500 please")
        assert models.breaker("main").state == "open"
        clock.now += 30  # the cooldown has passed: the next request is the half-open trial

        trial = asyncio.create_task(tab_one.run_turn("hang until cancelled"))
        await until(lambda: hostile_model.hanging == 1)
        trial.cancel()  # what Esc does
        await asyncio.gather(trial, return_exceptions=True)

        await tab_two.run_turn("hi from the other tab")
        assert second.text() == "You said: hi from the other tab"
        errors = [n.text for n in second.of(ev.Notice) if n.level == "error"]
        assert errors == []
        assert models.breaker("main").state == "closed"
        await tab_one.run_turn("and again")
        assert first.text().endswith("You said: and again")
    finally:
        await close(models, store)
        await store_two.aclose()
