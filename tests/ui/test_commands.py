"""Pilot tests for slash commands, the palette, the resume browser and prompt history."""

from __future__ import annotations

from textual.command import CommandList, CommandPalette
from textual.widgets import DataTable

from app.tui.screens.help import HelpScreen
from app.tui.screens.resume import ResumeScreen
from tests.fake_llm.script import TextReply
from tests.ui.helpers import booted, focused_view, make_app, screen_is, screen_text, send, take_turn, wait_for
from widgets.slash_suggestions import SlashSuggestions


async def test_unknown_command_and_bad_arguments_get_one_line(fake_openai, tmp_path):
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 30)) as pilot:
        await booted(pilot)
        await send(pilot, "/frobnicate")
        await wait_for(pilot, lambda: "Unknown command /frobnicate" in screen_text(app))
        await send(pilot, "/rewind lots")
        await wait_for(pilot, lambda: "Usage: /rewind N" in screen_text(app))
        assert fake_openai.requests == []  # commands never reach the model


async def test_completion_as_you_type_and_tab(fake_openai, tmp_path):
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 30)) as pilot:
        await booted(pilot)
        view = focused_view(app)
        await pilot.press("/", "r", "e")
        suggestions = view.query_one(SlashSuggestions)
        await wait_for(pilot, lambda: suggestions.display)
        assert [c.name for c in suggestions.matches] == ["resume", "retry", "rewind"]
        await pilot.press("s", "tab")
        assert view.prompt.text == "/resume "
        await pilot.press("backspace", "backspace", "backspace", "backspace", "backspace", "backspace",
                          "backspace", "backspace")
        assert not suggestions.display


async def test_help_lists_every_command(fake_openai, tmp_path):
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 50)) as pilot:
        await booted(pilot)
        await send(pilot, "/help")
        await wait_for(pilot, lambda: screen_is(app, HelpScreen))
        text = screen_text(app)
        for name in ("/ws", "/new", "/clear", "/resume", "/name", "/delete", "/history", "/retry", "/rewind",
                     "/export", "/quit"):
            assert name in text
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_name_ws_and_export(fake_openai, tmp_path):
    fake_openai.queue(TextReply("The answer is **42**."))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 30)) as pilot:
        await booted(pilot)
        await take_turn(pilot, "what is the answer?")
        await send(pilot, "/name deep-thought")
        await wait_for(pilot, lambda: app.workstream.alias == "deep-thought")
        assert (await app.store.get_workstream(app.workstream.id)).alias == "deep-thought"
        await send(pilot, "/ws")
        await wait_for(pilot, lambda: "Open workstreams" in screen_text(app))
        assert "1. deep-thought" in screen_text(app)
        await send(pilot, "/export answer.md")
        exported = tmp_path / "ws" / "answer.md"
        await wait_for(pilot, lambda: exported.exists())
        text = exported.read_text()
        assert "what is the answer?" in text and "The answer is **42**." in text
        await send(pilot, "/export answer.json")  # the JSON `whimbrel import` reads
        await wait_for(pilot, lambda: "`whimbrel import` reads it" in screen_text(app), message="json export")
    from app.cli import main

    assert main(["import", str(tmp_path / "ws" / "answer.json"), "--data-dir", str(tmp_path / "other")]) == 0
    from app.storage.store import Store

    store = Store(tmp_path / "other" / "whimbrel.db")
    [imported] = store.list_workstreams()
    assert [m.content for m in store.load_messages(imported.id)][-1] == "The answer is **42**."
    store.close()


async def test_rewind_and_retry(fake_openai, tmp_path):
    fake_openai.queue(TextReply("first answer"), TextReply("second answer"), TextReply("retried answer"))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 30)) as pilot:
        await booted(pilot)
        await take_turn(pilot, "one")
        await take_turn(pilot, "two")
        await take_turn(pilot, "/retry")
        stored = await app.store.load_messages(app.workstream.id)
        assert [(m.role, m.content) for m in stored] == [
            ("user", "one"), ("assistant", "first answer"), ("user", "two"), ("assistant", "retried answer")]
        await send(pilot, "/rewind 1")
        await wait_for(pilot, lambda: "Rewound 1 turn" in screen_text(app))
        stored = await app.store.load_messages(app.workstream.id)
        assert [m.content for m in stored] == ["one", "first answer"]
        assert "retried answer" not in screen_text(app)


async def test_clear_empties_model_context_but_keeps_history(fake_openai, tmp_path):
    fake_openai.queue(TextReply("noted"), TextReply("fresh"))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 30)) as pilot:
        await booted(pilot)
        await take_turn(pilot, "remember the code word PELICAN")
        await send(pilot, "/clear")
        await wait_for(pilot, lambda: "Context cleared" in screen_text(app))
        await take_turn(pilot, "what was the code word?")
        sent = fake_openai.requests[-1]["messages"]
        assert not any("PELICAN" in str(m.get("content")) for m in sent)
        stored = await app.store.load_messages(app.workstream.id)
        assert any("PELICAN" in m.content for m in stored)


async def test_resume_browser_full_text_search_opens_a_tab(fake_openai, tmp_path):
    fake_openai.queue(TextReply("Flamingos are pink because of their diet."))
    first = make_app(tmp_path, fake_openai.base_url)
    async with first.run_test(size=(120, 30)) as pilot:
        await booted(pilot)
        await take_turn(pilot, "why are flamingos pink?")
        flamingo_id = first.workstream.id
        await send(pilot, "/ws close")
        await wait_for(pilot, lambda: first.manager.get(flamingo_id) is None)
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 30)) as pilot:
        await booted(pilot)
        assert app.manager.get(flamingo_id) is None
        await send(pilot, "/resume")
        await wait_for(pilot, lambda: screen_is(app, ResumeScreen))
        await pilot.press(*"diet")
        table = app.screen.query_one(DataTable)
        await wait_for(pilot, lambda: table.row_count == 1, message="one search hit")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.focused_id == flamingo_id)
        assert "Flamingos are pink" in screen_text(app)


async def test_prompt_history_recall_survives_restart(fake_openai, tmp_path):
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 30)) as pilot:
        await booted(pilot)
        await take_turn(pilot, "first prompt")
        await take_turn(pilot, "second prompt")
        await pilot.pause(0.2)
    again = make_app(tmp_path, fake_openai.base_url)
    async with again.run_test(size=(120, 30)) as pilot:
        await booted(pilot)
        prompt = focused_view(again).prompt
        await pilot.press("up")
        assert prompt.text == "second prompt"
        await pilot.press("up")
        assert prompt.text == "first prompt"
        await pilot.press("down", "down")
        assert prompt.text == ""


def highlighted_command(app) -> str:
    """The command the palette's list highlights (what Enter would run), or ''."""
    commands = app.screen.query_one(CommandList)
    if commands.highlighted is None:
        return ""
    return str(commands.get_option_at_index(commands.highlighted).prompt)


async def test_palette_offers_workstream_actions(fake_openai, tmp_path):
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 30)) as pilot:
        await booted(pilot)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: screen_is(app, CommandPalette))
        await pilot.press(*"split pane side")
        await wait_for(pilot, lambda: "Split pane side by side" in highlighted_command(app),
                       message="the palette's search highlights the command")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.layout_tree is not None and len(app.layout_tree.leaves()) == 2)
        assert not isinstance(app.screen, CommandPalette)
