"""SIGKILL keeps what was on screen: a streaming reply is saved as it arrives, and on restart an
interrupted turn shows as interrupted (its partial text kept) and a call that never got an approval
shows as not run. The installed `whimbrel` runs in a real pty; the store is read as a file."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tests.e2e.installed import e2e_marks, places
from tests.e2e.pty_app import PtyApp
from tests.e2e.stored import only_conversation
from tests.e2e.test_acceptance import SLOW_REPLY, wait_until_ready, whimbrel_argv
from tests.fake_llm.script import TextReply, ToolCallReply

PARTIAL = 200  # characters of the reply (about 40 words) that must be stored before the kill

pytestmark = e2e_marks()


def stored_replies(db: Path) -> list[tuple[str, bool]]:
    """(content, interrupted) of every assistant reply, read without writing to the live store."""
    if not db.exists():
        return []
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        rows = connection.execute(  # a streaming reply's row holds its first save, its pieces the rest
            "SELECT m.content || coalesce((SELECT group_concat(p.content, '') FROM (SELECT content FROM "
            "draft_pieces WHERE message_id = m.id ORDER BY id) p), ''), m.interrupted FROM messages m "
            "WHERE m.role = 'assistant' ORDER BY m.seq").fetchall()
    except sqlite3.OperationalError:  # the app has not created its tables yet
        return []
    finally:
        connection.close()
    return [(content, bool(interrupted)) for content, interrupted in rows]


def start_turn(app: PtyApp, prompt: str) -> None:
    wait_until_ready(app)
    app.send(prompt)
    app.wait_for(prompt, timeout=20)
    app.send("\r")


def test_sigkill_mid_stream_keeps_the_partial_reply_marked_interrupted(fake_openai, tmp_path: Path) -> None:
    workdir, data_dir = places(tmp_path)
    db = data_dir / "whimbrel.db"
    fake_openai.queue(TextReply(SLOW_REPLY, delay=0.05, chunk_size=2))  # ~40 s: still streaming when killed

    with PtyApp(whimbrel_argv(fake_openai.base_url, workdir, data_dir)) as app:
        start_turn(app, "Summarize the notes")
        app.wait_for("Streaming-summary begins", timeout=60)
        app.wait_until(lambda: any(len(text) >= PARTIAL for text, _ in stored_replies(db)), timeout=60,
                       what=f"the first {PARTIAL} characters of the streaming reply stored")
        assert fake_openai.completed == 0, "the reply must still be streaming when we crash"
        app.kill()

    (reply,) = stored_replies(db)
    text, interrupted = reply
    assert interrupted, "a reply cut by a crash must be stored as interrupted"
    assert len(text) >= PARTIAL and SLOW_REPLY.startswith(text)

    with PtyApp(whimbrel_argv(fake_openai.base_url, workdir, data_dir, "--resume", only_conversation(db)[0][:8])) as app:
        app.wait_for("This response was interrupted.", timeout=60)
        app.wait_for("Streaming-summary", timeout=10)  # the partial text itself, above the mark
        app.send("\x11")  # Ctrl+Q
        assert app.wait_exit(timeout=30) == 0
    assert stored_replies(db) == [reply], "resuming must not change the stored reply"


def test_call_waiting_for_approval_at_a_crash_shows_as_not_run(fake_openai, tmp_path: Path) -> None:
    workdir, data_dir = places(tmp_path)
    fake_openai.queue(ToolCallReply(calls=[("write_file", json.dumps({"path": "plan.txt", "content": "x\n"}))]))

    with PtyApp(whimbrel_argv(fake_openai.base_url, workdir, data_dir)) as app:
        start_turn(app, "Write the plan down")
        app.wait_for("Approve tool call", timeout=60)
        app.kill()

    workstream, _ = only_conversation(data_dir / "whimbrel.db")
    with PtyApp(whimbrel_argv(fake_openai.base_url, workdir, data_dir, "--resume", workstream[:8])) as app:
        app.wait_for("write_file", timeout=60)
        app.wait_for("[not run]", timeout=10)
        assert "[pending]" not in app.screen_text
        app.send("\x11")
        assert app.wait_exit(timeout=30) == 0
    assert not (workdir / "plan.txt").exists()
