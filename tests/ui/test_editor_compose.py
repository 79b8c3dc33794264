"""Composing the prompt in $VISUAL / $EDITOR: a fake editor script edits the file it is given, and the
text comes back into the prompt (Ctrl+O and the palette); a failing editor leaves the prompt as it was."""

from __future__ import annotations

import stat
from pathlib import Path

from app.tui.comforts.editor_compose import editor_command
from tests.fake_llm.script import TextReply
from tests.ui.helpers import booted, make_app, screen_text, wait_for


def fake_editor(folder: Path, body: str) -> Path:
    script = folder / "fake-editor"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


APPEND = '{ cat "$1"; printf "and a second paragraph\\nwritten in the editor\\n"; } > "$1.new" && mv "$1.new" "$1"\n'


def test_visual_comes_before_editor_and_is_split_like_a_shell():
    assert editor_command({"VISUAL": "code --wait", "EDITOR": "nano"}) == ["code", "--wait"]
    assert editor_command({"EDITOR": "'/opt/my editor/ed' -n"}) == ["/opt/my editor/ed", "-n"]
    assert editor_command({"VISUAL": "  ", "EDITOR": ""}) == ["vi"]


async def test_the_prompt_round_trips_the_editor_and_is_sent(fake_openai, tmp_path, monkeypatch):
    monkeypatch.setenv("VISUAL", str(fake_editor(tmp_path, APPEND)))
    monkeypatch.setenv("EDITOR", "/nonexistent/editor")
    fake_openai.queue(TextReply("Got your long prompt."))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 30)) as pilot:
        await booted(pilot)
        prompt = app.main_screen.view_for(app.focused_id).prompt
        prompt.insert("A long prompt:")
        await pilot.press("ctrl+o")
        expected = "A long prompt:\nand a second paragraph\nwritten in the editor"
        await wait_for(pilot, lambda: prompt.text == expected, message="the edited text in the prompt")
        assert app.focused is prompt
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Got your long prompt." in screen_text(app))
    assert fake_openai.requests[-1]["messages"][-1] == {"role": "user", "content": expected}


async def test_a_failing_editor_leaves_the_prompt_and_says_why(tmp_path, monkeypatch):
    monkeypatch.setenv("VISUAL", str(fake_editor(tmp_path, 'echo gone > "$1"\nexit 3\n')))
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await booted(pilot)
        prompt = app.main_screen.view_for(app.focused_id).prompt
        prompt.insert("keep me")
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: any("exited with status 3" in n.message for n in app._notifications),
                       message="the failure is reported")
        assert prompt.text == "keep me"


async def test_a_missing_editor_is_reported_in_words(tmp_path, monkeypatch):
    monkeypatch.setenv("VISUAL", str(tmp_path / "no-such-editor"))
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await booted(pilot)
        app.main_screen.view_for(app.focused_id).prompt.insert("draft")
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: any("Could not start the editor" in n.message for n in app._notifications),
                       message="the missing editor is reported")
        assert app.main_screen.view_for(app.focused_id).prompt.text == "draft"
