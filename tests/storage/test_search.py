"""Full-text search: FTS5 when available, the LIKE fallback when forced or missing."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from app.vocabulary.messages import Message, ToolCall
from app.storage import fts
from app.storage.search import MARK_END, MARK_START, SearchHit, fts_query, parse_query
from app.storage.store import Store
from tests.storage.conftest import Clock
from tests.storage.factories import make_workstream

NASTY = ['"', '""', "'", "foo\"bar", "NEAR(a b)", "a AND", "OR", "NOT x", "*", "a*b", "^x",
         "col:term", "(", ")", "{a b}", "-", "->", "::", "%", "_", "\\", "a\x00b", "é",
         "' OR 1=1 --", '"unterminated phrase', "   ", "+", "x" * 500]

needs_fts5 = pytest.mark.skipif(not fts.fts5_available(), reason="SQLite without FTS5")


def _fill(store: Store) -> dict[str, str]:
    a = store.create_workstream(title="parser work")
    b = store.create_workstream(title="other")
    store.update_workstream(b, alias="ops")
    store.add_message(a, Message(role="user", content="Fix the tokenizer in the parser please"))
    store.add_message(a, Message(role="assistant", content="Reading the parser now.",
                                 reasoning="secretword in reasoning is not indexed",
                                 tool_calls=[ToolCall("c1", "read_file",
                                                      '{"path": "argsonlyword.py"}')]))
    store.add_message(a, Message(role="tool", content="def tokenize(): ...  # parser.py",
                                 tool_call_id="c1", name="read_file"))
    store.add_message(b, Message(role="user", content="Deploy the cache layer; the parser is fine"))
    store.add_message(b, Message(role="user", content="symbols: a -> b and 50%_off"))
    return {"a": a, "b": b}


@pytest.fixture(params=["fts", "like"])
def any_store(request: pytest.FixtureRequest, db_path: Path) -> Store:
    if request.param == "fts" and not fts.fts5_available():
        pytest.skip("SQLite without FTS5")
    s = Store(db_path, clock=Clock(), fts=request.param == "fts")
    yield s
    s.close()


def _db_rows(path: Path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


# -- both modes ---------------------------------------------------------------------------

def test_hits_carry_workstream_message_role_and_marked_snippet(any_store: Store) -> None:
    ids = _fill(any_store)
    hits = any_store.search("tokenizer")
    assert len(hits) == 1
    hit = hits[0]
    msgs = any_store.load_messages(ids["a"])
    assert hit.workstream_id == ids["a"] and hit.title == "parser work" and hit.alias is None
    assert hit.message_id == msgs[0].db_id and hit.role == "user"
    assert hit.name == "parser work"
    assert f"{MARK_START}tokenizer{MARK_END}" in hit.snippet
    assert ("tokenizer", True) in hit.spans()
    assert "".join(t for t, _ in hit.spans()) == "Fix the tokenizer in the parser please"
    [(created,)] = _db_rows(any_store.path,
                            f"SELECT created_at FROM messages WHERE id = {hit.message_id}")
    assert hit.created_at == created


def test_user_assistant_and_tool_results_are_searched_but_not_reasoning_or_args(
        any_store: Store) -> None:
    ids = _fill(any_store)
    hits = any_store.search("parser", limit=50)
    roles = sorted(h.role for h in hits)
    assert roles == ["assistant", "tool", "user", "user"]
    assert {h.workstream_id for h in hits} == set(ids.values())
    assert [h.name for h in hits if h.workstream_id == ids["b"]] == ["ops"]
    assert any_store.search("secretword") == []
    assert any_store.search("argsonlyword") == []


def test_all_terms_must_match(any_store: Store) -> None:
    ids = _fill(any_store)
    hits = any_store.search("parser cache")
    assert [(h.workstream_id, h.role) for h in hits] == [(ids["b"], "user")]
    assert any_store.search("parser nonexistentword") == []
    snippet = hits[0].snippet
    assert f"{MARK_START}cache{MARK_END}" in snippet and f"{MARK_START}parser{MARK_END}" in snippet


def test_quoted_phrase_matches_words_together(any_store: Store) -> None:
    _fill(any_store)
    assert len(any_store.search('"the parser please"')) == 1
    assert any_store.search('"parser the"') == []


def test_case_insensitive(any_store: Store) -> None:
    _fill(any_store)
    assert len(any_store.search("TOKENIZER")) == 1


def test_punctuation_terms_match_as_substrings(any_store: Store) -> None:
    _fill(any_store)
    assert [h.role for h in any_store.search("->")] == ["user"]
    assert len(any_store.search("50%_off")) == 1
    assert any_store.search("%") != []
    if not any_store.fts_enabled:
        assert any_store.search("5_%") == []  # LIKE wildcards are literal


@pytest.mark.parametrize("query", NASTY)
def test_syntax_characters_never_raise(any_store: Store, query: str) -> None:
    _fill(any_store)
    hits = any_store.search(query)
    assert isinstance(hits, list) and all(isinstance(h, SearchHit) for h in hits)


def test_empty_query_and_limits(any_store: Store) -> None:
    _fill(any_store)
    assert any_store.search("") == [] and any_store.search("   ") == []
    assert len(any_store.search("parser", limit=2)) == 2
    assert any_store.search("parser", limit=0) == []


def test_filter_by_workstream_and_recent_order(any_store: Store) -> None:
    ids = _fill(any_store)
    only_a = any_store.search("parser", workstream_id=ids["a"])
    assert {h.workstream_id for h in only_a} == {ids["a"]} and len(only_a) == 3
    recent = any_store.search("parser", order="recent")
    assert [h.message_id for h in recent] == sorted((h.message_id for h in recent), reverse=True)


def test_deleted_messages_are_not_found(any_store: Store) -> None:
    ids = _fill(any_store)
    any_store.delete_workstream(ids["a"])
    hits = any_store.search("parser")
    assert {h.workstream_id for h in hits} == {ids["b"]}
    assert any_store.search("tokenizer") == []


def test_long_content_gets_a_one_line_window(any_store: Store) -> None:
    ws = any_store.create_workstream()
    body = "filler words here\n" * 200 + "the needle is here\n" + "more filler\n" * 200
    any_store.add_message(ws, Message(role="tool", content=body, tool_call_id="x", name="bash"))
    [hit] = any_store.search("needle")
    assert "\n" not in hit.snippet and len(hit.snippet) < 200
    assert hit.snippet.startswith("…") and hit.snippet.endswith("…")
    assert ("needle", True) in hit.spans()


def test_bulk_history_is_searchable(any_store: Store) -> None:
    ws = make_workstream(any_store, 600, title="bulk")
    assert any_store.get_workstream(ws).message_count == 600
    hits = any_store.search("turn 17:", limit=5)
    assert hits and all(h.workstream_id == ws for h in hits)


# -- FTS5 specifics -----------------------------------------------------------------------

def test_parse_and_quote_query() -> None:
    assert [(t.text, t.phrase) for t in parse_query('foo "bar  baz" qu"x')] == \
        [("foo", False), ("bar baz", True), ("qux", False)]
    assert fts_query(parse_query('foo "bar baz"')) == '"foo"* AND "bar baz"'
    assert fts_query(parse_query('say"hi')) == '"sayhi"*'
    assert fts_query(parse_query("a ->")) is None  # no word: the LIKE path answers


@pytest.mark.sqlite_only
@needs_fts5
def test_fts_index_and_triggers_exist_and_prefix_matches(store: Store) -> None:
    assert store.fts_enabled
    names = {n for (n,) in _db_rows(store.path, "SELECT name FROM sqlite_master")}
    assert "messages_fts" in names and set(fts.TRIGGERS) <= names
    ws = store.create_workstream()
    store.add_message(ws, Message(role="user", content="the migration ran"))
    assert [h.role for h in store.search("migr")] == ["user"]
    indexed = "SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'migration'"
    assert _db_rows(store.path, indexed) == \
        _db_rows(store.path, "SELECT id FROM messages WHERE role = 'user'")


@needs_fts5
def test_forced_fallback_drops_triggers_and_reopen_rebuilds_index(db_path: Path) -> None:
    s = Store(db_path, clock=Clock())
    ws = s.create_workstream()
    s.add_message(ws, Message(role="user", content="alpha before"))
    s.add_message(ws, Message(role="user", content="gamma doomed"))
    s.close()

    s = Store(db_path, clock=Clock(), fts=False)
    assert not s.fts_enabled
    names = {n for (n,) in _db_rows(db_path, "SELECT name FROM sqlite_master WHERE type='trigger'")}
    assert not names & set(fts.TRIGGERS)
    s.add_message(ws, Message(role="user", content="beta while off"))
    s.rewind(ws, 2)  # deletes "gamma doomed" and "beta while off"
    s.add_message(ws, Message(role="user", content="delta while off"))
    assert [h.snippet for h in s.search("delta")] == [f"{MARK_START}delta{MARK_END} while off"]
    s.close()

    s = Store(db_path, clock=Clock())
    assert s.fts_enabled
    assert len(s.search("alpha")) == 1 and len(s.search("delta")) == 1
    assert s.search("gamma") == [] and s.search("beta") == []
    doomed = "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'doomed'"
    assert _db_rows(db_path, doomed) == [(0,)]
    s.close()


def test_missing_fts5_falls_back(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fts, "fts5_available", lambda: False)
    s = Store(db_path, clock=Clock())
    try:
        assert not s.fts_enabled
        ws = s.create_workstream()
        s.add_message(ws, Message(role="user", content="works without fts5"))
        assert [h.role for h in s.search("without")] == ["user"]
    finally:
        s.close()


@needs_fts5
def test_version_1_database_is_upgraded_and_backfilled(db_path: Path) -> None:
    s = Store(db_path, clock=Clock())
    ws = s.create_workstream(title="old")
    s.add_message(ws, Message(role="user", content="written by version one"))
    s.close()
    conn = sqlite3.connect(db_path)  # make it look like a version-1 file
    for name in fts.TRIGGERS:
        conn.execute(f"DROP TRIGGER {name}")
    for table in ("messages_fts", "prompt_history", "app_state", "context_resets", "usage",
                  "compactions"):
        conn.execute(f"DROP TABLE IF EXISTS {table}")
    conn.execute("DROP INDEX ix_messages_workstream_seq")
    conn.execute("UPDATE schema_version SET version = 1")
    conn.commit()
    conn.close()

    s = Store(db_path, clock=Clock())
    try:
        assert _db_rows(db_path, "SELECT version FROM schema_version")[0][0] >= 3
        assert [h.workstream_id for h in s.search("version one")] == [ws]
        s.add_prompt_history(ws, "hello")
        s.set_app_state("k", 1)
        s.clear_context(ws)
        assert s.load_conversation(ws).context_start == 1
        assert _db_rows(db_path, "SELECT name FROM sqlite_master WHERE name = "
                        "'ix_messages_workstream_seq'") == [("ix_messages_workstream_seq",)]
    finally:
        s.close()


def _index_bytes(path: Path) -> int:
    return _db_rows(path, "SELECT coalesce(sum(length(block)), 0) FROM messages_fts_data")[0][0]


@pytest.mark.sqlite_only
@needs_fts5
def test_the_index_takes_a_bounded_prefix_of_a_huge_message(store: Store) -> None:
    """A text of distinct words (a hex dump) cost the index memory many times its size while it was stored
    (a 10 MB one: +161 MB at the peak, and a 12 MB index). Only its first INDEXED_CHARS characters are
    indexed now."""
    ws = store.create_workstream()
    words = " ".join(f"w{n:07x}" for n in range(3 * fts.INDEXED_CHARS // 9))  # ~3x the cap, all distinct
    store.add_message(ws, Message(role="assistant", content="opening " + words + " closing"))
    assert len(store.search("opening")) == 1
    assert store.search("closing") == []  # past the cap: not searched (the documented limit)
    capped = _index_bytes(store.path)
    store.add_message(ws, Message(role="assistant", content="another " + words))
    assert _index_bytes(store.path) < 2.6 * capped  # the second message costs no more than the first
    assert capped < 2 * fts.INDEXED_CHARS  # uncapped, these 2.4 MB of text made a 2.9 MB index
    hit = store.search("another")[0]
    assert hit.snippet.startswith(f"{MARK_START}another{MARK_END} w0000000")
    store.delete_workstream(ws)  # the delete trigger takes out exactly what was indexed
    assert store.search("another") == [] and store.search("opening") == []
    check = "INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)"
    conn = sqlite3.connect(store.path)
    try:
        conn.execute(check)  # raises "database disk image is malformed" on an index out of step
    finally:
        conn.close()


@needs_fts5
def test_an_index_made_by_an_older_version_is_made_anew(db_path: Path) -> None:
    s = Store(db_path, clock=Clock())
    ws = s.create_workstream()
    s.add_message(ws, Message(role="user", content="kept from before"))
    s.close()
    conn = sqlite3.connect(db_path)  # the index as versions before the cap made it: over `messages` itself
    for name in fts.TRIGGERS:
        conn.execute(f"DROP TRIGGER {name}")
    conn.execute("DROP TABLE messages_fts")
    conn.execute("DROP VIEW messages_fts_source")
    conn.execute("CREATE VIRTUAL TABLE messages_fts USING fts5(content, content='messages', "
                 "content_rowid='id', tokenize='unicode61', prefix='2 3')")
    conn.execute("INSERT INTO messages_fts(rowid, content) SELECT id, content FROM messages WHERE role = 'user'")
    for sql in fts.TRIGGERS.values():
        conn.execute(sql.replace(f"substr(new.content, 1, {fts.INDEXED_CHARS})", "new.content")
                     .replace(f"substr(old.content, 1, {fts.INDEXED_CHARS})", "old.content"))
    conn.commit()
    conn.close()
    s = Store(db_path, clock=Clock())
    try:
        assert s.fts_enabled and len(s.search("kept")) == 1
        table = _db_rows(db_path, "SELECT sql FROM sqlite_master WHERE name = 'messages_fts'")[0][0]
        assert "messages_fts_source" in table
        s.add_message(ws, Message(role="user", content="added after"))
        assert len(s.search("added")) == 1
    finally:
        s.close()
