"""A streaming reply is stored as appended pieces (a 10 MB reply rewrote its whole row and
search index on every save): each save stores only what it adds, readers see the reply so far, the
completed reply is one row indexed once, and a killed writer's pieces are folded in on the next open."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from app.storage.store import Store
from app.vocabulary.messages import Message
from tests.storage.draft_child import piece

CHILD = Path(__file__).with_name("draft_child.py")
ROOT = Path(__file__).resolve().parents[2]


def stored_sizes(store: Store, message_id: int) -> tuple[int, int]:
    """(characters in the message row, characters in its pieces) as the file holds them."""
    with store.engine.connect() as conn:
        row = conn.execute("SELECT length(content) FROM messages WHERE id = ?", (message_id,)).one()[0]
        pieces = conn.execute("SELECT coalesce(sum(length(content)), 0) FROM draft_pieces WHERE message_id = ?",
                              (message_id,)).one()[0]
    return row, pieces


def test_each_save_stores_only_what_it_adds_and_readers_see_the_whole_reply(store: Store) -> None:
    ws = store.create_workstream()
    draft = store.add_message(ws, Message(role="assistant", content="first ", reasoning="hm", interrupted=True))
    for n in range(1, 51):
        store.append_draft(ws, draft, f"part{n} ", "." if n % 10 == 0 else "")
    expected = "first " + "".join(f"part{n} " for n in range(1, 51))
    assert stored_sizes(store, draft) == (len("first "), len(expected) - len("first "))  # the row never rewritten
    (shown,) = store.load_messages(ws)
    assert (shown.content, shown.reasoning, shown.interrupted) == (expected, "hm.....", True)
    assert store.load_conversation(ws).messages[0].content == expected
    assert store.search("part50") == []  # the index is updated once, when the reply completes


def test_completing_puts_the_whole_text_in_the_row_and_the_index(store: Store) -> None:
    ws = store.create_workstream()
    draft = store.add_message(ws, Message(role="assistant", content="alpha ", interrupted=True))
    store.append_draft(ws, draft, "beta ", "")
    store.complete_draft(ws, draft, Message(role="assistant", content="alpha beta gamma"))
    assert stored_sizes(store, draft) == (len("alpha beta gamma"), 0)
    (reply,) = store.load_messages(ws)
    assert (reply.content, reply.interrupted, reply.db_id) == ("alpha beta gamma", False, draft)
    assert [hit.message_id for hit in store.search("gamma")] == [draft]


def test_a_sigkilled_writer_leaves_its_reply_whole_interrupted_and_searchable(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    store = Store(path)
    ws = store.create_workstream()
    store.close()
    child = subprocess.Popen([sys.executable, str(CHILD), str(path), ws], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    reported = 0
    try:
        assert child.stdout is not None
        for line in child.stdout:
            reported = int(line.split()[1])
            if reported >= 30:
                break
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert reported >= 30, "the child stopped before saving"

    reopened = Store(path)  # a restart folds the pieces into the row
    (reply,) = reopened.load_messages(ws)
    saved = "".join(piece(n) for n in range(1, reported + 1))
    assert reply.interrupted and reply.content.startswith(saved)
    assert stored_sizes(reopened, reply.db_id) == (len(reply.content), 0)
    assert [hit.message_id for hit in reopened.search(f'"piece {reported}"')] == [reply.db_id]
    reopened.close()


def test_folding_while_the_writer_still_streams_loses_nothing(db_path: Path) -> None:
    writer = Store(db_path)
    ws = writer.create_workstream()
    draft = writer.add_message(ws, Message(role="assistant", content="one ", interrupted=True))
    writer.append_draft(ws, draft, "two ", "")
    other = Store(db_path)  # a second window opening meanwhile folds what it finds
    writer.append_draft(ws, draft, "three ", "")
    assert other.load_messages(ws)[0].content == "one two three "
    writer.complete_draft(ws, draft, Message(role="assistant", content="one two three four"))
    assert [m.content for m in other.load_messages(ws)] == ["one two three four"]
    for s in (writer, other):
        s.close()


def test_a_rewind_removes_a_drafts_pieces_with_its_row(store: Store) -> None:
    ws = store.create_workstream()
    store.add_message(ws, Message(role="user", content="go"))
    draft = store.add_message(ws, Message(role="assistant", content="so", interrupted=True))
    store.append_draft(ws, draft, " far", "")
    assert store.rewind(ws, 1) == 1
    assert store.load_messages(ws) == []
    with store.engine.connect() as conn:
        assert conn.execute("SELECT count(*) FROM draft_pieces").one()[0] == 0
