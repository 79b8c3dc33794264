"""Team memories, on a real SQLite file and a real PostgreSQL server: a memory saved with scope team is
seen by every instance on the store, in every workspace and workstream, and records who saved it.

Two instances are two `Store`s (two engines, as two processes would have) on one store, each saving
under its own name (app/storage/identity.py). On PostgreSQL a global memory is its saver's alone; on a
personal SQLite store global and team memories are both seen everywhere (the store has one user).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.memory.memory_store import MemoryStore
from app.memory.records import Visibility
from app.memory.relevance import MemorySelector
from app.memory.service import MemoryService
from app.storage import identity
from app.storage.async_store import AsyncStore
from app.storage.store import Store
from tools.context import ToolContext
from tools.memory_tools import memory as memory_tool

ALICE_HERE = Visibility(workstream_id="ws-a", workspace="/home/alice/project")
BOB_HERE = Visibility(workstream_id="ws-b", workspace="/srv/build/other")


@pytest.fixture
def two_instances(store_target):
    """(alice's MemoryStore, bob's MemoryStore, whether the store is PostgreSQL), each on its own engine."""
    stores = []
    made = []
    try:
        for name in ("alice@laptop", "bob@buildbox"):
            identity.set_name(name)
            store = Store(store_target)
            stores.append(store)
            made.append(MemoryStore(store.engine))
        yield made[0], made[1], stores[0].engine.dialect == "postgresql"
    finally:
        identity.set_name(None)
        for store in stores:
            store.close()


def _as(name: str, fn, *args, **kwargs):
    """Call `fn` while this process is `name` (who a save records)."""
    identity.set_name(name)
    try:
        return fn(*args, **kwargs)
    finally:
        identity.set_name(None)


def test_a_team_memory_is_seen_by_every_instance_in_every_workspace(two_instances):
    alice, bob, _ = two_instances
    saved, created = _as("alice@laptop", alice.save, ALICE_HERE, "release_process", "Tag, then run make release.",
                         description="how we release", type="project", scope="team")
    assert created and saved.scope == "team" and saved.who == "alice@laptop"
    seen = bob.list(BOB_HERE)
    assert [(m.name, m.scope, m.who) for m in seen] == [("release_process", "team", "alice@laptop")]
    assert bob.get(BOB_HERE, "release_process").content == "Tag, then run make release."
    assert [m.name for m in bob.search(BOB_HERE, "make release")] == ["release_process"]
    assert [m.name for m in bob.list(BOB_HERE, scope="team")] == ["release_process"]
    # bob's turn is given it, by relevance, in his own workspace
    chosen = MemorySelector(bob).select(BOB_HERE, "how do we release this?", touch=False)
    assert [m.name for m in chosen] == ["release_process"]


def test_a_change_by_another_instance_records_who_made_it(two_instances):
    alice, bob, _ = two_instances
    _as("alice@laptop", alice.save, ALICE_HERE, "ci_url", "https://ci.example/team", scope="team")
    updated, created = _as("bob@buildbox", bob.save, BOB_HERE, "ci_url", "https://ci.example/team/v2", scope="team")
    assert not created, "one team memory of that name, updated in place"
    assert [(m.content, m.who) for m in alice.list(ALICE_HERE)] == [("https://ci.example/team/v2", "bob@buildbox")]
    assert updated.who == "bob@buildbox"


def test_global_is_personal_on_a_team_store_and_shared_on_a_personal_one(two_instances):
    alice, bob, on_postgresql = two_instances
    _as("alice@laptop", alice.save, ALICE_HERE, "my_editor", "Alice uses vim.", type="user", scope="global")
    _as("bob@buildbox", bob.save, BOB_HERE, "my_editor", "Bob uses emacs.", type="user", scope="global")
    if on_postgresql:
        assert [m.content for m in alice.list(ALICE_HERE)] == ["Alice uses vim."]
        assert [m.content for m in bob.list(BOB_HERE)] == ["Bob uses emacs."]
        assert bob.get(BOB_HERE, "my_editor").content == "Bob uses emacs."
        assert MemorySelector(bob).select(BOB_HERE, "editor", touch=False)[0].content == "Bob uses emacs."
    else:  # one person's store: one global memory of that name, the latest save kept
        assert [m.content for m in alice.list(ALICE_HERE)] == ["Bob uses emacs."]


def test_a_global_memory_with_no_saver_stays_seen_by_everyone(two_instances):
    """Global memories saved before (or copied in from a personal store) have no person: all see them."""
    alice, bob, _ = two_instances
    with alice._engine.begin() as conn:
        conn.insert("memories", {"name": "old_note", "content": "from before", "scope": "global", "scope_key": "",
                                 "created_at": 1.0, "updated_at": 1.0})
    assert [(m.name, m.who) for m in bob.list(BOB_HERE)] == [("old_note", None)]
    assert [m.name for m in alice.list(ALICE_HERE)] == ["old_note"]


def test_a_workspace_memory_stays_in_its_workspace(two_instances):
    alice, bob, _ = two_instances
    _as("alice@laptop", alice.save, ALICE_HERE, "local_only", "just this checkout", scope="workspace")
    assert bob.list(BOB_HERE) == []


async def test_the_memory_tool_saves_to_the_team_and_lists_who_saved(store_target):
    identity.set_name("alice@laptop")
    store = await AsyncStore.open(store_target)
    try:
        service = MemoryService(store)
        alice = ToolContext(workspace=Path("/home/alice/project"), workstream_id="ws-a",
                            memory=service)
        said = await memory_tool({"action": "save", "name": "deploy_key_rotation", "content": "Rotate monthly.",
                                  "scope": "team"}, alice)
        assert said == "Saved new memory deploy_key_rotation [project, team]."
        identity.set_name("bob@buildbox")
        bob = ToolContext(workspace=Path("/srv/other"), workstream_id="ws-b", memory=service)
        listed = await memory_tool({"action": "list"}, bob)
        assert listed == "1 memories:\n- deploy_key_rotation [project, team, by alice@laptop]"
        found = await memory_tool({"action": "search", "query": "rotate"}, bob)
        assert found.startswith("## deploy_key_rotation [project, team, by alice@laptop]\nRotate monthly.")
    finally:
        identity.set_name(None)
        await store.aclose()
