"""`recall` with syntax=true: FTS5's query syntax finds the same messages on SQLite and on PostgreSQL.

SQLite hands the query to FTS5; PostgreSQL reads it with app/storage/fts_syntax.py into a `tsquery`.
Each syntax form is checked on both stores against the messages it must find; generated queries are
run on both stores and must find the same messages (or both be refused); the reader accepts and
refuses exactly what FTS5 does. `^`, and a NEAR group with more placements than a `tsquery` lists,
are refused on PostgreSQL in words (a labelled gap, tested as such).
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from app.memory.recall import recall
from app.memory.records import RecallError
from app.storage import fts, fts_syntax
from app.storage.engine import reader
from app.storage.store import Store
from app.vocabulary.messages import Message

pytestmark = pytest.mark.skipif(not fts.fts5_available(), reason="SQLite without FTS5: syntax=true is refused")

TEXTS = ("the linter wants tabs in the Makefile",
         "spaces are fine, the linter said",
         "migration of the parser to tabs",
         "one two three four five six seven eight nine ten eleven twelve thirteen",
         "deploy_script failed: cache miss",
         "or else we ship tomorrow")


def _store(target: Path | str) -> Store:
    store = Store(target)
    ws = store.create_workstream(title="syntax")
    for text in TEXTS:
        store.add_message(ws, Message(role="user", content=text))
    return store


def _found(store: Store, query: str) -> set[str]:
    with reader(store.engine).connect() as conn:
        hits = recall(conn, query, use_fts=True, syntax=True, limit=100)
    return {TEXTS[hit.message_id - 1] for hit in hits}


FORMS = {  # query: the indexes in TEXTS it finds
    "linter": {0, 1},
    "LINTER": {0, 1},
    '"the linter"': {0, 1},
    '"linter wants"': {0},
    "migr*": {2},
    '"the pars"*': {2},
    "linter tabs": {0},
    "linter AND tabs": {0},
    "linter OR parser": {0, 1, 2},
    "linter NOT tabs": {1},
    "tabs NOT (linter OR parser)": set(),
    "linter OR parser tabs": {0, 1, 2},
    "the + linter + wants": {0},
    "NEAR(one five)": {3},
    "NEAR(one five, 3)": {3},
    "NEAR(one five, 2)": set(),
    "NEAR(five one, 3)": {3},
    'NEAR("one two" five, 2)': {3},
    'NEAR("one two three" two, 0)': {3},  # a phrase inside the other counts as near
    'NEAR("two three" "one two", 0)': {3},  # overlapping by a word
    'NEAR("two three" "one tw"*, 0)': {3},
    'NEAR("two three" "one four", 0)': set(),
    "NEAR(one three five, 3)": {3},
    "NEAR(five three one, 3)": {3},
    "NEAR(one three five, 2)": set(),
    'migr* + ""': set(),  # the empty string after `+` takes the prefix away, as FTS5 reads it
    '"" + migr*': {2},
    "content: tabs": {0, 2},
    "{content}: tabs": {0, 2},
    "-content: tabs": set(),
    "deploy_script": {4},
    "or": {5},
    'tabs "..."': {0, 2},
    'tabs AND "..."': set(),
    'tabs OR "..."': {0, 2},
}


REFUSED = ['"unbalanced', "tabs AND", "(tabs", "NEAR(", "*", "-tabs", "NOT tabs", "near(a b)", "tabs:",
           "NEAR(a b, x)", "a.b", "OR", "(linter OR parser) tabs"]


def _outcome(store: Store, query: str) -> object:
    """The messages `query` finds, or how it was refused ('refused': FTS5's syntax; 'unsupported': no tsquery)."""
    try:
        return _found(store, query)
    except RecallError as error:
        return "unsupported" if "PostgreSQL" in str(error) else "refused" if "not valid" in str(error) else str(error)


# One store per database for all the forms (each PostgreSQL store is a database of its own).
def test_each_syntax_form_finds_the_same_messages_on_both_stores(store_target: Path | str) -> None:
    store = _store(store_target)
    try:
        assert {query: _outcome(store, query) for query in FORMS} == \
            {query: {TEXTS[i] for i in found} for query, found in FORMS.items()}
    finally:
        store.close()


def test_queries_fts5_refuses_are_refused_on_both_stores(store_target: Path | str) -> None:
    store = _store(store_target)
    try:
        assert {query: _outcome(store, query) for query in REFUSED} == dict.fromkeys(REFUSED, "refused")
    finally:
        store.close()


def test_what_a_tsquery_cannot_say_is_refused_on_postgresql_in_words(store_target: Path | str) -> None:
    store = _store(store_target)
    try:
        for query, found in (("^spaces", {1}), ("NEAR(one two three four)", {3})):
            if store.engine.dialect == "postgresql":
                with pytest.raises(RecallError, match="not available on a PostgreSQL store"):
                    _found(store, query)
            else:
                assert _found(store, query) == {TEXTS[i] for i in found}
    finally:
        store.close()


_PIECES = ["linter", "tabs", "the", "parser", "one", "five", "or", "AND", "OR", "NOT", "NEAR(", "(", ")", '"',
           '"the linter"', "*", "+", ":", "content:", "-content:", ",", ", 2", "-", "migr", '""', "{content}:",
           "deploy_script", "x.y"]


def _generated(seed: int, count: int) -> list[str]:
    rnd = random.Random(seed)
    return [" ".join(rnd.choice(_PIECES) for _ in range(rnd.randint(1, 6))) for _ in range(count)]


_WORDS = ["linter", "tabs", "the", "parser", "one", "five", "two", "or", "migr*", "th*", '"the linter"',
          '"linter wants"', "deploy_script", '""', "said"]


def _phrase(rnd: random.Random) -> str:
    return " + ".join(rnd.choice(_WORDS) for _ in range(rnd.choice((1, 1, 1, 2))))


def _expression(rnd: random.Random, depth: int = 0) -> str:
    """A query made by FTS5's grammar: phrases, NEAR groups, column filters, operators, groups."""
    kind = rnd.choice(("phrase", "phrase", "near", "filter", "row", "op", "op", "group"))
    if depth > 2 or kind == "phrase":
        return _phrase(rnd)
    if kind == "near":
        distance = rnd.choice(("", ", 0", ", 1", ", 3", ", 12"))
        phrases = " ".join(_phrase(rnd) for _ in range(rnd.choice((2, 2, 3))))
        return f"NEAR({phrases}{distance})"
    if kind == "filter":
        return rnd.choice(("content: ", "-content: ", "{content}: ")) + _phrase(rnd)
    if kind == "row":
        return f"{_phrase(rnd)} {_phrase(rnd)}"
    if kind == "group":
        return f"({_expression(rnd, depth + 1)})"
    return f"{_expression(rnd, depth + 1)} {rnd.choice(('AND', 'OR', 'NOT'))} {_expression(rnd, depth + 1)}"


def _grammatical(seed: int, count: int) -> list[str]:
    rnd = random.Random(seed)
    return [_expression(rnd) for _ in range(count)]


def test_generated_queries_find_the_same_on_both_stores(tmp_path: Path, pg_server) -> None:
    sqlite_store, pg_store = _store(tmp_path / "whimbrel.db"), _store(pg_server.database())
    try:
        outcomes = []
        for query in _grammatical(seed=36, count=300) + _generated(seed=36, count=100):
            on_pg = _outcome(pg_store, query)
            if on_pg != "unsupported":
                assert (query, _outcome(sqlite_store, query)) == (query, on_pg)
                outcomes.append(on_pg)
        assert len(outcomes) > 350 and sum(bool(o) and o != "refused" for o in outcomes) > 100
    finally:
        sqlite_store.close()
        pg_store.close()


def test_the_reader_accepts_and_refuses_what_fts5_does() -> None:
    probe = sqlite3.connect(":memory:")
    probe.execute("CREATE VIRTUAL TABLE t USING fts5(content)")
    try:
        for query in _generated(seed=7, count=3000) + _grammatical(seed=7, count=1000):
            try:
                probe.execute("SELECT rowid FROM t WHERE t MATCH ?", (query,)).fetchall()
                fts5 = None
            except sqlite3.OperationalError as error:
                fts5 = str(error)
            try:
                fts_syntax.tsquery(query)
                ours = None
            except fts_syntax.Unsupported:
                continue
            except fts_syntax.QueryError as error:
                ours = str(error)
            assert (query, ours is None) == (query, fts5 is None)
    finally:
        probe.close()
