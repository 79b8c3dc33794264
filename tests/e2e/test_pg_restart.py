"""Acceptance: the PostgreSQL server restarts in the middle of a turn.

A real `whimbrel` on a PostgreSQL server of this test's own (started here, restarted with
`pg_ctl restart -m fast`, which drops every client, and stopped at the end; the worker's shared
server is never touched). The reply being streamed when the server goes away is kept, whole or
marked interrupted; the earlier turn is all there; and the app reconnects: a next turn is answered
and stored. Every wait is for a condition.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.storage.store import Store
from tests.e2e.installed import NEEDS_WHIMBREL, places
from tests.e2e.pty_app import PtyApp
from tests.e2e.test_acceptance import wait_until_ready, whimbrel_argv
from tests.fake_llm.script import SlowReply, TextReply

WORDS = " ".join(f"w{n:04d}" for n in range(1, 81))  # ~8 s at ten words a second

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240), NEEDS_WHIMBREL]


def rows(store: Store, ws: str) -> list[tuple[str, str, bool]]:
    return [(m.role, m.content, m.interrupted) for m in store.load_messages(ws)]


def test_a_server_restart_mid_turn_keeps_the_reply_and_the_app_reconnects(fake_openai, own_pg_server,
                                                                           tmp_path: Path) -> None:
    url = own_pg_server.database()
    workdir, data_dir = places(tmp_path)
    fake_openai.queue(TextReply("first answer"))
    fake_openai.queue(TextReply("Restart test"))  # the title the app asks for after the first turn
    store = Store(url)
    app = PtyApp(whimbrel_argv(fake_openai.base_url, workdir, data_dir, "--db-url", url))
    try:
        wait_until_ready(app)
        app.send("first question\r")
        app.wait_until(lambda: any(r[1] == "first answer" for ws in _workstreams(store) for r in rows(store, ws)),
                       60, "the first turn stored")
        (ws,) = _workstreams(store)
        app.wait_until(lambda: len(fake_openai.requests) == 2, 60, "the workstream's title asked for")
        streamed = fake_openai.completed
        fake_openai.queue(SlowReply(WORDS, delay=0.1, chunk_size=6))
        fake_openai.queue(TextReply("third answer"))
        app.send("second question\r")
        app.wait_until(lambda: len(rows(store, ws)) == 4 and "w0010" in rows(store, ws)[3][1], 60,
                       "the second reply streaming and saved")
        assert fake_openai.completed == streamed

        own_pg_server.restart()  # every connection the app holds is cut mid-turn

        app.wait_until(lambda: fake_openai.completed == streamed + 1, 60, "the second reply streamed to its end")
        app.send("third question\r")
        app.wait_until(lambda: rows(store, ws)[-1:] == [("assistant", "third answer", False)], 60,
                       "the turn after the restart answered and stored")
        assert "Traceback" not in app.screen_text, app.screen_text[-2000:]
        app.send("\x11")  # Ctrl+Q
        assert app.wait_exit(timeout=30) == 0, app.screen_text[-1500:]
    finally:
        app.close()

    try:
        stored = rows(store, ws)
        assert stored[:3] == [("user", "first question", False), ("assistant", "first answer", False),
                              ("user", "second question", False)], stored
        role, reply, interrupted = stored[3]
        assert role == "assistant" and (reply == WORDS and not interrupted
                                        or interrupted and WORDS.startswith(reply) and "w0010" in reply), stored[3]
        assert stored[4:] == [("user", "third question", False), ("assistant", "third answer", False)], stored
        print(f"the reply cut by the restart: {'kept whole' if not interrupted else 'kept, marked interrupted'}"
              f" ({len(reply.split())} of {len(WORDS.split())} words)")
    finally:
        store.close()


def _workstreams(store: Store) -> list[str]:
    with store.engine.connect() as conn:
        return [r[0] for r in conn.execute("SELECT DISTINCT workstream_id FROM messages")]
