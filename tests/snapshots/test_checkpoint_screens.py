"""Snapshots of the rewind screen: the list of messages with what each turn changed and the diff a
rewind would undo; and a plan with files changed by hand, files not captured and paths outside."""

from __future__ import annotations

import dataclasses

import time
from pathlib import Path

from textual.widgets import Static

from app.checkpoints import records
from app.checkpoints.shadow import ShadowRepo
from app.tui.screens.rewind import RewindScreen
from app.storage.store import Store
from app.vocabulary.messages import Message
from tests.snapshots.test_workstream_screens import SIZE, steady
from tests.ui.helpers import make_app, screen_is, wait_for

SIZE_REWIND = (120, 36)


def turn(store: Store, repo: ShadowRepo, workstream_id: str, prompt: str, change, answer: str, *,
         outside: list[str] = ()) -> None:
    """One stored turn that ran `change(workspace)`, with its checkpoint."""
    store.add_message(workstream_id, Message(role="user", content=prompt))
    seq = records.last_seq(store, workstream_id)
    before = repo.snapshot()
    change(repo.workspace)
    after = repo.snapshot()
    store.add_message(workstream_id, Message(role="assistant", content=answer))
    if after.tree != before.tree:
        changes = [[c.path, c.status, c.added, c.removed, c.binary] for c in repo.changes(before.tree, after.tree)]
        records.add_checkpoint(store, workstream_id, user_message_id=None, user_seq=seq, workspace=str(repo.workspace),
                               before_tree=before.tree, after_tree=after.tree, changes=changes,
                               skipped=list(after.skipped), outside=list(outside))


def saved_turns(tmp_path: Path, *, max_file_size: int = 10 * 1024 * 1024) -> str:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "app.py").write_text("def greet(name):\n    return 'hi ' + name\n\n\nprint(greet('ada'))\n")
    (workspace / "README.md").write_text("# Greeter\n\nSays hi.\n")
    (workspace / "old_notes.txt").write_text("remove me\n")
    store = Store(tmp_path / "data" / "whimbrel.db")
    workstream_id = store.create_workstream(title="greeter", model="fake-model", workdir=str(workspace))
    repo = ShadowRepo(tmp_path / "data", workspace, max_file_size=max_file_size)
    turn(store, repo, workstream_id, "What does app.py do?", lambda w: None, "It greets Ada.")

    def edit(w: Path) -> None:
        (w / "app.py").write_text("def greet(name: str) -> str:\n    return f'Hello, {name}!'\n\n\n"
                                  "print(greet('ada'))\n")
        (w / "test_app.py").write_text("from app import greet\n\n\ndef test_greet():\n"
                                       "    assert greet('x') == 'Hello, x!'\n")
        (w / "old_notes.txt").unlink()

    turn(store, repo, workstream_id, "Use an f-string, add a test and drop the old notes", edit, "Done.")

    def shell(w: Path) -> None:
        (w / "README.md").write_text("# Greeter\n\nSays hello, with type hints.\n")
        (w / "data.bin").write_bytes(b"\0" * 4096)

    turn(store, repo, workstream_id, "Update the README", shell, "Updated.", outside=["/etc/hosts"])
    store.close()
    return workstream_id


async def open_rewind(pilot, seq_index: int | None = None) -> None:
    await steady(pilot)
    app = pilot.app
    view = app.main_screen.view_for(app.focused_id)
    view.prompt.insert("/rewind")
    await pilot.press("enter")
    await wait_for(pilot, lambda: screen_is(app, RewindScreen), message="rewind screen")
    await wait_for(pilot, lambda: app.screen.plan is not None, message="plan")
    if seq_index is not None:
        for _ in range(seq_index):
            await pilot.press("up")
        await pilot.pause(0.2)
        await wait_for(pilot, lambda: app.screen.plan is not None, message="plan")
    await wait_for(pilot, lambda: "conversation loses" in str(app.screen.query_one("#rewind-plan", Static).render()),
                   message="plan shown")
    await pilot.pause(0.3)


def test_rewind_list_with_changes_and_the_diff_to_undo(snap_compare, tmp_path):
    workstream_id = saved_turns(tmp_path)

    async def run_before(pilot) -> None:
        await open_rewind(pilot, seq_index=1)  # the second message: its turn and the next one are undone

    assert snap_compare(make_app(tmp_path, resume=workstream_id[:8]), terminal_size=SIZE_REWIND, run_before=run_before)


def test_rewind_plan_names_hand_edits_skipped_and_outside_files(snap_compare, tmp_path):
    workstream_id = saved_turns(tmp_path, max_file_size=1024)
    (tmp_path / "ws" / "test_app.py").write_text("# edited by hand\n")

    async def run_before(pilot) -> None:
        await open_rewind(pilot, seq_index=1)

    app = make_app(tmp_path, resume=workstream_id[:8])
    from app.settings.config import Config

    app.options.config = dataclasses.replace(app.options.config or Config(path=tmp_path / "config.toml"),
                                             checkpoint_max_file_mb=1024 / (1024 * 1024))
    assert snap_compare(app, terminal_size=SIZE_REWIND, run_before=run_before)


def test_fork_tree_in_the_resume_browser(snap_compare, tmp_path):
    """Forks are listed under their parent (a fork of a fork one step further in)."""
    store = Store(tmp_path / "data" / "whimbrel.db")
    clock = iter(range(1000, 2000, 10))
    store._clock = lambda: float(next(clock))
    parent = store.create_workstream(title="parser rewrite", model="fake-model", workdir="/w")
    other = store.create_workstream(title="docs pass", model="fake-model", workdir="/w")
    for number in range(1, 4):
        store.add_message(parent, Message(role="user", content=f"step {number}"))
        store.add_message(parent, Message(role="assistant", content=f"done {number}"))
    store.add_message(other, Message(role="user", content="fix the docs"))
    child = records.fork_workstream(store, parent, 4, title="parser rewrite · fork at 2", workdir="/w",
                                    model="fake-model")
    grandchild = records.fork_workstream(store, child, 2, title="parser rewrite · fork at 1", workdir="/w", model="fake-model")
    recent = float(int(time.time()))  # recent (older ones are pruned at start); shown as an age from it
    with store.engine.begin() as conn:  # distinct times: a fixed order of the rows
        for offset, workstream_id in enumerate((parent, child, grandchild, other)):
            conn.execute("UPDATE workstreams SET updated_at = :at, created_at = :at WHERE id = :id",
                         {"at": recent - 60 * offset, "id": workstream_id})
    store.close()

    async def run_before(pilot) -> None:
        from app.tui.screens.resume import ResumeScreen
        from textual.widgets import DataTable, Input

        await steady(pilot)
        app = pilot.app
        app.push_screen(ResumeScreen(app.store, now=lambda: recent + 7200))
        await wait_for(pilot, lambda: screen_is(app, ResumeScreen), message="resume browser")
        await wait_for(pilot, lambda: [t.row_count for t in app.screen.query(DataTable)] == [4], message="rows")
        app.screen.query_one(Input).cursor_blink = False  # a blinking cursor would differ from run to run
        await pilot.pause(0.5)

    assert snap_compare(make_app(tmp_path), terminal_size=SIZE, run_before=run_before)


def git_workspace(tmp_path):
    """The app's workspace (tmp_path/ws) as a git repository with one committed file."""
    from tests.checkpoints.harness import git_init

    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "calc.py").write_text("x = 1\n")
    git_init(workspace)
    return workspace


def test_a_worktree_tab(snap_compare, tmp_path):
    """The tab of a workstream working in its own worktree shows ⎇ (and the notice says where)."""
    workspace = git_workspace(tmp_path)

    async def run_before(pilot) -> None:
        from app.tui import checkpoint_wiring
        from app.checkpoints.worktree import Worktree

        await steady(pilot)
        app = pilot.app
        view = app.main_screen.view_for(app.focused_id)
        await app.manager.rename(view.workstream, "parser")
        # a fixed worktree (the real path holds a random id); the work_in wiring is what is shown
        checkpoint_wiring.work_in(app, view.workstream, Worktree(str(workspace), "whimbrel/parser", "0" * 40,
                                                                 str(workspace)))
        await view.transcript.add_notice("This workstream now works in its own worktree "
                                         "~/.local/share/whimbrel/worktrees/3f2a/parser (branch whimbrel/parser).")
        await pilot.pause(0.3)

    assert snap_compare(make_app(tmp_path), terminal_size=SIZE, run_before=run_before)


def test_ctrl_n_offers_a_worktree_in_a_git_workspace(snap_compare, tmp_path):
    """Ctrl+N in a git repository: the new-workstream dialog with its worktree box ticked (Tab, Space),
    its hint naming w, which opens the choice in a worktree in one press."""
    from app.tui.screens.new_workstream import NewWorkstreamScreen

    git_workspace(tmp_path)

    async def run_before(pilot) -> None:
        await steady(pilot)
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: screen_is(pilot.app, NewWorkstreamScreen), message="the dialog")
        await pilot.press("tab", "space")
        await pilot.pause(0.3)

    assert snap_compare(make_app(tmp_path), terminal_size=SIZE, run_before=run_before)


def test_rewind_plan_spares_files_another_workstream_changed_since(snap_compare, tmp_path):
    """A second workstream on the same workspace edited README.md after these turns: the rewind
    leaves it as that workstream left it, and says so."""
    workstream_id = saved_turns(tmp_path)
    store = Store(tmp_path / "data" / "whimbrel.db")
    other = store.create_workstream(title="reviewer", model="fake-model", workdir=str(tmp_path / "ws"))
    repo = ShadowRepo(tmp_path / "data", tmp_path / "ws")
    turn(store, repo, other, "Polish the README", lambda w: (w / "README.md").write_text("# Greeter\n\nPolished.\n"),
         "Polished.")
    store.close()

    async def run_before(pilot) -> None:
        await open_rewind(pilot, seq_index=1)

    assert snap_compare(make_app(tmp_path, resume=workstream_id[:8]), terminal_size=SIZE_REWIND, run_before=run_before)
