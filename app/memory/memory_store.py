"""The memories table: upsert, look-up, list, search, delete and access counts (synchronous).

Run on the store's database thread (`AsyncStore.run`); writes take the write lock up front
(app/storage/engine.py), reads go through `reader(engine)`. What a workstream may see is a
`Visibility`: global memories, its own workstream's, its workspace's and the team's.

On a team's PostgreSQL store a global memory is its saver's (keyed by their name, app/storage/identity.py)
and a team memory everyone's; on a personal SQLite store global memories have no person, and team ones
are accepted too and seen everywhere, as global ones are (the store has one user). Each save records
who made it.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any, Callable, Iterable

from app.memory.records import (CONTENT_LIMIT, Memory, check_content, check_description, check_name, check_scope,
                                check_type, InvalidMemory, Visibility)
from app.storage.dialect import like
from app.storage.engine import Connection, Engine, Row, marks, reader
from app.storage.identity import who

NARROWEST_FIRST = {"workstream": 0, "workspace": 1, "global": 2, "team": 3}
NEWEST_FIRST = " ORDER BY updated_at DESC, id DESC"


def visible_to(visibility: Visibility) -> tuple[str, list[Any]]:
    """The SQL condition (and its parameters) for the memories `visibility` sees."""
    return ("(scope = 'team' OR (scope = 'global' AND scope_key IN ('', ?)) OR (scope = 'workstream' AND scope_key = ?)"
            " OR (scope = 'workspace' AND scope_key = ?))",
            [visibility.person, visibility.workstream_id, visibility.workspace])


def _memory(row: Row) -> Memory:
    m = row._mapping
    return Memory(id=m["id"], name=m["name"], description=m["description"], content=m["content"],
                  type=m["type"], scope=m["scope"], scope_key=m["scope_key"], created_at=m["created_at"],
                  updated_at=m["updated_at"], accessed_at=m["accessed_at"], access_count=m["access_count"],
                  who=m["who"])


def like_pattern(text: str) -> str:
    """`text` as a LIKE pattern matching it literally anywhere (%, _ and the escape escaped)."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _where(visibility: Visibility | None, type: str | None, scope: str | None,
           *conditions: tuple[str, list[Any]]) -> tuple[str, list[Any]]:
    """` WHERE …` for the memories `visibility` sees (None: all) of `type` and `scope` (when given)
    that meet every one of `conditions` (SQL, parameters); its parameters."""
    found = list(conditions)
    if visibility is not None:
        found.insert(0, visible_to(visibility))
    if type:
        found.append(("type = ?", [check_type(type)]))
    if scope:
        found.append(("scope = ?", [check_scope(scope)]))
    if not found:
        return "", []
    return " WHERE " + " AND ".join(sql for sql, _ in found), [value for _, values in found for value in values]


class MemoryStore:
    """Memories in the store (SQLite or a team's PostgreSQL)."""

    def __init__(self, engine: Engine, *, clock: Callable[[], float] = time.time,
                 content_limit: int = CONTENT_LIMIT) -> None:
        """`content_limit`: UTF-8 bytes a memory's content may take ([memory] content_kb)."""
        self._engine = engine
        self._content_limit = content_limit
        self._reads = reader(engine)
        self._clock = clock
        self.person = who() if getattr(engine, "dialect", "sqlite") == "postgresql" else ""

    def own(self, visibility: Visibility | None) -> Visibility | None:
        """`visibility` with this store's person (see the module's docstring), unless it names one."""
        if visibility is None or visibility.person:
            return visibility
        return dataclasses.replace(visibility, person=self.person)

    def save(self, visibility: Visibility, name: str, content: str | None, *, description: str | None = None,
             type: str | None = None, scope: str = "workspace") -> tuple[Memory, bool]:
        """Upsert by name within the scope; returns (memory, created).

        An existing memory keeps its description, type (and content) when they are not given;
        a new one needs content and gets type 'project' when none is given."""
        name, scope = check_name(name), check_scope(scope)
        key = self.own(visibility).key_for(scope)
        fields: dict[str, Any] = {"who": who()}
        if content is not None:
            fields["content"] = check_content(content, self._content_limit)
        if description is not None:
            fields["description"] = check_description(description)
        if type is not None:
            fields["type"] = check_type(type)
        now = self._clock()
        where = " WHERE name = ? AND scope = ? AND scope_key = ?"
        with self._engine.begin() as conn:
            exists = conn.execute("SELECT id FROM memories" + where, (name, scope, key)).scalar()
            if exists is not None:
                _update(conn, exists, {"updated_at": now, **fields})
            else:
                if not fields.get("content", "").strip():
                    raise InvalidMemory(f"a new memory needs content: nothing is saved as {name!r}")
                conn.insert("memories", {
                    "name": name, "description": fields.get("description", ""), "content": fields["content"],
                    "type": fields.get("type", "project"), "scope": scope, "scope_key": key, "created_at": now,
                    "updated_at": now, "accessed_at": None, "access_count": 0, "who": fields["who"]})
            row = conn.execute("SELECT * FROM memories" + where, (name, scope, key)).first()
        return _memory(row), exists is None

    def get(self, visibility: Visibility | None, name: str, scope: str | None = None) -> Memory | None:
        """The memory called `name` that `visibility` sees, narrowest scope first."""
        found = self.list(visibility, scope=scope, names=[name.strip()])
        return min(found, key=lambda m: NARROWEST_FIRST[m.scope]) if found else None

    def list(self, visibility: Visibility | None, *, type: str | None = None, scope: str | None = None,
             names: Iterable[str] | None = None, limit: int | None = None) -> list[Memory]:
        """Memories `visibility` sees (None: every memory), most recently updated first."""
        named: list[tuple[str, list[Any]]] = []
        if names is not None:
            names = list(names)
            named.append((f"name IN ({marks(names)})", names))
        where, params = _where(self.own(visibility), type, scope, *named)
        sql = "SELECT * FROM memories" + where + NEWEST_FIRST
        if limit:
            sql += " LIMIT ?"
            params.append(limit)
        with self._reads.connect() as conn:
            return [_memory(r) for r in conn.execute(sql, params)]

    def by_ids(self, ids: list[int]) -> list[Memory]:
        """Memories by id, in the order given (ids that are gone are skipped)."""
        with self._reads.connect() as conn:
            rows = {r.id: _memory(r) for r in conn.execute(f"SELECT * FROM memories WHERE id IN ({marks(ids)})",
                                                           list(ids))}
        return [rows[i] for i in ids if i in rows]

    def search(self, visibility: Visibility | None, query: str, *, type: str | None = None,
               scope: str | None = None, limit: int = 20) -> list[Memory]:
        """Memories whose name, description or content contains every word of `query` literally
        (LIKE with %, _ and \\ escaped), most recently updated first."""
        with self._reads.connect() as conn:
            op = like(conn)
            words = [(f"(name {op} ? ESCAPE '\\' OR description {op} ? ESCAPE '\\' OR content {op} ? ESCAPE '\\')",
                      [like_pattern(word)] * 3) for word in query.split()]
            where, params = _where(self.own(visibility), type, scope, *words)
            rows = conn.execute("SELECT * FROM memories" + where + NEWEST_FIRST + " LIMIT ?", [*params, limit])
            return [_memory(r) for r in rows]

    def delete(self, visibility: Visibility | None, name: str, scope: str | None = None) -> Memory | None:
        """Delete the memory `get` would find; returns it, or None when there was none."""
        found = self.get(visibility, name, scope)
        if found is not None:
            self.delete_id(found.id)
        return found

    def delete_id(self, memory_id: int) -> None:
        with self._engine.begin() as conn:
            conn.execute("DELETE FROM memories WHERE id = ?", (memory_id,))

    def update(self, memory_id: int, **fields: Any) -> None:
        """Edit a memory in place (the browser's edit): name, description, content, type."""
        checks = {"name": check_name, "description": check_description,
                  "content": lambda text: check_content(text, self._content_limit), "type": check_type}
        values = {key: checks[key](value) for key, value in fields.items()}
        with self._engine.begin() as conn:
            _update(conn, memory_id, {"updated_at": self._clock(), "who": who(), **values})

    def touch(self, ids: list[int]) -> None:
        """Count one more use of each memory (given to the model in a turn)."""
        if not ids:
            return
        with self._engine.begin() as conn:
            conn.execute("UPDATE memories SET accessed_at = ?, access_count = access_count + 1"
                         f" WHERE id IN ({marks(ids)})", [self._clock(), *ids])

    def signature(self) -> tuple[int, float, int]:
        """(count, newest update, highest id): changes whenever a memory is added, edited or deleted."""
        with self._reads.connect() as conn:
            row = conn.execute("SELECT count(*), max(updated_at), max(id) FROM memories").one()
        return int(row[0]), float(row[1] or 0), int(row[2] or 0)

    def index_rows(self) -> list[tuple[int, str, str, str, str, float]]:
        """(id, name, description, scope, scope_key, updated_at) of every memory: what BM25 indexes."""
        with self._reads.connect() as conn:
            return [tuple(r) for r in conn.execute(
                "SELECT id, name, description, scope, scope_key, updated_at FROM memories")]


def _update(conn: Connection, memory_id: int, values: dict[str, Any]) -> None:
    """Set the columns `values` names (code's own names, never the user's) of memory `memory_id`."""
    assignments = ", ".join(f"{column} = :{column}" for column in values)
    conn.execute(f"UPDATE memories SET {assignments} WHERE id = :id", {**values, "id": memory_id})
