"""Which memories a turn is given: BM25 over names and descriptions, top 5, visible scopes only.

The conversation's recent text is the query. Memories that share no word with it still fill the
free places, most recently updated first, so a new workstream is given what was saved before
without being asked ("this project uses tabs" reaches a first prompt about anything). The index
is rebuilt only when the table changed (`MemoryStore.signature`). Runs on the database thread.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.memory.bm25 import BM25Index
from app.memory.memory_store import MemoryStore
from app.memory.records import Memory, Visibility

TOP = 5
CONTENT_CUT = 1_500  # characters of each memory's content put into the system message
QUERY_CHARS = 4_000  # characters of recent conversation used as the query


@dataclass(frozen=True)
class _Row:
    id: int
    scope: str
    scope_key: str
    updated_at: float


class MemorySelector:
    """Picks the memories for a turn; keeps one BM25 index per version of the table."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self._signature: tuple[int, float, int] | None = None
        self._index = BM25Index(())
        self._rows: list[_Row] = []
        self._visible: dict[Visibility, set[int]] = {}  # per version of the table

    def _refresh(self) -> None:
        signature = self.store.signature()
        if signature == self._signature:
            return
        rows = self.store.index_rows()
        self._index = BM25Index((r[0], f"{r[1]} {r[2]}") for r in rows)
        self._rows = sorted((_Row(r[0], r[3], r[4], r[5]) for r in rows), key=lambda r: (-r.updated_at, -r.id))
        self._signature = signature
        self._visible = {}

    def select(self, visibility: Visibility, conversation: str, *, top: int = TOP, touch: bool = True) -> list[Memory]:
        """The `top` memories for `conversation`: best BM25 first, then the most recent; only those
        `visibility` sees. Each one chosen counts as accessed when `touch`."""
        self._refresh()
        visibility = self.store.own(visibility)
        visible = self._visible.get(visibility)
        if visible is None:
            visible = self._visible[visibility] = {r.id for r in self._rows if visibility.sees(r.scope, r.scope_key)}
        chosen = [key for key, _score in self._index.rank(conversation[-QUERY_CHARS:], allowed=visible, top=top)]
        for row in self._rows:
            if len(chosen) >= top:
                break
            if row.id in visible and row.id not in chosen:
                chosen.append(row.id)
        found = self.store.by_ids(chosen)
        if touch:
            self.store.touch([m.id for m in found if m.id is not None])
        return found


def cut(content: str, limit: int = CONTENT_CUT) -> str:
    """The content, cut to `limit` characters with a note of how much was left out."""
    if len(content) <= limit:
        return content
    return content[:limit].rstrip() + f"\n… [{len(content) - limit:,} more characters: memory search by its name shows all]"


def memory_block(found: list[Memory], chars: int = CONTENT_CUT) -> str:
    """The part of the system message that gives the model its memories, each cut to `chars`."""
    if not found:
        return ""
    lines = ["# Memories",
             "Saved in earlier sessions (by you or the user); follow them unless the user says otherwise. "
             "Use the memory tool to read one in full, change or delete it."]
    for memory in found:
        about = f" — {memory.description}" if memory.description else ""
        lines.append(f"\n## {memory.name} ({memory.type}, {memory.scope}){about}\n{cut(memory.content, chars)}")
    return "\n".join(lines)
