"""First-run polish: a dialog's footer shows the dialog's keys, setup with nothing found shows no
empty list, the palette's "Go to" entries repeat the tabs as shown, F1 opens help, and the resume
hint is printed only for a workstream with messages."""

from __future__ import annotations

from textual.command import CommandPalette
from textual.widgets import Input, OptionList

from app.cli.entry import exit_hint
from app.tui.commands.palette import whimbrel_commands
from app.tui.screens.help import HelpScreen
from app.tui.screens.setup import SetupScreen
from tests.fake_llm.script import TextReply
from tests.ui.helpers import booted, make_app, screen_is, screen_text, submit, wait_for
from widgets.tab_bar import TabBar


def bottom_line(app) -> str:
    """The last row of the screen as painted (where the footer is)."""
    return " ".join(strip.text for strip in app.screen._compositor.render_strips()[-1:])


async def nothing_found() -> list:
    return []


async def test_the_setup_dialogs_footer_shows_its_own_keys(tmp_path):
    app = make_app(tmp_path, None)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: screen_is(app, SetupScreen), message="first-run setup opens")
        await wait_for(pilot, lambda: "Skip" in bottom_line(app), message="the dialog's keys in the footer")
        assert "Cancel turn" not in bottom_line(app) and "Split" not in bottom_line(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: "Cancel turn" in bottom_line(app), message="the main keys are back")


async def test_setup_with_nothing_found_shows_only_the_hint(tmp_path):
    app = make_app(tmp_path, "http://127.0.0.1:9/v1")
    async with app.run_test(size=(120, 30)) as pilot:
        await booted(pilot)
        screen = SetupScreen(tmp_path / "config.toml", env={}, probe=nothing_found)
        app.push_screen(screen)
        await wait_for(pilot, lambda: app.screen is screen and not screen.probing, message="probe done")
        await wait_for(pilot, lambda: "Nothing found" in screen_text(app))
        assert not screen.query_one(OptionList).display and not screen.query_one(Input).display
        assert "Model (edit" not in "".join(str(w.render()) for w in screen.query(".hint") if w.display)


async def test_palette_go_to_entries_use_the_tab_titles_as_shown(tmp_path):
    app = make_app(tmp_path, None)  # no model: the turn says so at once and ends
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: screen_is(app, SetupScreen), message="first-run setup opens")
        await pilot.press("escape")
        await submit(pilot, "hello there")
        await wait_for(pilot, lambda: "nothing was sent" in screen_text(app))
        go_to = [c.title for c in whimbrel_commands(app) if c.title.startswith("Go to")]
        shown = [tab.name for tab in app.main_screen.query_one(TabBar).tabs]
        assert go_to == ["Go to 1: hello there"] and shown == ["hello there"]
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: screen_is(app, CommandPalette))
        await pilot.press(*"go to")
        await wait_for(pilot, lambda: "Go to 1: hello there" in screen_text(app) or any(
            "Go to 1: hello there" in str(o.prompt) for o in app.screen.query_one(OptionList).options))


async def test_f1_opens_help_and_closes_it(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await booted(pilot)
        await pilot.press("f1")
        await wait_for(pilot, lambda: screen_is(app, HelpScreen), message="F1 opens help")
        assert "this help" in screen_text(app)
        await pilot.press("f1")
        await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen), message="F1 closes help")


async def test_no_resume_hint_for_an_empty_workstream(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await booted(pilot)
    assert app.workstream is not None and exit_hint(app, None) == ""


async def test_resume_hint_once_the_workstream_has_messages(fake_openai, tmp_path):
    fake_openai.queue(TextReply("Hi."))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 30)) as pilot:
        await submit(pilot, "hello")
        await wait_for(pilot, lambda: "Hi." in screen_text(app))
    assert exit_hint(app, None) == f"Resume this conversation with: whimbrel --resume {app.workstream.id[:8]}"
