"""A disk that refuses writes is said, not an internal error: with a 1.5 MB file-size limit (RLIMIT_FSIZE,
SIGXFSZ ignored, so a write past it fails with EFBIG as on a full disk), a 3 MB reply streams in full on
screen, the transcript says what was not saved and why, the store holds the part it could (marked
interrupted, never passed off as complete), and the app keeps running."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

from tests.e2e.installed import e2e_marks, places
from tests.e2e.pty_app import PtyApp
from tests.e2e.test_acceptance import wait_until_ready, whimbrel_argv
from tests.fake_llm.script import TextReply

pytestmark = e2e_marks(240)

LIMIT = 1_500_000
REPLY = "".join(f"line {n:06d} of a reply much larger than the disk allows\n" for n in range(55_000)) + "THE END"
# Ignored signals and resource limits both survive exec: the app runs under them from its first line.
LIMITED = ("import os, resource, signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
           f"resource.setrlimit(resource.RLIMIT_FSIZE, ({LIMIT}, {LIMIT})); os.execv(sys.argv[1], sys.argv[1:])")


def stored_replies(db: Path) -> list[tuple[int, bool]]:
    """(characters, interrupted) of each stored reply, its draft pieces counted (a plain read)."""
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT m.id, length(m.content), m.interrupted FROM messages m "
                            "WHERE m.role = 'assistant' ORDER BY m.seq").fetchall()
        return [(size + sum(conn.execute(f"SELECT coalesce(sum(length(content)), 0) FROM {table} WHERE "
                                         "message_id = ?", (row_id,)).fetchone()[0]
                            for table in ("message_pieces", "draft_pieces")), bool(interrupted))
                for row_id, size, interrupted in rows]
    finally:
        conn.close()


def test_a_reply_the_disk_refuses_is_said_and_not_passed_off_as_saved(fake_openai, tmp_path: Path) -> None:
    assert len(REPLY) > 2 * LIMIT
    workdir, data_dir = places(tmp_path)
    fake_openai.queue(TextReply(REPLY, chunk_size=16_384, delay=0.03))
    argv = [sys.executable, "-c", LIMITED, *whimbrel_argv(fake_openai.base_url, workdir, data_dir)]
    with PtyApp(argv, columns=200, rows=50) as app:
        wait_until_ready(app)
        app.send("write a lot\r")
        app.wait_for("Saving this reply failed after", timeout=120)  # at once, while it streams
        app.wait_for("Not saved: this reply is shown in full above, but only its first", timeout=120)
        app.wait_for("ulimit -f", timeout=30)  # and why
        app.wait_for("characters are stored", timeout=30)  # the note's line drawn whole
        screen = app.screen_text
        assert "internal error" not in screen and "Traceback" not in screen, screen[-3000:]
        stored = stored_replies(data_dir / "whimbrel.db")
        assert len(stored) == 1 and stored[0][1], f"the partial reply is stored marked interrupted: {stored}"
        assert 0 < stored[0][0] < len(REPLY)
        assert f"only its first {stored[0][0]:,} of {len(REPLY):,} characters are stored" in screen
        assert app.process.poll() is None, "the app keeps running"
        app.send("\x11")
        code = app.wait_exit(timeout=30)
        assert code == 0, app.screen_text[-3000:]
