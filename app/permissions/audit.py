"""The audit log: one row per tool call, with who decided and how it ended; read back with filters.

Writes go through the store's engine (BEGIN IMMEDIATE), reads through `reader(engine)`, so two
instances on one store and a kill at any moment leave whole rows.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import asdict, dataclass, replace
from typing import Any

from app.storage.dialect import glob, like
from app.storage.identity import who
from app.vocabulary.secrets import redact, redact_value

REDACTED = "[redacted]"
TEXT_FIELDS = ("decided_by", "risk", "status")  # redacted as text; `arguments` as the JSON it holds


def redact_text(text: str) -> str:
    """Credentials in free text (a command line, a URL, a reason) replaced by [redacted]."""
    return redact(text)


def redact_arguments(value: Any) -> Any:
    """A call's arguments with secret-named keys and credential-shaped values redacted."""
    return redact_value(value)


@dataclass
class AuditRow:
    """One call as the audit log keeps it."""

    workstream_id: str
    call_id: str
    tool: str
    arguments: str  # JSON, redacted
    decision: str  # allowed | approved | denied | refused
    decided_by: str
    mode: str
    risk: str
    sandbox: str
    status: str
    duration_ms: float | None = None
    agent: str | None = None
    created_at: float = 0.0
    id: int | None = None
    who: str | None = None  # the instance that wrote it (user@host or [team] name): filled in by `append`

    def redacted(self) -> "AuditRow":
        """This row with every text it keeps redacted (rows written before a pattern was known too)."""
        changes = {name: redact(getattr(self, name)) for name in TEXT_FIELDS if isinstance(getattr(self, name), str)}
        return replace(self, arguments=_redacted_json(self.arguments), **changes)

    def as_json(self) -> dict[str, Any]:
        data = asdict(self.redacted())
        if data["arguments"].startswith(("{", "[")):
            try:
                data["arguments"] = json.loads(data["arguments"])
            except ValueError:
                pass
        data["time"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.created_at))
        return data


def _redacted_json(text: str) -> str:
    """Arguments kept as JSON stay JSON: redacted value by value (a key named `token` included)."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return redact(text) if isinstance(text, str) else text
    cleaned = redact_value(value)
    return text if cleaned == value else json.dumps(cleaned, ensure_ascii=False, default=str)


def append(engine: Any, row: AuditRow) -> int:
    """Write one row (its own short transaction), every text redacted; returns its id."""
    values = {k: v for k, v in asdict(row.redacted()).items() if k != "id"}
    values["created_at"] = row.created_at or time.time()
    values["who"] = row.who or who()
    with engine.begin() as conn:
        return int(conn.insert("audit_log", values))


def _prefix_pattern(text: str) -> str:
    """A LIKE pattern (escape character /) for the values that start with `text` literally."""
    return text.replace("/", "//").replace("%", "/%").replace("_", "/_") + "%"


def query(engine: Any, *, since: float | None = None, tool: str | None = None, decision: str | None = None,
          workstream: str | None = None, limit: int = 10_000) -> list[AuditRow]:
    """Rows, oldest first, filtered by time, tool (glob), decision and workstream (an id prefix, or a
    sub-agent's name such as task-1)."""
    from app.storage.engine import reader

    where: list[str] = []
    params: list[Any] = []
    if since is not None:
        where.append("created_at >= ?")
        params.append(since)
    with reader(engine).connect() as conn:
        if tool:
            condition, pattern = glob(conn, "tool", tool)
            where.append(condition)
            params.append(pattern)
        if decision:
            where.append("decision = ?")
            params.append(decision)
        if workstream:
            where.append(f"(workstream_id {like(conn)} ? ESCAPE '/' OR agent = ?)")
            params += [_prefix_pattern(workstream), workstream]
        sql = "SELECT * FROM audit_log" + (" WHERE " + " AND ".join(where) if where else "")
        rows = conn.execute(sql + " ORDER BY created_at, id LIMIT ?", [*params, limit])
        return [AuditRow(**r._mapping).redacted() for r in rows]


def prune(engine: Any, retention_days: float, now: float | None = None) -> int:
    """Delete rows older than the retention setting (0 keeps them forever); returns how many."""
    if retention_days <= 0:
        return 0
    cutoff = (now or time.time()) - retention_days * 86400
    with engine.begin() as conn:
        return conn.execute("DELETE FROM audit_log WHERE created_at < ?", (cutoff,)).rowcount or 0


def parse_since(text: str, now: float | None = None) -> float:
    """`30m`, `1h`, `2d`, `1w` before now, as a timestamp; ValueError with the accepted forms."""
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*", text or "")
    if not found:
        raise ValueError(f"--since takes a number and a unit (s, m, h, d, w), such as 1h or 2d; got {text!r}")
    seconds = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}[found.group(2)]
    return (now or time.time()) - float(found.group(1)) * seconds
