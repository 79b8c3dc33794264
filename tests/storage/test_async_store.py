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


async def test_a_deleted_store_file_is_reported_once_at_the_next_call(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    astore = await AsyncStore.open(path)
    told: list[str] = []
    astore.on_lost = told.append
    try:
        ws = await astore.create_workstream(title="kept")
        assert not astore.lost and told == []
        for file in tmp_path.iterdir():  # the database with its -wal and -shm files
            file.unlink()
        await astore.add_message(ws, Message(role="user", content="into a deleted file"))
        await astore.add_message(ws, Message(role="user", content="and another"))
        assert astore.lost
        assert told == [f"The conversation store {path} was deleted while Whimbrel was running: nothing from "
                        "now on is saved, and these conversations cannot be resumed. Restart Whimbrel to start "
                        "a new store."]
    finally:
        await astore.aclose()
    assert not path.exists()


async def test_a_replaced_store_file_counts_as_lost(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    astore = await AsyncStore.open(path)
    try:
        await astore.create_workstream()
        path.rename(tmp_path / "moved.db")
        path.write_bytes(b"")  # another file now has the name: what we write never reaches it
        await astore.list_workstreams()
        assert astore.lost
    finally:
        await astore.aclose()
