"""LISTEN/NOTIFY on a real PostgreSQL: a follower's store is told of the owner's saves (a message, a
streaming reply's pieces) within a second, through another Store handle as another machine would be;
on SQLite there is no listener (followers poll)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from app.storage.store import Store
from app.vocabulary.messages import Message


class Heard:
    """What a listener was told, waited for by condition."""

    def __init__(self) -> None:
        self.ids: list[str | None] = []
        self.changed = threading.Condition()

    def __call__(self, workstream_id: str | None) -> None:
        with self.changed:
            self.ids.append(workstream_id)
            self.changed.notify_all()

    def wait_for(self, predicate, timeout: float) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: predicate(self.ids), timeout=timeout)


def test_the_follower_hears_each_save_within_a_second(pg_server) -> None:
    url = pg_server.database()
    owner, follower = Store(url), Store(url)
    try:
        ws = owner.create_workstream(title="streamed")
        heard = Heard()
        listener = follower.listen(heard)
        assert listener.listening.wait(10), "the listener connects"
        assert heard.wait_for(lambda ids: None in ids, 5), "told to read once on connecting"

        start = time.monotonic()
        owner.add_message(ws, Message(role="user", content="Go."))
        assert heard.wait_for(lambda ids: ws in ids, 1.0), "a message is heard within a second"
        assert [m.content for m in follower.load_messages(ws)] == ["Go."], "and it can be read then"

        draft = Message(role="assistant", content="Part one", interrupted=True)  # as app/engine/reply_draft.py starts one
        saves = heard.ids.count(ws)
        owner.start_draft(ws, draft)
        assert heard.wait_for(lambda ids: ids.count(ws) == saves + 1, 1.0), "the draft's start is heard"
        for n in range(5):
            owner.append_draft(ws, draft.db_id, f" piece {n}", "")
            assert heard.wait_for(lambda ids: ids.count(ws) == saves + 2 + n, 1.0), f"piece {n} heard"
            assert follower.load_conversation(ws).messages[-1].content.endswith(f" piece {n}")
        assert time.monotonic() - start < 30
    finally:
        follower.close()
        owner.close()
    assert not listener._thread.is_alive(), "closing the store stops its listener"


def test_a_rolled_back_write_is_not_heard(pg_server) -> None:
    url = pg_server.database()
    owner, follower = Store(url), Store(url)
    try:
        ws = owner.create_workstream()
        heard = Heard()
        assert follower.listen(heard).listening.wait(10)
        with pytest.raises(RuntimeError):
            with owner.engine.begin() as conn:
                owner._touch(conn, ws, state="streaming")
                raise RuntimeError("the write fails before it commits")
        owner.update_workstream(ws, title="committed")  # a later write is heard, the failed one never was
        assert heard.wait_for(lambda ids: ws in ids, 2.0)
        assert [i for i in heard.ids if i is not None] == [ws]
    finally:
        follower.close()
        owner.close()


def test_sqlite_has_no_listener(tmp_path: Path) -> None:
    store = Store(tmp_path / "data" / "whimbrel.db")
    try:
        assert store.listen(lambda _ws: None) is None
    finally:
        store.close()


def test_the_follower_keeps_following_after_the_server_restarts(own_pg_server) -> None:
    """The server restarts (every connection cut): the follower's listener reconnects by itself, says
    "re-read everything" once back, and hears the owner's next save, through the owner's own handle,
    whose pool replaces its dead connections."""
    url = own_pg_server.database()
    owner, follower, heard = Store(url), Store(url), Heard()
    try:
        ws = owner.create_workstream(title="followed")
        assert follower.listen(heard).listening.wait(10) and heard.wait_for(lambda ids: ids.count(None) == 1, 5)
        owner.add_message(ws, Message(role="user", content="Before the restart."))
        assert heard.wait_for(lambda ids: ws in ids, 5)

        own_pg_server.restart()
        assert heard.wait_for(lambda ids: ids.count(None) == 2, 30), "listening again after the restart"
        saves = heard.ids.count(ws)
        owner.add_message(ws, Message(role="user", content="After the restart."))
        assert heard.wait_for(lambda ids: ids.count(ws) == saves + 1, 5), "the save after the restart is heard"
        assert [m.content for m in follower.load_messages(ws)] == ["Before the restart.", "After the restart."]
    finally:
        for store in (follower, owner):
            store.close()
