"""The memories table on a real SQLite file: upsert, cap, scopes, escaping, selection."""

from __future__ import annotations

import pytest

from app.memory.memory_store import MemoryStore
from app.memory.records import CONTENT_LIMIT, InvalidMemory, Visibility, suggest_name
from app.memory.relevance import CONTENT_CUT, MemorySelector, memory_block
from app.storage.migrations import MIGRATIONS, _v7_memories
from app.storage.store import Store

HERE = Visibility(workstream_id="ws1", workspace="/work/project")
OTHER_WORKSTREAM = Visibility(workstream_id="ws2", workspace="/work/project")
OTHER_WORKSPACE = Visibility(workstream_id="ws3", workspace="/work/elsewhere")


@pytest.fixture
def memories(store_target):
    store = Store(store_target)
    clock = iter(range(1000, 100000))
    yield MemoryStore(store.engine, clock=lambda: float(next(clock)))
    store.close()


def test_the_migration_creates_the_table(tmp_path):
    version = next(v for v, fn in MIGRATIONS if fn is _v7_memories)
    store = Store(tmp_path / "whimbrel.db")
    with store.engine.connect() as conn:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        recorded = conn.execute("SELECT version FROM schema_version").scalar()
    assert "memories" in names and recorded >= version
    store.close()


def test_upsert_keeps_description_and_type_when_not_given(memories):
    first, created = memories.save(HERE, "indent_with_tabs", "Use tabs.", description="indentation style",
                                   type="feedback", scope="workspace")
    assert created and first.type == "feedback"
    second, created = memories.save(HERE, "indent_with_tabs", "Use tabs, width 4.", scope="workspace")
    assert not created and second.id == first.id
    assert (second.content, second.description, second.type) == ("Use tabs, width 4.", "indentation style",
                                                                  "feedback")
    assert second.created_at == first.created_at and second.updated_at > first.updated_at
    third, _ = memories.save(HERE, "indent_with_tabs", None, description="how to indent", scope="workspace")
    assert third.content == "Use tabs, width 4." and third.description == "how to indent"
    assert len(memories.list(HERE)) == 1


def test_a_new_memory_defaults_to_project_and_needs_content(memories):
    made, _ = memories.save(HERE, "build_tool", "make", scope="global")
    assert made.type == "project" and made.scope == "global"
    assert made.scope_key == memories.person  # '' on SQLite; on a team's PostgreSQL, the saver's name
    with pytest.raises(InvalidMemory, match="needs content"):
        memories.save(HERE, "empty_one", None)


@pytest.mark.parametrize("name", ["Tabs", "tabs-spaces", "_x", "two__underscores", "1st", "", "x" * 65])
def test_names_must_be_snake_case(memories, name):
    with pytest.raises(InvalidMemory, match="snake_case"):
        memories.save(HERE, name, "content")


def test_bad_type_and_scope_are_refused(memories):
    with pytest.raises(InvalidMemory, match="type"):
        memories.save(HERE, "a", "b", type="opinion")
    with pytest.raises(InvalidMemory, match="scope"):
        memories.save(HERE, "a", "b", scope="company")


def test_content_is_capped_at_32_kb_in_utf8_bytes(memories):
    memories.save(HERE, "exactly_the_cap", "a" * CONTENT_LIMIT)
    with pytest.raises(InvalidMemory, match="32 KB"):
        memories.save(HERE, "over_the_cap", "a" * (CONTENT_LIMIT + 1))
    with pytest.raises(InvalidMemory, match="bytes"):
        memories.save(HERE, "multibyte", "é" * (CONTENT_LIMIT // 2 + 1))  # 2 bytes each
    assert [m.name for m in memories.list(HERE)] == ["exactly_the_cap"]


def test_scope_isolation(memories):
    memories.save(HERE, "only_here", "workstream secret", scope="workstream")
    memories.save(HERE, "this_project", "project fact", scope="workspace")
    memories.save(HERE, "everyone", "global fact", scope="global")
    assert {m.name for m in memories.list(HERE)} == {"only_here", "this_project", "everyone"}
    assert {m.name for m in memories.list(OTHER_WORKSTREAM)} == {"this_project", "everyone"}
    assert {m.name for m in memories.list(OTHER_WORKSPACE)} == {"everyone"}
    assert memories.search(OTHER_WORKSTREAM, "secret") == []
    assert memories.get(OTHER_WORKSTREAM, "only_here") is None
    assert memories.delete(OTHER_WORKSTREAM, "only_here") is None
    assert memories.get(HERE, "only_here") is not None


def test_a_workstream_scoped_memory_never_reaches_another_workstreams_selection(memories):
    memories.save(HERE, "secret_plan", "the plan", description="plan secret", scope="workstream")
    for number in range(8):
        memories.save(HERE, f"filler_{number}", "x", description="plan", scope="global")
    selector = MemorySelector(memories)
    assert "secret_plan" in [m.name for m in selector.select(HERE, "what is the secret plan")]
    for query in ("what is the secret plan", "secret_plan", ""):
        assert "secret_plan" not in [m.name for m in selector.select(OTHER_WORKSTREAM, query, top=20)]


def test_same_name_in_two_scopes_the_narrowest_wins(memories):
    memories.save(HERE, "style", "global style", scope="global")
    memories.save(HERE, "style", "this workstream's style", scope="workstream")
    assert memories.get(HERE, "style").content == "this workstream's style"
    assert memories.get(OTHER_WORKSTREAM, "style").content == "global style"


@pytest.mark.parametrize("query, expected", [
    ("100%", {"percent"}),
    ("a_b", {"underscore"}),
    ("back\\slash", {"backslash"}),
    ("%", {"percent"}),
    ("_", {"underscore"}),
    ('"quoted" OR', {"quotes"}),
    ("*", set()),
])
def test_like_metacharacters_are_matched_literally(memories, query, expected):
    memories.save(HERE, "percent", "coverage must be 100% always")
    memories.save(HERE, "underscore", "the variable is a_b")
    memories.save(HERE, "backslash", "paths like back\\slash")
    memories.save(HERE, "quotes", 'say "quoted" OR nothing')
    memories.save(HERE, "plain", "axb and 1000 and backslash")
    assert {m.name for m in memories.search(HERE, query)} == expected


def test_selection_ranks_then_fills_with_recent_and_counts_access(memories):
    memories.save(HERE, "indent_with_tabs", "Tabs, not spaces.", description="indentation: tabs")
    for number in range(6):
        memories.save(HERE, f"unrelated_{number}", "x", description="something else")
    selector = MemorySelector(memories)
    chosen = selector.select(HERE, "please fix the indentation, use tabs")
    assert len(chosen) == 5 and chosen[0].name == "indent_with_tabs"
    assert [m.name for m in chosen[1:]] == ["unrelated_5", "unrelated_4", "unrelated_3", "unrelated_2"]
    again = memories.get(HERE, "indent_with_tabs")
    assert again.access_count == 1 and again.accessed_at is not None
    # a memory saved later is seen at once (the index follows the table)
    memories.save(HERE, "tab_width", "Tab width is 8.", description="tabs width")
    assert {m.name for m in selector.select(HERE, "tabs")[:2]} == {"indent_with_tabs", "tab_width"}


def test_block_cuts_long_content(memories):
    memories.save(HERE, "long_one", "word " * 2000, description="a long memory")
    block = memory_block(memories.list(HERE))
    assert "## long_one (project, workspace) — a long memory" in block
    assert len(block) < CONTENT_CUT + 500 and "more characters" in block


def test_suggested_names_are_valid():
    assert suggest_name("This project uses tabs, not spaces!") == "this_project_uses_tabs_not_spaces"
    assert suggest_name("42 is the answer") == "note_42_is_the_answer"
    assert suggest_name("!!!") == "note"


def test_two_instances_upserting_the_same_name_at_once(store_target):
    """Two stores on one file (two windows): the upsert's read and write share one locked transaction,
    so racing saves of one name never collide on the unique constraint."""
    import threading

    stores = [Store(store_target) for _ in range(2)]
    errors: list[BaseException] = []

    def save_many(store: Store, who: int) -> None:
        memories = MemoryStore(store.engine)
        try:
            for number in range(40):
                memories.save(HERE, "shared_fact", f"from {who}: {number}")
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=save_many, args=(store, who)) for who, store in enumerate(stores)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    [only] = MemoryStore(stores[0].engine).list(HERE)
    assert only.content.endswith(": 39")
    for store in stores:
        store.close()
