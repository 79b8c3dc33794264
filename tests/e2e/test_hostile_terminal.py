"""The real `whimbrel` in a pseudo-terminal: what a hostile model or file sends never reaches the terminal.

The bytes the program writes are read as the terminal would get them. Textual writes escape sequences of
its own (cursor moves, colours), so the test looks for the hostile sequences themselves: a retitle, an
OSC 52 clipboard write, a screen clear, a C1 CSI and a bidi override. Their visible marks must be there.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.installed import e2e_marks, places
from tests.e2e.pty_app import PtyApp
from tests.e2e.test_acceptance import wait_until_ready, whimbrel_argv
from tests.fake_llm.script import TextReply, ToolCallReply
from tests.hostile.mcp_server import CLEAR, CLIPBOARD, HOSTILE, RETITLE


pytestmark = e2e_marks()


def test_hostile_reply_and_file_never_reach_the_terminal(fake_openai, tmp_path: Path) -> None:
    workdir, data_dir = places(tmp_path)
    (workdir / "notes.txt").write_text(f"notes {HOSTILE}\n")
    fake_openai.queue(TextReply(f"Reply {HOSTILE} one.", reasoning=f"Hmm {HOSTILE}"),
                      TextReply(f"Title {RETITLE}"))  # the auto-title asked for after the first exchange
    with PtyApp(whimbrel_argv(fake_openai.base_url, workdir, data_dir)) as app:
        wait_until_ready(app)
        start = len(app.output)
        app.send("hello\r")
        app.wait_for("one.", timeout=60, since=start)
        app.wait_for("Title ␛]0;PWNED␇", timeout=60, since=start)  # in the tab bar
        fake_openai.queue(ToolCallReply([("read_file", json.dumps({"path": "notes.txt"}), "r1")]),
                          TextReply("All read."))
        app.send("now read notes.txt\r")
        app.wait_for("All read.", timeout=60, since=start)
        written = app.output[start:]
        for sequence in (RETITLE, CLIPBOARD, CLEAR, "\x1b]0;", "\x9b", "\u202e"):
            assert sequence not in written, f"{sequence!r} reached the terminal"
        shown = app.screen_text[start:]
        assert "Reply ␛[2J␛[H␛]0;PWNED␇" in shown and "notes ␛[2J␛[H" in shown
        app.send("\x11")  # Ctrl+Q
        app.wait_exit(timeout=30)
