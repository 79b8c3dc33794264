"""Two workstreams on one workspace share its checkpoint store (one shadow repository, one SQLite
file), here as two sessions on two store connections, as two Whimbrel processes would be. Their turns
overlap; each rewind undoes only its own workstream's changes, and a prune by another process in the
middle of a turn cannot drop that turn's start."""

from __future__ import annotations

import asyncio

from app.checkpoints import records
from app.checkpoints.shadow import ShadowRepo
from tests.checkpoints.harness import args, checkpointed_session, tree_state
from tests.engine.harness import shutdown
from tests.fake_llm.script import TextReply, ToolCallReply


FLAG = "b-turn-over.flag"  # ignored by both workstreams' checkpoints


async def until(condition, what: str, limit: float = 60.0) -> None:
    """Wait for `condition` (polled), failing with `what` after `limit` seconds of a loaded machine."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not condition():
        assert loop.time() < deadline, f"gave up waiting for {what}"
        await asyncio.sleep(0.02)


async def two_overlapping_turns(fake_openai, workspace, tmp_path):
    """A writes a.txt and waits (in its bash call) until B's whole turn, which writes b.txt, is over
    (the test then drops an uncaptured flag file), so B's turn lies inside A's; then A replies.
    Returns both (session, store, rewinder)."""
    first = await checkpointed_session(fake_openai, workspace, tmp_path, ignore=(FLAG,))
    second = await checkpointed_session(fake_openai, workspace, tmp_path, ignore=(FLAG,))
    fake_openai.queue(ToolCallReply([("bash", args(command="echo A > a.txt; echo A >> shared.txt; "
                                                            f"while [ ! -f {FLAG} ]; do sleep 0.05; done"), "a1")]))
    turn_a = asyncio.create_task(first[0].run_turn("write a.txt"))
    await until(lambda: (workspace / "a.txt").exists(), "A's bash call")
    fake_openai.queue(ToolCallReply([("bash", args(command="echo B > b.txt"), "b1")]),
                      TextReply("Done."), TextReply("Done."))
    await second[0].run_turn("write b.txt")
    (workspace / FLAG).touch()  # only now may A's turn end: B's checkpoint is stored by then
    await turn_a
    return first, second


async def test_overlapping_turns_each_rewind_only_their_own_files(fake_openai, tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "shared.txt").write_text("base\n")
    (session_a, store_a, rewind_a), (session_b, store_b, rewind_b) = await two_overlapping_turns(
        fake_openai, workspace, tmp_path)
    [mine] = await store_a.run(records.list_checkpoints, store_a.store, session_a.workstream_id)
    [theirs] = await store_b.run(records.list_checkpoints, store_b.store, session_b.workstream_id)
    assert sorted(c[0] for c in mine.changes) == ["a.txt", "shared.txt"]  # b.txt is B's, though A's diff saw it
    assert [c[0] for c in theirs.changes] == ["b.txt"]

    [turn] = await rewind_a.turns()
    plan = await rewind_a.plan(turn.turn.seq)
    assert plan.others == {"b.txt": "test"} and sorted(c.path for c in plan.changes) == ["a.txt", "shared.txt"]
    await rewind_a.apply(plan, "files")
    assert not (workspace / "a.txt").exists() and (workspace / "shared.txt").read_text() == "base\n"
    assert (workspace / "b.txt").read_text() == "B\n"  # B's work is not undone by A's rewind

    [turn] = await rewind_b.turns()
    plan = await rewind_b.plan(turn.turn.seq)
    assert [c.path for c in plan.changes] == ["b.txt"]  # A's files (rewound already) are not brought back
    await rewind_b.apply(plan, "files")
    assert sorted(set(tree_state(workspace)) - {FLAG}) == ["shared.txt"] and (workspace / "shared.txt").read_text() == "base\n"

    await rewind_a.undo()  # A's undo puts A's files back and leaves B's rewind alone
    assert (workspace / "a.txt").read_text() == "A\n" and not (workspace / "b.txt").exists()
    await shutdown(session_a, store_a)
    await shutdown(session_b, store_b)


async def test_a_rewind_leaves_a_file_another_workstream_changed_since_and_says_so(fake_openai, tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("one\n")
    session_a, store_a, rewind_a = await checkpointed_session(fake_openai, workspace, tmp_path)
    session_b, store_b, _ = await checkpointed_session(fake_openai, workspace, tmp_path)
    fake_openai.queue(ToolCallReply([("bash", args(command="echo two >> notes.txt; echo x > mine.txt"), "a1")]),
                      TextReply("A done."))
    await session_a.run_turn("append two")
    fake_openai.queue(ToolCallReply([("bash", args(command="echo three >> notes.txt"), "b1")]), TextReply("B done."))
    await session_b.run_turn("append three")
    [turn] = await rewind_a.turns()
    plan = await rewind_a.plan(turn.turn.seq)
    assert plan.others == {"notes.txt": "test"} and [c.path for c in plan.changes] == ["mine.txt"]
    await rewind_a.apply(plan, "both")
    assert (workspace / "notes.txt").read_text() == "one\ntwo\nthree\n" and not (workspace / "mine.txt").exists()
    await shutdown(session_a, store_a)
    await shutdown(session_b, store_b)


async def test_a_prune_by_another_process_mid_turn_keeps_the_turn_start(fake_openai, tmp_path):
    """B's snapshot moves the shared index on while A's turn runs; a retention prune (another
    process starting) then finds A's start tree referenced only by A's open ref, and keeps it."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "f.txt").write_text("before\n")
    session, store, rewinder = await checkpointed_session(fake_openai, workspace, tmp_path)
    other = ShadowRepo(tmp_path, workspace)  # the same data dir: the same shadow repository
    fake_openai.queue(ToolCallReply([("bash", args(command="echo after > f.txt"), "a1")]), TextReply("Changed."))
    original = session.checkpoints.end

    async def end_after_a_prune(turn):
        await asyncio.to_thread(other.snapshot)  # another workstream's snapshot: the index now holds "after"
        await asyncio.to_thread(other.prune)
        return await original(turn)

    session.checkpoints.end = end_after_a_prune
    await session.run_turn("change f")
    [turn] = await rewinder.turns()
    assert [c[0] for c in turn.changes] == ["f.txt"]
    await rewinder.apply(await rewinder.plan(turn.turn.seq), "files")
    assert (workspace / "f.txt").read_text() == "before\n"
    await shutdown(session, store)
