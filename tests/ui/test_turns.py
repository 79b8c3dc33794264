"""Pilot tests: a user drives whole turns through the real app against the fake server."""

from __future__ import annotations

import json

import pytest

from app.tui.screens.approval import ApprovalScreen
from tests.fake_llm.script import SlowReply, TextReply, ToolCallReply
from tests.ui.helpers import answer_approval, make_app, screen_is, screen_text, submit, wait_for
from widgets.tool_card import ToolCard


def write_call(path: str, content: str, call_id: str = "w1") -> ToolCallReply:
    return ToolCallReply([("write_file", json.dumps({"path": path, "content": content}), call_id)])


async def test_approve_writes_file_and_answer_streams(fake_openai, tmp_path):
    fake_openai.queue(write_call("hello.py", "print('hi')\n"), TextReply("Created **hello.py**."))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 40)) as pilot:
        await submit(pilot, "make hello.py")
        await wait_for(pilot, lambda: screen_is(app, ApprovalScreen), message="approval modal")
        assert "+print('hi')" in screen_text(app)
        await pilot.press("y")
        await wait_for(pilot, lambda: "Created **hello.py**." in screen_text(app), message="final answer")
        assert (tmp_path / "ws" / "hello.py").read_text() == "print('hi')\n"
        card = app.screen.query_one(ToolCard)
        assert card.status == "done"
        await wait_for(pilot, lambda: app.workstream.state == "idle")


@pytest.mark.parametrize("key", ["n", "escape"])  # Deny, and Esc (deny all)
async def test_deny_leaves_file_unwritten(fake_openai, tmp_path, key):
    fake_openai.queue(write_call("no.txt", "x"), TextReply("Understood."))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 40)) as pilot:
        await answer_approval(pilot, "write no.txt", key)
        await wait_for(pilot, lambda: "Understood." in screen_text(app))
        assert not (tmp_path / "ws" / "no.txt").exists()
        assert app.screen.query_one(ToolCard).status == "denied"


async def test_always_allow_does_not_ask_again(fake_openai, tmp_path):
    """"Always" saves the narrowest rule (write_file(a.txt), in this workstream): the same write again
    runs unasked (it no longer allows the whole tool)."""
    fake_openai.queue(write_call("a.txt", "a", "w1"), write_call("a.txt", "b", "w2"), TextReply("Both written."))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 40)) as pilot:
        await answer_approval(pilot, "write a twice", "a")
        await wait_for(pilot, lambda: app.screen.query("#rule-save"), message="the rule dialog")
        await pilot.click("#rule-save")
        await wait_for(pilot, lambda: "Both written." in screen_text(app))
        assert (tmp_path / "ws" / "a.txt").read_text() == "b"
        assert len(app.screen.query(ToolCard)) == 2


async def test_feedback_is_sent_to_the_model(fake_openai, tmp_path):
    fake_openai.queue(write_call("a.txt", "a"), TextReply("Will use b.txt."))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 40)) as pilot:
        await answer_approval(pilot, "write a", "f")
        await pilot.press(*"call it b.txt")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Will use b.txt." in screen_text(app))
        tool_message = fake_openai.requests[1]["messages"][-1]
        assert "call it b.txt" in tool_message["content"]
        assert not (tmp_path / "ws" / "a.txt").exists()


async def test_escape_cancels_a_streaming_turn_and_keeps_partial(fake_openai, tmp_path):
    fake_openai.queue(SlowReply("word " * 200, delay=0.03))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 40)) as pilot:
        await submit(pilot, "talk")
        await wait_for(pilot, lambda: "word word word" in screen_text(app), message="partial output")
        await pilot.press("escape")
        await wait_for(pilot, lambda: "Turn cancelled." in screen_text(app), message="cancel notice")
        assert app.workstream.state == "idle"
        stored = await app.store.load_messages(app.workstream.id)
        assert stored[-1].interrupted and stored[-1].content.startswith("word word")


async def test_prompt_stays_responsive_while_streaming(fake_openai, tmp_path):
    fake_openai.queue(SlowReply("tick " * 1000, delay=0.03))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 40)) as pilot:
        await submit(pilot, "stream")
        await wait_for(pilot, lambda: "tick tick" in screen_text(app))
        assert app.workstream.busy
        await pilot.press(*"next")
        await pilot.press("ctrl+j")
        await pilot.press(*"line")
        assert app.main_screen.view_for(app.focused_id).prompt.text == "next\nline"
        assert app.workstream.busy  # typed while the turn was still streaming
        await pilot.press("escape")


async def test_resume_shows_the_whole_conversation(fake_openai, tmp_path):
    fake_openai.queue(write_call("r.txt", "resumed"), TextReply("All done here."))
    first = make_app(tmp_path, fake_openai.base_url)
    async with first.run_test(size=(120, 40)) as pilot:
        await answer_approval(pilot, "write r.txt please", "y")
        await wait_for(pilot, lambda: "All done here." in screen_text(first))
        await wait_for(pilot, lambda: first.workstream.state == "idle")
        workstream_id = first.workstream.id
    second = make_app(tmp_path, fake_openai.base_url, resume=workstream_id[:8])
    async with second.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: "All done here." in screen_text(second), message="history shown")
        assert "write r.txt please" in screen_text(second)
        [card] = second.screen.query(ToolCard)
        assert card.tool_name == "write_file" and card.status == "done"
        fake_openai.queue(TextReply("Still here."))
        await submit(pilot, "are you there?")
        await wait_for(pilot, lambda: "Still here." in screen_text(second))
        sent = [m["role"] for m in fake_openai.requests[-1]["messages"]]
        assert sent == ["system", "user", "assistant", "tool", "assistant", "user"]


async def test_no_model_shows_setup_message(tmp_path):
    from app.tui.screens.setup import SetupScreen

    app = make_app(tmp_path, None)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: screen_is(app, SetupScreen), message="first-run setup opens")
        await pilot.press("escape")  # skip: the transcript then explains how to configure a model
        assert "No model is configured" in screen_text(app)
        await submit(pilot, "hello?")
        await wait_for(pilot, lambda: "nothing was sent" in screen_text(app))


async def test_unknown_resume_id_is_reported(fake_openai, tmp_path):
    app = make_app(tmp_path, fake_openai.base_url, resume="doesnotexist")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set())
        assert "doesnotexist" in screen_text(app)


async def test_a_call_waiting_for_approval_stays_pending_when_its_history_is_drawn_again(fake_openai, tmp_path):
    """Only a call of a conversation that is not running shows as not run (see the crash recovery tests)."""
    fake_openai.queue(write_call("later.txt", "x\n"), TextReply("Wrote it."))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 40)) as pilot:
        await submit(pilot, "write later.txt")
        await wait_for(pilot, lambda: screen_is(app, ApprovalScreen), message="approval modal")
        transcript = app.main_screen.view_for(app.focused_id).transcript
        await transcript.show_history(app.workstream.session.messages)
        assert transcript.cards["w1"].status == "pending"
        await pilot.press("y")
        await wait_for(pilot, lambda: "Wrote it." in screen_text(app), message="answer")
        await transcript.show_history(app.workstream.session.messages)
        assert transcript.cards["w1"].status == "done"
