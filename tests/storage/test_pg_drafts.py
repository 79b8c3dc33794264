"""A streaming reply's pieces on a real PostgreSQL, written behind the caller (app/storage/pg_drafts.py):
saves return before they are written and those that wait are written together, yet the process reads
its own saves, a refusal is reported at the next draft call with nothing written past it, a cut
connection loses nothing, and closing the store writes what was queued."""

from __future__ import annotations

import time

import psycopg
import pytest

from app.storage.leases import Owner
from app.storage.pg_engine import WRITE_LOCK_KEY
from app.storage.store import Store
from app.storage.write_refused import WriteRefused
from app.vocabulary.messages import Message
from tests.pg_fixtures import stored_rows


def _draft(store: Store, ws: str, text: str = "so") -> int:
    return store.start_draft(ws, Message(role="assistant", content=text, interrupted=True))


def _wait(condition, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        time.sleep(0.01)


def test_saves_return_while_the_write_lock_is_taken_and_are_then_written_together(pg_server) -> None:
    url = pg_server.database()
    store = Store(url)
    blocker = psycopg.connect(url, autocommit=True)  # another machine holding the store's write lock
    try:
        ws = store.create_workstream()
        draft = _draft(store, ws)
        blocker.execute("SELECT pg_advisory_lock(%s)", (WRITE_LOCK_KEY,))
        for n in range(50):  # none of these may wait for the lock: they are queued
            store.append_draft(ws, draft, f" {n}", "r" if n % 10 == 0 else "")
        # (read outside the store: a read through it would wait for its queued saves)
        assert blocker.execute("SELECT count(*) FROM draft_pieces").fetchone()[0] == 0, "nothing written while locked"
        blocker.execute("SELECT pg_advisory_unlock(%s)", (WRITE_LOCK_KEY,))
        reply = store.load_messages(ws)[-1]  # this process's read waits for its own saves
        assert reply.content == "so" + "".join(f" {n}" for n in range(50)) and reply.reasoning == "rrrrr"
        assert stored_rows(store, "SELECT count(*) FROM draft_pieces")[0][0] <= 2, "the waiting saves in one write"
        store.complete_draft(ws, draft, Message(role="assistant", content="the whole reply"))
        assert [m.content for m in store.load_messages(ws)] == ["the whole reply"]
        assert stored_rows(store, "SELECT count(*) FROM draft_pieces") == [(0,)]
    finally:
        blocker.close()
        store.close()


def test_a_refused_save_is_reported_at_the_next_draft_call_and_nothing_after_it_is_written(pg_server) -> None:
    url = pg_server.database()
    mine, theirs = Store(url), Store(url)
    here, other = Owner("here", 1, "laptop"), Owner("other", 2, "buildbox")
    mine.writer, theirs.writer = here, other
    try:
        ws = mine.create_workstream()
        assert mine.take_lease(ws, here) is None
        draft = _draft(mine, ws)
        assert theirs.take_lease(ws, other, stale_after=-1) is None  # as if `here` had gone stale
        mine.append_draft(ws, draft, " far", "")  # queued: its refusal is known once it was tried
        assert mine.get_workstream(ws) is not None  # a read waits until it was
        with pytest.raises(WriteRefused) as refused:
            mine.append_draft(ws, draft, " further", "")
        assert refused.value.lease.owner == other
        mine.append_draft(ws, draft, " still", "")
        with pytest.raises(WriteRefused):
            mine.complete_draft(ws, draft, Message(role="assistant", content="so far"))
        assert [(m.content, m.interrupted) for m in theirs.load_messages(ws)] == [("so", True)]
        assert stored_rows(theirs, "SELECT count(*) FROM draft_pieces") == [(0,)]
    finally:
        mine.close()
        theirs.close()


def test_a_save_whose_connection_was_cut_is_written_by_the_next_draft_call(pg_server) -> None:
    url = pg_server.database()
    store = Store(url)
    admin = psycopg.connect(url, autocommit=True)
    try:
        ws = store.create_workstream()
        draft = _draft(store, ws)
        store.append_draft(ws, draft, " one", "")
        assert store.load_messages(ws)[-1].content == "so one"  # the sender's connection is open now
        others = "datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
        admin.execute(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE {others}")
        _wait(lambda: admin.execute(f"SELECT count(*) FROM pg_stat_activity WHERE {others}").fetchone()[0] == 0,
              "every other connection gone")
        store.append_draft(ws, draft, " two", "")
        assert store.get_workstream(ws) is not None
        store.append_draft(ws, draft, " three", "")
        assert store.load_messages(ws)[-1].content == "so one two three"
    finally:
        admin.close()
        store.close()


def test_closing_the_store_writes_what_was_queued(pg_server) -> None:
    url = pg_server.database()
    store = Store(url)
    ws = store.create_workstream()
    draft = _draft(store, ws)
    for n in range(100):
        store.append_draft(ws, draft, f" {n}", "")
    store.close()
    again = Store(url)  # opening folds the draft's pieces into its row
    try:
        reply = again.load_messages(ws)[-1]
        assert reply.content == "so" + "".join(f" {n}" for n in range(100)) and reply.interrupted
    finally:
        again.close()
