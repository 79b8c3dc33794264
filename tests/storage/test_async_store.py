"""AsyncStore: the same operations, awaited, run on one worker thread in call order."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from app.vocabulary.messages import Message
from app.storage.async_store import AsyncStore


async def test_open_write_read_close(tmp_path: Path) -> None:
    astore = await AsyncStore.open(tmp_path / "w.db")
    try:
        ws = await astore.create_workstream(title="async")
        # Fire many writes without awaiting each one: the single worker keeps their order.
        await asyncio.gather(*(astore.add_message(ws, Message(role="user", content=str(i)))
                               for i in range(20)))
        loaded = await astore.load_messages(ws)
        assert [m.content for m in loaded] == [str(i) for i in range(20)]
        assert (await astore.find_workstream(ws[:8])).title == "async"
        await astore.set_config(ws, "k", [1, 2])
        assert await astore.get_config(ws) == {"k": [1, 2]}
    finally:
        await astore.aclose()


async def test_work_runs_off_the_event_loop_thread(tmp_path: Path) -> None:
    astore = await AsyncStore.open(tmp_path / "w.db")
    try:
        worker = await astore.run(threading.get_ident)
        assert worker != threading.get_ident()
        assert await astore.run(threading.get_ident) == worker
    finally:
        await astore.aclose()
