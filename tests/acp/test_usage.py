"""`whimbrel acp` reports its usage: a `usage_update` per model request (tokens in context, the window, the
session's cost so far) and the turn's tokens in the prompt response."""

from __future__ import annotations

import json

import pytest

from tests.acp.harness import RecordingClient, priced_config, whimbrel_acp
from tests.acp.test_agent import prompt
from tests.fake_llm.script import TextReply, ToolCallReply


async def test_each_request_sends_a_usage_update_and_the_answer_sums_the_turn(fake_openai, tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    fake_openai.queue(ToolCallReply([("read_file", json.dumps({"path": "a.txt"}), "r1")], usage=(800, 20)),
                      TextReply("It is empty.", usage=(1000, 50)))
    (workspace / "a.txt").write_text("")
    client = RecordingClient("allow")
    config = priced_config(tmp_path, fake_openai.base_url)
    async with whimbrel_acp(client, workspace, fake_openai.base_url, tmp_path / "agent.log",
                            "--config", str(config), "--model", "priced") as (conn, _proc):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        response = await prompt(conn, session.session_id, "what is in a.txt?")
    assert response.stop_reason == "end_turn"
    first, second = client.of_kind("usage_update")
    assert (first.used, first.size, second.used, second.size) == (800, 32000, 1000, 32000)
    assert first.cost.currency == "USD" and first.cost.amount == pytest.approx((800 * 2 + 20 * 8) / 1e6)
    assert second.cost.amount == pytest.approx((1800 * 2 + 70 * 8) / 1e6)  # the session's cost so far
    usage = response.usage
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (1800, 70, 1870)


async def test_a_model_without_a_price_reports_tokens_and_no_cost(fake_openai, tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    fake_openai.queue(TextReply("Hello.", usage=(300, 5)))
    client = RecordingClient("allow")
    async with whimbrel_acp(client, workspace, fake_openai.base_url, tmp_path / "agent.log") as (conn, _proc):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        response = await prompt(conn, session.session_id, "hi")
    [update] = client.of_kind("usage_update")
    assert (update.used, update.cost) == (300, None)
    assert (response.usage.input_tokens, response.usage.output_tokens) == (300, 5)


async def test_a_loaded_session_reports_its_whole_cost_earlier_turns_included(fake_openai, tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    fake_openai.queue(TextReply("First.", usage=(1000, 0)), TextReply("Second.", usage=(500, 0)))
    extra = ("--config", str(priced_config(tmp_path, fake_openai.base_url)), "--model", "priced")
    client = RecordingClient("allow")
    async with whimbrel_acp(client, workspace, fake_openai.base_url, tmp_path / "agent.log", *extra) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await prompt(conn, session.session_id, "one")
    later = RecordingClient("allow")
    async with whimbrel_acp(later, workspace, fake_openai.base_url, tmp_path / "agent.log", *extra) as (conn, _):
        await conn.load_session(cwd=str(workspace), session_id=session.session_id, mcp_servers=[])
        await prompt(conn, session.session_id, "two")
    [update] = later.of_kind("usage_update")
    assert update.cost.amount == pytest.approx((1000 + 500) * 2 / 1e6)
