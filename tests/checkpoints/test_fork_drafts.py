"""A fork copies a reply that is stored as a draft (a row plus appended pieces, app/storage/drafts.py):
one still streaming in another window, or one a crash cut. The fork holds its text up to the fork
point, marked interrupted, and stays as it was while the parent's reply goes on."""

from __future__ import annotations

import asyncio
from pathlib import Path

from app.checkpoints import records
from app.storage.store import Store
from app.vocabulary.messages import Message
from tests.engine.harness import Recorder, make_session, shutdown
from tests.fake_llm.script import TextReply


def _pieces(store: Store) -> int:
    with store.engine.connect() as conn:
        return conn.execute("SELECT count(*) FROM draft_pieces").one()[0]


def _row_size(store: Store, workstream_id: str) -> int:
    """Characters in the workstream's last message row itself (a draft's first save, without its pieces)."""
    with store.engine.connect() as conn:
        return conn.execute("SELECT length(content) FROM messages WHERE workstream_id = ? ORDER BY seq DESC LIMIT 1",
                            (workstream_id,)).one()[0]


def _fork_all(store: Store, parent: str) -> str:
    return records.fork_workstream(store, parent, records.last_seq(store, parent), title="fork", workdir="",
                                   model=None)


def test_a_fork_takes_a_drafts_pieces_and_keeps_them_when_the_parent_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "whimbrel.db"
    writer, other = Store(path), Store(path)  # the window streaming, and the one that forks
    try:
        ws = writer.create_workstream(title="parent")
        writer.add_message(ws, Message(role="user", content="tell me"))
        draft = writer.add_message(ws, Message(role="assistant", content="one ", reasoning="hm", interrupted=True))
        writer.append_draft(ws, draft, "two ", " ok")
        writer.append_draft(ws, draft, "three ", "")

        child = _fork_all(other, ws)
        writer.append_draft(ws, draft, "four ", "")
        writer.complete_draft(ws, draft, Message(role="assistant", content="one two three four five"))

        forked = [(m.role, m.content, m.reasoning, m.interrupted) for m in other.load_messages(child)]
        assert forked == [("user", "tell me", "", False), ("assistant", "one two three ", "hm ok", True)]
        assert [m.content for m in writer.load_messages(ws)] == ["tell me", "one two three four five"]
        assert _pieces(writer) == 0, "the fork's copy is one whole row: nothing left to fold"
    finally:
        writer.close()
        other.close()


async def test_forking_while_a_real_turn_streams_gets_the_reply_up_to_then(fake_openai, tmp_path: Path) -> None:
    """The parent streams through a real session (openai SDK, fake server, AsyncStore); another window
    forks it mid-reply: the fork holds more than the draft's row (its first save), a prefix of the end."""
    words = "".join(f"word{n} " for n in range(3000))
    fake_openai.queue(TextReply(words, chunk_size=8, delay=0.005))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    session, store = await make_session(fake_openai, workspace, tmp_path, Recorder())
    other = Store(tmp_path / "whimbrel.db")
    turn = asyncio.create_task(session.run_turn("count"))
    try:
        for _ in range(400):  # until a later save appended a piece (every 0.5 s)
            if _pieces(other) >= 2:
                break
            await asyncio.sleep(0.05)
        assert _pieces(other) >= 2, "the reply was never saved as pieces"
        first_save = _row_size(other, session.workstream_id)
        child = _fork_all(other, session.workstream_id)
        await turn
    finally:
        turn.cancel()
        await shutdown(session, store)
    try:
        user, reply = other.load_messages(child)
        final = other.load_messages(session.workstream_id)[-1].content
        assert (user.content, reply.interrupted) == ("count", True)
        assert final == words and words.startswith(reply.content)
        assert len(reply.content) > first_save, "the pieces saved after the first save are in the fork"
    finally:
        other.close()
