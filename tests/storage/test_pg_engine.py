"""The PostgreSQL engine: statements as written for SQLite, writers taking turns, the word index in use."""

from __future__ import annotations

import threading
import time

import pytest

from app.storage.pg_engine import translate
from app.storage.store import Store
from app.vocabulary.messages import Message
from tests.pg_fixtures import stored_rows


def test_parameters_become_psycopgs_and_quoted_text_is_left_alone() -> None:
    assert translate("SELECT * FROM t WHERE a = ? AND b = :name") == "SELECT * FROM t WHERE a = %s AND b = %(name)s"
    assert translate("SELECT '?', ':x', \"col?\" FROM t WHERE c LIKE ? || '%'") == \
        "SELECT '?', ':x', \"col?\" FROM t WHERE c LIKE %s || '%%'"
    assert translate("SELECT 'it''s ?', x::text, 5 % 2 FROM t WHERE y = :y") == \
        "SELECT 'it''s ?', x::text, 5 %% 2 FROM t WHERE y = %(y)s"


@pytest.fixture
def server_store(pg_server):
    store = Store(pg_server.database())
    yield store
    store.close()


def test_a_writer_waits_for_another_writers_transaction(server_store: Store, pg_server) -> None:
    """Two stores on one database (two machines): the second's write transaction gets past its first
    statement (which carries its BEGIN and the lock) only once the first's has committed, so reading the
    last seq and appending after it never collides."""
    other = Store(server_store.engine.url)
    ws = server_store.create_workstream()
    order: list[str] = []
    entered = threading.Event()

    def second() -> None:
        with other.engine.begin() as conn:
            conn.execute("UPDATE workstreams SET title = 'second' WHERE id = ?", (ws,))
            order.append("second")

    try:
        with server_store.engine.begin() as conn:
            conn.execute("UPDATE workstreams SET title = 'first' WHERE id = ?", (ws,))
            thread = threading.Thread(target=lambda: (entered.set(), second()))
            thread.start()
            entered.wait(10)
            # the second is now waiting on the lock, or about to: either way it cannot get past its first statement
            waiting = stored_rows(server_store, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
            while waiting == [(0,)] and thread.is_alive():
                time.sleep(0.01)
                waiting = stored_rows(server_store, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
            order.append("first")
        thread.join(30)
        assert order == ["first", "second"] and waiting == [(1,)]
        assert server_store.get_workstream(ws).title == "second"
    finally:
        other.close()


def test_search_uses_the_word_index(server_store: Store) -> None:
    ws = server_store.create_workstream()
    for number in range(50):
        server_store.add_message(ws, Message(role="user", content=f"note {number} about app/storage/engine.py"))
    assert len(server_store.search("engine", limit=100)) == 50  # a word inside a path, as FTS5 finds it
    with server_store.engine.connect() as conn:
        conn.execute("SET enable_seqscan = off")
        from app.storage import pg_fts

        plan = "\n".join(row[0] for row in conn.execute(
            f"EXPLAIN SELECT m.id FROM messages m WHERE {pg_fts.matching('m')}", {"q": "'engine':*"}))
        conn.execute("RESET enable_seqscan")
    assert pg_fts.INDEX_NAME in plan


def test_leases_go_by_the_servers_clock_whatever_a_machines_says(server_store: Store) -> None:
    """A machine an hour behind holds a lease; another machine still sees it live (by its own clock the
    heartbeat would be an hour old, and it would take the workstream over)."""
    from app.storage.leases import Owner

    behind = Store(server_store.engine.url)
    behind._clock = lambda: time.time() - 3600  # its messages' times say so; its leases go by the server
    ws = behind.create_workstream()
    try:
        assert behind.take_lease(ws, Owner("behind", 1, "laptop")) is None
        holder = server_store.take_lease(ws, Owner("other", 2, "buildbox"))
        assert holder is not None and holder.owner.instance_id == "behind"
        assert [lease.workstream_id for lease in server_store.live_leases()] == [ws]
    finally:
        behind.close()


def test_a_lost_server_is_store_unavailable_in_words_and_the_pool_recovers(own_pg_server) -> None:
    """The server stops mid-transaction: the statement's error is StoreUnavailable naming the store by its
    masked URL (never the password), new checkouts and pings say the same, and once the server is back
    the engine's next write works without anything reopened by hand."""
    from app.storage.reachability import StoreUnavailable

    url = own_pg_server.database().replace("whimbrel@", "whimbrel:pw-hidden@", 1)
    store = Store(url)
    try:
        ws = store.create_workstream(title="before")
        with pytest.raises(StoreUnavailable) as lost:
            with store.engine.begin() as conn:
                conn.execute("SELECT 1")
                own_pg_server.halt()
                conn.execute("UPDATE workstreams SET title = 'during' WHERE id = ?", (ws,))
        words = str(lost.value)
        assert words.startswith("lost the connection to the PostgreSQL store postgresql://whimbrel:***@"), words
        assert "pw-hidden" not in words
        with pytest.raises(StoreUnavailable, match=r"cannot reach the PostgreSQL store postgresql://whimbrel:\*\*\*@"):
            store.engine.ping()
        with pytest.raises(StoreUnavailable):
            store.get_workstream(ws)
        own_pg_server.resume()
        store.engine.ping()
        store.update_workstream(ws, title="after")
        assert store.get_workstream(ws).title == "after"
    finally:
        store.close()
