"""What an external agent reports of its usage, as Whimbrel's usage rows and status-bar events.

ACP carries it two ways: `usage_update` session updates (tokens in context, the window's size, the
session's cumulative cost) and the prompt response's `usage` (the turn's tokens). Each turn stores one
row with its tokens and the cost added since the row before, so the status bar, `/cost` and a resumed
workstream count an agent's turns like a model's. A cost in a currency other than USD is not counted
(Whimbrel's costs are in USD); an agent that reports nothing leaves no row.
"""

from __future__ import annotations

from typing import Any

from app.engine import events as ev
from app.engine.usage import UsageRecord


class AgentUsage:
    """The usage book of one ExternalAgentSession."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self.reported_cost: float | None = None  # the agent session's cumulative USD, as last reported
        self.counted_cost: float | None = None  # the report the last row counted up to (None: none yet)
        self.baseline: float | None = 0.0  # where its count starts (None: the stored rows' sum, read once)
        self.gauge_seen = False  # this turn had a usage_update (the context gauge came from it)

    def session_opened(self, *, loaded: bool) -> None:
        """A new agent session counts from zero; a loaded one from what the stored rows hold already."""
        self.reported_cost, self.counted_cost, self.baseline = None, None, None if loaded else 0.0

    def turn_started(self) -> None:
        self.gauge_seen = False

    def on_update(self, update: Any) -> None:
        """A `usage_update`: the context gauge now, and the cost so far."""
        self.gauge_seen = True
        self.session.emit(ev.UsageUpdated(update.used, 0, update.used, update.size or None))
        cost = update.cost
        if cost is not None and str(cost.currency).upper() == "USD":
            self.reported_cost = float(cost.amount)

    async def turn_ended(self, usage: Any) -> None:
        """The prompt response's `usage` (or None): store the turn's row and show the totals."""
        added = await self._cost_added()
        if usage is None and added is None:
            return
        prompt, completion = (usage.input_tokens, usage.output_tokens) if usage is not None else (0, 0)
        cache_read = (usage.cached_read_tokens or 0) if usage is not None else 0
        cache_write = (usage.cached_write_tokens or 0) if usage is not None else 0
        session = self.session
        if usage is not None and not self.gauge_seen:
            session.emit(ev.UsageUpdated(prompt, completion, usage.total_tokens, None, cache_read, cache_write))
        record = session.usage.add(UsageRecord(f"agent {session.agent.name}", None, "acp", prompt, completion,
                                               cache_read, cache_write, added, False, session.usage.turn))
        if session.store is not None and session.workstream_id:
            await session.store.add_usage(session.workstream_id, **record.fields())
        session.emit(ev.UsageRecorded(record.model, prompt, completion, cache_read, cache_write, added, False,
                                      session.usage.session_cost, session.usage.session_tokens))

    async def _cost_added(self) -> float | None:
        """USD the agent reported since the last row (None when it reports no cost).

        A loaded session's total includes its earlier turns, which the stored rows hold; an agent that
        counts a loaded session from zero again reports less than those, and its report is all new."""
        if self.reported_cost is None:
            return None
        if self.counted_cost is None and self.baseline is None:
            rows = await self.session.store.list_usage(self.session.workstream_id) if self.session.store else []
            self.baseline = sum(row.cost or 0.0 for row in rows)
        previous = self.counted_cost if self.counted_cost is not None else self.baseline
        added = self.reported_cost - previous
        self.counted_cost = self.reported_cost
        return added if added >= 0 else self.reported_cost
