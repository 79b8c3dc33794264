"""/clear (context resets that keep history) and /rewind N (delete the last N user turns)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from app.vocabulary.messages import Message, ToolCall, messages_for_model
from app.storage.store import Store


def _rows(path: Path | Store, sql: str, *args: object) -> list[tuple]:
    if isinstance(path, Store):
        with path.engine.connect() as db:
            return [tuple(row) for row in db.execute(sql, args)]
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def _turn(store: Store, ws: str, n: int, *, tool: bool = False) -> None:
    """One user turn: prompt, reply (optionally via a tool call and its result)."""
    store.add_message(ws, Message(role="user", content=f"q{n}"))
    if tool:
        store.add_message(ws, Message(role="assistant", content="",
                                      tool_calls=[ToolCall(f"c{n}", "bash", '{"command":"ls"}')]))
        store.add_message(ws, Message(role="tool", content=f"out{n}", tool_call_id=f"c{n}",
                                      name="bash"))
    store.add_message(ws, Message(role="assistant", content=f"a{n}"))


def _texts(msgs: list[Message]) -> list[str]:
    return [m.content or f"<{m.role}>" for m in msgs]


# -- /clear -------------------------------------------------------------------------------

def test_clear_keeps_history_and_moves_the_context_start(store: Store) -> None:
    ws = store.create_workstream()
    _turn(store, ws, 1, tool=True)
    store.clear_context(ws)
    _turn(store, ws, 2)
    conv = store.load_conversation(ws)
    assert _texts(conv.messages) == ["q1", "<assistant>", "out1", "a1", "q2", "a2"]
    assert conv.clears == [4] and conv.context_start == 4
    assert _texts(messages_for_model(conv.messages, conv.context_start)) == ["q2", "a2"]
    assert _texts(store.load_messages(ws)) == _texts(conv.messages)  # display sees everything
    # the reset is stored after the last row (seq 5: the tool_call row is seq 3)
    assert _rows(store, "SELECT seq FROM context_resets WHERE workstream_id = ?", ws) == [(5,)]


def test_clear_at_the_end_and_repeated_clears(store: Store) -> None:
    ws = store.create_workstream()
    assert store.load_conversation(ws).context_start == 0
    _turn(store, ws, 1)
    store.clear_context(ws)
    store.clear_context(ws)  # nothing new since the last one: a no-op
    conv = store.load_conversation(ws)
    assert conv.clears == [2] and conv.context_start == len(conv.messages)
    assert messages_for_model(conv.messages, conv.context_start) == []
    _turn(store, ws, 2)
    store.clear_context(ws)
    _turn(store, ws, 3)
    conv = store.load_conversation(ws)
    assert conv.clears == [2, 4]
    assert _texts(conv.messages[conv.context_start:]) == ["q3", "a3"]


def test_clear_on_unknown_workstream_raises(store: Store) -> None:
    with pytest.raises(LookupError):
        store.clear_context("missing")


def test_messages_for_model_repairs_the_context_part() -> None:
    msgs = [Message(role="user", content="old"),
            Message(role="user", content="new"),
            Message(role="assistant", content="", tool_calls=[ToolCall("x", "bash", "{}")])]
    assert _texts(messages_for_model(msgs, 1)) == ["new"]  # the unanswered call is dropped
    assert _texts(messages_for_model(msgs)) == ["old", "new"]


# -- /rewind ------------------------------------------------------------------------------

def test_rewind_one_turn_deletes_it_and_everything_after(store: Store) -> None:
    ws = store.create_workstream()
    _turn(store, ws, 1)
    _turn(store, ws, 2, tool=True)
    assert store.rewind(ws, 1) == 1
    assert _texts(store.load_messages(ws)) == ["q1", "a1"]
    assert _rows(store, "SELECT role, content FROM messages WHERE workstream_id = ? "
                 "ORDER BY seq", ws) == [("user", "q1"), ("assistant", "a1")]
    assert store.search("out2") == [] and store.search("q2") == []


def test_rewind_several_and_more_than_there_are(store: Store) -> None:
    ws = store.create_workstream()
    for n in range(1, 5):
        _turn(store, ws, n, tool=n % 2 == 0)
    assert store.rewind(ws, 2) == 2
    assert _texts(store.load_messages(ws)) == ["q1", "a1", "q2", "<assistant>", "out2", "a2"]
    assert store.rewind(ws, 10) == 2
    assert store.load_messages(ws) == []
    assert store.rewind(ws, 1) == 0
    assert store.get_workstream(ws) is not None  # the workstream itself stays


def test_rewind_zero_and_negative(store: Store) -> None:
    ws = store.create_workstream()
    _turn(store, ws, 1)
    assert store.rewind(ws, 0) == 0
    with pytest.raises(ValueError):
        store.rewind(ws, -1)
    assert len(store.load_messages(ws)) == 2


def test_rewind_bumps_last_activity(store: Store) -> None:
    ws = store.create_workstream()
    _turn(store, ws, 1)
    before = store.get_workstream(ws).updated_at
    store.rewind(ws, 1)
    assert store.get_workstream(ws).updated_at > before


def test_rewind_after_clear_keeps_the_clear(store: Store) -> None:
    ws = store.create_workstream()
    _turn(store, ws, 1)
    store.clear_context(ws)
    _turn(store, ws, 2)
    store.rewind(ws, 1)
    _turn(store, ws, 3)  # new rows reuse seq numbers after the reset: still after it
    conv = store.load_conversation(ws)
    assert _texts(conv.messages) == ["q1", "a1", "q3", "a3"]
    assert _texts(conv.messages[conv.context_start:]) == ["q3", "a3"]


def test_rewind_past_a_clear_undoes_it(store: Store) -> None:
    ws = store.create_workstream()
    _turn(store, ws, 1)
    store.clear_context(ws)
    _turn(store, ws, 2)
    store.clear_context(ws)
    _turn(store, ws, 3)
    assert store.rewind(ws, 2) == 2  # removes turns 2 and 3 and the clear between them
    conv = store.load_conversation(ws)
    assert _texts(conv.messages) == ["q1", "a1"] and conv.clears == [2]
    assert _rows(store, "SELECT seq FROM context_resets") == [(2,)]
    _turn(store, ws, 4)
    conv = store.load_conversation(ws)
    assert _texts(conv.messages[conv.context_start:]) == ["q4", "a4"]


def test_rewind_only_touches_its_workstream(store: Store) -> None:
    a, b = store.create_workstream(), store.create_workstream()
    _turn(store, a, 1)
    _turn(store, b, 1)
    store.rewind(a, 1)
    assert store.load_messages(a) == [] and _texts(store.load_messages(b)) == ["q1", "a1"]
