"""Pilot tests of /rewind in the app: the list, the plan, rewinding files and conversation, undo,
Esc twice on an empty prompt. Real app, real fake-LLM server, real bash, real shadow repository."""

from __future__ import annotations

import json

from textual.widgets import OptionList

from app.tui.screens.approval import ApprovalScreen
from app.tui.screens.rewind import RewindScreen
from tests.fake_llm.script import TextReply, ToolCallReply
from tests.ui.helpers import booted, focused_view, make_app, screen_is, screen_text, send, wait_for, wait_for_text


def turn_lines(app) -> list[str]:
    """The rewind list's lines, as shown."""
    options = app.screen.query_one(OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def agent_turn(pilot, fake_openai, prompt: str, command: str) -> None:
    """One turn in which the model runs `command` with bash (approved with y)."""
    app = pilot.app
    fake_openai.queue(ToolCallReply([("bash", json.dumps({"command": command}), f"c{len(fake_openai.requests)}")]),
                      TextReply(f"Ran it for {prompt}."))
    await send(pilot, prompt)
    await wait_for(pilot, lambda: screen_is(app, ApprovalScreen), message="approval modal")
    await pilot.press("y")
    await wait_for_text(pilot, f"Ran it for {prompt}.")
    await wait_for(pilot, lambda: not focused_view(app).workstream.busy, message="turn over")


async def test_rewind_screen_restores_files_and_conversation_and_undo_brings_them_back(fake_openai, tmp_path):
    app = make_app(tmp_path, fake_openai.base_url)
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    (workspace / "notes.txt").write_text("first\n")
    async with app.run_test(size=(140, 40)) as pilot:
        await booted(pilot)
        await agent_turn(pilot, fake_openai, "add a line", "echo second >> notes.txt && rm -f gone.txt")
        await agent_turn(pilot, fake_openai, "replace it", "sed -i s/first/FIRST/ notes.txt && echo n > new.txt")
        assert (workspace / "notes.txt").read_text() == "FIRST\nsecond\n"
        await send(pilot, "/rewind")
        await wait_for(pilot, lambda: screen_is(app, RewindScreen), message="rewind screen")
        await wait_for(pilot, lambda: len(turn_lines(app)) == 2, message="two messages listed")
        assert turn_lines(app) == ["1. add a line   1 file  +1 −0", "2. replace it   2 files  +2 −1"]
        await pilot.press("up")  # the first message: both turns are undone
        await wait_for_text(pilot, "Rewinding the files changes 2 file(s)")
        assert "+FIRST" in screen_text(app)  # the diff to be undone
        await pilot.press("b")
        await wait_for(pilot, lambda: not isinstance(app.screen, RewindScreen), message="screen closed")
        await wait_for_text(pilot, "Rewound to before “add a line” (files and conversation)")
        assert (workspace / "notes.txt").read_text() == "first\n" and not (workspace / "new.txt").exists()
        assert [m.role for m in focused_view(app).workstream.session.messages] == []
        await send(pilot, "/rewind undo")
        await wait_for_text(pilot, "Rewind undone")
        assert (workspace / "notes.txt").read_text() == "FIRST\nsecond\n" and (workspace / "new.txt").exists()
        assert [m.content for m in focused_view(app).workstream.session.messages if m.role == "user"] == [
            "add a line", "replace it"]
        assert "Ran it for replace it." in screen_text(app)


async def test_escape_twice_on_an_empty_prompt_opens_rewind_and_files_only_keeps_the_talk(fake_openai, tmp_path):
    app = make_app(tmp_path, fake_openai.base_url)
    workspace = tmp_path / "ws"
    async with app.run_test(size=(140, 40)) as pilot:
        await booted(pilot)
        await agent_turn(pilot, fake_openai, "make a file", "echo x > made.txt")
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: screen_is(app, RewindScreen), message="rewind screen")
        await wait_for_text(pilot, "Rewinding the files changes 1 file(s)")
        await pilot.press("f")
        await wait_for_text(pilot, "(files only)")
        assert not (workspace / "made.txt").exists()
        assert [m.content for m in focused_view(app).workstream.session.messages if m.role == "user"] == [
            "make a file"]


async def test_escape_with_text_in_the_prompt_does_not_open_rewind(fake_openai, tmp_path):
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(140, 40)) as pilot:
        await booted(pilot)
        focused_view(app).prompt.insert("half typed")
        await pilot.press("escape", "escape")
        await pilot.pause(0.2)
        assert not isinstance(app.screen, RewindScreen)


async def test_acceptance_two_edits_a_deletion_and_sed_in_one_turn_rewind_exactly(fake_openai, tmp_path):
    """Rewind as a user does it: the agent edits two files (file tools), deletes one and
    runs `sed -i` on a fourth (bash) in one turn; /rewind to before that turn restores all four."""
    app = make_app(tmp_path, fake_openai.base_url)
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    originals = {"one.py": "x = 1\n", "two.md": "# Two\n", "three.txt": "delete me\n", "four.cfg": "mode=old\n"}
    for name, text in originals.items():
        (workspace / name).write_text(text)
    fake_openai.queue(
        ToolCallReply([("write_file", json.dumps({"path": "one.py", "content": "x = 2\n"}), "w1"),
                       ("write_file", json.dumps({"path": "two.md", "content": "# Two, edited\n"}), "w2"),
                       ("bash", json.dumps({"command": "rm three.txt && sed -i s/old/new/ four.cfg"}), "b1")]),
        TextReply("Four files changed."))
    async with app.run_test(size=(140, 40)) as pilot:
        await booted(pilot)
        await send(pilot, "change four files")
        await wait_for(pilot, lambda: screen_is(app, ApprovalScreen), message="approval modal")
        await pilot.press("Y")  # approve all three
        await wait_for_text(pilot, "Four files changed.")
        await wait_for(pilot, lambda: not focused_view(app).workstream.busy, message="turn over")
        assert not (workspace / "three.txt").exists() and (workspace / "four.cfg").read_text() == "mode=new\n"
        await send(pilot, "/rewind")
        await wait_for(pilot, lambda: screen_is(app, RewindScreen), message="rewind screen")
        await wait_for_text(pilot, "Rewinding the files changes 4 file(s)")
        await pilot.press("b")
        await wait_for_text(pilot, "Rewound to before “change four files”")
        assert {name: (workspace / name).read_text() for name in originals} == originals
