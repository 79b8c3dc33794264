"""Pilot tests of memory in the TUI: '#' saves a note after asking type and scope, the marker shows
in the transcript, the next turn is given it, /instructions lists the files, the browser edits and
deletes, /init asks the model and the write waits for approval."""

from __future__ import annotations

from textual.widgets import DataTable, Input, RadioSet, TextArea

from app.memory.records import Visibility
from app.tui.screens.memory_browser import MemoryBrowser
from app.tui.screens.memory_note import MemoryNoteScreen
from tests.fake_llm.script import TextReply
from tests.ui.helpers import booted, focused_view, make_app, screen_is, screen_text, send, wait_for, wait_for_text


async def test_hash_prompt_saves_a_memory_and_the_next_turn_gets_it(fake_openai, tmp_path):
    fake_openai.queue(TextReply("Sure."))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 34)) as pilot:
        await booted(pilot)
        await send(pilot, "# this project uses tabs, not spaces")
        await wait_for(pilot, lambda: screen_is(app, MemoryNoteScreen), message="the note dialog")
        assert app.screen.query_one(Input).value == "this_project_uses_tabs_not_spaces"
        app.screen.query_one("#note-type", RadioSet).focus()
        await pilot.press("down", "down", "enter")  # project -> feedback
        await pilot.press("ctrl+s")
        await wait_for_text(pilot, "◆ memory saved: this_project_uses_tabs_not_spaces (feedback, workspace)")
        assert fake_openai.requests == []  # a note is not a prompt
        [saved] = await app.memory_service.list(None)
        assert (saved.content, saved.type, saved.scope) == ("this project uses tabs, not spaces", "feedback",
                                                            "workspace")
        await send(pilot, "reformat main.c")
        await wait_for_text(pilot, "◆ memories given to this turn: this_project_uses_tabs_not_spaces")
        await wait_for(pilot, lambda: fake_openai.requests, message="the request")
        assert "this project uses tabs, not spaces" in fake_openai.requests[0]["messages"][0]["content"]


async def test_hash_prompt_cancelled_saves_nothing(fake_openai, tmp_path):
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 34)) as pilot:
        await booted(pilot)
        await send(pilot, "#remember nothing")
        await wait_for(pilot, lambda: screen_is(app, MemoryNoteScreen), message="the note dialog")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, MemoryNoteScreen), message="closed")
        assert await app.memory_service.list(None) == [] and fake_openai.requests == []


async def test_instructions_command_lists_the_files(fake_openai, tmp_path):
    workspace = tmp_path / "ws"
    (workspace / "docs").mkdir(parents=True)
    (workspace / "AGENTS.md").write_text("Use make check. See @docs/style.md and @docs/gone.md")
    (workspace / "docs" / "style.md").write_text("Tabs.")
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 34)) as pilot:
        await booted(pilot)
        await send(pilot, "/instructions")
        await wait_for_text(pilot, "Instructions given to the model, in this order:")
        text = screen_text(app)
        assert "1. AGENTS.md  (workspace, 52 bytes)" in text and "2. docs/style.md  (@import from AGENTS.md" in text
        assert "@docs/gone.md not found" in text


async def test_browser_filters_edits_and_deletes(fake_openai, tmp_path):
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 34)) as pilot:
        await booted(pilot)
        here = focused_view(app).workstream.session.memory_context.visibility
        await app.memory_service.save(here, "indent_with_tabs", "Tabs, not spaces.", type="feedback")
        await app.memory_service.save(here, "user_name", "The user is Ada.", type="user", scope="global")
        await app.memory_service.save(Visibility("other", "/elsewhere"), "far_away", "Not here.")
        await send(pilot, "/memory")
        await wait_for(pilot, lambda: screen_is(app, MemoryBrowser), message="the browser")
        browser = app.screen
        table = browser.query_one(DataTable)
        await wait_for(pilot, lambda: table.row_count == 2, message="two visible memories")
        browser.query_one("#memory-search", Input).value = "ada"
        await wait_for(pilot, lambda: [m.name for m in browser.shown] == ["user_name"], message="search")
        browser.query_one("#memory-search", Input).value = ""
        from textual.widgets import Select

        browser.query_one("#memory-scope", Select).value = "*"
        await wait_for(pilot, lambda: len(browser.shown) == 3, message="everywhere")
        browser.query_one("#memory-scope", Select).value = "all"
        browser.query_one("#memory-type", Select).value = "feedback"
        await wait_for(pilot, lambda: [m.name for m in browser.shown] == ["indent_with_tabs"], message="type")
        table.focus()
        await pilot.press("e")
        editor = browser.query_one(TextArea)
        await wait_for(pilot, lambda: editor.has_focus, message="the editor")
        editor.text = "Tabs, width 8."
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: browser.shown and browser.shown[0].content == "Tabs, width 8.", message="edit")
        assert (await app.memory_service.get(here, "indent_with_tabs")).content == "Tabs, width 8."
        table.focus()
        await pilot.press("x")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", message="confirm")
        await pilot.press("y")
        await wait_for(pilot, lambda: screen_is(app, MemoryBrowser) and browser.shown == [], message="gone")
        assert await app.memory_service.get(here, "indent_with_tabs") is None


async def test_init_asks_the_model_and_the_write_waits_for_approval(fake_openai, tmp_path):
    from tests.fake_llm.script import ToolCallReply

    fake_openai.queue(ToolCallReply(calls=[("write_file", '{"path": "AGENTS.md", "content": "# Agents\\n"}', "c1")]),
                      TextReply("Written."))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 34)) as pilot:
        await booted(pilot)
        await send(pilot, "/init")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ApprovalScreen", message="the approval")
        assert "Draft an AGENTS.md" in fake_openai.requests[0]["messages"][-1]["content"]
        assert not (tmp_path / "ws" / "AGENTS.md").exists()
        await pilot.press("y")
        await wait_for(pilot, lambda: (tmp_path / "ws" / "AGENTS.md").exists(), message="written")


SKILL = '''description = "Review a change"
prompt = """You review {{language}} code, strictly, for {{focus}}."""
[settings]
temperature = 0.1
[variables]
language = "Python"
'''


async def test_skill_starts_a_workstream_and_records_its_version(fake_openai, tmp_path):
    from app.memory.skills import version_of

    path = tmp_path / "ws" / ".whimbrel" / "skills" / "review.toml"
    path.parent.mkdir(parents=True)
    path.write_text(SKILL)
    fake_openai.queue(TextReply("Reviewing."))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 34)) as pilot:
        await booted(pilot)
        first = app.focused_id
        await send(pilot, "/skill review")
        await wait_for_text(pilot, "needs a value for focus")
        assert app.focused_id == first  # nothing was started
        await send(pilot, "/skill review language=Rust focus='error handling'")
        await wait_for(pilot, lambda: app.focused_id != first, message="a new workstream")
        await wait_for_text(pilot, "Started from skill review (version")
        assert "temperature=0.1" in screen_text(app)
        config = await app.store.get_config(app.focused_id)
        assert config["skill"]["version"] == version_of(path.read_bytes())
        assert config["skill"]["values"] == {"language": "Rust", "focus": "error handling"}
        await send(pilot, "go")
        await wait_for(pilot, lambda: fake_openai.requests, message="the request")
        system = fake_openai.requests[0]["messages"][0]["content"]
        assert "# Skill: review\nYou review Rust code, strictly, for error handling." in system


async def test_skill_errors_are_one_line(fake_openai, tmp_path):
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 34)) as pilot:
        await booted(pilot)
        await send(pilot, "/skill nosuch")
        await wait_for_text(pilot, "No skill called 'nosuch'")
        await send(pilot, "/skill x 'unclosed")
        await wait_for_text(pilot, "Usage: /skill NAME var=value")


async def test_external_editor_where_the_terminal_cannot_be_handed_over(fake_openai, tmp_path, monkeypatch):
    monkeypatch.setenv("EDITOR", "vi")
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 34)) as pilot:
        await booted(pilot)
        here = focused_view(app).workstream.session.memory_context.visibility
        await app.memory_service.save(here, "a_note", "text")
        await send(pilot, "/memory")
        await wait_for(pilot, lambda: screen_is(app, MemoryBrowser) and app.screen.shown, message="rows")
        app.screen.query_one(DataTable).focus()
        await pilot.press("ctrl+e")
        await wait_for_text(pilot, "cannot be handed to an editor")
        assert (await app.memory_service.get(here, "a_note")).content == "text"


async def test_the_browser_gives_descriptions_the_table_s_room(tmp_path):
    long = "which command runs the whole test suite before a commit"
    app = make_app(tmp_path)
    async with app.run_test(size=(200, 34)) as pilot:
        await booted(pilot)
        here = focused_view(app).workstream.session.memory_context.visibility
        await app.memory_service.save(here, "test_command", "make check", description=long, type="project")
        await app.memory_service.save(here, "short", "x", description="short one", type="user")
        await send(pilot, "/memory")
        await wait_for(pilot, lambda: screen_is(app, MemoryBrowser) and len(app.screen.shown) == 2, message="rows")
        table = app.screen.query_one(DataTable)

        def drawn_rows() -> list[str]:  # the table's lines as drawn (the header is line 0)
            return ["".join(segment.text for segment in table.render_line(y)) for y in range(1, table.row_count + 1)]

        await wait_for(pilot, lambda: any(long in line and "test_command" in line for line in drawn_rows()),
                       message="the whole description in the table's row")
