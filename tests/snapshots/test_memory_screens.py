"""Snapshots of the memory screens: the browser, /instructions, the skill picker and the '#' note
dialog (baselines in snapshots/test_memory_screens/)."""

from __future__ import annotations

from pathlib import Path

from app.memory.records import Visibility
from app.storage.identity import set_name
from tests.snapshots.test_screens import booted
from tests.ui.helpers import make_app, screen_is, send, wait_for

SIZE = (110, 30)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_memory_browser(snap_compare, tmp_path):
    """With a team memory a teammate saved: the `by` column says who (a name from the store, made inert)."""
    async def run_before(pilot) -> None:
        await booted(pilot)
        app = pilot.app
        here = app.main_screen.view_for(app.focused_id).workstream.session.memory_context.visibility
        service = app.memory_service
        set_name("bob@build\x1b[31mbox")
        await service.save(here, "release_steps", "Tag, then `make release`.", description="how the team releases",
                           type="project", scope="team")
        set_name("ada@laptop")
        await service.save(here, "indent_with_tabs", "This project uses tabs, not spaces.\nTab width is 4.",
                           description="indentation style", type="feedback")
        await service.save(here, "test_command", "Run `make check` before committing.",
                           description="how to run the tests", type="project")
        await service.save(here, "user_name", "The user is Ada; she prefers short answers.",
                           description="who the user is", type="user", scope="global")
        await service.save(Visibility("other", "/elsewhere"), "not_shown", "x")
        await send(pilot, "/memory")
        from app.tui.screens.memory_browser import MemoryBrowser

        await wait_for(pilot, lambda: screen_is(app, MemoryBrowser) and len(app.screen.shown) == 4,
                       message="the browser's rows")
        app.screen.query_one("#memory-table").focus()
        await pilot.press("down", "down", "down")
        await pilot.pause(0.2)

    try:
        assert snap_compare(make_app(tmp_path), terminal_size=SIZE, run_before=run_before)
    finally:
        set_name(None)


def test_instructions_command(snap_compare, tmp_path):
    workspace = tmp_path / "ws"
    _write(workspace / "AGENTS.md", "Build with make. Style: @docs/style.md. Also @docs/missing.md")
    _write(workspace / "WHIMBREL.md", "Whimbrel-only notes.")
    _write(workspace / "docs" / "style.md", "Tabs. And back to @../AGENTS.md")

    async def run_before(pilot) -> None:
        await booted(pilot)
        await send(pilot, "/instructions")
        await wait_for(pilot, lambda: "in this order" in _transcript(pilot.app), message="the listing")
        await pilot.pause(0.2)

    assert snap_compare(make_app(tmp_path), terminal_size=SIZE, run_before=run_before)


def test_skill_picker(snap_compare, tmp_path):
    skills = tmp_path / "ws" / ".whimbrel" / "skills"
    _write(skills / "review.toml", 'description = "Review a change strictly"\n'
                                   'prompt = "Review {{language}} code for {{focus}}."\n[variables]\nlanguage = "Python"\n')
    _write(skills / "docs.md", "---\ndescription: Write user documentation\n---\nWrite docs about {{topic}}.\n")
    _write(skills / "plain.md", "Answer in one sentence.\n")
    _write(skills / "broken.toml", "prompt = ")

    async def run_before(pilot) -> None:
        await booted(pilot)
        await send(pilot, "/skill")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "SkillPicker", message="the picker")
        await pilot.pause(0.2)

    app = make_app(tmp_path)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_memory_note_dialog(snap_compare, tmp_path):
    async def run_before(pilot) -> None:
        await booted(pilot)
        await send(pilot, "# this project uses tabs, not spaces")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "MemoryNoteScreen", message="the dialog")
        pilot.app.screen.query_one("#note-name").cursor_blink = False
        await pilot.pause(0.2)

    assert snap_compare(make_app(tmp_path), terminal_size=SIZE, run_before=run_before)


def _transcript(app) -> str:
    from tests.ui.helpers import screen_text

    return screen_text(app)
