"""A read-only window follows the reply another window is streaming, as it is saved, and calls it
interrupted only once it is cut.

The owner is a real `whimbrel` process in a pseudo-terminal, streaming slowly from the fake model
server into the shared data dir; the follower is the app under test (Pilot), opened on the same
workstream, which it shows read-only.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
from pathlib import Path

import pytest

from app.storage.store import Store
from app.vocabulary.messages import Message
from tests.e2e.installed import NEEDS_WHIMBREL
from tests.e2e.pty_app import PtyApp
from tests.e2e.test_acceptance import whimbrel_argv
from tests.fake_llm.script import TextReply
from tests.ui.helpers import booted, make_app, screen_text, wait_for
from widgets.messages import AssistantMessage

pytestmark = [NEEDS_WHIMBREL, pytest.mark.timeout(240)]

WORDS = 600
REPLY = " ".join(f"w{n:03d}" for n in range(1, WORDS + 1))
INTERRUPTED = "This response was interrupted."


def _first_draft(db: Path, workstream_id: str) -> str:
    """The text the owner's first save stored in the reply's row (its later saves are draft pieces)."""
    conn = sqlite3.connect(db)
    try:
        row = conn.execute("SELECT content FROM messages WHERE workstream_id = ? AND role = 'assistant' "
                           "AND interrupted ORDER BY seq DESC LIMIT 1", (workstream_id,)).fetchone()
        return row[0] if row else ""
    finally:
        conn.close()


def _lease_pid(db: Path, workstream_id: str) -> int | None:
    conn = sqlite3.connect(db)
    try:
        row = conn.execute("SELECT pid FROM workstream_leases WHERE workstream_id = ?", (workstream_id,)).fetchone()
        return row[0] if row else None
    finally:
        conn.close()


async def _until(owner: PtyApp, predicate, what: str, timeout: float = 60) -> None:
    """Read the owner's output (it never blocks on a full terminal) until `predicate()`, never
    holding the test's event loop (its watchdog fails a test that does)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, f"{what}; owner's screen:\n{owner.screen_text[-1500:]}"
        owner.pump(0)
        await asyncio.sleep(0.05)


async def _start(owner: PtyApp, db: Path, ws: str) -> None:
    await _until(owner, lambda: "Ask for work" in owner.screen_text, "the owner's first screen")
    await _until(owner, lambda: _lease_pid(db, ws) == owner.process.pid, "the owner holds the workstream")


def _highest_word(text: str) -> int:
    return max((int(n) for n in re.findall(r"\bw(\d{3})\b", text)), default=0)


@pytest.fixture
def held_workstream(tmp_path: Path):
    """A saved conversation that the owner restores (its only saved tab) and so holds."""
    store = Store(tmp_path / "data" / "whimbrel.db")
    ws = store.create_workstream(title="followed")
    store.add_message(ws, Message(role="user", content="earlier question"))
    store.add_message(ws, Message(role="assistant", content="earlier answer"))
    store.set_app_state("tabs", [ws])
    store.close()
    return ws


async def test_read_only_view_follows_the_stream_and_marks_it_interrupted_only_once_cut(
        fake_openai, tmp_path: Path, held_workstream: str) -> None:
    ws, db = held_workstream, tmp_path / "data" / "whimbrel.db"
    (tmp_path / "ws").mkdir()
    fake_openai.queue(TextReply(REPLY, chunk_size=5, delay=0.05))  # one word a chunk: 30 s at the least
    with PtyApp(whimbrel_argv(fake_openai.base_url, tmp_path / "ws", tmp_path / "data")) as owner:
        await _start(owner, db, ws)
        app = make_app(tmp_path, resume=ws)
        async with app.run_test(size=(120, 40)) as pilot:
            await booted(pilot)
            assert app.workstream.id == ws and app.workstream.read_only
            view = app.main_screen.view_for(ws)
            await wait_for(pilot, lambda: "earlier answer" in screen_text(app), message="history shown")
            owner.send("go on\r")

            seen_interrupted = []

            def shown(predicate):
                def check() -> bool:
                    owner.pump(0)  # the owner never blocks on a full terminal
                    text = screen_text(app)
                    if INTERRUPTED in text:
                        seen_interrupted.append(text[-300:])
                    return predicate(text)
                return check

            await _until(owner, lambda: _first_draft(db, ws), "the owner's first save")
            first = _highest_word(_first_draft(db, ws))
            assert 0 < first < WORDS - 100, first
            await wait_for(pilot, shown(lambda text: _highest_word(text) >= first + 20), timeout=60,
                           message=f"words beyond the first draft (word {first}) shown while it streams")
            assert fake_openai.completed == 0, "the owner was still streaming"
            assert not seen_interrupted, f"called interrupted while streaming: {seen_interrupted[0]}"
            before = _highest_word(screen_text(app))
            reply = view.transcript.query_children(AssistantMessage).last()
            await wait_for(pilot, shown(lambda text: _highest_word(text) > before), timeout=30,
                           message="and it keeps following")
            assert view.transcript.query_children(AssistantMessage).last() is reply, \
                "the new words were appended to the reply shown, not the page rendered afresh"
            assert not seen_interrupted, f"called interrupted while streaming: {seen_interrupted[0]}"

            owner.send("\x1b")  # the owner cancels: now the reply is cut
            await wait_for(pilot, shown(lambda text: INTERRUPTED in text), timeout=60,
                           message="interrupted once the owner cut the reply")
            assert owner.process.poll() is None and fake_openai.completed == 0
            assert app.workstream.read_only


async def test_a_reply_whose_owner_died_mid_stream_shows_as_interrupted(
        fake_openai, tmp_path: Path, held_workstream: str) -> None:
    ws, db = held_workstream, tmp_path / "data" / "whimbrel.db"
    (tmp_path / "ws").mkdir()
    fake_openai.queue(TextReply(REPLY, chunk_size=5, delay=0.05))
    with PtyApp(whimbrel_argv(fake_openai.base_url, tmp_path / "ws", tmp_path / "data")) as owner:
        await _start(owner, db, ws)
        app = make_app(tmp_path, resume=ws)
        async with app.run_test(size=(120, 40)) as pilot:
            await booted(pilot)
            owner.send("go on\r")

            def following() -> bool:
                owner.pump(0)
                return _highest_word(screen_text(app)) > 0

            await wait_for(pilot, following, timeout=60, message="the streaming reply shown")
            assert INTERRUPTED not in screen_text(app)
            owner.kill()  # SIGKILL: the store still says "streaming", but its writer is gone
            await wait_for(pilot, lambda: INTERRUPTED in screen_text(app), timeout=60,
                           message="interrupted once its writer is gone")
