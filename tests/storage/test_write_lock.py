"""Write transactions take the lock up front and wait for it; reads never take it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from app.storage.engine import StoreLockedError, begin_immediate, reader
from app.storage.store import Store


def _locker(path: Path) -> sqlite3.Connection:
    """Another process's connection, holding the write lock (BEGIN IMMEDIATE, not yet committed)."""
    conn = sqlite3.connect(path, isolation_level=None, timeout=0)
    conn.execute("BEGIN IMMEDIATE")
    return conn


def _writer(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None, timeout=0)  # no busy wait: every retry is ours


@pytest.mark.sqlite_only
def test_begin_waits_for_the_lock_and_retries_until_it_is_free(store: Store, db_path: Path) -> None:
    locker, writer = _locker(db_path), _writer(db_path)
    waits: list[float] = []

    def sleep(delay: float) -> None:
        waits.append(delay)
        if len(waits) == 3:
            locker.commit()  # the other process finishes its transaction

    try:
        begin_immediate(writer.execute, sleep=sleep)
        writer.execute("INSERT INTO app_state (key, value, updated_at) VALUES ('k', '1', 0)")
        writer.execute("COMMIT")
    finally:
        locker.close()
        writer.close()
    assert len(waits) == 3 and waits == sorted(waits), "backed off, longer each time"
    assert store.get_app_state("k") == 1


@pytest.mark.sqlite_only
def test_a_lock_held_past_patience_is_reported_in_words(store: Store, db_path: Path) -> None:
    locker, writer = _locker(db_path), _writer(db_path)
    try:
        with pytest.raises(StoreLockedError, match="locked by another process"):
            begin_immediate(writer.execute, patience=0.2)
    finally:
        locker.close()
        writer.close()


@pytest.mark.sqlite_only
def test_an_open_read_never_blocks_another_processs_write(store: Store, db_path: Path) -> None:
    ws = store.create_workstream(title="readable")
    writer = _writer(db_path)  # timeout 0: it fails at once if anything holds the lock
    try:
        with reader(store.engine).connect() as conn:
            assert conn.execute("SELECT title FROM workstreams").scalar() == "readable"  # a read transaction is open
            begin_immediate(writer.execute, patience=0)
            writer.execute("UPDATE workstreams SET title = 'renamed'")
            writer.execute("COMMIT")
        assert store.get_workstream(ws).title == "renamed"
    finally:
        writer.close()


@pytest.mark.sqlite_only
def test_a_poll_for_due_watches_takes_no_lock_while_none_is_due(store: Store, db_path: Path) -> None:
    """An idle app polls its watches every few seconds: while none is due that is a plain read, which
    answers while another process holds the write lock; a due watch is still claimed under the lock."""
    from app.storage import watch_store

    ws = store.create_workstream(title="watched")
    watch_store.create(store, ws, name="later", command="true", interval=60, stop_on=None, max_polls=5,
                       now=2_000.0)
    locker = _locker(db_path)
    try:
        assert watch_store.claim_due(store, now=1_999.0, lease=30) == []  # not due yet: no wait for the lock
    finally:
        locker.close()
    assert [row["name"] for row in watch_store.claim_due(store, now=2_000.0, lease=30)] == ["later"]
    assert watch_store.claim_due(store, now=2_000.0, lease=30) == [], "claimed: pushed ahead by its lease"


@pytest.mark.sqlite_only
def test_a_heartbeat_waits_for_another_processs_lock_then_refreshes(store: Store, db_path: Path) -> None:
    """The heartbeat has its own connection: it takes the lock up front like every write,
    waits while another process holds it, refreshes only this owner's leases, and reports lost ones."""
    import threading

    from app.storage.lease_rules import Owner

    mine, theirs = Owner("mine", 1, "host"), Owner("theirs", 2, "host")
    kept, lost = store.create_workstream(title="kept"), store.create_workstream(title="lost")
    store.take_lease(kept, mine)
    store.take_lease(lost, theirs)
    before = store.lease(kept).heartbeat_at
    locker = _locker(db_path)
    done: list[list[str]] = []
    beat = threading.Thread(target=lambda: done.append(store.refresh_leases(mine, [kept, lost])))
    beat.start()
    try:
        beat.join(timeout=0.5)
        assert beat.is_alive(), "it waits while the lock is held"
    finally:
        locker.close()  # the other process goes away without writing
    beat.join(timeout=60)
    assert done == [[lost]]  # the lease another instance holds is reported, not refreshed
    assert store.lease(kept).heartbeat_at > before and store.lease(lost).owner == theirs
    store.close()
    assert store._heartbeat is None, "closed with the store"
