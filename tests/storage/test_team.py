"""The team view's rows: two instances on one store (two Store handles, as two windows or machines
would have), each holding its workstreams; who, host, pid and state as the other one reads them."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from app.storage import identity
from app.storage.leases import Owner
from app.storage.store import Store
from app.vocabulary.messages import Message


@pytest.fixture
def named() -> Iterator[None]:
    yield
    identity.set_name(None)


def test_each_live_instance_is_listed_with_its_workstreams(store_target: Path | str, named: None) -> None:
    mine, theirs = Store(store_target), Store(store_target)
    try:
        me = Owner.this_process()
        them = Owner("b" * 32, 4242, "build-box.example")
        notes = mine.create_workstream(title="release notes")
        schema = theirs.create_workstream(title="schema work")
        quiet = theirs.create_workstream(title="quiet one")
        theirs.update_workstream(quiet, alias="quiet")
        identity.set_name("ann")
        assert mine.take_lease(notes, me) is None
        identity.set_name("bob")
        assert theirs.take_lease(schema, them) is None and theirs.take_lease(quiet, them) is None
        draft = Message(role="assistant", content="The lease table has")
        theirs.start_draft(schema, draft)  # bob's reply is streaming

        listed = {i.who: i for i in mine.live_instances()}
        assert set(listed) == {"ann", "bob"}
        bob = listed["bob"]
        assert (bob.instance_id, bob.host, bob.pid) == ("b" * 32, "build-box.example", 4242)
        assert {(w.id, w.name, w.state) for w in bob.workstreams} == {
            (schema, "schema work", "streaming"), (quiet, "quiet", "idle")}
        assert [(w.id, w.state) for w in listed["ann"].workstreams] == [(notes, "idle")]
        assert 0 <= bob.seen_ago < 60

        theirs.complete_draft(schema, draft.db_id, Message(role="assistant", content="The lease table has rows."))
        bob = next(i for i in mine.live_instances() if i.who == "bob")
        assert {w.state for w in bob.workstreams} == {"idle"}

        theirs.release_leases(them)  # bob quits: only ann is left
        assert [i.who for i in mine.live_instances()] == ["ann"]
    finally:
        mine.close()
        theirs.close()


def test_a_stale_instance_is_not_listed(store_target: Path | str) -> None:
    store = Store(store_target)
    try:
        ws = store.create_workstream()
        store.take_lease(ws, Owner("c" * 32, 1, "gone.example"))
        assert [i.instance_id for i in store.live_instances()] == ["c" * 32]
        assert store.live_instances(stale_after=-1.0) == []  # its heartbeat is older than allowed
    finally:
        store.close()
