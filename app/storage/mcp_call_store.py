"""The MCP inspector's call history (table of migration 15): plain functions over a `Store`, run with
`AsyncStore.run(...)`. Each write is one short transaction that also drops what the bounds no longer
keep (older than the retention setting, past the newest `limit` calls of that server), so two
instances on one store each keep the history bounded without a separate clean-up pass.
"""

from __future__ import annotations

import json
import time
from typing import Any

DAY = 86400.0
PER_SERVER = 200
MAX_ANSWER_CHARS = 2_000_000  # a larger answer (a big image) is kept as a note, not its bytes
_NEWEST = "FROM mcp_calls WHERE server = ? ORDER BY at DESC, id DESC LIMIT ?"  # a server's newest calls


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _answer_text(answer: dict[str, Any]) -> str:
    text = _json(answer)
    if len(text) <= MAX_ANSWER_CHARS:
        return text
    return _json({"error": f"the answer ({len(text) // 1_000_000} MB) was too large to keep in the history",
                  "omitted": True})


def record(store: Any, server: str, *, kind: str, item: str, label: str, arguments: dict[str, Any],
           raw: dict[str, Any], ok: bool, elapsed_ms: float, answer: dict[str, Any], at: float | None = None,
           retention_days: float = 0, limit: int = PER_SERVER) -> int:
    """Add one call; prune the server's calls past `limit` and everyone's older than `retention_days`
    (0 keeps them by age forever). Returns the new row's id."""
    at = time.time() if at is None else at
    with store._engine.begin() as conn:
        row_id = conn.insert("mcp_calls", {
            "server": server, "at": at, "kind": kind, "item": item, "label": label, "arguments": _json(arguments),
            "raw": _json(raw), "ok": ok, "elapsed_ms": elapsed_ms, "answer": _answer_text(answer)})
        conn.execute(f"DELETE FROM mcp_calls WHERE server = ? AND id NOT IN (SELECT id {_NEWEST})",
                     (server, server, limit))
        if retention_days > 0:
            conn.execute("DELETE FROM mcp_calls WHERE at < ?", (at - retention_days * DAY,))
    return int(row_id)


def recent(store: Any, server: str, limit: int = PER_SERVER) -> list[dict[str, Any]]:
    """The server's calls, oldest first (as the in-memory history), JSON columns decoded; a row whose
    JSON cannot be read (written by something else) comes back with empty values, never an error."""
    with store._reads.connect() as conn:
        rows = [r._mapping for r in conn.execute(f"SELECT * {_NEWEST}", (server, limit))]
    for row in rows:
        for column, empty in (("arguments", {}), ("raw", {}), ("answer", {"error": "(unreadable)"})):
            try:
                value = json.loads(row[column])
            except (TypeError, ValueError):
                value = empty
            row[column] = value if isinstance(value, dict) else empty
    return rows[::-1]


def prune(store: Any, retention_days: float, now: float | None = None) -> int:
    """Delete calls older than the retention setting (0 keeps them); returns how many."""
    if retention_days <= 0:
        return 0
    cutoff = (time.time() if now is None else now) - retention_days * DAY
    with store._engine.begin() as conn:
        return conn.execute("DELETE FROM mcp_calls WHERE at < ?", (cutoff,)).rowcount
