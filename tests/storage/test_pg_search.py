"""PostgreSQL's search at scale, in small: the newest messages walked backwards (a common word) and the GIN
index (a word only in older messages) give the same answer a full ranking would, in the order asked."""

from __future__ import annotations

import pytest

from app.storage import pg_fts
from app.storage.store import Store
from app.vocabulary.messages import Message


@pytest.fixture
def store(pg_server, monkeypatch):
    monkeypatch.setattr(pg_fts, "WINDOW", 30)  # the newest 30 indexed messages are walked, then the index
    monkeypatch.setattr(pg_fts, "RANKED", 10)
    s = Store(pg_server.database())
    yield s
    s.close()


def test_common_and_old_words_find_the_newest_matches_by_either_plan(store: Store) -> None:
    ws = store.create_workstream()
    ids = []
    for n in range(120):
        rare = " ancient" if n in (3, 7, 11, 50) else ""
        ids.append(store.add_message(ws, Message(role="user" if n % 2 else "assistant",
                                                 content=f"common word {n}{rare}")))

    recent = store.search("comm", limit=5, order="recent")  # in the newest 30: the backward walk
    assert [h.message_id for h in recent] == ids[-1:-6:-1]
    old = store.search("ancient", limit=3, order="recent")  # not in the newest 30: the GIN index
    assert [h.message_id for h in old] == [ids[50], ids[11], ids[7]]
    assert {h.message_id for h in store.search("ancient", limit=10)} == {ids[3], ids[7], ids[11], ids[50]}
    ranked = store.search("common", limit=5)  # relevance among the newest RANKED (10) matches
    assert len(ranked) == 5 and {h.message_id for h in ranked} <= set(ids[-10:])
    assert {h.message_id for h in store.search("common", limit=30)} == set(ids[-30:])  # at least `limit` ranked
    assert store.search("nowhere", limit=5) == [] and store.search("ancient 50", limit=5)[0].message_id == ids[50]
    assert [h.message_id for h in store.search("comm", limit=5, order="recent", workstream_id=ws)] == ids[-1:-6:-1]
