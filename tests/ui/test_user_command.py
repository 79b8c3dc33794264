"""`!command`: asks for approval like the agent's bash, runs in the workspace, shows a card, and its
output becomes part of the conversation the model gets next; a denied command runs nothing."""

from __future__ import annotations

from app.tui.screens.approval import ApprovalScreen
from tests.fake_llm.script import TextReply
from tests.ui.helpers import answer_approval, make_app, screen_is, screen_text, submit, wait_for
from widgets.tool_card import ToolCard


def cards(app, status: str) -> int:
    """How many tool cards show `status`."""
    return len([card for card in app.main_screen.query(ToolCard) if card.status == status])


async def test_an_approved_command_runs_and_its_output_reaches_the_model(fake_openai, tmp_path):
    fake_openai.queue(TextReply("I see the file."))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(110, 34)) as pilot:
        await answer_approval(pilot, "!echo made-by-shell > proof.txt && cat proof.txt", "y")
        await wait_for(pilot, lambda: cards(app, "done") == 1, message="the card finishes")
        assert (tmp_path / "ws" / "proof.txt").read_text() == "made-by-shell\n"
        session = app.workstream.session
        assert session.messages[-1].role == "user" and "made-by-shell" in session.messages[-1].content
        await submit(pilot, "what did it print?")
        await wait_for(pilot, lambda: "I see the file." in screen_text(app))
    sent = fake_openai.requests[-1]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "user"]
    assert "made-by-shell" in sent[1]["content"] and "echo made-by-shell" in sent[1]["content"]


async def test_a_denied_command_runs_nothing_and_keeps_nothing(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 34)) as pilot:
        await answer_approval(pilot, "!touch should-not-exist", "n")
        await wait_for(pilot, lambda: cards(app, "denied") == 1, message="the card says denied")
        assert not (tmp_path / "ws" / "should-not-exist").exists()
        assert app.workstream.session.messages == []


async def test_always_saves_the_rule_notes_it_on_the_card_and_the_next_command_runs_unasked(tmp_path):
    from app.tui.screens.rule_save import RuleSaveScreen

    app = make_app(tmp_path)
    async with app.run_test(size=(110, 34)) as pilot:
        await answer_approval(pilot, "!echo kept-rule", "a")
        await wait_for(pilot, lambda: screen_is(app, RuleSaveScreen), message="the rule dialog")
        assert app.screen.query_one("#rule-0").value == "bash(echo kept-rule)"
        await pilot.click("#rule-save")
        await wait_for(pilot, lambda: cards(app, "done") == 1, message="the card finishes")
        await wait_for(pilot, lambda: "user: always (bash(echo kept-rule) saved to" in screen_text(app),
                       message="the card says which rule was saved")
        await wait_for(pilot, lambda: app.workstream.state == "idle", message="idle again")
        await submit(pilot, "!echo kept-rule")  # the saved rule lets it run without the modal
        await wait_for(pilot, lambda: cards(app, "done") == 2, message="the second command ran unasked")
        assert not screen_is(app, ApprovalScreen)
