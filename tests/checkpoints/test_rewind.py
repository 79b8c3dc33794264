"""Checkpoints and rewind end to end: a real session (openai SDK → fake server), real tools (bash
included), a real shadow git repository and SQLite. The four failures users of other agents
report are here as regression tests."""

from __future__ import annotations

import os

import pytest

from app.checkpoints import records
from app.checkpoints.rewind import RewindError
from tests.checkpoints.harness import args, checkpointed_session, tree_state
from tests.engine.harness import shutdown
from tests.fake_llm.script import TextReply, ToolCallReply


@pytest.fixture(autouse=True)
def on_both_databases(store_target, monkeypatch):
    """Every test here runs on SQLite and on PostgreSQL: the store the session opens (tests/pg_fixtures.py)."""
    if isinstance(store_target, str):
        monkeypatch.setenv("WHIMBREL_DATABASE_URL", store_target)


@pytest.fixture
def workspace(tmp_path):
    path = tmp_path / "ws"
    path.mkdir()
    (path / "a.py").write_text("def f():\n    return 1\n")
    (path / "b.txt").write_text("bee\n")
    (path / "c.txt").write_text("to be deleted\n")
    (path / "d.txt").write_text("old line\nkeep\n")
    (path / "tool.sh").write_text("#!/bin/sh\necho hi\n")
    os.chmod(path / "tool.sh", 0o755)
    (path / "blob.bin").write_bytes(bytes(range(256)) * 4)
    return path


def queue_four_changes(server) -> None:
    """One turn: edit a.py (after reading it), overwrite b.txt, `rm c.txt`, `sed -i` d.txt."""
    server.queue(
        ToolCallReply([("read_file", args(path="a.py"), "r1")]),
        ToolCallReply([("edit_file", args(path="a.py", old_string="return 1", new_string="return 2"), "e1"),
                       ("write_file", args(path="b.txt", content="bee changed\n"), "w1")]),
        ToolCallReply([("bash", args(command="rm c.txt && sed -i 's/old/new/' d.txt && chmod -x tool.sh "
                                     "&& printf '\\000\\001' > new.bin"), "b1")]),
        TextReply("Done: four files changed."))


async def test_rewind_restores_tool_and_shell_changes_exactly(fake_openai, workspace, tmp_path):
    """Acceptance 1: edits, a deletion and `sed -i` in one turn are all undone by one rewind."""
    fake_openai.queue(TextReply("Hello."))
    session, store, rewinder = await checkpointed_session(fake_openai, workspace, tmp_path)
    await session.run_turn("say hello")  # changes nothing: no checkpoint
    before = tree_state(workspace)
    queue_four_changes(fake_openai)
    await session.run_turn("change four files")
    assert (workspace / "d.txt").read_text() == "new line\nkeep\n" and not (workspace / "c.txt").exists()
    [checkpoint] = await store.run(records.list_checkpoints, store.store, session.workstream_id)
    assert {c[0]: c[1] for c in checkpoint.changes} == {
        "a.py": "M", "b.txt": "M", "c.txt": "D", "d.txt": "M", "tool.sh": "M", "new.bin": "A"}
    turns = await rewinder.turns()
    assert [t.turn.text for t in turns] == ["say hello", "change four files"]
    assert turns[0].changes == [] and turns[1].added >= 3 and turns[1].removed >= 3

    plan = await rewinder.plan(turns[1].turn.seq)
    assert "-    return 1" in plan.undone_patch and "+    return 2" in plan.undone_patch  # the agent's change
    assert "+new line" in plan.undone_patch and plan.hand_changed == []
    assert plan.messages_after == len(session.messages) - 2  # all of the second turn, counted as shown
    outcome = await rewinder.apply(plan, "both")
    assert outcome.messages == plan.messages_after
    assert tree_state(workspace) == before
    assert (workspace / "blob.bin").read_bytes() == bytes(range(256)) * 4
    assert os.stat(workspace / "tool.sh").st_mode & 0o111
    await session.reload_conversation()
    assert [m.content for m in session.messages if m.role == "user"] == ["say hello"]
    assert outcome.messages > 0
    stored = await store.load_messages(session.workstream_id)
    assert [m.role for m in stored] == ["user", "assistant"]
    await shutdown(session, store)


async def test_undo_of_a_rewind_brings_back_what_the_agent_left(fake_openai, workspace, tmp_path):
    """Acceptance 2: rewind, then undo the rewind: the files (and conversation) are as the agent left them."""
    session, store, rewinder = await checkpointed_session(fake_openai, workspace, tmp_path)
    queue_four_changes(fake_openai)
    await session.run_turn("change four files")
    after_agent = tree_state(workspace)
    messages_after = [(m.role, m.content) for m in await store.load_messages(session.workstream_id)]
    [turn] = await rewinder.turns()
    await rewinder.apply(await rewinder.plan(turn.turn.seq), "both")
    assert tree_state(workspace) != after_agent
    outcome = await rewinder.undo()
    assert tree_state(workspace) == after_agent and outcome.note == ""
    assert [(m.role, m.content) for m in await store.load_messages(session.workstream_id)] == messages_after
    with pytest.raises(RewindError, match="no rewind to undo"):
        await rewinder.undo()
    await shutdown(session, store)


async def test_a_deleted_file_comes_back(fake_openai, workspace, tmp_path):
    """Regression: undo that does not restore a file the agent deleted (here with `rm -rf` of a folder)."""
    (workspace / "docs").mkdir()
    (workspace / "docs" / "guide.md").write_text("# Guide\n")
    session, store, rewinder = await checkpointed_session(fake_openai, workspace, tmp_path)
    before = tree_state(workspace)
    fake_openai.queue(ToolCallReply([("bash", args(command="rm -rf docs blob.bin"), "b1")]), TextReply("Removed."))
    await session.run_turn("clean up")
    assert not (workspace / "docs").exists()
    [turn] = await rewinder.turns()
    await rewinder.apply(await rewinder.plan(turn.turn.seq), "files")
    assert tree_state(workspace) == before
    # files only: the conversation keeps the turn
    assert [t.turn.text for t in await rewinder.turns()] == ["clean up"]
    await shutdown(session, store)


async def test_shell_only_changes_are_rewound(fake_openai, workspace, tmp_path):
    """Regression: rewind that ignores what a shell command changed (only file tools tracked)."""
    session, store, rewinder = await checkpointed_session(fake_openai, workspace, tmp_path)
    before = tree_state(workspace)
    fake_openai.queue(ToolCallReply([("bash", args(command="mkdir -p gen && echo x > gen/out.txt && "
                                                            "mv b.txt renamed.txt && ln -s a.py link.py"), "b1")]),
                      TextReply("Generated."))
    await session.run_turn("generate")
    assert (workspace / "gen" / "out.txt").exists() and (workspace / "link.py").is_symlink()
    [turn] = await rewinder.turns()
    await rewinder.apply(await rewinder.plan(turn.turn.seq), "files")
    assert tree_state(workspace) == before and not (workspace / "gen").exists()
    await shutdown(session, store)


async def test_conversation_and_files_stay_together_over_several_turns(fake_openai, workspace, tmp_path):
    """Regression: a conversation and the files rewound apart so they no longer match. Rewinding to
    the second of three turns leaves the files as they were when the second message was sent."""
    session, store, rewinder = await checkpointed_session(fake_openai, workspace, tmp_path)
    states = []
    for number in range(3):
        states.append(tree_state(workspace))
        fake_openai.queue(ToolCallReply([("bash", args(command=f"echo {number} >> b.txt"), f"b{number}")]),
                          TextReply(f"turn {number}"))
        await session.run_turn(f"append {number}")
    turns = await rewinder.turns()
    await rewinder.apply(await rewinder.plan(turns[1].turn.seq), "both")
    assert tree_state(workspace) == states[1]
    await session.reload_conversation()
    assert [m.content for m in session.messages if m.role == "user"] == ["append 0"]
    assert (workspace / "b.txt").read_text() == "bee\n0\n"
    # the next turn starts from there, and rewinding it works the same
    fake_openai.queue(ToolCallReply([("bash", args(command="echo again >> b.txt"), "b9")]), TextReply("ok"))
    await session.run_turn("append again")
    turns = await rewinder.turns()
    assert [t.turn.text for t in turns] == ["append 0", "append again"]
    await rewinder.apply(await rewinder.plan(turns[1].turn.seq), "both")
    assert tree_state(workspace) == states[1]
    await shutdown(session, store)


async def test_conversation_only_rewind_leaves_files(fake_openai, workspace, tmp_path):
    session, store, rewinder = await checkpointed_session(fake_openai, workspace, tmp_path)
    fake_openai.queue(ToolCallReply([("bash", args(command="echo z > z.txt"), "b1")]), TextReply("ok"))
    await session.run_turn("make z")
    after = tree_state(workspace)
    [turn] = await rewinder.turns()
    await rewinder.apply(await rewinder.plan(turn.turn.seq), "conversation")
    assert tree_state(workspace) == after
    assert await store.load_messages(session.workstream_id) == []
    await shutdown(session, store)


async def test_hand_edits_since_the_checkpoint_are_shown_before_overwriting(fake_openai, workspace, tmp_path):
    session, store, rewinder = await checkpointed_session(fake_openai, workspace, tmp_path)
    fake_openai.queue(ToolCallReply([("write_file", args(path="b.txt", content="agent\n"), "w1")]), TextReply("ok"))
    await session.run_turn("write b")
    (workspace / "b.txt").write_text("my own edit\n")  # by hand, after the turn
    (workspace / "notes.txt").write_text("mine\n")  # by hand, a file no turn touched
    [turn] = await rewinder.turns()
    plan = await rewinder.plan(turn.turn.seq)
    assert plan.hand_changed == ["b.txt", "notes.txt"]  # both would be overwritten (notes.txt removed)
    await rewinder.apply(plan, "files")
    assert (workspace / "b.txt").read_text() == "bee\n" and not (workspace / "notes.txt").exists()
    await rewinder.undo()  # and the hand edits are not lost: the undo brings them back
    assert (workspace / "b.txt").read_text() == "my own edit\n" and (workspace / "notes.txt").read_text() == "mine\n"
    await shutdown(session, store)


async def test_ignored_and_oversized_files_are_not_captured_and_are_named(fake_openai, workspace, tmp_path):
    (workspace / ".gitignore").write_text("build/\n")
    session, store, rewinder = await checkpointed_session(fake_openai, workspace, tmp_path,
                                                          ignore=["*.tmp"], max_file_size=2000)
    fake_openai.queue(ToolCallReply([("bash", args(command="mkdir build && echo o > build/o && echo t > x.tmp && "
                                                            "head -c 5000 /dev/zero > big.dat && echo s > small"),
                                      "b1")]), TextReply("ok"))
    await session.run_turn("make things")
    [checkpoint] = await store.run(records.list_checkpoints, store.store, session.workstream_id)
    assert [c[0] for c in checkpoint.changes] == ["small"]
    assert checkpoint.skipped == ["big.dat (4.9 KB, over the 2.0 KB limit)"]
    [turn] = await rewinder.turns()
    plan = await rewinder.plan(turn.turn.seq)
    assert plan.skipped == checkpoint.skipped
    await rewinder.apply(plan, "files")
    assert not (workspace / "small").exists()
    assert (workspace / "big.dat").exists() and (workspace / "x.tmp").exists() and (workspace / "build" / "o").exists()
    await shutdown(session, store)


async def test_a_turn_outside_the_workspace_is_named(fake_openai, workspace, tmp_path):
    outside = tmp_path / "elsewhere.txt"
    session, store, rewinder = await checkpointed_session(fake_openai, workspace, tmp_path)
    fake_openai.queue(ToolCallReply([("write_file", args(path=str(outside), content="x\n"), "w1"),
                                     ("bash", args(command="echo y > b.txt"), "b1")]), TextReply("ok"))
    await session.run_turn("write outside")
    [turn] = await rewinder.turns()
    assert turn.outside == [str(outside.resolve())]
    await shutdown(session, store)


async def test_the_user_git_repository_is_never_touched(fake_openai, workspace, tmp_path):
    import subprocess

    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    head_files = sorted(p.name for p in (workspace / ".git").iterdir())
    index = (workspace / ".git" / "index").exists()
    session, store, rewinder = await checkpointed_session(fake_openai, workspace, tmp_path)
    fake_openai.queue(ToolCallReply([("bash", args(command="echo z > z.txt"), "b1")]), TextReply("ok"))
    await session.run_turn("make z")
    [turn] = await rewinder.turns()
    await rewinder.apply(await rewinder.plan(turn.turn.seq), "files")
    assert sorted(p.name for p in (workspace / ".git").iterdir()) == head_files
    assert (workspace / ".git" / "index").exists() == index
    assert not (workspace / ".git" / "refs" / "whimbrel").exists()
    await shutdown(session, store)


async def test_fork_keeps_the_conversation_up_to_a_turn_and_can_bring_its_files(fake_openai, workspace, tmp_path):
    """Acceptance 3 (engine half): fork from a message; parent and fork continue independently."""
    from app.checkpoints.fork import fork

    session, store, rewinder = await checkpointed_session(fake_openai, workspace, tmp_path)
    states = []
    for number in range(3):
        fake_openai.queue(ToolCallReply([("bash", args(command=f"echo {number} >> b.txt"), f"b{number}")]),
                          TextReply(f"turn {number}"))
        await session.run_turn(f"append {number}")
        states.append(tree_state(workspace))
    result = await fork(store, rewinder, parent_title="test", workdir=str(workspace), model="fake-model",
                        keep=2, files=True)
    child = await store.load_messages(result.child_id)
    assert [m.content for m in child if m.role == "user"] == ["append 0", "append 1"]
    assert child[-1].content == "turn 1"
    assert tree_state(workspace) == states[1]  # the files as they were at the end of the second turn
    parents = await store.run(records.fork_parents, store.store)
    assert parents == {result.child_id: session.workstream_id}
    # the parent keeps all three turns; the fork's file restore is undoable from the fork
    assert len(await rewinder.turns()) == 3
    from app.checkpoints.rewind import Rewinder

    await Rewinder(store, rewinder.repo, result.child_id).undo()
    assert tree_state(workspace) == states[2]
    with pytest.raises(RewindError, match="from 1 to 3"):
        await fork(store, rewinder, parent_title="t", workdir="", model=None, keep=0)
    await shutdown(session, store)


async def test_a_turn_dropped_by_rewind_n_no_longer_counts(fake_openai, workspace, tmp_path):
    """/rewind N cuts only the conversation: the dropped turn's checkpoint must not be taken for the
    next turn that reuses its place in the history."""
    session, store, rewinder = await checkpointed_session(fake_openai, workspace, tmp_path)
    fake_openai.queue(ToolCallReply([("bash", args(command="echo 1 > one.txt"), "b1")]), TextReply("ok"))
    await session.run_turn("make one")
    await session.rewind(1)
    fake_openai.queue(TextReply("just talk"))
    await session.run_turn("talk only")
    [turn] = await rewinder.turns()
    assert turn.turn.text == "talk only" and turn.changes == []
    plan = await rewinder.plan(turn.turn.seq)
    assert plan.target_tree is None  # nothing from here on changed files: one.txt stays
    await rewinder.apply(plan, "both")
    assert (workspace / "one.txt").exists()
    await shutdown(session, store)
