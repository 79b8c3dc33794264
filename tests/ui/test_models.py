"""Pilot tests: two configured models (OpenAI-compatible and Anthropic), switching, tools on both,
cost and context in the status bar, and a visible fallback when the primary endpoint dies."""

from __future__ import annotations

import json

from app.tui.app import WhimbrelApp
from app.providers.base import ModelSettings
from app.providers.models import ModelRegistry
from app.tui.screens.approval import ApprovalScreen
from tests.fake_llm.script import ErrorReply, TextReply, ToolCallReply
from tests.ui.helpers import booted, make_app, screen_is, screen_text, send, take_turn, wait_for
from widgets.status_bar import StatusBar


def two_model_app(tmp_path, openai_server, anthropic_server) -> WhimbrelApp:
    local = ModelSettings(model="fake-model", base_url=openai_server.base_url, api_key="x", alias="local",
                          provider="openai", context_window=32000, timeout=5.0,
                          price={"input": 1.0, "output": 2.0})
    claude = ModelSettings(model="fake-claude", base_url=anthropic_server.base_url, api_key="x", alias="claude",
                           provider="anthropic", context_window=200000, timeout=5.0)
    models = ModelRegistry({"local": local, "claude": claude}, default="local", fallback=["claude"])
    return make_app(tmp_path, settings=local, models=models)


def write(path: str, content: str, call_id: str) -> ToolCallReply:
    return ToolCallReply([("write_file", json.dumps({"path": path, "content": content}), call_id)])


async def test_switch_models_mid_conversation_with_tools_on_both(fake_openai, fake_anthropic, tmp_path):
    fake_openai.queue(write("one.txt", "from openai", "c1"), TextReply("OpenAI wrote one.txt.", usage=(1000, 50)))
    fake_anthropic.queue(write("two.txt", "from claude", "toolu_1"), TextReply("Claude wrote two.txt."))
    app = two_model_app(tmp_path, fake_openai, fake_anthropic)
    async with app.run_test(size=(130, 40)) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set())
        status = app.main_screen.query_one(StatusBar)
        await send(pilot, "write one.txt")
        await wait_for(pilot, lambda: screen_is(app, ApprovalScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: "OpenAI wrote one.txt." in screen_text(app))
        await wait_for(pilot, lambda: app.workstream.cost is not None)
        line = str(status.describe())
        assert "fake-model" in line and "/ 32.0k" in line and "$0.00" in line  # context gauge and cost

        await send(pilot, "/model claude")
        await wait_for(pilot, lambda: "Now using claude" in screen_text(app))
        assert app.workstream.model == "fake-claude" and "200.0k" in str(status.describe())
        await send(pilot, "now write two.txt")
        await wait_for(pilot, lambda: screen_is(app, ApprovalScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: "Claude wrote two.txt." in screen_text(app))
        assert (tmp_path / "ws" / "one.txt").read_text() == "from openai"
        assert (tmp_path / "ws" / "two.txt").read_text() == "from claude"
        # the Anthropic request carried the earlier OpenAI tool exchange, translated
        sent = fake_anthropic.requests[0]["messages"]
        assert any(block.get("type") == "tool_result" for m in sent if isinstance(m["content"], list)
                   for block in m["content"])
        assert (await app.store.get_config(app.workstream.id))["model_alias"] == "claude"


async def test_dead_primary_falls_back_visibly(fake_openai, fake_anthropic, tmp_path):
    fake_openai.queue(*[ErrorReply(503, "down for maintenance") for _ in range(10)])
    fake_anthropic.queue(TextReply("Answered by the fallback."))
    app = two_model_app(tmp_path, fake_openai, fake_anthropic)
    async with app.run_test(size=(130, 40)) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set())
        await send(pilot, "hello?")
        await wait_for(pilot, lambda: "Answered by the fallback." in screen_text(app), timeout=30)
        text = screen_text(app)
        assert "falling back to claude" in text and "local is unreachable" in text


async def test_unknown_model_alias_is_a_one_line_message(fake_openai, fake_anthropic, tmp_path):
    app = two_model_app(tmp_path, fake_openai, fake_anthropic)
    async with app.run_test(size=(130, 40)) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set())
        await send(pilot, "/model gpt-9")
        await wait_for(pilot, lambda: "no model called 'gpt-9'" in screen_text(app))
        assert "local" in screen_text(app) and "claude" in screen_text(app)


async def test_the_context_gauge_after_a_restart_reads_what_the_last_request_filled(fake_openai, tmp_path):
    fake_openai.queue(TextReply("Hello there.", usage=(5200, 48)))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(140, 30)) as pilot:
        await booted(pilot)
        await take_turn(pilot, "hi")
        status = app.main_screen.query_one(StatusBar)
        await wait_for(pilot, lambda: "5.2k / 32.0k" in str(status.describe()), message="the live gauge")
        workstream_id = app.workstream.id
    again = make_app(tmp_path, fake_openai.base_url, resume=workstream_id[:8])
    async with again.run_test(size=(140, 30)) as pilot:
        await booted(pilot)
        status = again.main_screen.query_one(StatusBar)
        await wait_for(pilot, lambda: "5.2k / 32.0k" in str(status.describe()), message="the gauge on resume")
    assert len(fake_openai.requests) == 1  # no turn was needed to know it
