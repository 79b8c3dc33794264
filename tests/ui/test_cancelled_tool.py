"""Esc while a bash command runs: its card keeps the output so far and says it was cancelled."""

from __future__ import annotations

import json

from tests.fake_llm.script import ToolCallReply
from tests.ui.helpers import answer_approval, make_app, screen_text, wait_for
from widgets.tool_card import ToolCard


async def test_esc_keeps_a_running_commands_output_on_its_card(fake_openai, tmp_path):
    command = "echo compiling module one; printf 'half a line'; sleep 30"
    fake_openai.queue(ToolCallReply([("bash", json.dumps({"command": command}), "b1")]))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 40)) as pilot:
        await answer_approval(pilot, "build it", "y")
        card = app.screen.query_one(ToolCard)
        await wait_for(pilot, lambda: "compiling module one" in screen_text(app), message="streamed output")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.workstream.busy, message="the cancelled turn")
        await wait_for(pilot, lambda: "cancelled this call" in screen_text(app), message="the result on the card")
        assert "compiling module one\nhalf a line" in screen_text(app)
        assert card.status == "error"
