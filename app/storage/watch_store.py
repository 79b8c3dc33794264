"""Watches (table of migration 8): plain functions over a `Store`, run with `AsyncStore.run(...)`.
Each change is one short transaction, so two instances on one store never poll a watch twice."""

from __future__ import annotations

import time
import uuid
from typing import Any

ACTIVE = "active"


def create(store: Any, workstream_id: str, *, name: str, command: str, interval: float, stop_on: str | None,
           max_polls: int, now: float | None = None, limit: int = 5) -> str:
    """A new active watch; ValueError when the workstream has `limit` active ones or one named `name`
    (checked in the same write transaction, so parallel calls cannot pass the limit together)."""
    watch_id = uuid.uuid4().hex
    now = time.time() if now is None else now
    with store._engine.begin() as conn:
        names = conn.execute("SELECT name FROM watches WHERE workstream_id = ? AND status = ?",
                             (workstream_id, ACTIVE)).scalars()
        if len(names) >= limit:
            raise ValueError(f"this workstream already has {limit} active watches; cancel one first")
        if name in names:
            raise ValueError(f"an active watch is already named {name!r}")
        conn.insert("watches", {
            "id": watch_id, "workstream_id": workstream_id, "name": name, "command": command, "interval": interval,
            "stop_on": stop_on, "status": ACTIVE, "polls": 0, "max_polls": max_polls, "next_at": now, "created_at": now})
    return watch_id


def active(store: Any, workstream_id: str | None = None) -> list[dict[str, Any]]:
    query, params = "SELECT * FROM watches WHERE status = ?", [ACTIVE]
    if workstream_id is not None:
        query, params = query + " AND workstream_id = ?", params + [workstream_id]
    with store._reads.connect() as conn:
        return [r._mapping for r in conn.execute(query + " ORDER BY created_at", params)]


def count_active(store: Any, workstream_id: str) -> int:
    with store._reads.connect() as conn:
        return conn.execute("SELECT count(*) FROM watches WHERE workstream_id = ? AND status = ?",
                            (workstream_id, ACTIVE)).scalar()


def claim_due(store: Any, now: float, lease: float) -> list[dict[str, Any]]:
    """Active watches due by `now`, each pushed `lease` seconds ahead in the same transaction (so
    another instance does not poll it meanwhile). While none is due (an idle app, every few seconds)
    a plain read says so: no write lock is taken."""
    due = "FROM watches WHERE status = ? AND next_at <= ?"
    with store._reads.connect() as conn:
        if conn.execute(f"SELECT id {due} LIMIT 1", (ACTIVE, now)).first() is None:
            return []
    with store._engine.begin() as conn:
        rows = [r._mapping for r in conn.execute(f"SELECT * {due}", (ACTIVE, now))]
        for row in rows:
            conn.execute("UPDATE watches SET next_at = ? WHERE id = ?", (now + lease, row["id"]))
    return rows


def next_due(store: Any) -> float | None:
    """When the earliest active watch is due; None when there is no active watch."""
    with store._reads.connect() as conn:
        return conn.execute("SELECT min(next_at) FROM watches WHERE status = ?", (ACTIVE,)).scalar()


def record_poll(store: Any, watch_id: str, output: str, next_at: float) -> None:
    with store._engine.begin() as conn:
        conn.execute("UPDATE watches SET last_output = ?, polls = polls + 1, next_at = ? WHERE id = ?",
                     (output, next_at, watch_id))


def finish(store: Any, watch_id: str, status: str) -> bool:
    """Mark an active watch fired or cancelled; False when it was no longer active."""
    with store._engine.begin() as conn:
        done = conn.execute("UPDATE watches SET status = ?, fired_at = ? WHERE id = ? AND status = ?",
                            (status, time.time(), watch_id, ACTIVE))
    return done.rowcount == 1


def find(store: Any, workstream_id: str, ref: str) -> dict[str, Any] | None:
    """An active watch of the workstream by name or id prefix."""
    for row in active(store, workstream_id):
        if row["name"] == ref or row["id"].startswith(ref):
            return row
    return None
