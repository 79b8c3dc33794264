"""`whimbrel db copy --to URL`: a personal store's history into another store (a team's PostgreSQL), idempotent.

The target may already hold other people's work, so rows are never copied by their numbers: a
workstream (its id is a random uuid, the same everywhere) is copied whole, in one transaction, with
every row that belongs to it; rows numbered by the database (messages, pieces, usage, checkpoints…)
get the target's next numbers, and the columns that point at them (a piece's message, a compaction's
last message, a checkpoint's user message, an undo's rewind) are renumbered to match. A workstream the
target already has is skipped whole, so running the copy again copies nothing.

Outside workstreams: memories (unique by name within their scope), accepted project policy files
(by path) and team policy rules (by name; each instance still reviews them before they apply) are
added where the target has none of that key; audit rows and the MCP inspector's calls
where the target has no row of the same call at the same moment. Not copied: leases (which window has
what open: this machine's live state) and app state (this machine's tabs and layout).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.storage.schema import SERIAL_TABLES

_OWN = "SELECT * FROM {table} WHERE workstream_id = ? ORDER BY {order}"
_VIA_MESSAGE = ("SELECT p.* FROM {table} p JOIN messages m ON m.id = p.message_id "
                "WHERE m.workstream_id = ? ORDER BY p.id")

# (table, how its rows of one workstream are read, column -> the table whose new numbers it takes),
# in an order where every row comes after what it points at.
WORKSTREAM_TABLES: tuple[tuple[str, str, dict[str, str]], ...] = (
    ("messages", _OWN.format(table="messages", order="id"), {}),
    ("message_pieces", _VIA_MESSAGE.format(table="message_pieces"), {"message_id": "messages"}),
    ("draft_pieces", _VIA_MESSAGE.format(table="draft_pieces"), {"message_id": "messages"}),
    ("compactions", _OWN.format(table="compactions", order="id"), {"last_message_id": "messages"}),
    ("context_resets", _OWN.format(table="context_resets", order="seq"), {}),
    ("prompt_history", _OWN.format(table="prompt_history", order="id"), {}),
    ("usage", _OWN.format(table="usage", order="id"), {}),
    ("workstream_config", _OWN.format(table="workstream_config", order='"key"'), {}),
    ("checkpoints", _OWN.format(table="checkpoints", order="id"), {"user_message_id": "messages"}),
    ("checkpoint_ops", _OWN.format(table="checkpoint_ops", order="id"), {"undoes": "checkpoint_ops"}),
    ("subagent_runs", _OWN.format(table="subagent_runs", order="created_at, id"), {}),
    ("subagent_messages", "SELECT s.* FROM subagent_messages s JOIN subagent_runs r ON r.id = s.run_id "
                          "WHERE r.workstream_id = ? ORDER BY s.id", {}),
    ("watches", _OWN.format(table="watches", order="created_at, id"), {}),
    ("workstream_forks", "SELECT * FROM workstream_forks WHERE child_id = ?", {}),
)

# Shared tables: (table, the columns that make two rows the same record).
SHARED_TABLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("memories", ("name", "scope", "scope_key")),
    ("policy_reviews", ("path",)),
    ("team_policy", ("name",)),
    ("audit_log", ("workstream_id", "call_id", "created_at", "tool")),
    ("mcp_calls", ("server", "at", "kind", "item")),
)


@dataclass
class CopyReport:
    """What a copy did: rows added per table, and the workstreams it skipped (already there)."""

    added: dict[str, int] = field(default_factory=dict)
    skipped_workstreams: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def count(self, table: str, n: int = 1) -> None:
        self.added[table] = self.added.get(table, 0) + n

    @property
    def total(self) -> int:
        return sum(self.added.values())


def _insert(conn: Any, table: str, row: dict[str, Any]) -> int:
    """Insert `row`; a database-numbered table takes the target's next number (returned)."""
    if table in SERIAL_TABLES:
        row = {k: v for k, v in row.items() if k != "id"}
    return conn.insert(table, row)


def _copy_workstream(source: Any, target: Any, ws: dict[str, Any], report: CopyReport) -> None:
    numbers: dict[str, dict[int, int]] = {"messages": {}, "checkpoint_ops": {}}
    with source.engine.connect() as conn:
        rows = {table: [dict(r._mapping) for r in conn.execute(sql, (ws["id"],))]
                for table, sql, _ in WORKSTREAM_TABLES}
    with target.engine.begin() as conn:
        if conn.execute("SELECT 1 FROM workstreams WHERE id = ?", (ws["id"],)).first() is not None:
            report.skipped_workstreams.append(ws["id"])  # another copy got there first
            return
        if ws["alias"] and conn.execute("SELECT 1 FROM workstreams WHERE alias = ?", (ws["alias"],)).first():
            report.notes.append(f"alias {ws['alias']!r} is taken in the target: {ws['id'][:8]} copied without it")
            ws = {**ws, "alias": None}
        conn.insert("workstreams", ws)
        report.count("workstreams")
        for table, _sql, pointers in WORKSTREAM_TABLES:
            for row in rows[table]:
                for column, numbered in pointers.items():
                    if row.get(column) is not None:
                        row[column] = numbers[numbered].get(row[column], row[column])
                new = _insert(conn, table, row)
                if table in numbers:
                    numbers[table][row["id"]] = new
                report.count(table)


def _copy_shared(source: Any, target: Any, report: CopyReport) -> None:
    for table, key in SHARED_TABLES:
        with source.engine.connect() as conn:
            rows = [dict(r._mapping) for r in conn.execute(f"SELECT * FROM {table} ORDER BY 1")]
        same = " AND ".join(f'"{column}" = ?' for column in key)
        with target.engine.begin() as conn:
            for row in rows:
                if conn.execute(f"SELECT 1 FROM {table} WHERE {same}", [row[c] for c in key]).first() is None:
                    _insert(conn, table, row)
                    report.count(table)


def copy_store(source: Any, target: Any) -> CopyReport:
    """Copy what `source` holds into `target` (both open Stores); running it again adds nothing."""
    report = CopyReport()
    with source.engine.connect() as conn:
        workstreams = [dict(r._mapping) for r in conn.execute("SELECT * FROM workstreams ORDER BY created_at, id")]
    with target.engine.connect() as conn:
        present = set(conn.execute("SELECT id FROM workstreams").scalars())
    for ws in workstreams:
        if ws["id"] in present:
            report.skipped_workstreams.append(ws["id"])
        else:
            _copy_workstream(source, target, ws, report)
    _copy_shared(source, target, report)
    return report
