"""A streaming reply is stored while it arrives, in one row that completes in place.

Real openai SDK against the fake server over HTTP, real SQLite file: during the stream the row holds
the text so far and is marked interrupted; the finished reply (and its tool calls) replace it, and a
cancel leaves the partial text marked interrupted, never a second copy.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.engine.harness import Recorder, make_session, shutdown
from tests.fake_llm.script import TextReply, ToolCallReply

TEXT = "Let me look at the files first, one by one, before I change anything at all. " * 3


@pytest.fixture
def workspace(tmp_path):
    path = tmp_path / "ws"
    path.mkdir()
    return path


async def wait_for_draft(store, workstream_id: str, length: int, timeout: float = 30.0):
    """The stored assistant message once it holds at least `length` characters."""
    async def poll():
        while True:
            replies = [m for m in await store.load_messages(workstream_id) if m.role == "assistant"]
            if replies and len(replies[-1].content) >= length:
                return replies[-1]
            await asyncio.sleep(0.05)

    return await asyncio.wait_for(poll(), timeout)


async def test_streaming_reply_is_stored_as_it_arrives_and_completed_in_place(fake_openai, workspace, tmp_path):
    args = json.dumps({"path": "a.txt"})
    fake_openai.queue(ToolCallReply([("read_file", args, "call_r1")], text=TEXT, chunk_size=3, delay=0.02),
                      TextReply("Done."))
    (workspace / "a.txt").write_text("alpha\n")
    recorder = Recorder()
    session, store = await make_session(fake_openai, workspace, tmp_path, recorder)
    turn = asyncio.create_task(session.run_turn("look"))
    draft = await wait_for_draft(store, session.workstream_id, 40)
    assert draft.interrupted and TEXT.startswith(draft.content) and not draft.tool_calls
    await turn
    stored = await store.load_messages(session.workstream_id)
    assert [m.role for m in stored] == ["user", "assistant", "tool", "assistant"]
    first = stored[1]
    assert (first.content, first.interrupted, first.db_id) == (TEXT, False, draft.db_id)
    assert [(c.id, c.name) for c in first.tool_calls] == [("call_r1", "read_file")]
    assert stored[2].tool_call_id == "call_r1" and "alpha" in stored[2].content
    assert (stored[3].content, stored[3].interrupted) == ("Done.", False)
    await shutdown(session, store)


async def test_cancel_leaves_one_row_with_the_partial_text_marked_interrupted(fake_openai, workspace, tmp_path):
    thoughts = "First I think about it, slowly. " * 4
    fake_openai.queue(TextReply(TEXT * 4, reasoning=thoughts, chunk_size=2, delay=0.03))
    recorder = Recorder()
    session, store = await make_session(fake_openai, workspace, tmp_path, recorder)
    turn = asyncio.create_task(session.run_turn("talk"))
    await wait_for_draft(store, session.workstream_id, 20)
    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn
    shown = recorder.text()
    stored = await store.load_messages(session.workstream_id)
    assert [m.role for m in stored] == ["user", "assistant"]
    assert (stored[1].content, stored[1].reasoning, stored[1].interrupted) == (shown, thoughts, True)
    await shutdown(session, store)
