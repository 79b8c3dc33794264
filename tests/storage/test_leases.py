"""Workstream leases: one instance at a time holds a workstream; stale and dead holders are taken over."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from app.storage.leases import STALE_AFTER, Owner
from app.storage.store import Store

from tests.storage.conftest import Clock


def _dead_pid() -> int:
    """The pid of a process that has exited and been reaped (so nothing runs under it now)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@pytest.fixture
def here() -> Owner:
    return Owner.this_process()


@pytest.fixture
def other() -> Owner:
    """Another live instance on this host (this test's own pid stands in for its process)."""
    return Owner("b" * 32, Owner.this_process().pid, Owner.this_process().host)


def test_take_then_other_is_refused_with_the_holder(store: Store, here: Owner, other: Owner) -> None:
    ws = store.create_workstream()
    assert store.take_lease(ws, here) is None
    assert store.take_lease(ws, here) is None  # taking it again keeps it
    holder = store.take_lease(ws, other)
    assert holder is not None and holder.owner == here
    assert store.lease(ws).owner == here


def test_refresh_keeps_a_lease_from_going_stale(db_path: Path, here: Owner, other: Owner) -> None:
    clock = Clock()
    store = Store(db_path, clock=clock)
    try:
        ws = store.create_workstream()
        store.take_lease(ws, here)
        for _ in range(5):
            clock.now += STALE_AFTER - 2  # each refresh comes just within the limit
            assert store.refresh_leases(here, [ws]) == []
            assert store.take_lease(ws, other) is not None
        assert store.lease(ws).heartbeat_at > 1_000 + 4 * STALE_AFTER
    finally:
        store.close()


def test_stale_lease_is_taken_over_and_the_old_holder_learns_it(db_path: Path, here: Owner,
                                                                other: Owner) -> None:
    clock = Clock()
    store = Store(db_path, clock=clock)
    try:
        ws = store.create_workstream()
        store.take_lease(ws, here)
        clock.now += STALE_AFTER + 1  # no heartbeat for longer than the limit (frozen, say)
        assert store.take_lease(ws, other) is None
        assert store.lease(ws).owner == other
        assert store.refresh_leases(here, [ws]) == [ws]  # the old holder's refresh reports the loss
        assert store.take_lease(ws, here) is not None  # and it cannot take it back while `other` beats
    finally:
        store.close()


def test_lease_of_a_dead_process_on_this_host_is_taken_at_once(store: Store, here: Owner) -> None:
    ws = store.create_workstream()
    killed = Owner("d" * 32, _dead_pid(), here.host)
    assert store.take_lease(ws, killed) is None
    assert store.take_lease(ws, here) is None  # its heartbeat is fresh, but nobody runs under that pid
    assert store.lease(ws).owner == here


def test_lease_held_on_another_host_waits_for_staleness(store: Store, here: Owner) -> None:
    ws = store.create_workstream()
    remote = Owner("r" * 32, _dead_pid(), "some-other-host")  # its pid says nothing about this host
    store.take_lease(ws, remote)
    assert store.take_lease(ws, here).owner == remote


def test_release_frees_the_workstream(store: Store, here: Owner, other: Owner) -> None:
    first, second = store.create_workstream(), store.create_workstream()
    store.take_lease(first, here)
    store.take_lease(second, here)
    store.release_leases(here, [first])
    assert store.lease(first) is None and store.lease(second).owner == here
    assert store.take_lease(first, other) is None
    store.release_leases(here)  # all of them
    assert store.lease(second) is None
    store.release_leases(here)  # nothing left: no error
    assert store.lease(first).owner == other  # another owner's lease is never released by us


def test_unknown_workstream_cannot_be_leased(store: Store, here: Owner) -> None:
    with pytest.raises(LookupError):
        store.take_lease("nope", here)


def test_deleting_a_workstream_drops_its_lease(store: Store, here: Owner) -> None:
    ws = store.create_workstream()
    store.take_lease(ws, here)
    store.delete_workstream(ws)
    assert store.lease(ws) is None


def test_prune_spares_an_empty_workstream_open_in_another_instance(db_path: Path, other: Owner) -> None:
    clock = Clock()
    store = Store(db_path, clock=clock)
    try:
        leased, idle = store.create_workstream(), store.create_workstream()
        clock.now += 3_600  # both empty for an hour, far past the grace period
        store.take_lease(leased, other)
        assert store.prune(90) == 1
        assert store.get_workstream(leased) is not None and store.get_workstream(idle) is None
    finally:
        store.close()


def test_live_leases_lists_only_fresh_ones(db_path: Path, here: Owner, other: Owner) -> None:
    clock = Clock()
    store = Store(db_path, clock=clock)
    try:
        old, fresh = store.create_workstream(), store.create_workstream()
        store.take_lease(old, other)
        clock.now += STALE_AFTER + 1
        store.take_lease(fresh, here)
        assert [lease.workstream_id for lease in store.live_leases()] == [fresh]
    finally:
        store.close()


def test_writes_of_an_instance_that_lost_the_lease_are_refused_in_the_transaction(db_path: Path, here: Owner,
                                                                                  other: Owner) -> None:
    from app.storage.write_refused import WriteRefused
    from app.vocabulary.messages import Message

    mine, theirs = Store(db_path), Store(db_path)
    mine.writer, theirs.writer = here, other
    ws = mine.create_workstream()
    mine.add_message(ws, Message(role="user", content="before any lease"))  # no lease: nobody is refused
    assert mine.take_lease(ws, here) is None
    draft = mine.add_message(ws, Message(role="assistant", content="so", interrupted=True))
    assert theirs.take_lease(ws, other, stale_after=-1) is None  # as if `here` had gone stale
    writes = [lambda: mine.add_message(ws, Message(role="user", content="late")),
              lambda: mine.append_draft(ws, draft, " far", ""),
              lambda: mine.complete_draft(ws, draft, Message(role="assistant", content="so far")),
              lambda: mine.update_workstream(ws, title="renamed"),
              lambda: mine.clear_context(ws), lambda: mine.rewind(ws, 1)]
    for write in writes:
        with pytest.raises(WriteRefused) as refused:
            write()
        assert refused.value.lease.owner == other and "taken over by another window" in str(refused.value)
    assert [(m.content, m.interrupted) for m in theirs.load_messages(ws)] == [("before any lease", False), ("so", True)]
    theirs.add_message(ws, Message(role="user", content="the new owner writes"))
    assert mine.get_workstream(ws).title is None and len(mine.load_messages(ws)) == 3
    for s in (mine, theirs):
        s.close()


def test_usage_settings_and_compactions_of_a_workstream_taken_over_are_refused(db_path: Path, here: Owner,
                                                                               other: Owner) -> None:
    """Like its messages, a workstream's usage rows, settings (mode, model, tool mode…) and compactions are
    written only by the instance holding its lease: the other window's settings are never overwritten."""
    from app.storage.write_refused import WriteRefused

    mine, theirs = Store(db_path), Store(db_path)
    mine.writer, theirs.writer = here, other
    try:
        ws = mine.create_workstream()
        assert mine.take_lease(ws, here) is None
        mine.set_config(ws, "policy_mode", "ask")
        mine.add_usage(ws, model="m", prompt_tokens=10, completion_tokens=2, turn=1)
        assert theirs.take_lease(ws, other, stale_after=-1) is None  # as if `here` had gone stale
        theirs.set_config(ws, "policy_mode", "plan")
        theirs.add_usage(ws, model="m", prompt_tokens=30, completion_tokens=4, turn=2)
        writes = [lambda: mine.set_config(ws, "policy_mode", "auto"),
                  lambda: mine.set_config(ws, "tool_mode", "code"),
                  lambda: mine.set_config(ws, "model_alias", "other-model"),
                  lambda: mine.add_usage(ws, model="m", prompt_tokens=99, completion_tokens=9, turn=3),
                  lambda: mine.add_compaction(ws, summary="mine", last_message_id=1)]
        for write in writes:
            with pytest.raises(WriteRefused) as refused:
                write()
            assert refused.value.lease.owner == other
            assert refused.value.not_saved.startswith("Not saved: this workstream was taken over by another window")
        assert theirs.get_config(ws) == {"policy_mode": "plan"}
        assert [(u.prompt_tokens, u.turn) for u in theirs.list_usage(ws)] == [(10, 1), (30, 2)]
        assert theirs.latest_compaction(ws) is None
        other_ws = mine.create_workstream()  # a workstream nobody leased is written as before
        mine.set_config(other_ws, "policy_mode", "auto")
        assert mine.get_config(other_ws) == {"policy_mode": "auto"}
    finally:
        for s in (mine, theirs):
            s.close()
