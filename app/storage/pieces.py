"""A long message's text stored as a head in its `messages` row plus `message_pieces` rows.

Writing a 10 MB text as one value cost SQLite three copies of it at once (the bound parameter, the
record, the index trigger's): +32 MB at the end of a 10 MB reply, its memory peak. A
content or reasoning longer than HEAD_CHARS therefore keeps its first HEAD_CHARS characters in the
row (all that the search index reads: fts.INDEXED_CHARS, so the index is the same) and the rest in
PIECE_CHARS slices, one statement each, so a write holds one slice at a time.

Readers see whole texts through `with_pieces`: the row, then its message pieces, then (a reply still
streaming, app/storage/drafts.py) its draft pieces. Only a row whose content or reasoning is exactly
HEAD_CHARS long can have message pieces, so others cost no query. The LIKE search fallback, like the
index, sees the head only.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable, Iterator, Mapping

from app.storage.engine import Connection
from app.storage.fts import INDEXED_CHARS

HEAD_CHARS = INDEXED_CHARS  # characters of each text kept in the row
PIECE_CHARS = 256 * 1024  # characters of each text in one piece
TEXTS = ("content", "reasoning")


def _text(values: Mapping[str, Any], key: str) -> str:
    return values.get(key) or ""


def head(values: Mapping[str, Any]) -> dict[str, Any]:
    """`values` of a row with each long text cut to its first HEAD_CHARS characters."""
    return {**values, **{key: values[key][:HEAD_CHARS] for key in TEXTS if len(_text(values, key)) > HEAD_CHARS}}


def _tail(values: Mapping[str, Any]) -> Iterator[dict[str, str]]:
    """The pieces after the head, sliced one at a time."""
    content, reasoning = _text(values, "content"), _text(values, "reasoning")
    for start in range(HEAD_CHARS, max(len(content), len(reasoning)), PIECE_CHARS):
        yield {"content": content[start:start + PIECE_CHARS], "reasoning": reasoning[start:start + PIECE_CHARS]}


def _write_tail(conn: Connection, message_id: int, values: Mapping[str, Any]) -> None:
    for piece in _tail(values):
        conn.insert("message_pieces", {"message_id": message_id, **piece})


def insert_message(conn: Connection, values: Mapping[str, Any]) -> int:
    """Insert a `messages` row of `values` (texts whole); its id."""
    message_id = conn.insert("messages", head(values))
    _write_tail(conn, message_id, values)
    return message_id


def update_row(conn: Connection, table: str, row_id: Any, values: Mapping[str, Any]) -> int:
    """Set the columns `values` names (names from code, never from input) of `table`'s row `row_id`;
    how many rows changed (0 or 1)."""
    assignments = ", ".join(f"{column} = ?" for column in values)
    return conn.execute(f"UPDATE {table} SET {assignments} WHERE id = ?", (*values.values(), row_id)).rowcount


def update_message(conn: Connection, message_id: int, values: Mapping[str, Any]) -> None:
    """Set fields of row `message_id` to `values` (texts whole, replacing its pieces)."""
    conn.defer("DELETE FROM message_pieces WHERE message_id = ?", (message_id,))
    update_row(conn, "messages", message_id, head(values))
    _write_tail(conn, message_id, values)


def _pieces(conn: Connection, table: str, ids: list[int]) -> dict[int, tuple[list[str], list[str]]]:
    """message id → (contents, reasonings) of its pieces in `table`, in the order they were written."""
    found: dict[int, tuple[list[str], list[str]]] = defaultdict(lambda: ([], []))
    if not ids:
        return found
    query = (f"SELECT message_id, content, reasoning FROM {table} "
             f"WHERE message_id IN ({', '.join('?' * len(ids))}) ORDER BY id")
    for message_id, content, reasoning in conn.execute(query, ids):
        found[message_id][0].append(content)
        found[message_id][1].append(reasoning)
    return found


def is_draft(row: Mapping[str, Any]) -> bool:
    """Whether a row may be a streaming (or crash-cut) reply with draft pieces."""
    return row["role"] == "assistant" and bool(row["interrupted"])


def with_pieces(conn: Connection, rows: Iterable[Mapping[str, Any]],
                drafts: list[int] | None = None) -> list[Mapping[str, Any]]:
    """`rows` of `messages`, each with its whole content and reasoning (its pieces appended);
    `drafts`: the ids that may have draft pieces (default: the rows that `is_draft`)."""
    rows = list(rows)
    long = _pieces(conn, "message_pieces", [r["id"] for r in rows if any(len(_text(r, k)) == HEAD_CHARS for k in TEXTS)])
    streamed = _pieces(conn, "draft_pieces", [r["id"] for r in rows if is_draft(r)] if drafts is None else drafts)
    if not (long or streamed):
        return rows
    out: list[Mapping[str, Any]] = []
    for row in rows:
        extra = [found[row["id"]] for found in (long, streamed) if row["id"] in found]
        if extra:
            row = {**row, **{key: "".join([_text(row, key), *(text for piece in extra for text in piece[i])])
                             for i, key in enumerate(TEXTS)}}
        out.append(row)
    return out
