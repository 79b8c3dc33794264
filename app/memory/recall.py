"""Recall: full-text search over every workstream's stored messages, for the `recall` tool.

FTS5 (app/storage/fts.py) when SQLite has it, LIKE otherwise. A plain query is split into words
and phrases that all must match and is never read as FTS5 syntax (app/storage/search.py makes it
inert). `syntax=True` hands the query to FTS5 as written (OR, NOT, NEAR, prefix*, "phrases"); on
PostgreSQL app/storage/fts_syntax.py reads the same syntax into a `tsquery` with the same matches.
A query FTS5 cannot parse becomes a `RecallError` in words, never an exception from SQLite.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from typing import Any

from app.storage.engine import Connection, marks
from app.storage.dialect import group_concat, like
from app.storage import fts_syntax
from app.storage.fts import FTS_TABLE
from app.storage.pg_fts import tsquery
from app.storage.search import MARK_END, MARK_START, Term, fts_query, like_snippet, parse_query
from app.memory.memory_store import like_pattern
from app.memory.records import RecallError

_PUNCTUATION = re.compile(r"[^\w\s]|_")
ROLES = {"user": "user", "assistant": "assistant", "tool_result": "tool"}


@dataclass(frozen=True)
class RecallHit:
    """One message found: when, in which workstream, who said it, and (for tool output) which tool."""

    message_id: int
    workstream_id: str
    workstream: str
    role: str
    tool_name: str | None
    created_at: float
    snippet: str

    def line(self, timestamp: str) -> str:
        who = f"tool {self.tool_name}" if self.tool_name else self.role
        snippet = self.snippet.replace(MARK_START, "«").replace(MARK_END, "»")
        return f"[{timestamp}] {self.workstream} · {who} · #{self.message_id}: {snippet}"


_SELECT = f"""
    SELECT m.id, m.workstream_id, m.role, m.created_at, m.content, w.title, w.alias, w.id AS wid,
           (SELECT {{concat}} FROM messages c
             WHERE c.workstream_id = m.workstream_id AND c.role = 'tool_call'
               AND c.tool_call_id = m.tool_call_id) AS call_tool,
           m.tool_name"""


def _select(conn: Connection) -> str:
    return _SELECT.replace("{concat}", group_concat(conn, "c.tool_name", ", "))


def _hit(row: Any, snippet: str) -> RecallHit:
    name = row.alias or row.title or row.wid[:8]
    tool = row.tool_name or row.call_tool if row.role == "tool_result" else None
    return RecallHit(message_id=row.id, workstream_id=row.workstream_id, workstream=name,
                     role=ROLES.get(row.role, row.role), tool_name=tool, created_at=row.created_at,
                     snippet=" ".join(snippet.split()))


def _filters(workstream_id: str | None, role: str | None, asking: str | None = None) -> tuple[str, dict[str, Any]]:
    sql, params = "", {}
    if asking:  # the turn being asked about (its last user message onward) would always be the top hit
        sql += """ AND NOT (m.workstream_id = :asking AND m.id >= coalesce(
            (SELECT max(q.id) FROM messages q WHERE q.workstream_id = :asking AND q.role = 'user'), 0))"""
        params["asking"] = asking
    if workstream_id:
        sql += " AND m.workstream_id = :ws"
        params["ws"] = workstream_id
    if role:
        stored = {v: k for k, v in ROLES.items()}.get(role)
        if stored is None:
            raise RecallError(f"role {role!r} is not one of user, assistant, tool")
        sql += " AND m.role = :role"
        params["role"] = stored
    return sql, params


def _words(conn: Connection, query: str, limit: int, where: str, params: dict[str, Any],
           terms: list[Term]) -> list[RecallHit]:
    """PostgreSQL's word index (app/storage/pg_fts.py): ids by rank, then their rows, as `_fts` does. The
    newest pg_fts.RANKED matches are ranked, found as `search_words` (app/storage/search.py) finds them:
    the newest messages walked backwards, then the GIN index when they held too few. Ranking every match
    of a common word took seconds over a million messages; with fewer matches (every test's) all are
    ranked, as FTS5 ranks them."""
    from app.storage import pg_fts

    values = {"q": query, "limit": limit, "ranked": max(limit, pg_fts.RANKED), **params}
    rows: list[Any] = []
    for older in (False, True):
        plan, candidates = pg_fts.newest_matches(where=where, older=older)
        rows = conn.execute(f"""{plan};
            WITH c AS MATERIALIZED ({candidates})
            SELECT c.message_id, (SELECT count(*) FROM c) AS found FROM c
            ORDER BY {pg_fts.rank_of('c.words')} DESC, c.message_id DESC LIMIT :limit""", values).all()
        if rows and rows[0].found >= values["ranked"]:
            break
    return _rows_for(conn, [row.message_id for row in rows], terms)


def _fts(conn: Connection, match: str, limit: int, where: str, params: dict[str, Any],
         terms: list[Term]) -> list[RecallHit]:
    # Rank alone picks the ids; rows and snippets follow for those few. FTS5's snippet() over every
    # match before the sort made a common-word query over 100k messages take ~1 s.
    join = "JOIN messages m ON m.id = f.rowid" if where else ""
    ids = [row[0] for row in conn.execute(f"""
        SELECT f.rowid FROM {FTS_TABLE} f {join}
        WHERE f.{FTS_TABLE} MATCH :q {where} ORDER BY f.rank LIMIT :limit""",
        {"q": match, "limit": limit, **params})]
    return _rows_for(conn, ids, terms)


def _rows_for(conn: Connection, ids: list[int], terms: list[Term]) -> list[RecallHit]:
    if not ids:
        return []
    rows = conn.execute(f"""{_select(conn)} FROM messages m JOIN workstreams w ON w.id = m.workstream_id
        WHERE m.id IN ({marks(ids)})""", ids).all()
    by_id = {row.id: row for row in rows}
    return [_hit(by_id[i], like_snippet(by_id[i].content, terms)) for i in ids if i in by_id]


def _highlight_terms(query: str) -> list[Term]:
    """The words of an FTS5 query worth marking in a snippet (operators and syntax left out)."""
    words = re.findall(r'"([^"]+)"|([^\s"()*:^+-]+)', query)
    return [Term(phrase or word) for phrase, word in words
            if (phrase or word) and (phrase or word) not in ("AND", "OR", "NOT", "NEAR")]


def _like(conn: Connection, words: list[str], limit: int, where: str, params: dict[str, Any]) -> list[RecallHit]:
    conds = " ".join(f"AND m.content {like(conn)} :w{i} ESCAPE '\\'" for i in range(len(words)))
    sql = f"""{_select(conn)} FROM messages m JOIN workstreams w ON w.id = m.workstream_id
        WHERE m.role IN ('user', 'assistant', 'tool_result') {conds} {where}
        ORDER BY m.id DESC LIMIT :limit"""
    values = {f"w{i}": like_pattern(word) for i, word in enumerate(words)}
    rows = conn.execute(sql, {"limit": limit, **values, **params}).all()
    terms = parse_query(" ".join(f'"{w}"' for w in words))
    return [_hit(r, like_snippet(r.content, terms)) for r in rows]


def explain_fts_error(query: str, error: sqlite3.OperationalError) -> str:
    detail = re.sub(r"^fts5: ", "", str(error))
    return (f"The search syntax of {query!r} is not valid ({detail}). Use words and \"quoted phrases\", "
            "AND, OR, NOT, NEAR(a b), prefix*, and balanced quotes and parentheses — or search without "
            "syntax=true to match the words literally.")


def recall(conn: Connection, query: str, *, use_fts: bool, limit: int = 20, syntax: bool = False,
           workstream_id: str | None = None, role: str | None = None, asking: str | None = None) -> list[RecallHit]:
    """Messages matching `query`, best first (FTS5) or newest first (LIKE fallback). `asking` is the
    workstream whose current turn asks: that turn (from its last user message on) is left out."""
    if not query.strip():
        raise RecallError("the query is empty: give words or a phrase to look for")
    where, params = _filters(workstream_id, role, asking)
    if syntax:
        if not use_fts:
            raise RecallError("this SQLite has no FTS5, so syntax=true cannot be used; search without it "
                              "(words and \"phrases\" are matched literally)")
        try:
            if conn.dialect == "postgresql":  # FTS5's syntax as a tsquery (app/storage/fts_syntax.py)
                match = fts_syntax.tsquery(query)
                return _words(conn, match, limit, where, params, _highlight_terms(query)) if match else []
            return _fts(conn, query, limit, where, params, _highlight_terms(query))
        except fts_syntax.Unsupported as error:
            raise RecallError(str(error)) from None
        except sqlite3.OperationalError as error:
            raise RecallError(explain_fts_error(query, error)) from None
    terms = parse_query(query)
    if not terms:
        raise RecallError("the query has no words to look for")
    indexable = all(re.search(r"[^\W_]", t.text) for t in terms)  # a letter or digit in each term
    postgres = conn.dialect == "postgresql"
    match = (tsquery(terms) if postgres else fts_query(terms)) if use_fts and indexable else None
    if match is not None:  # punctuation the word index cannot see must still match literally
        literal = [t.text for t in terms if _PUNCTUATION.search(t.text)]
        for number, piece in enumerate(literal):
            where += f" AND m.content {like(conn)} :lit{number} ESCAPE '\\'"
            params[f"lit{number}"] = like_pattern(piece)
        if postgres:
            return _words(conn, match, limit, where, params, terms)
        return _fts(conn, match, limit, where, params, terms)
    return _like(conn, [t.text for t in terms], limit, where, params)
