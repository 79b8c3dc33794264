"""$EDITOR in a real terminal: Ctrl+O suspends the app (Textual's App.suspend), the editor has the
pty, and on save the app comes back with the text in the prompt, ready to send."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tests.e2e.installed import e2e_marks, places
from tests.e2e.pty_app import PtyApp
from tests.e2e.test_acceptance import wait_until_ready, whimbrel_argv
from tests.fake_llm.script import TextReply

pytestmark = e2e_marks()

# Says on the terminal that it runs (the app has left the alternate screen), then writes the prompt.
EDITOR = """#!/bin/sh
printf 'FAKE-EDITOR-HAS-THE-TERMINAL\\n'
printf 'Composed in the editor, line one\\nline two of the long prompt\\n' > "$1"
"""


def test_ctrl_o_suspends_for_the_editor_and_brings_the_text_back(fake_openai, tmp_path: Path) -> None:
    workdir, data_dir = places(tmp_path)
    editor = tmp_path / "editor.sh"
    editor.write_text(EDITOR)
    editor.chmod(editor.stat().st_mode | stat.S_IEXEC)
    fake_openai.queue(TextReply("Read both lines."))
    env = dict(os.environ, VISUAL=str(editor))
    with PtyApp(whimbrel_argv(fake_openai.base_url, workdir, data_dir), columns=140, env=env) as app:
        wait_until_ready(app)
        app.send("\x0f")  # Ctrl+O
        app.wait_for("FAKE-EDITOR-HAS-THE-TERMINAL", timeout=30)
        since = len(app.output)
        app.wait_for("line two of the long prompt", timeout=30, since=since)  # the app drew again
        app.send("\r")
        app.wait_for("Read both lines.", timeout=60)
        app.send("\x11")
        assert app.wait_exit(timeout=30) == 0
    # the turn's request (an auto-title request may come after it and quote the exchange)
    sent = [request["messages"][-1]["content"] for request in fake_openai.requests]
    assert "Composed in the editor, line one\nline two of the long prompt" in sent
