"""Store: conversations round-trip, workstreams are found, listed, updated; WAL is on."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from app.vocabulary.messages import Message, ToolCall, repair_interrupted
from app.storage.store import Store


def _conversation() -> list[Message]:
    return [
        Message(role="system", content="You are helpful."),
        Message(role="user", content="List the files, then read README."),
        Message(role="assistant", content="Let me look.", reasoning="need ls",
                raw={"finish_reason": "tool_calls"},
                tool_calls=[ToolCall("call_1", "bash", '{"command": "ls"}'),
                            ToolCall("call_2", "read_file", '{"path": "README.md"}')]),
        Message(role="tool", content="README.md\napp", tool_call_id="call_1", name="bash"),
        Message(role="tool", content="no such file", tool_call_id="call_2",
                name="read_file", is_error=True),
        Message(role="assistant", content="Done."),
    ]


def _raw_rows(db_path: Path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(db_path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_conversation_round_trip_with_tool_calls(store: Store, db_path: Path) -> None:
    ws = store.create_workstream(title="demo", model="local")
    sent = _conversation()
    for msg in sent:
        assert store.add_message(ws, msg) == msg.db_id

    rows = _raw_rows(db_path, "SELECT seq, role, tool_call_id, tool_name, tool_args, is_error "
                              "FROM messages ORDER BY seq")
    assert [r[1] for r in rows] == ["system", "user", "assistant", "tool_call", "tool_call",
                                    "tool_result", "tool_result", "assistant"]
    assert [r[0] for r in rows] == list(range(1, 9))
    assert rows[3][2:5] == ("call_1", "bash", '{"command": "ls"}')
    assert rows[6][2:4] == ("call_2", "read_file") and rows[6][5] == 1

    store.close()
    loaded = Store(db_path).load_messages(ws)
    assert loaded == sent  # dataclass equality covers every field, db_id included


def test_add_message_bumps_activity_and_counts(store: Store) -> None:
    ws = store.create_workstream()
    before = store.get_workstream(ws)
    store.add_message(ws, _conversation()[2])  # one assistant turn with two calls
    after = store.get_workstream(ws)
    assert after.updated_at > before.updated_at
    assert after.message_count == 1


def test_add_message_to_unknown_workstream_is_clear(store: Store) -> None:
    with pytest.raises(LookupError, match="no workstream with id 'nope'"):
        store.add_message("nope", Message(role="user", content="hi"))


def test_seq_is_per_workstream(store: Store, db_path: Path) -> None:
    a, b = store.create_workstream(), store.create_workstream()
    for ws in (a, b, a):
        store.add_message(ws, Message(role="user", content=ws))
    rows = _raw_rows(db_path, "SELECT workstream_id, seq FROM messages ORDER BY id")
    assert rows == [(a, 1), (b, 1), (a, 2)]


@pytest.mark.sqlite_only
def test_wal_mode_is_on(store: Store, db_path: Path) -> None:
    store.create_workstream()
    assert _raw_rows(db_path, "PRAGMA journal_mode") == [("wal",)]


def test_parent_directory_is_created(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "w.db"
    Store(path).close()
    assert path.exists()


def test_list_newest_first_with_counts(store: Store) -> None:
    old, mid, new = (store.create_workstream(title=t) for t in ("old", "mid", "new"))
    store.add_message(old, Message(role="user", content="revived"))  # now the most recent
    listed = store.list_workstreams()
    assert [w.title for w in listed] == ["old", "new", "mid"]
    assert [w.message_count for w in listed] == [1, 0, 0]


def test_find_by_id_prefix_and_alias(store: Store) -> None:
    ws = store.create_workstream(title="t")
    store.update_workstream(ws, alias="bugfix")
    assert store.find_workstream(ws).id == ws
    assert store.find_workstream(ws[:6]).id == ws
    assert store.find_workstream("bugfix").id == ws
    with pytest.raises(LookupError, match="no workstream matches 'zzz'"):
        store.find_workstream("zzz")


def test_find_ambiguous_prefix(store: Store) -> None:
    ids = [store.create_workstream() for _ in range(40)]  # 40 hex ids: first digits collide
    first = {}
    for i in ids:
        first.setdefault(i[0], []).append(i)
    prefix = next(k for k, v in first.items() if len(v) > 1)
    with pytest.raises(LookupError, match=f"'{prefix}' is ambiguous"):
        store.find_workstream(prefix)


def test_update_workstream_fields(store: Store) -> None:
    ws = store.create_workstream(title="a")
    store.update_workstream(ws, title="b", model="m", state="running")
    info = store.get_workstream(ws)
    assert (info.title, info.model, info.state) == ("b", "m", "running")
    with pytest.raises(ValueError, match="cannot update workstream field"):
        store.update_workstream(ws, workdir="/x")
    with pytest.raises(LookupError):
        store.update_workstream("missing", title="x")


def test_alias_must_be_unique(store: Store) -> None:
    a, b = store.create_workstream(), store.create_workstream()
    store.update_workstream(a, alias="x")
    with pytest.raises(ValueError, match="alias 'x' is already used"):
        store.update_workstream(b, alias="x")


def test_workstream_config_json_values(store: Store) -> None:
    ws = store.create_workstream()
    store.set_config(ws, "mode", "plan")
    store.set_config(ws, "limits", {"turns": 3})
    store.set_config(ws, "mode", "auto")
    assert store.get_config(ws) == {"mode": "auto", "limits": {"turns": 3}}


def test_delete_workstream_removes_its_rows(store: Store, db_path: Path) -> None:
    ws = store.create_workstream()
    store.add_message(ws, Message(role="user", content="x"))
    store.set_config(ws, "k", 1)
    store.delete_workstream(ws)
    assert store.get_workstream(ws) is None
    assert _raw_rows(db_path, "SELECT count(*) FROM messages") == [(0,)]


def test_repair_interrupted_drops_unanswered_call(store: Store, db_path: Path) -> None:
    ws = store.create_workstream()
    convo = _conversation()[:4]  # assistant asked for call_1 and call_2; only call_1 answered
    for msg in convo:
        store.add_message(ws, msg)
    store.close()

    loaded = Store(db_path).load_messages(ws)
    assert [tc.id for tc in loaded[2].tool_calls] == ["call_1", "call_2"]
    repaired = repair_interrupted(loaded)
    assert [m.role for m in repaired] == ["system", "user", "assistant"]
    assert repaired[2].tool_calls == [] and repaired[2].interrupted
    assert repaired[2].content == "Let me look."


@pytest.mark.sqlite_only
def test_a_huge_draft_is_written_and_the_store_goes_on_working(store) -> None:
    """A write of LARGE_TEXT or more closes its connection afterwards (the sqlite3 module would keep
    the huge bindings with its cached statements); the next writes and reads open a fresh one."""
    from app.storage.store import LARGE_TEXT

    ws = store.create_workstream()
    draft = store.add_message(ws, Message(role="assistant", content="a", interrupted=True))
    huge = "word " * (LARGE_TEXT // 5 + 1)
    store.append_draft(ws, draft, huge, "")
    store.complete_draft(ws, draft, Message(role="assistant", content=huge + "end"))
    store.add_message(ws, Message(role="user", content="after"))
    reply, after = store.load_messages(ws)
    assert (len(reply.content), reply.content[-3:], reply.interrupted) == (len(huge) + 3, "end", False)
    assert after.content == "after"
    with store.engine.connect() as conn:  # a fresh connection has the pragmas too
        assert conn.execute("PRAGMA journal_mode").scalar() == "wal"
        assert conn.execute("PRAGMA foreign_keys").scalar() == 1


@pytest.mark.sqlite_only
def test_engine_is_exposed_for_maintenance(store: Store) -> None:
    with store.engine.connect() as conn:
        assert conn.execute("PRAGMA foreign_keys").scalar() == 1


def test_a_draft_row_is_updated_then_completed_in_place_with_its_tool_calls(store) -> None:
    ws = store.create_workstream()
    store.add_message(ws, Message(role="user", content="go"))
    draft = store.add_message(ws, Message(role="assistant", content="Let me", interrupted=True))
    store.append_draft(ws, draft, " look", "thinking")
    (_, shown) = store.load_messages(ws)
    assert (shown.content, shown.reasoning, shown.interrupted) == ("Let me look", "thinking", True)
    final = Message(role="assistant", content="Let me look.", tool_calls=[ToolCall("c1", "bash", "{}")])
    assert store.complete_draft(ws, draft, final) == draft == final.db_id
    store.add_message(ws, Message(role="tool", content="ok", tool_call_id="c1", name="bash"))
    user, reply, result = store.load_messages(ws)
    assert (reply.db_id, reply.content, reply.interrupted) == (draft, "Let me look.", False)
    assert [(c.id, c.name) for c in reply.tool_calls] == [("c1", "bash")]
    assert result.tool_call_id == "c1"
