"""The SDK's import off the event loop (app/providers/registry.py): one import per module, awaited by
every caller. A module under import is in sys.modules half made; a caller that took that for "done"
went on to use it on the loop (the first key typed starts the import, and Enter may come before it ends).

The module imported is a real file whose body waits until the test lets it finish.
"""

from __future__ import annotations

import asyncio
import builtins
import sys
import threading

import pytest

from app.providers.registry import import_off_loop

MODULE = "gated_sdk_for_test"


@pytest.fixture
def gated_module(tmp_path, monkeypatch):
    """A module whose import blocks until the returned gate is set."""
    gate = threading.Event()
    (tmp_path / f"{MODULE}.py").write_text(
        "import builtins\nbuiltins.gated_sdk_gate.wait(120)\nREADY = True\n")
    monkeypatch.setattr(builtins, "gated_sdk_gate", gate, raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        yield gate
    finally:
        gate.set()  # never leave the import thread waiting
        sys.modules.pop(MODULE, None)


async def until(predicate) -> None:
    for _ in range(12_000):  # a minute at most
        if predicate():
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"timed out waiting for {predicate}")


async def test_a_caller_during_the_import_waits_for_it_to_finish(gated_module):
    first = asyncio.create_task(import_off_loop(MODULE))
    await until(lambda: MODULE in sys.modules)  # the import is under way: its module exists, half made
    second = asyncio.create_task(import_off_loop(MODULE))
    for _ in range(20):
        await asyncio.sleep(0)
    assert not second.done(), "the second caller went on with a half-imported module"
    gated_module.set()
    await asyncio.wait_for(asyncio.gather(first, second), 60)
    assert sys.modules[MODULE].READY is True


async def test_a_cancelled_caller_leaves_the_import_to_the_others(gated_module):
    first = asyncio.create_task(import_off_loop(MODULE))
    await until(lambda: MODULE in sys.modules)
    second = asyncio.create_task(import_off_loop(MODULE))
    await asyncio.sleep(0)
    first.cancel()
    gated_module.set()
    await asyncio.wait_for(second, 60)
    assert sys.modules[MODULE].READY is True


async def test_a_failed_import_reaches_every_caller_and_is_tried_again(tmp_path, monkeypatch):
    (tmp_path / "broken_sdk_for_test.py").write_text("raise ImportError('this SDK is broken')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        results = await asyncio.gather(import_off_loop("broken_sdk_for_test"), import_off_loop("broken_sdk_for_test"),
                                       return_exceptions=True)
        assert [str(r) for r in results] == ["this SDK is broken"] * 2
        with pytest.raises(ImportError, match="broken"):
            await import_off_loop("broken_sdk_for_test")  # not remembered as done: tried again
    finally:
        sys.modules.pop("broken_sdk_for_test", None)
