"""The exit hint and the store tell the truth: a store deleted while running is reported at the next
write and offers no resume id; a temporary store's session does not point at the data dir."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.installed import e2e_marks, places
from tests.e2e.pty_app import PtyApp, strip_ansi
from tests.e2e.test_acceptance import wait_until_ready, whimbrel_argv
from tests.fake_llm.script import TextReply

pytestmark = e2e_marks()


def ask(app: PtyApp, prompt: str, answer: str) -> None:
    app.send(prompt)
    app.wait_for(prompt, timeout=20)
    app.send("\r")
    app.wait_for(answer, timeout=60)


def quit_and_read_hint(app: PtyApp) -> str:
    """Ctrl+Q; what the shell shows after the app has left the alternate screen."""
    app.send("\x11")
    status = app.wait_exit(timeout=30)
    after = strip_ansi(app.output.split("\x1b[?1049l")[-1]).strip()
    assert status == 0, f"exit status {status}; the app printed after leaving the screen:\n{after[-3000:]}"
    return after


def test_store_deleted_while_running_is_reported_and_offers_no_resume(fake_openai, tmp_path: Path) -> None:
    workdir, data_dir = places(tmp_path)
    fake_openai.queue(TextReply("Answer into the void."))

    with PtyApp(whimbrel_argv(fake_openai.base_url, workdir, data_dir), columns=160) as app:
        wait_until_ready(app)
        for path in data_dir.iterdir():  # whimbrel.db and its -wal and -shm files
            path.unlink()
        ask(app, "Remember this", "Answer into the void.")
        app.wait_for("deleted while Whimbrel was running", timeout=30)
        hint = quit_and_read_hint(app)
    assert "Resume this conversation" not in hint
    assert f"{data_dir / 'whimbrel.db'} was deleted while Whimbrel was running" in hint
    assert not (data_dir / "whimbrel.db").exists(), "nothing may pretend to have saved"


def test_temporary_store_exit_hint_does_not_point_at_the_data_dir(fake_openai, tmp_path: Path) -> None:
    workdir, data_dir = places(tmp_path)
    data_dir.write_text("a file where the data directory should be")
    fake_openai.queue(TextReply("Answer kept nowhere."))

    with PtyApp(whimbrel_argv(fake_openai.base_url, workdir, data_dir), columns=160) as app:
        app.wait_for("cannot open its conversation store", timeout=60)
        app.send("t")
        wait_until_ready(app)
        ask(app, "Remember this", "Answer kept nowhere.")
        hint = quit_and_read_hint(app)
    assert "Resume this conversation" not in hint and "--data-dir" not in hint
    assert hint.startswith("Nothing was saved:") and "temporary store" in hint
