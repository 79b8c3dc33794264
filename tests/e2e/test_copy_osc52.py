"""Copying in a real terminal: F7 writes the code block as an OSC 52 sequence to the terminal (what
reaches the local clipboard over SSH and through tmux with set-clipboard on)."""

from __future__ import annotations

import base64
from pathlib import Path

from tests.e2e.installed import e2e_marks, places
from tests.e2e.pty_app import PtyApp
from tests.e2e.test_acceptance import wait_until_ready, whimbrel_argv
from tests.fake_llm.script import TextReply

pytestmark = e2e_marks()


def test_f7_sends_the_code_block_as_osc_52(fake_openai, tmp_path: Path) -> None:
    workdir, data_dir = places(tmp_path)
    fake_openai.queue(TextReply("Try:\n\n```sh\necho copied-over-osc52\n```\n"))
    with PtyApp(whimbrel_argv(fake_openai.base_url, workdir, data_dir), columns=140) as app:
        wait_until_ready(app)
        app.send("give me a command")
        app.wait_for("give me a command", timeout=20)
        app.send("\r")
        app.wait_for("echo copied-over-osc52", timeout=60)
        since = len(app.output)
        app.send("\x1b[18~")  # F7 as xterm sends it
        expected = "\x1b]52;c;" + base64.b64encode(b"echo copied-over-osc52").decode() + "\a"
        app.wait_until(lambda: expected in app.output[since:], timeout=30, what="the OSC 52 sequence")
        app.send("\x11")
        assert app.wait_exit(timeout=30) == 0
