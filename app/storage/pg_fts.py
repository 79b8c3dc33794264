"""Full-text search on PostgreSQL: a GIN index over each message's words, matching as FTS5 does on SQLite.

SQLite indexes messages with FTS5's unicode61 tokenizer (app/storage/fts.py): a word is a run of
letters and digits, everything else separates words, case is ignored. PostgreSQL's own parser
knows more kinds of token (a path `app/x.py`, an e-mail, a URL is one token), so the indexed text
is first reduced to words separated by spaces (`regexp_replace` of every run of other characters),
then made a `tsvector` with the `simple` configuration (lower case, no stemming, no stop words):
the same words FTS5 sees. Each indexed message's words are stored in `message_words` (a GIN index
over them), kept in step by a trigger on `messages` (deletes by the foreign key's cascade), so
ranking reads the stored words instead of making them again for every match (that took 400 ms for
10,000 matches). Like FTS5's table, it is set up when a store opens, not by a migration, and a
store made before it is indexed whole then.

A query's terms become a `tsquery` as `fts_query` makes an FTS5 one: every term must match (&); a
bare term's words follow each other (<->) and its last word matches as a prefix (`:*`); a phrase
matches as written. A query in FTS5's own syntax (`recall` with syntax=true) is read by
app/storage/fts_syntax.py and written as a `tsquery` that matches what FTS5 matches. Relevance is
`ts_rank` (FTS5 uses bm25), then newest first. Search ranks the newest RANKED matches only
(app/storage/search.py `search_words`): ranking every match of a common word in a million messages
(half of them) took seconds, and the newest are where a person looks; a query with fewer matches
(every test's) is ranked whole, as FTS5 ranks it.
Snippets are made in Python (`like_snippet`), the same function the LIKE fallback uses.

Known difference: FTS5 also folds diacritics (`café` finds `cafe`); `simple` does not.
"""

from __future__ import annotations

import re
from typing import Any

from app.storage.fts import INDEXED_CHARS, INDEXED_ROLES

INDEX_NAME = "ix_messages_words"
RANKED = 200  # of a query's matches, the newest this many are ranked by relevance (see the docstring)
WINDOW = 10_000  # newest indexed messages whose words are tested one by one before the GIN index is asked
ROLES_SQL = "(" + ", ".join(f"'{r}'" for r in INDEXED_ROLES) + ")"


def words_of(column: str) -> str:
    """The SQL `tsvector` of a message's indexed words (the index's expression: queries use it verbatim)."""
    return (f"to_tsvector('simple'::regconfig, regexp_replace(substr({column}, 1, {INDEXED_CHARS}), "
            "'[^[:alnum:]]+', ' ', 'g'))")


WORDS_TABLE = "message_words"
INDEX_SQL = f"CREATE INDEX IF NOT EXISTS {INDEX_NAME} ON {WORDS_TABLE} USING gin (words)"
_FUNCTION = f"""CREATE OR REPLACE FUNCTION {WORDS_TABLE}_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.role IN {ROLES_SQL} THEN
        INSERT INTO {WORDS_TABLE} (message_id, words) VALUES (NEW.id, {words_of('NEW.content')})
        ON CONFLICT (message_id) DO UPDATE SET words = EXCLUDED.words;
    ELSE
        DELETE FROM {WORDS_TABLE} WHERE message_id = NEW.id;
    END IF;
    RETURN NULL;
END $$"""


def ensure_index(engine: Any) -> bool:
    """Create the words table, its index and trigger where missing, and index the messages not yet in
    it (idempotent: a store made before the index gets it whole); search can always use it."""
    with engine.begin() as conn:
        if conn.execute("SELECT to_regclass(?) IS NOT NULL", (INDEX_NAME,)).scalar():
            return True
        conn.execute(f"CREATE TABLE IF NOT EXISTS {WORDS_TABLE} (message_id INTEGER NOT NULL PRIMARY KEY "
                     "REFERENCES messages (id) ON DELETE CASCADE, words tsvector NOT NULL)")
        conn.execute(_FUNCTION)
        conn.execute(f"DROP TRIGGER IF EXISTS {WORDS_TABLE}_sync ON messages")
        conn.execute(f"CREATE TRIGGER {WORDS_TABLE}_sync AFTER INSERT OR UPDATE OF content, role ON messages "
                     f"FOR EACH ROW EXECUTE FUNCTION {WORDS_TABLE}_sync()")
        conn.execute(f"INSERT INTO {WORDS_TABLE} (message_id, words) SELECT id, {words_of('content')} "
                     f"FROM messages WHERE role IN {ROLES_SQL} ON CONFLICT (message_id) DO NOTHING")
        conn.execute(INDEX_SQL)
    return True


_WORD = re.compile(r"[^\W_]+")


def tsquery(terms: list[Any]) -> str | None:
    """A `to_tsquery('simple', …)` text for `terms` (app/storage/search.py's Term), None when a term has no word."""
    parts = []
    for term in terms:
        words = [w.lower() for w in _WORD.findall(term.text)]
        if not words:
            return None
        quoted = [f"'{w}'" for w in words]
        if not term.phrase:
            quoted[-1] += ":*"
        parts.append("(" + " <-> ".join(quoted) + ")")
    return " & ".join(parts)


def matching(alias: str) -> str:
    """The WHERE condition on messages `alias` for the `to_tsquery` text in parameter `:q` (`tsquery`
    above, or a query in FTS5's syntax as app/storage/fts_syntax.py writes it)."""
    return (f"{alias}.id IN (SELECT message_id FROM {WORDS_TABLE} WHERE words @@ "
            f"to_tsquery('simple'::regconfig, :q))")


def newest_matches(*, workstream: bool = False, older: bool = False, where: str = "") -> tuple[str, str]:
    """(plan, query): the query of (message_id, words) for the newest `:ranked` messages matching `:q` (of
    workstream `:ws` when `workstream`; passing `where`, conditions on their row `m` in messages, each
    starting with AND) among the newest WINDOW indexed messages, or (`older`) among all of them through
    the GIN index; the plan is the SET LOCAL statements to run before it (`search_words` in
    app/storage/search.py runs both ways, as it says)."""
    scope = " AND mw.message_id IN (SELECT id FROM messages WHERE workstream_id = :ws)" if workstream else ""
    join = " JOIN messages m ON m.id = mw.message_id" if where else ""
    plan = ("SET LOCAL enable_bitmapscan = on; SET LOCAL enable_indexscan = off" if older else
            "SET LOCAL enable_bitmapscan = off; SET LOCAL enable_indexscan = on")
    window = "" if older else f"mw.message_id > ({window_bound()}) AND "
    return plan, (f"SELECT mw.message_id, mw.words FROM {WORDS_TABLE} mw{join} WHERE {window}"
                  f"mw.words @@ to_tsquery('simple'::regconfig, :q){scope}{where} "
                  "ORDER BY mw.message_id DESC LIMIT :ranked")


def window_bound() -> str:
    """The query of the id below the newest WINDOW indexed messages (0 when there are fewer): the end of
    the backward walk."""
    return f"SELECT coalesce((SELECT message_id FROM {WORDS_TABLE} ORDER BY message_id DESC OFFSET {int(WINDOW)} LIMIT 1), 0)"


def rank_of(words: str) -> str:
    """The relevance to `:q` of the stored words `words` (a column), higher is better."""
    return f"ts_rank({words}, to_tsquery('simple'::regconfig, :q))"


def rank(alias: str) -> str:
    """The relevance of messages `alias` to `:q`, higher is better (read from the stored words)."""
    return (f"(SELECT ts_rank(w.words, to_tsquery('simple'::regconfig, :q)) FROM {WORDS_TABLE} w "
            f"WHERE w.message_id = {alias}.id)")
