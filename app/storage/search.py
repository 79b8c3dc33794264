"""Full-text search over every workstream's messages: FTS5 when available (on PostgreSQL its word
index, app/storage/pg_fts.py), LIKE otherwise.

The user's text is never handed to FTS5 as query syntax. It is split into terms on
whitespace (a double-quoted run is one phrase); every term must match (AND). With FTS5 a
bare term matches as a word prefix (`migr` finds "migration"); a phrase matches as written.
A term with no letter or digit (`->`, `::`) cannot be matched by the word index, so such a
query uses the LIKE fallback, which matches substrings (case-insensitively for ASCII).

Snippets mark each match with `MARK_START` … `MARK_END` (control characters that do not
occur in normal text); `SearchHit.spans()` splits a snippet into (text, is_match) pieces.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from typing import Any, Literal

from app.storage.dialect import like
from app.storage.engine import Connection
from app.storage.fts import FTS_TABLE, INDEXED_ROLES

MARK_START = "\x02"
MARK_END = "\x03"
ELLIPSIS = "…"
SNIPPET_TOKENS = 16  # words around the match in an FTS5 snippet
SNIPPET_CHARS = 110  # characters of a LIKE-fallback snippet

Order = Literal["relevance", "recent"]
_ENGINE_ROLE = {"user": "user", "assistant": "assistant", "tool_result": "tool"}


@dataclass(frozen=True)
class SearchHit:
    """One matching message.

    `role` uses the engine's names ('user', 'assistant', 'tool'); `message_id` is the
    message's `Message.db_id`. `snippet` is one line with matches between the markers.
    """

    workstream_id: str
    title: str | None
    alias: str | None
    message_id: int
    role: str
    snippet: str
    created_at: float

    @property
    def name(self) -> str:
        """What to call the workstream: its alias, else its title, else a short id."""
        return self.alias or self.title or self.workstream_id[:8]

    def spans(self) -> list[tuple[str, bool]]:
        """The snippet as (text, is_match) pieces, markers removed."""
        out: list[tuple[str, bool]] = []
        for i, piece in enumerate(re.split(f"[{MARK_START}{MARK_END}]", self.snippet)):
            if piece:
                out.append((piece, i % 2 == 1))
        return out


@dataclass(frozen=True)
class Term:
    text: str
    phrase: bool = False


_TOKEN = re.compile(r'"([^"]*)"|(\S+)')


def parse_query(query: str) -> list[Term]:
    """Split user text into terms; quoted runs become phrases; stray quotes are dropped."""
    terms: list[Term] = []
    for phrase, word in _TOKEN.findall(query):
        if phrase.strip():
            terms.append(Term(" ".join(phrase.split()), phrase=True))
        elif word.strip('"'):
            terms.append(Term(word.replace('"', "")))
    return terms


def fts_query(terms: list[Term]) -> str | None:
    """An FTS5 MATCH expression for `terms`, or None when a term has no indexable word."""
    if not terms or any(not re.search(r"\w", t.text) for t in terms):
        return None
    parts = []
    for t in terms:
        quoted = '"' + t.text.replace('"', '""') + '"'
        parts.append(quoted if t.phrase else quoted + "*")
    return " AND ".join(parts)


def escape_like(text: str) -> str:
    """`text` as a LIKE pattern that matches it literally, with `ESCAPE '/'`."""
    return text.replace("/", "//").replace("%", "/%").replace("_", "/_")


def _one_line(s: str) -> str:
    return " ".join(s.split())


def like_snippet(content: str, terms: list[Term], width: int = SNIPPET_CHARS) -> str:
    """A one-line window of `content` around the first match, every match marked."""
    content = _one_line(content)
    pattern = re.compile("|".join(re.escape(t.text) for t in
                                  sorted(terms, key=lambda t: len(t.text), reverse=True)),
                         re.IGNORECASE)
    first = pattern.search(content)
    start = 0 if first is None else max(0, first.start() - width // 3)
    if start:
        space = content.find(" ", start, first.start() if first else start)
        start = space + 1 if space != -1 else start
    end = min(len(content), start + width)
    if end < len(content):
        space = content.rfind(" ", max(start, first.end() if first else start), end)
        end = space if space != -1 else end
    window = pattern.sub(lambda m: f"{MARK_START}{m.group(0)}{MARK_END}", content[start:end])
    return (ELLIPSIS if start else "") + window + (ELLIPSIS if end < len(content) else "")


def _hit(row: Any, snippet: str) -> SearchHit:
    return SearchHit(workstream_id=row.workstream_id, title=row.title, alias=row.alias,
                     message_id=row.id, role=_ENGINE_ROLE.get(row.role, row.role),
                     snippet=snippet, created_at=row.created_at)


def search_fts(conn: Connection, match: str, limit: int, order: Order,
               workstream_id: str | None) -> list[SearchHit]:
    order_by = "m.id DESC" if order == "recent" else f"{FTS_TABLE}.rank, m.id DESC"
    where = "AND m.workstream_id = :ws" if workstream_id else ""
    sql = f"""
        SELECT m.id, m.workstream_id, m.role, m.created_at, w.title, w.alias,
               snippet({FTS_TABLE}, 0, :a, :b, :e, :n) AS snippet
        FROM {FTS_TABLE}
        JOIN messages m ON m.id = {FTS_TABLE}.rowid
        JOIN workstreams w ON w.id = m.workstream_id
        WHERE {FTS_TABLE} MATCH :q {where}
        ORDER BY {order_by} LIMIT :limit"""
    rows = conn.execute(sql, {"a": MARK_START, "b": MARK_END, "e": ELLIPSIS,
                              "n": SNIPPET_TOKENS, "q": match, "limit": limit,
                              "ws": workstream_id}).all()
    return [_hit(r, _one_line(r.snippet)) for r in rows]


def search_words(conn: Connection, terms: list[Term], limit: int, order: Order,
                 workstream_id: str | None) -> list[SearchHit]:
    """PostgreSQL's word index (app/storage/pg_fts.py): the same matches as FTS5, by relevance among the
    newest pg_fts.RANKED of them; a term with no word (`->`) goes to the LIKE fallback, as on SQLite.

    PostgreSQL guesses a prefix query's matches at a fixed share of the rows whatever the word, so it
    cannot choose between the two good plans; this chooses by trying, in one snapshot (the reader's
    transaction), each plan set just before its statement (SET LOCAL):
    - the newest pg_fts.WINDOW indexed messages walked backwards by id, each one's words tested: a
      common word fills the candidates here (10,000 rows cost a few milliseconds);
    - if they held fewer than wanted, the GIN index's matches, all of them, the newest kept: a rare
      word has few (found at once). The worst case is a word in many thousands of old messages and
      in none of the newest: all its matches are fetched and sorted (hundreds of ms for 100,000)."""
    from app.storage import pg_fts

    query = pg_fts.tsquery(terms)
    if query is None:
        return search_like(conn, terms, limit, workstream_id)
    recent = order == "recent"
    params = {"q": query, "limit": limit, "ws": workstream_id, "ranked": limit if recent else max(limit, pg_fts.RANKED)}
    order_by = "m.id DESC" if recent else f"{pg_fts.rank_of('c.words')} DESC, m.id DESC"
    rows: list[Any] = []
    for older in (False, True):  # the newest messages walked backwards; if they held too few, the GIN index
        plan, candidates = pg_fts.newest_matches(workstream=bool(workstream_id), older=older)
        rows = conn.execute(f"""{plan};
            WITH c AS MATERIALIZED ({candidates})
            SELECT m.id, m.workstream_id, m.role, m.created_at, m.content, w.title, w.alias,
                   (SELECT count(*) FROM c) AS found
            FROM c JOIN messages m ON m.id = c.message_id JOIN workstreams w ON w.id = m.workstream_id
            ORDER BY {order_by} LIMIT :limit""", params).all()
        if rows and rows[0].found >= params["ranked"]:
            break
    return [_hit(r, like_snippet(r.content, terms)) for r in rows]


def search_like(conn: Connection, terms: list[Term], limit: int,
                workstream_id: str | None) -> list[SearchHit]:
    conds = [f"m.role IN ({', '.join('?' * len(INDEXED_ROLES))})"]
    params: list[Any] = [*INDEXED_ROLES]
    for t in terms:
        conds.append(f"m.content {like(conn)} '%' || ? || '%' ESCAPE '/'")
        params.append(escape_like(t.text))
    if workstream_id:
        conds.append("m.workstream_id = ?")
        params.append(workstream_id)
    sql = f"""
        SELECT m.id, m.workstream_id, m.role, m.created_at, m.content, w.title, w.alias
        FROM messages m JOIN workstreams w ON w.id = m.workstream_id
        WHERE {' AND '.join(conds)} ORDER BY m.id DESC LIMIT ?"""
    return [_hit(r, like_snippet(r.content, terms)) for r in conn.execute(sql, [*params, limit])]


def search(conn: Connection, query: str, *, limit: int, use_fts: bool,
           order: Order = "relevance", workstream_id: str | None = None) -> list[SearchHit]:
    """Messages matching every term of `query`; never raises on the query's content."""
    terms = parse_query(query)
    if not terms or limit <= 0:
        return []
    if use_fts and conn.dialect == "postgresql":
        return search_words(conn, terms, limit, order, workstream_id)
    match = fts_query(terms) if use_fts else None
    if match is not None:
        try:
            return search_fts(conn, match, limit, order, workstream_id)
        except sqlite3.OperationalError:  # defensive: a query FTS5 rejects still gets an answer
            pass
    return search_like(conn, terms, limit, workstream_id)
