"""Prompt history per workstream, app state key/value, and the AsyncStore wrappers."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from app.vocabulary.messages import Message
from app.storage import history
from app.storage.async_store import AsyncStore
from app.storage.store import Store
from tests.pg_fixtures import stored_rows
from tests.storage.conftest import Clock


def _rows(path: Path | Store, sql: str) -> list[tuple]:
    if isinstance(path, Store):
        return stored_rows(path, sql)
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


# -- prompt history -----------------------------------------------------------------------

def test_prompt_history_oldest_first_with_consecutive_duplicates_collapsed(store: Store) -> None:
    ws = store.create_workstream()
    for text in ["ls", "ls", "git status", "ls", "ls", "multi\nline"]:
        store.add_prompt_history(ws, text)
    assert store.prompt_history(ws) == ["ls", "git status", "ls", "multi\nline"]
    assert _rows(store, "SELECT text FROM prompt_history ORDER BY id") == \
        [("ls",), ("git status",), ("ls",), ("multi\nline",)]


def test_blank_prompts_are_not_remembered(store: Store) -> None:
    ws = store.create_workstream()
    store.add_prompt_history(ws, "")
    store.add_prompt_history(ws, "  \n ")
    assert store.prompt_history(ws) == []


def test_prompt_history_is_per_workstream_and_limited_to_newest(store: Store) -> None:
    a, b = store.create_workstream(), store.create_workstream()
    for i in range(10):
        store.add_prompt_history(a, f"a{i}")
    store.add_prompt_history(b, "b0")
    assert store.prompt_history(a, limit=3) == ["a7", "a8", "a9"]
    assert store.prompt_history(b) == ["b0"]
    assert store.prompt_history("nope") == []


def test_prompt_history_is_trimmed_to_the_newest_entries(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(history, "PROMPT_HISTORY_KEEP", 5)
    ws = store.create_workstream()
    for i in range(12):
        store.add_prompt_history(ws, f"p{i}")
    assert store.prompt_history(ws) == [f"p{i}" for i in range(7, 12)]
    assert _rows(store, "SELECT count(*) FROM prompt_history") == [(5,)]


def test_prompt_history_for_unknown_workstream_raises(store: Store) -> None:
    with pytest.raises(LookupError, match="no workstream"):
        store.add_prompt_history("missing", "hello")


def test_prompt_history_persists_and_goes_with_its_workstream(db_path: Path) -> None:
    s = Store(db_path, clock=Clock())
    ws = s.create_workstream()
    s.add_prompt_history(ws, "first")
    s.close()
    s = Store(db_path, clock=Clock())
    try:
        assert s.prompt_history(ws) == ["first"]
        s.delete_workstream(ws)
        assert _rows(db_path, "SELECT count(*) FROM prompt_history") == [(0,)]
    finally:
        s.close()


# -- app state ----------------------------------------------------------------------------

LAYOUT = {"split": "horizontal", "ratio": 0.5,
          "children": [{"pane": "ws-a"}, {"split": "vertical", "children": [{"pane": "ws-b"},
                                                                            {"pane": None}]}]}


def test_app_state_round_trips_json_and_persists(db_path: Path) -> None:
    s = Store(db_path, clock=Clock())
    s.set_app_state("layout", LAYOUT)
    s.set_app_state("tabs", ["ws-a", "ws-b"])
    s.set_app_state("focused", 1)
    s.close()
    s = Store(db_path, clock=Clock())
    try:
        assert s.get_app_state("layout") == LAYOUT
        assert s.get_app_state("tabs") == ["ws-a", "ws-b"]
        assert s.get_app_state("focused") == 1
        assert s.get_app_state("missing") is None
        stored = dict(_rows(db_path, "SELECT key, value FROM app_state"))
        assert stored["tabs"] == '["ws-a", "ws-b"]'
    finally:
        s.close()


def test_app_state_overwrites_and_none_deletes(store: Store) -> None:
    store.set_app_state("tabs", ["a"])
    store.set_app_state("tabs", ["b", "c"])
    assert store.get_app_state("tabs") == ["b", "c"]
    assert _rows(store, "SELECT count(*) FROM app_state") == [(1,)]
    store.set_app_state("tabs", None)
    assert store.get_app_state("tabs") is None
    assert _rows(store, "SELECT count(*) FROM app_state") == [(0,)]
    store.set_app_state("falsy", False)
    assert store.get_app_state("falsy") is False


def test_app_state_rejects_values_json_cannot_hold(store: Store) -> None:
    with pytest.raises(TypeError):
        store.set_app_state("bad", {1, 2})
    assert store.get_app_state("bad") is None


# -- AsyncStore wrappers ------------------------------------------------------------------

async def test_async_wrappers_for_history_methods(tmp_path: Path) -> None:
    astore = await AsyncStore.open(tmp_path / "w.db")
    try:
        ws = await astore.create_workstream(title="async")
        await astore.add_message(ws, Message(role="user", content="find the walrus"))
        await astore.add_message(ws, Message(role="assistant", content="walrus found"))
        assert [h.role for h in await astore.search("walrus", order="recent")] == \
            ["assistant", "user"]
        assert len(await astore.search("walrus", 1, workstream_id=ws)) == 1

        await astore.add_prompt_history(ws, "find the walrus")
        assert await astore.prompt_history(ws, 10) == ["find the walrus"]

        await astore.set_app_state("tabs", [ws])
        assert await astore.get_app_state("tabs") == [ws]

        await astore.clear_context(ws)
        await astore.add_message(ws, Message(role="user", content="after clear"))
        conv = await astore.load_conversation(ws)
        assert conv.context_start == 2 and len(conv.messages) == 3
        assert await astore.rewind(ws, 1) == 1
        assert len((await astore.load_conversation(ws)).messages) == 2

        empty = await astore.create_workstream()
        later = time.time() + 3600
        assert await astore.prune(90, later, keep=[empty]) == 0
        assert await astore.prune(90, later) == 1
        assert await astore.get_workstream(empty) is None
    finally:
        await astore.aclose()
