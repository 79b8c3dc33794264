"""Pruning at startup: empty workstreams, and unnamed ones past the retention period."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from app.vocabulary.messages import Message
from app.storage.history import DAY, EMPTY_GRACE
from app.storage.store import Store
from tests.pg_fixtures import stored_rows
from tests.storage.conftest import Clock
from tests.storage.factories import make_workstream

NOW = 1_000_000_000.0


def _store(db_path: Path, start: float) -> Store:
    return Store(db_path, clock=Clock(start))


def _count(path: Path | Store, table: str) -> int:
    if isinstance(path, Store):
        return stored_rows(path, f"SELECT count(*) FROM {table}")[0][0]
    conn = sqlite3.connect(path)
    try:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    finally:
        conn.close()


def _with_message(store: Store, text: str = "hi", alias: str | None = None) -> str:
    ws = store.create_workstream()
    store.add_message(ws, Message(role="user", content=text))
    if alias:
        store.update_workstream(ws, alias=alias)
    return ws


def test_prunes_empty_and_old_unnamed_keeps_the_rest(db_path: Path) -> None:
    old = NOW - 100 * DAY
    s = _store(db_path, old)
    empty_old = s.create_workstream(title="never used")
    old_unnamed = _with_message(s, "ancient")
    old_named = _with_message(s, "ancient but named", alias="keeper")
    empty_named = s.create_workstream()
    s.update_workstream(empty_named, alias="empty-named")
    s.close()

    s = _store(db_path, NOW - 10 * DAY)
    recent_unnamed = _with_message(s, "recent")
    try:
        assert s.prune(90, now=NOW) == 3
        assert {w.id for w in s.list_workstreams()} == {old_named, recent_unnamed}
        for gone in (empty_old, old_unnamed, empty_named):
            assert s.get_workstream(gone) is None
        assert _count(db_path, "messages") == 2
    finally:
        s.close()


def test_retention_boundary_is_exclusive(store: Store) -> None:
    ws = _with_message(store)
    last = store.get_workstream(ws).updated_at
    assert store.prune(90, now=last + 90 * DAY) == 0
    assert store.prune(90, now=last + 90 * DAY + 1) == 1


def test_zero_retention_keeps_old_unnamed_workstreams(store: Store) -> None:
    ws = _with_message(store)
    assert store.prune(0, now=NOW) == 0
    assert store.get_workstream(ws) is not None


def test_empty_workstream_survives_a_grace_period(store: Store) -> None:
    ws = store.create_workstream()
    created = store.get_workstream(ws).updated_at
    assert store.prune(90, now=created + EMPTY_GRACE - 1) == 0
    assert store.prune(90, now=created + EMPTY_GRACE + 1) == 1
    assert store.get_workstream(ws) is None


def test_keep_protects_workstreams_in_the_saved_layout(store: Store) -> None:
    empty = store.create_workstream()
    stale = _with_message(store)
    assert store.prune(90, now=NOW, keep=[empty, stale]) == 0
    assert store.prune(90, now=NOW, keep=[empty]) == 1
    assert [w.id for w in store.list_workstreams()] == [empty]


def test_activity_counts_from_the_last_message(db_path: Path) -> None:
    s = _store(db_path, NOW - 200 * DAY)
    ws = s.create_workstream()
    s._clock = Clock(NOW - DAY)  # a message yesterday keeps a 200-day-old workstream
    s.add_message(ws, Message(role="user", content="still going"))
    try:
        assert s.prune(90, now=NOW) == 0
    finally:
        s.close()


def test_everything_belonging_to_a_pruned_workstream_goes(store: Store) -> None:
    ws = make_workstream(store, 40, title=None, start=NOW - 365 * DAY)
    store.add_prompt_history(ws, "old prompt")
    store.set_config(ws, "k", 1)
    store.clear_context(ws)  # the fixture's clock stands at 1970: all of it is old
    assert store.search("turn") != []
    assert store.prune(90, now=NOW) == 1
    for table in ("workstreams", "messages", "prompt_history", "workstream_config",
                  "context_resets"):
        assert _count(store, table) == 0, table
    assert store.search("turn") == []


def test_prune_without_now_uses_the_store_clock(store: Store) -> None:
    store.create_workstream()
    assert store.prune(90) == 0  # created a second ago by the store's clock
    store._clock = Clock(store._clock.now + EMPTY_GRACE + 5)
    assert store.prune(90) == 1
