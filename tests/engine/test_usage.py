"""Usage rows per request, with cost from config prices or built-in estimates."""

from __future__ import annotations

import pytest

from app.engine import events as ev
from app.engine.usage import tokens_per_turn
from app.providers.pricing import cost, format_cost, price_for
from tests.engine.harness import Recorder
from tests.engine.models_harness import anthropic_model, close, models_session, openai_model, registry_for
from tests.fake_llm.script import TextReply, ToolCallReply


def test_prices_config_beats_builtin_estimates() -> None:
    builtin = price_for("claude-sonnet-4-6")
    assert builtin is not None and builtin.estimated and builtin.input == 3.0
    assert price_for("anthropic/claude-sonnet-4-6") == builtin  # provider-prefixed names too
    mine = price_for("claude-sonnet-4-6", {"input": 1.0, "output": 2.0})
    assert not mine.estimated and mine.cache_read == 1.0
    assert price_for("qwen2.5-coder") is None
    assert price_for("gpt-4.1-mini").input == 0.4  # longest prefix wins over gpt-4.1


def test_cost_counts_cached_tokens_at_their_price() -> None:
    price = price_for("claude-sonnet-4-6")
    usd = cost(price, prompt_tokens=1_000_000, completion_tokens=100_000,
               cache_read_tokens=600_000, cache_write_tokens=100_000)
    assert usd == pytest.approx(0.3 * 3 + 1.5 + 0.6 * 0.3 + 0.1 * 3.75)
    assert cost(None, prompt_tokens=5, completion_tokens=5) is None
    assert format_cost(0.01234, True) == "~$0.0123" and format_cost(None) == "—"


async def test_each_request_is_persisted_with_model_and_cost(fake_openai, fake_anthropic, tmp_path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "a.txt").write_text("A")
    fake_anthropic.cache_usage = (4000, 1000)
    fake_anthropic.queue(ToolCallReply(calls=[("read_file", '{"path": "a.txt"}', "t1")], usage=(10_000, 50)),
                         TextReply("done", usage=(10_100, 20)))
    fake_openai.queue(TextReply("local answer", usage=(300, 10)))
    models = registry_for({"claude": anthropic_model(fake_anthropic, "claude", model="claude-sonnet-4-6"),
                           "local": openai_model(fake_openai, "local", price={"input": 0, "output": 0})})
    rec = Recorder()
    session, store = await models_session(models, workspace, tmp_path, rec)
    await session.run_turn("read a")
    await session.set_model("local")
    await session.run_turn("again")
    rows = await store.list_usage(session.workstream_id)
    assert [(r.model, r.prompt_tokens, r.completion_tokens, r.turn) for r in rows] == [
        ("claude-sonnet-4-6", 10_000, 50, 1), ("claude-sonnet-4-6", 10_100, 20, 1), ("fake-model", 300, 10, 2)]
    assert (rows[0].cache_read_tokens, rows[0].cache_write_tokens) == (4000, 1000)
    assert rows[0].cost == pytest.approx((5000 * 3 + 50 * 15 + 4000 * 0.3 + 1000 * 3.75) / 1e6)
    assert rows[0].cost_estimated and not rows[2].cost_estimated and rows[2].cost == 0
    recorded = rec.of(ev.UsageRecorded)
    assert recorded[-1].session_cost == pytest.approx(sum(r.cost for r in rows))
    assert rec.of(ev.UsageUpdated)[0].cache_read_tokens == 4000
    assert tokens_per_turn(rows) == [10_050 + 10_120, 310]
    totals = await store.usage_totals()
    assert totals[0].requests == 3 and totals[0].cost_estimated
    await close(models, store)
