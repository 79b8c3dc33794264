"""A long text is stored as a head in its row plus pieces: the completion of a 10 MB reply
wrote its whole text as one value, +32 MB of SQLite memory at once (three copies: the bound
parameter, the record, the index trigger's), the app's memory peak. Readers, search, forks and a
rewind's undo still see the whole text."""

from __future__ import annotations

import ctypes
import sqlite3
import _sqlite3
from pathlib import Path

from app.checkpoints import records
from app.storage.pieces import HEAD_CHARS, PIECE_CHARS
from app.storage.store import Store
from app.vocabulary.messages import Message

# distinct words at the start (indexed), a long middle, a word only near the end
REPLY = "alpha beta gamma " + "word " * 1_600_000 + "omega"  # 8 MB
THOUGHT = "think " * 60_000  # 360 K: reasoning past the head too

_sqlite = ctypes.CDLL(_sqlite3.__file__)  # the SQLite that Python's module uses, linked in or shared
_sqlite.sqlite3_memory_highwater.restype = ctypes.c_int64
_sqlite.sqlite3_memory_highwater.argtypes = [ctypes.c_int]
_sqlite.sqlite3_memory_used.restype = ctypes.c_int64


def sqlite_peak(action) -> int:
    """Bytes of memory SQLite held at most, above what it held before, while `action()` ran."""
    before = _sqlite.sqlite3_memory_used()
    _sqlite.sqlite3_memory_highwater(1)  # reset the high-water mark to what is in use now
    action()
    return _sqlite.sqlite3_memory_highwater(0) - before


def largest_values(store: Store) -> tuple[int, int]:
    """(the longest content stored in a message row, the longest in a piece), in characters."""
    with store.engine.connect() as conn:
        row = conn.execute("SELECT max(length(content)) FROM messages").one()[0]
        piece = conn.execute("SELECT coalesce(max(length(content)), 0) FROM message_pieces").one()[0]
    return row, piece


def streamed(store: Store, ws: str) -> int:
    """A reply saved as it streamed: its first save and 1 MB draft pieces (app/storage/drafts.py)."""
    draft = store.add_message(ws, Message(role="assistant", content=REPLY[:1000], interrupted=True))
    for start in range(1000, len(REPLY), 1_000_000):
        store.append_draft(ws, draft, REPLY[start:start + 1_000_000], "")
    return draft


def test_completing_a_huge_reply_never_writes_it_as_one_value(store: Store) -> None:
    ws = store.create_workstream()
    store.add_message(ws, Message(role="user", content="go"))
    draft = streamed(store, ws)
    final = Message(role="assistant", content=REPLY, reasoning=THOUGHT)
    peak = sqlite_peak(lambda: store.complete_draft(ws, draft, final))
    assert peak < len(REPLY), f"SQLite held {peak / 1e6:.1f} MB to store a {len(REPLY) / 1e6:.1f} MB reply"
    assert largest_values(store) == (HEAD_CHARS, PIECE_CHARS)
    assert [(m.content, m.reasoning, m.interrupted) for m in store.load_messages(ws)] == \
        [("go", "", False), (REPLY, THOUGHT, False)]


def test_a_long_message_added_whole_is_stored_in_pieces_and_read_whole(store: Store) -> None:
    ws = store.create_workstream()
    store.add_message(ws, Message(role="tool", content=REPLY, tool_call_id="c1", name="bash"))
    store.add_message(ws, Message(role="user", content="x" * HEAD_CHARS))  # exactly a head long: no pieces
    assert largest_values(store) == (HEAD_CHARS, PIECE_CHARS)
    assert [m.content for m in store.load_conversation(ws).messages] == [REPLY, "x" * HEAD_CHARS]


def test_search_finds_the_head_of_a_long_reply(store: Store) -> None:
    ws = store.create_workstream()
    store.complete_draft(ws, streamed(store, ws), Message(role="assistant", content=REPLY))
    (hit,) = store.search("gamma")
    assert hit.snippet.startswith("alpha beta") and "gamma" in hit.snippet
    assert store.search("omega") == [], "as before: the index takes the first INDEXED_CHARS characters"


def test_a_killed_writers_long_draft_is_folded_into_head_and_pieces(tmp_path: Path) -> None:
    path = tmp_path / "whimbrel.db"
    writer = Store(path)
    ws = writer.create_workstream()
    streamed(writer, ws)
    writer.close()  # as if killed: the draft was never completed
    reopened = Store(path)
    try:
        assert largest_values(reopened) == (HEAD_CHARS, PIECE_CHARS)
        (reply,) = reopened.load_messages(ws)
        assert (reply.content, reply.interrupted) == (REPLY, True)
    finally:
        reopened.close()


def test_a_fork_and_a_rewinds_undo_keep_a_long_reply_whole(store: Store) -> None:
    ws = store.create_workstream()
    store.add_message(ws, Message(role="user", content="go"))
    store.complete_draft(ws, streamed(store, ws), Message(role="assistant", content=REPLY, reasoning=THOUGHT))
    child = records.fork_workstream(store, ws, records.last_seq(store, ws), title="fork", workdir="", model=None)
    assert [m.content for m in store.load_messages(child)] == ["go", REPLY]

    def op(kind: str, **fields) -> None:
        records.finish_op(store, records.begin_op(store, ws, kind=kind, mode="conversation", workspace="",
                                                  from_tree=None, to_tree=None, **fields))

    op("rewind", cut_seq=1)
    assert store.load_messages(ws) == []
    op("undo", cut_seq=None, undoes=records.last_undoable(store, ws).id)
    assert [(m.content, m.reasoning) for m in store.load_messages(ws)] == [("go", ""), (REPLY, THOUGHT)]
    assert largest_values(store) == (HEAD_CHARS, PIECE_CHARS)


def test_a_store_from_before_pieces_is_upgraded_and_its_long_rows_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    old = Store(path)
    ws = old.create_workstream()
    old.close()
    conn = sqlite3.connect(path)  # as version 15 left it: no pieces table, long texts whole in their rows
    conn.executescript("DROP TABLE message_pieces; UPDATE schema_version SET version = 15;")
    conn.execute("INSERT INTO messages (workstream_id, seq, role, content, reasoning, is_error, interrupted, "
                 "created_at) VALUES (?, 1, 'user', ?, '', 0, 0, 0)", (ws, REPLY))
    conn.commit()
    conn.close()
    store = Store(path)
    try:
        store.add_message(ws, Message(role="assistant", content=REPLY))
        assert [m.content for m in store.load_messages(ws)] == [REPLY, REPLY]
        assert largest_values(store) == (len(REPLY), PIECE_CHARS)  # the old row as it was, the new one in pieces
        assert store.search("gamma")  # both indexed as before
    finally:
        store.close()
