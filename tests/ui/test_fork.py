"""Pilot tests of /fork: the fork opens in a split pane with the conversation up to the chosen message,
both branches go on independently, and the resume browser lists the fork under its parent."""

from __future__ import annotations

from textual.widgets import DataTable

from app.tui.screens.resume import ResumeScreen
from app.tui.screens.rewind import RewindScreen
from tests.fake_llm.script import TextReply
from tests.ui.helpers import booted, focused_view, make_app, screen_is, send, wait_for, wait_for_text


async def talk(pilot, fake_openai, prompt: str, answer: str) -> None:
    fake_openai.queue(TextReply(answer))
    await send(pilot, prompt)
    await wait_for_text(pilot, answer)
    await wait_for(pilot, lambda: not focused_view(pilot.app).workstream.busy, message="turn over")


def user_texts(workstream) -> list[str]:
    return [m.content for m in workstream.session.messages if m.role == "user"]


async def test_fork_from_the_third_message_into_a_split_pane_and_both_go_on(fake_openai, tmp_path):
    """Acceptance 3: fork from the third message into a split pane; both branches continue independently."""
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(160, 40)) as pilot:
        await booted(pilot)
        for number in range(1, 5):
            await talk(pilot, fake_openai, f"question {number}", f"answer {number}")
        parent = focused_view(app).workstream
        await send(pilot, "/fork 3 split")
        await wait_for(pilot, lambda: len(app.layout_tree.leaves()) == 2, message="split pane")
        fork = focused_view(app).workstream
        assert fork.id != parent.id and user_texts(fork) == ["question 1", "question 2", "question 3"]
        await talk(pilot, fake_openai, "fork goes on", "fork answer")
        assert user_texts(fork)[-1] == "fork goes on" and user_texts(parent)[-1] == "question 4"
        app.focused_id = parent.id
        app.workspace.apply_layout()
        await talk(pilot, fake_openai, "parent goes on", "parent answer")
        assert user_texts(parent) == ["question 1", "question 2", "question 3", "question 4", "parent goes on"]
        assert "parent goes on" not in user_texts(fork)
        stored = await app.store.load_messages(fork.id)
        assert [m.content for m in stored if m.role == "user"][-1] == "fork goes on"

        await send(pilot, "/resume")
        await wait_for(pilot, lambda: screen_is(app, ResumeScreen), message="resume browser")
        table = app.screen.query_one(DataTable)
        await wait_for(pilot, lambda: table.row_count == 2, message="two rows")
        names = [str(table.get_row_at(i)[0]) for i in range(2)]
        assert names[0].startswith("question 1") and names[1].startswith(" └ ") and "fork at 3" in names[1]


async def test_k_in_the_rewind_screen_forks_into_a_new_tab(fake_openai, tmp_path):
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(160, 40)) as pilot:
        await booted(pilot)
        for number in range(1, 3):
            await talk(pilot, fake_openai, f"question {number}", f"answer {number}")
        await send(pilot, "/rewind")
        await wait_for(pilot, lambda: screen_is(app, RewindScreen) and app.screen.plan is not None)
        await pilot.press("up", "k")
        await wait_for(pilot, lambda: len(app.manager.workstreams) == 2, message="fork opened")
        await wait_for(pilot, lambda: user_texts(focused_view(app).workstream) == ["question 1"], message="fork shown")


async def test_fork_with_bad_arguments_says_how(fake_openai, tmp_path):
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(160, 40)) as pilot:
        await booted(pilot)
        await send(pilot, "/fork soon")
        await wait_for_text(pilot, "Usage: /fork [N] [split] [files]")
        await send(pilot, "/fork")
        await wait_for_text(pilot, "nothing to fork yet")
