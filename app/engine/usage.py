"""Usage accounting for one session: each request's tokens and cost, and running totals."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from app.providers.base import ModelSettings, UsageChunk
from app.providers.pricing import cost, price_for


@dataclass
class UsageRecord:
    """One model request, as stored in the `usage` table."""

    model: str
    alias: str | None
    provider: str | None
    prompt_tokens: int
    completion_tokens: int
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost: float | None = None
    cost_estimated: bool = False
    turn: int = 0

    def fields(self) -> dict:
        """Keyword arguments for Store.add_usage."""
        return asdict(self)


@dataclass
class UsageTracker:
    """Records requests and keeps the totals a status bar and `/cost` show."""

    records: list[UsageRecord] = field(default_factory=list)
    turn: int = 0
    last_prompt_tokens: int = 0  # the latest request's prompt: how full the context is

    def record(self, settings: ModelSettings, chunk: UsageChunk) -> UsageRecord:
        price = price_for(settings.model, settings.price)
        amount = cost(price, prompt_tokens=chunk.prompt_tokens,
                      completion_tokens=chunk.completion_tokens,
                      cache_read_tokens=chunk.cache_read_tokens,
                      cache_write_tokens=chunk.cache_write_tokens)
        return self.add(UsageRecord(settings.model, settings.alias or None, settings.provider,
                                    chunk.prompt_tokens, chunk.completion_tokens,
                                    chunk.cache_read_tokens, chunk.cache_write_tokens, amount,
                                    bool(price and price.estimated), self.turn))

    def add(self, record: UsageRecord) -> UsageRecord:
        """Count a record made elsewhere (an external agent's report of its turn)."""
        self.records.append(record)
        self.last_prompt_tokens = record.prompt_tokens
        return record

    @property
    def session_cost(self) -> float | None:
        known = [r.cost for r in self.records if r.cost is not None]
        return sum(known) if known else None

    @property
    def estimated(self) -> bool:
        return any(r.cost_estimated for r in self.records)

    @property
    def session_tokens(self) -> int:
        return sum(r.prompt_tokens + r.completion_tokens for r in self.records)


def tokens_per_turn(rows: list) -> list[int]:
    """Prompt + completion tokens summed per user turn (rows: UsageRecord or UsageRow)."""
    totals: dict[int, int] = {}
    for row in rows:
        totals[row.turn] = totals.get(row.turn, 0) + row.prompt_tokens + row.completion_tokens
    return [totals[t] for t in sorted(totals)]


def context_at_resume(rows: list, reset_at: float = 0.0) -> int:
    """How full the context is when a saved workstream opens again: what its last request filled
    (prompt + completion, as the gauge showed then), or 0 when a compaction or /clear came after it."""
    if not rows or rows[-1].created_at < reset_at:
        return 0
    return rows[-1].prompt_tokens + rows[-1].completion_tokens
