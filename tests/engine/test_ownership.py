"""Two workstream managers (two app instances) on one store file: leases decide who writes where."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.engine.ownership import HeldElsewhere
from app.engine.session import Session
from app.engine.workstreams import WorkstreamManager
from app.storage.async_store import AsyncStore
from app.storage.store import Store
from app.vocabulary.messages import Message
from tools.context import ToolContext
from tools.registry import ToolRegistry


async def _manager(db: Path, workspace: Path) -> WorkstreamManager:
    store = await AsyncStore.open(db)
    registry = ToolRegistry.load_builtin()

    def session(workstream_id, saved, listener) -> Session:
        return Session(workstream_id=workstream_id, provider=None, registry=registry,
                       tool_context=ToolContext(workspace=workspace), emit=listener, store=store,
                       messages=saved.messages, context_start=saved.context_start)

    return WorkstreamManager(store=store, session_factory=session, workdir=str(workspace))


@pytest.fixture
async def pair(tmp_path, store_target):
    db = store_target  # a SQLite file or a PostgreSQL database (tests/pg_fixtures.py)
    first, second = await _manager(db, tmp_path), await _manager(db, tmp_path)
    yield first, second, db
    for manager in (first, second):
        await manager.store.aclose()


async def test_second_instance_sees_it_read_only_until_the_first_closes_it(pair) -> None:
    first, second, _db = pair
    mine, _ = await first.create()
    with pytest.raises(HeldElsewhere):
        await second.open(mine.id[:8], only_if_free=True)  # restoring skips it
    assert len(second) == 0
    theirs, _ = await second.open(mine.id)
    assert theirs.read_only and theirs.held_by.owner == first.ownership.owner
    with pytest.raises(HeldElsewhere):
        await theirs.submit("write here")
    await second.close(theirs)  # closing a read-only copy leaves the holder's lease alone
    assert (await second.store.lease(mine.id)).owner == first.ownership.owner
    theirs, _ = await second.open(mine.id)
    with pytest.raises(HeldElsewhere):
        await second.take_over(theirs)
    await first.close(mine)
    taken = await second.take_over(theirs)
    assert not taken.read_only and second.get(mine.id) is taken
    assert (await second.store.lease(mine.id)).owner == second.ownership.owner


async def test_read_only_copy_follows_the_holders_messages(pair) -> None:
    first, second, _db = pair
    mine, _ = await first.create()
    theirs, _ = await second.open(mine.id)
    assert await second.poll_read_only() == []
    await first.store.add_message(mine.id, Message(role="user", content="from the first window"))
    assert await second.poll_read_only() == [theirs]
    assert [m.content for m in theirs.session.messages] == ["from the first window"]
    assert not theirs.takeover_ready


async def test_an_instance_that_went_stale_loses_the_workstream_and_turns_read_only(pair) -> None:
    first, second, db = pair
    mine, _ = await first.create()
    stale = Store(db, clock=lambda: 0.0)  # first's last heartbeat, as if it had been frozen for ages
    stale.refresh_leases(first.ownership.owner, [mine.id])
    stale.close()
    taken, _ = await second.open(mine.id)
    assert not taken.read_only, "a stale lease is taken over on open"
    lost = await first.heartbeat()
    assert lost == [mine] and mine.read_only and mine.held_by.owner == second.ownership.owner
    with pytest.raises(HeldElsewhere):
        await mine.submit("too late")


async def test_a_lease_lost_while_stale_is_claimed_back_once_the_taker_has_gone(pair) -> None:
    first, second, db = pair
    mine, _ = await first.create()
    stale = Store(db, clock=lambda: 0.0)
    stale.refresh_leases(first.ownership.owner, [mine.id])
    stale.close()
    taken, _ = await second.open(mine.id)
    await second.close(taken)  # the taker quits before the first instance's next heartbeat
    assert await first.heartbeat() == []
    assert not mine.read_only and (await first.store.lease(mine.id)).owner == first.ownership.owner


async def test_the_take_over_hint_follows_the_servers_clock_not_this_machines(tmp_path, pg_server,
                                                                              monkeypatch) -> None:
    """On PostgreSQL a lease's age is the server's business: a follower whose own clock is an hour off
    (time.time patched in this process only; the server's clock is untouched) offers the take-over
    exactly when the server would grant it."""
    import time

    url = pg_server.database()
    first, second = await _manager(url, tmp_path), await _manager(url, tmp_path)
    real_time = time.time
    try:
        mine, _ = await first.create()
        theirs, _ = await second.open(mine.id)
        assert theirs.read_only and not theirs.takeover_ready

        monkeypatch.setattr(time, "time", lambda: real_time() + 3600)  # ahead: a live owner would look stale
        await second.poll_read_only()
        assert not theirs.takeover_ready, "the owner beats: no take-over offered, whatever this clock says"
        assert not second.ownership.free_now(await second.store.lease(mine.id))

        monkeypatch.setattr(time, "time", lambda: real_time() - 3600)  # behind: a stale owner would look alive
        await first.store.run(_silence_for, first.store.store, mine.id, 60)
        await second.poll_read_only()
        assert theirs.takeover_ready, "the owner has been silent for a minute by the server's clock"
        taken = await second.take_over(theirs)  # and the server agrees
        assert not taken.read_only
    finally:
        for manager in (first, second):
            await manager.store.aclose()


def _silence_for(store: Store, workstream_id: str, seconds: int) -> None:
    """The lease's last heartbeat `seconds` ago by the server's clock (an owner that stopped beating)."""
    with store.engine.begin() as conn:
        conn.execute("UPDATE workstream_leases SET heartbeat_at = extract(epoch FROM clock_timestamp()) - ? "
                     "WHERE workstream_id = ?", (seconds, workstream_id))
