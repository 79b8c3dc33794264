"""Store methods for usage rows and compaction summaries (schema version 2), mixed into Store."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

CODE_CALL_IDS = "%:code:%"  # a run_code program's calls: <run_code call id>:code:<n> (app/engine/code_calls.py)


@dataclass(frozen=True)
class UsageRow:
    """One model request's tokens and cost."""

    id: int
    workstream_id: str
    model: str
    alias: str | None
    provider: str | None
    prompt_tokens: int
    completion_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    cost: float | None
    cost_estimated: bool
    turn: int
    created_at: float


@dataclass(frozen=True)
class UsageTotal:
    """One workstream's (or, with workstream_id "", everything's) usage summed up."""

    workstream_id: str
    title: str | None
    requests: int
    prompt_tokens: int
    completion_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    cost: float | None  # None when no request had a known price
    cost_estimated: bool  # some of the cost is a built-in estimate
    tool_calls: int = 0  # rows of the audit log: every tool call, a run_code program's own included
    code_calls: int = 0  # of those, the calls run_code programs made


@dataclass(frozen=True)
class CompactionRow:
    id: int
    workstream_id: str
    summary: str
    focus: str | None
    last_message_id: int
    tokens_before: int | None
    created_at: float


USAGE_FIELDS = ("model", "alias", "provider", "prompt_tokens", "completion_tokens",
                "cache_read_tokens", "cache_write_tokens", "cost", "cost_estimated", "turn")


class UsageMixin:
    """Needs `self._engine` (writes), `self._reads` (reads), `self._clock` and `self._check_writer`
    (as Store has: rows of a workstream another window took over are refused, app/storage/leases.py)."""

    _engine: Any
    _reads: Any
    _clock: Any
    _check_writer: Any

    def add_usage(self, workstream_id: str, **fields: Any) -> int:
        """Record one request; `fields` are USAGE_FIELDS (model required). Returns the row id."""
        unknown = set(fields) - set(USAGE_FIELDS)
        if unknown:
            raise ValueError(f"unknown usage field(s): {', '.join(sorted(unknown))}")
        with self._engine.begin() as conn:
            self._check_writer(conn, workstream_id)
            return conn.insert("usage", {"workstream_id": workstream_id, "created_at": self._clock(), **fields})

    def list_usage(self, workstream_id: str) -> list[UsageRow]:
        """A workstream's usage rows, oldest first."""
        with self._reads.connect() as conn:
            rows = conn.execute("SELECT * FROM usage WHERE workstream_id = ? ORDER BY id", (workstream_id,))
            return [UsageRow(**r._mapping) for r in rows]

    def usage_totals(self) -> list[UsageTotal]:
        """Per-workstream totals, most expensive first (then most tokens)."""
        query = """SELECT u.workstream_id, w.title, count(u.id), sum(u.prompt_tokens), sum(u.completion_tokens),
                          sum(u.cache_read_tokens), sum(u.cache_write_tokens), sum(u.cost), max(u.cost_estimated)
                   FROM usage AS u JOIN workstreams AS w ON w.id = u.workstream_id
                   GROUP BY u.workstream_id, w.title"""
        with self._reads.connect() as conn:
            rows = conn.execute(query).all()
        calls = self._tool_call_counts()
        totals = [UsageTotal(r[0], r[1], r[2], r[3] or 0, r[4] or 0, r[5] or 0, r[6] or 0, r[7],
                             bool(r[8]), *calls.get(r[0], (0, 0))) for r in rows]
        totals.sort(key=lambda t: (-(t.cost or 0.0), -(t.prompt_tokens + t.completion_tokens)))
        return totals

    def _tool_call_counts(self) -> dict[str, tuple[int, int]]:
        """Per workstream: (tool calls, of which made by run_code programs), from the audit log."""
        query = """SELECT workstream_id, count(id), sum(CASE WHEN call_id LIKE ? THEN 1 ELSE 0 END)
                   FROM audit_log GROUP BY workstream_id"""
        with self._reads.connect() as conn:
            return {r[0]: (r[1], r[2] or 0) for r in conn.execute(query, (CODE_CALL_IDS,))}

    def add_compaction(self, workstream_id: str, *, summary: str, last_message_id: int,
                       focus: str | None = None, tokens_before: int | None = None) -> int:
        with self._engine.begin() as conn:
            self._check_writer(conn, workstream_id)
            return conn.insert("compactions", {
                "workstream_id": workstream_id, "summary": summary, "focus": focus,
                "last_message_id": last_message_id, "tokens_before": tokens_before, "created_at": self._clock()})

    def latest_compaction(self, workstream_id: str) -> CompactionRow | None:
        """The most recent compaction (apply it on resume with engine.compaction.apply_compaction)."""
        with self._reads.connect() as conn:
            row = conn.execute("SELECT * FROM compactions WHERE workstream_id = ? ORDER BY id DESC LIMIT 1",
                               (workstream_id,)).first()
        return CompactionRow(**dict(row._mapping)) if row else None
