"""Requests from a real MCP server (server-everything over stdio) in the app: elicitation forms and
URLs, sampling approvals on the workstream's model, and progress on the tool card."""

from __future__ import annotations

import asyncio
import json

from textual.widgets import Button, Input

from app.settings.config import load_config
from app.permissions.rules import Rule
from app.tui.screens.approval import ApprovalScreen
from app.tui.screens.elicitation import ElicitationScreen
from app.tui.screens.sampling import SamplingScreen
from tests.fake_llm.script import TextReply, ToolCallReply
from tests.mcp.conftest import NODE_BIN, needs_node
from tests.ui.helpers import make_app, screen_is, screen_text, wait_for
from widgets.tab_bar import TabBar

pytestmark = needs_node
ELICIT = "mcp__everything__trigger-elicitation-request"


def everything_app(tmp_path, fake_openai):
    config_path = tmp_path / "config.toml"
    # tool_search off: with its 17 tools the server passes the threshold, and the scripted model calls
    # them directly instead of finding them first
    config_path.write_text(f'[tools]\ntool_search = "off"\n[mcp.servers.everything]\n'
                           f'command = "{NODE_BIN / "mcp-server-everything"}"\nargs = ["stdio"]\n')
    return make_app(tmp_path, fake_openai.base_url, config=load_config(config_path))


async def ready(pilot, app) -> None:
    await wait_for(pilot, lambda: app.ready.is_set())
    await wait_for(pilot, lambda: app.mcp.manager.status("everything")[0] == "ready", timeout=60, message="server ready")
    await wait_for(pilot, lambda: app.workstream.session.registry.get(ELICIT) is not None, message="tools known")


async def ask(pilot, app, text: str) -> None:
    """Send a prompt in the focused workstream and approve the MCP tool call it leads to."""
    view = app.main_screen.view_for(app.focused_id)
    view.prompt.insert(text)
    await pilot.press("enter")
    await wait_for(pilot, lambda: screen_is(app, ApprovalScreen), message="tool approval")
    await pilot.press("y")


def tool_result(fake_openai, index: int) -> str:
    message = fake_openai.requests[index]["messages"][-1]
    assert message["role"] == "tool"
    return message["content"]


async def test_elicitation_waits_in_its_workstream_and_returns_typed_content(fake_openai, tmp_path):
    fake_openai.queue(ToolCallReply([(ELICIT, "{}", "e1")]), TextReply("Thanks, Ann."))
    app = everything_app(tmp_path, fake_openai)
    async with app.run_test(size=(120, 45)) as pilot:
        await ready(pilot, app)
        asker = app.workstream
        asker.session.guard.gate.policy = asker.session.guard.gate.policy.with_rules([Rule(ELICIT, "allow")])
        await app.workspace.new_workstream()  # the user moves on to another tab while the call runs
        other = app.workstream
        assert other is not asker
        app.turns.submit(asker, "please ask me for my details")
        await wait_for(pilot, lambda: asker.pending, message="the request waits in the asking workstream")
        await pilot.pause(0.2)
        assert app.screen is app.main_screen and not other.pending  # never shown over the other tab
        assert "⚑1" in str(app.main_screen.query_one(TabBar).render())
        app.workspace.show_workstream(asker)
        await wait_for(pilot, lambda: screen_is(app, ElicitationScreen), message="modal in its tab")
        modal = app.screen
        await wait_for(pilot, lambda: "Please provide inputs" in screen_text(app))
        assert "MCP server “everything” asks for input" in screen_text(app)
        assert asker.name in screen_text(app)
        await pilot.press("ctrl+s")  # name is required and empty
        await pilot.pause()
        assert isinstance(app.screen, ElicitationScreen) and "String is required" in screen_text(app)
        await pilot.press(*"Ann")
        email = modal.query_one("#field-3", Input)
        email.value = "not-an-email"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "must be an email address" in screen_text(app)
        email.value = "ann@example.com"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "Thanks, Ann." in screen_text(app), timeout=30, message="turn finished")
        result = tool_result(fake_openai, 1)
        assert "- Name: Ann" in result and "- Email: ann@example.com" in result
        raw = json.loads(result.split("Raw result:", 1)[1])
        content = raw["content"]
        assert raw["action"] == "accept"
        assert content["integer"] == 42 and content["number"] == 3.14 and content["check"] is False
        assert content["untitledMultipleSelectEnum"] == ["Guitar"] and content["titledSingleSelectEnum"] == "hero-1"
        assert "birthdate" not in content  # optional and left empty
        assert not asker.pending


async def test_elicitation_decline_and_cancel(fake_openai, tmp_path):
    fake_openai.queue(ToolCallReply([(ELICIT, "{}", "e1")]), TextReply("You declined."),
                      ToolCallReply([(ELICIT, "{}", "e2")]), TextReply("You cancelled."))
    app = everything_app(tmp_path, fake_openai)
    async with app.run_test(size=(120, 45)) as pilot:
        await ready(pilot, app)
        await ask(pilot, app, "ask me")
        await wait_for(pilot, lambda: screen_is(app, ElicitationScreen), message="modal")
        app.screen.query_one("#decline", Button).press()
        await wait_for(pilot, lambda: "You declined." in screen_text(app), timeout=30)
        assert "User declined" in tool_result(fake_openai, 1)
        assert "you declined" in screen_text(app)  # the transcript notes what happened
        await ask(pilot, app, "ask me again")
        await wait_for(pilot, lambda: screen_is(app, ElicitationScreen), message="modal")
        await pilot.press("escape")
        await wait_for(pilot, lambda: "You cancelled." in screen_text(app), timeout=30)
        assert "User cancelled" in tool_result(fake_openai, 3)
        # a call made by hand while another screen is up (as the MCP inspector does): the form opens over it
        app.action_help()
        await wait_for(pilot, lambda: type(app.screen).__name__ == "HelpScreen")
        by_hand = asyncio.ensure_future(app.mcp.manager.call_tool("everything", "trigger-elicitation-request", {}))
        await wait_for(pilot, lambda: screen_is(app, ElicitationScreen), message="modal over the help")
        app.screen.query_one("#decline", Button).press()
        text, _ = await asyncio.wait_for(by_hand, 30)
        assert "User declined" in text and type(app.screen).__name__ == "HelpScreen"


async def test_url_elicitation_opens_the_browser_only_after_confirmation(fake_openai, tmp_path):
    url = "https://auth.example.com/consent?x=1"
    fake_openai.queue(ToolCallReply([("mcp__everything__trigger-url-elicitation", json.dumps({"url": url}), "u1")]),
                      TextReply("Linked."))
    app = everything_app(tmp_path, fake_openai)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        opened: list[str] = []
        app.client_requests.opener = opened.append
        await ask(pilot, app, "link my account")
        await wait_for(pilot, lambda: screen_is(app, ElicitationScreen), message="URL modal")
        await wait_for(pilot, lambda: "auth.example.com" in screen_text(app))
        assert "auth.example.com" in screen_text(app) and url in screen_text(app)
        app.screen.query_one("#open", Button).press()
        await pilot.pause()
        assert opened == []  # not before the user confirms
        app.screen.query_one("#confirm-open", Button).press()
        await wait_for(pilot, lambda: opened == [url], message="browser opened")
        app.screen.query_one("#accept", Button).press()
        await wait_for(pilot, lambda: "Linked." in screen_text(app), timeout=30)
        assert "User completed the URL elicitation flow" in tool_result(fake_openai, 1)


async def test_sampling_runs_on_the_workstream_model_after_approval(fake_openai, tmp_path):
    sample = "mcp__everything__trigger-sampling-request"
    fake_openai.queue(ToolCallReply([(sample, json.dumps({"prompt": "meaning of life", "maxTokens": 20}), "s1")]),
                      TextReply("forty-two", usage=(11, 3)), TextReply("The server heard forty-two."),
                      ToolCallReply([(sample, json.dumps({"prompt": "again", "maxTokens": 20}), "s2")]),
                      TextReply("It was refused."))
    app = everything_app(tmp_path, fake_openai)
    async with app.run_test(size=(120, 45)) as pilot:
        await ready(pilot, app)
        workstream = app.workstream
        await ask(pilot, app, "sample something")
        await wait_for(pilot, lambda: screen_is(app, SamplingScreen), message="sampling approval")
        await wait_for(pilot, lambda: "meaning of life" in screen_text(app))
        text = screen_text(app)
        assert "fake-model" in text and "You are a helpful test server." in text and "meaning of life" in text
        assert "up to 20 tokens" in text
        await pilot.press("y")
        await wait_for(pilot, lambda: "The server heard forty-two." in screen_text(app), timeout=30)
        sampling_call = fake_openai.requests[1]
        assert sampling_call["max_tokens"] == 20 and "tools" not in sampling_call
        assert sampling_call["messages"][0] == {"role": "system", "content": "You are a helpful test server."}
        assert "forty-two" in tool_result(fake_openai, 2)
        rows = await app.store.list_usage(workstream.id)
        assert (11, 3) in [(r.prompt_tokens, r.completion_tokens) for r in rows]  # the sampling call counts
        await ask(pilot, app, "sample again")
        await wait_for(pilot, lambda: screen_is(app, SamplingScreen), message="second approval")
        await pilot.press("n")
        await wait_for(pilot, lambda: "It was refused." in screen_text(app), timeout=30)
        refused = tool_result(fake_openai, 4)
        assert "denied the sampling request" in refused
        assert len(fake_openai.requests) == 5  # no model call for the denied request


async def test_progress_updates_one_bar_on_the_tool_card(fake_openai, tmp_path):
    long_op = "mcp__everything__trigger-long-running-operation"
    fake_openai.queue(ToolCallReply([(long_op, json.dumps({"duration": 4, "steps": 4}), "p1")]),
                      TextReply("All done."))
    app = everything_app(tmp_path, fake_openai)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        await ask(pilot, app, "run the long operation")
        view = app.main_screen.view_for(app.focused_id)
        await wait_for(pilot, lambda: "p1" in view.transcript.cards, message="card")
        card = view.transcript.cards["p1"]
        progress = card.query_one(".tool-progress")
        await wait_for(pilot, lambda: progress.has_class("-active"), timeout=15, message="first progress")
        # the server reports 1/4 … 4/4 a second apart; a loaded UI may show any of them first
        steps = [f"{n}/4" for n in (1, 2, 3)]
        await wait_for(pilot, lambda: any(step in str(progress.label.content) for step in steps), timeout=15)
        shown = next(n for n in (1, 2, 3) if f"{n}/4" in str(progress.label.content))
        assert progress.bar.percentage == shown / 4 and f"{shown * 25}%" in str(card.title)
        assert "progress" not in card._body.content  # no growing list of lines
        await wait_for(pilot, lambda: "All done." in screen_text(app), timeout=30)
        assert not progress.has_class("-active") and "completed" in card._body.content
