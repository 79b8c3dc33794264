"""Full-text search on PostgreSQL: a GIN index over each message's words, matching as FTS5 does on SQLite.

SQLite indexes messages with FTS5's unicode61 tokenizer (app/storage/fts.py): a word is a run of
letters and digits, everything else separates words, case is ignored. PostgreSQL's own parser
knows more kinds of token (a path `app/x.py`, an e-mail, a URL is one token), so the indexed text
is first reduced to words separated by spaces (`regexp_replace` of every run of other characters),
then made a `tsvector` with the `simple` configuration (lower case, no stemming, no stop words):
the same words FTS5 sees. The index is an expression GIN index on `messages` itself, partial on
the indexed roles, so it needs no column, no trigger and no copy of the text: PostgreSQL keeps it
in step with every insert, update and delete.

A query's terms become a `tsquery` as `fts_query` makes an FTS5 one: every term must match (&); a
bare term's words follow each other (<->) and its last word matches as a prefix (`:*`); a phrase
matches as written. Relevance is `ts_rank` (FTS5 uses bm25), then newest first.
Snippets are made in Python (`like_snippet`), the same function the LIKE fallback uses.

Known difference: FTS5 also folds diacritics (`café` finds `cafe`); `simple` does not.
"""

from __future__ import annotations

import re
from typing import Any

from app.storage.fts import INDEXED_CHARS, INDEXED_ROLES

INDEX_NAME = "ix_messages_words"
ROLES_SQL = "(" + ", ".join(f"'{r}'" for r in INDEXED_ROLES) + ")"


def words_of(column: str) -> str:
    """The SQL `tsvector` of a message's indexed words (the index's expression: queries use it verbatim)."""
    return (f"to_tsvector('simple'::regconfig, regexp_replace(substr({column}, 1, {INDEXED_CHARS}), "
            "'[^[:alnum:]]+', ' ', 'g'))")


def ensure_index(engine: Any) -> bool:
    """Create the index where it is missing (idempotent); search can always use it."""
    with engine.begin() as conn:
        conn.execute(f"CREATE INDEX IF NOT EXISTS {INDEX_NAME} ON messages USING gin ({words_of('content')}) "
                     f"WHERE role IN {ROLES_SQL}")
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


def matching(alias: str, *, syntax: bool = False) -> str:
    """The WHERE condition on messages `alias` for the query in parameter `:q` (the user's own
    search syntax read by `websearch_to_tsquery` when `syntax`)."""
    parse = "websearch_to_tsquery" if syntax else "to_tsquery"
    return (f"{alias}.role IN {ROLES_SQL} AND {words_of(f'{alias}.content')} @@ "
            f"{parse}('simple'::regconfig, :q)")


def rank(alias: str, *, syntax: bool = False) -> str:
    """The relevance of messages `alias` to `:q`, higher is better."""
    parse = "websearch_to_tsquery" if syntax else "to_tsquery"
    return f"ts_rank({words_of(f'{alias}.content')}, {parse}('simple'::regconfig, :q))"
