"""opencode, a third-party ACP agent from the npm registry, driven from Whimbrel as a configured agent.

It runs offline against the fake model server (tests/acp/opencode.py): its reply streams into the
transcript, each write waits for Whimbrel's approval modal (a write outside the workspace is flagged
there, and a denial leaves the file alone), and the usage it reports is stored. Skipped, with the
reason, when `npm ci --prefix tests/acp/node` has not installed it.
"""

from __future__ import annotations

import json

import pytest

from app.tui.screens.approval import ApprovalScreen
from tests.acp.opencode import MISSING, OPENCODE, is_title_request, opencode_agent_table
from tests.fake_llm.script import TextReply, ToolCallReply
from tests.ui.helpers import make_app, screen_is, screen_text, submit, wait_for
from tests.ui.test_external_agent import AGENT_WAIT, config_with_agents, open_agent
from widgets.tool_card import ToolCard

pytestmark = [pytest.mark.timeout(600), pytest.mark.skipif(not OPENCODE.exists(), reason=MISSING)]


def write_call(path, content: str, call_id: str) -> ToolCallReply:
    return ToolCallReply([("write", json.dumps({"filePath": str(path), "content": content}), call_id)])


@pytest.mark.loop_held_known("the ACP client builds its pydantic schemas on the loop when it connects: 1.3 s")
async def test_opencodes_writes_wait_for_whimbrels_modal_and_its_usage_is_stored(fake_openai, tmp_path):
    inside, outside = tmp_path / "ws" / "x.txt", tmp_path / "outside.txt"
    fake_openai.answer_aside(is_title_request, TextReply("A title"))
    fake_openai.queue(write_call(inside, "from opencode\n", "c1"), TextReply("Wrote x.txt for you."),
                      write_call(outside, "escaped\n", "c2"))
    config = config_with_agents(tmp_path, fake_openai.base_url,
                                opencode=opencode_agent_table(tmp_path, fake_openai.base_url))
    app = make_app(tmp_path, fake_openai.base_url, config=config)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_agent(pilot, app, "opencode")
        await submit(pilot, "create x.txt")
        await wait_for(pilot, lambda: screen_is(app, ApprovalScreen), AGENT_WAIT, "the first write's modal")
        assert "x.txt" in screen_text(app) and "outside the workspace" not in screen_text(app)
        assert not inside.exists()  # opencode waits for the answer
        await pilot.press("y")
        await wait_for(pilot, lambda: "Wrote x.txt for you." in screen_text(app), AGENT_WAIT, "the streamed reply")
        await wait_for(pilot, lambda: app.workstream.state == "idle", AGENT_WAIT, "the first turn's end")
        assert inside.read_text() == "from opencode\n"
        [row] = await app.store.list_usage(app.workstream.id)  # opencode reports the turn's tokens
        assert row.model == "agent opencode" and row.prompt_tokens > 0 and row.completion_tokens > 0

        await submit(pilot, "now write outside")
        await wait_for(pilot, lambda: screen_is(app, ApprovalScreen) and "outside.txt" in screen_text(app),
                       AGENT_WAIT, "the outside write's modal")
        assert "why: agent opencode asks permission; outside the workspace: /" in screen_text(app)
        await pilot.press("n")
        await wait_for(pilot, lambda: app.workstream.state == "idle", AGENT_WAIT, "the second turn's end")
        cards = {card.call_id: card for card in app.screen.query(ToolCard)}
        assert cards["c1"].status == "done" and cards["c2"].status in ("denied", "error")
        assert "rejected" in screen_text(app)  # opencode's own words for the denial, on the card
    assert not outside.exists()
    assert fake_openai.pending() == 0
