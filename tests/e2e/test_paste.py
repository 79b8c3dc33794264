"""A bracketed paste into the real `whimbrel` on a pty is text: escape bytes and key chords in it
press nothing (a pasted `ESC ^Q` quit the app), they land in the prompt shown inert, in the order
pasted, and reach the model unchanged."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.installed import e2e_marks, places
from tests.e2e.pty_app import PtyApp
from tests.e2e.stored import only_conversation
from tests.e2e.test_acceptance import wait_until_ready, whimbrel_argv
from tests.fake_llm.script import TextReply

pytestmark = e2e_marks()

START, END = "\x1b[200~", "\x1b[201~"
CHORD = "text \x1b\x11\x1b"  # text, ESC, Ctrl+Q, ESC
COLOURED = "\x1b[31mstart\x1b[0m end"  # coloured terminal output, as copied from a terminal


def test_a_paste_presses_no_keys_and_lands_as_text(fake_openai, tmp_path: Path) -> None:
    workdir, data_dir = places(tmp_path)
    fake_openai.queue(TextReply("Pasted text received."))
    with PtyApp(whimbrel_argv(fake_openai.base_url, workdir, data_dir)) as app:
        wait_until_ready(app)
        start = len(app.output)
        app.send(START + CHORD + END)
        app.send(START + COLOURED + END)
        app.wait_for("text ␛␑␛␛[31mstart␛[0m end", timeout=30, since=start)  # in the prompt, in order
        assert app.process.poll() is None, "the paste quit the app"
        app.send("\r")
        app.wait_for("Pasted text received.", timeout=60, since=start)
        app.send("\x11")  # a Ctrl+Q typed, not pasted, still quits
        assert app.wait_exit(timeout=15) == 0
    _, messages = only_conversation(data_dir / "whimbrel.db")
    assert [m.content for m in messages if m.role == "user"] == [CHORD + COLOURED]
