"""Recall over stored conversations: FTS5 and the LIKE fallback, metadata, and errors in words."""

from __future__ import annotations

import pytest

from app.memory.recall import recall
from app.memory.records import RecallError
from app.storage.engine import reader
from app.storage.store import Store
from app.vocabulary.messages import Message, ToolCall


def _fill(store: Store) -> tuple[str, str]:
    week_ago = store.create_workstream(title="indentation talk")
    store.update_workstream(week_ago, alias="style")
    today = store.create_workstream(title="today")
    store.add_message(week_ago, Message(role="user", content="Should we use tabs or spaces? The linter says W191."))
    store.add_message(week_ago, Message(role="assistant", content="We agreed on tabs: the Makefile needs them.",
                                        tool_calls=[ToolCall(id="c1", name="search", arguments="{}")]))
    store.add_message(week_ago, Message(role="tool", content="Makefile:3:\tcc -o app main.c", tool_call_id="c1",
                                        name="search"))
    store.add_message(today, Message(role="user", content="coverage is 100% and a_b is a name"))
    store.add_message(today, Message(role="user", content="coverage is 1000 and axb is a name"))
    return week_ago, today


@pytest.fixture(params=[True, False], ids=["fts5", "like"])
def conn(request, store_target):
    store = Store(store_target, fts=None if request.param else False)
    assert store.fts_enabled is request.param or not request.param
    ids = _fill(store)
    with reader(store.engine).connect() as connection:
        yield connection, store.fts_enabled, ids
    store.close()


def test_hits_carry_time_workstream_role_and_tool(conn):
    connection, fts, (week_ago, _today) = conn
    [hit] = recall(connection, '"agreed on tabs"', use_fts=fts)
    assert (hit.workstream, hit.role, hit.tool_name, hit.workstream_id) == ("style", "assistant", None, week_ago)
    assert hit.created_at > 0 and "«" in hit.line("2026-11-25 10:00")
    [tool_hit] = recall(connection, "Makefile cc", use_fts=fts)
    assert tool_hit.role == "tool" and tool_hit.tool_name == "search"
    assert "tool search" in tool_hit.line("t")


def test_filters_by_role_and_workstream(conn):
    connection, fts, (week_ago, today) = conn
    assert {h.role for h in recall(connection, "tabs", use_fts=fts)} == {"user", "assistant"}
    assert [h.role for h in recall(connection, "tabs", use_fts=fts, role="user")] == ["user"]
    assert recall(connection, "tabs", use_fts=fts, workstream_id=today) == []
    with pytest.raises(RecallError, match="role"):
        recall(connection, "tabs", use_fts=fts, role="robot")


@pytest.mark.parametrize("query, count", [("100%", 1), ("a_b", 1), ("%", 1), ("_", 1), ("W191", 1),
                                          ("NOT", 0), ('"unbalanced', 0), ("(", 0), ("tabs*", 0), ("tabs", 2)])
def test_metacharacters_are_literal_without_syntax(conn, query, count):
    connection, fts, _ids = conn
    assert len(recall(connection, query, use_fts=fts)) == count


def test_empty_query_is_explained(conn):
    connection, fts, _ids = conn
    for query in ("", "   ", '""'):
        with pytest.raises(RecallError):
            recall(connection, query, use_fts=fts)


def test_fts_syntax_and_its_errors(tmp_path):
    store = Store(tmp_path / "whimbrel.db")
    if not store.fts_enabled:
        pytest.skip("this SQLite has no FTS5")
    _fill(store)
    with reader(store.engine).connect() as connection:
        assert len(recall(connection, "linter OR Makefile", use_fts=True, syntax=True)) == 3
        assert len(recall(connection, "tabs NOT linter", use_fts=True, syntax=True)) == 1
        for bad in ('"unbalanced', "tabs AND", "(tabs", "NEAR(", "*"):
            with pytest.raises(RecallError, match="not valid"):
                recall(connection, bad, use_fts=True, syntax=True)
    store.close()


def test_syntax_without_fts5_says_why(tmp_path):
    store = Store(tmp_path / "whimbrel.db", fts=False)
    with reader(store.engine).connect() as connection, pytest.raises(RecallError, match="no FTS5"):
        recall(connection, "a OR b", use_fts=False, syntax=True)
    store.close()
