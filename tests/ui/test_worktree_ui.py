"""Pilot tests of /worktree: the workstream's tools act in its own worktree (the tab shows ⎇), the main
tree is untouched until the merge; a conflicting merge is shown and writes nothing; --worktree."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from app.tui.screens.approval import ApprovalScreen
from app.tui.screens.worktree import WorktreeScreen
from tests.fake_llm.script import TextReply, ToolCallReply
from tests.ui.helpers import booted, focused_view, make_app, screen_is, screen_text, send, wait_for, wait_for_text
from widgets.tab_bar import TabInfo


def git_repo(path: Path) -> None:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin", "HOME": str(path)}
    path.mkdir(exist_ok=True)
    (path / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    for words in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "start"]):
        subprocess.run(["git", *words], cwd=path, check=True, capture_output=True, env=env)


async def focus(pilot, workstream) -> None:
    """Move to `workstream`'s pane (F2 cycles the panes, as a user would)."""
    for _ in range(6):
        if pilot.app.focused_id == workstream.id:
            break
        await pilot.press("f2")
    await wait_for(pilot, lambda: pilot.app.focused is focused_view(pilot.app).prompt, message="prompt focused")


async def sed_turn(pilot, fake_openai, expression: str) -> None:
    app = pilot.app
    fake_openai.queue(ToolCallReply([("bash", json.dumps({"command": f"sed -i '{expression}' calc.py"}),
                                      f"c{len(fake_openai.requests)}")]), TextReply("Edited calc.py."))
    await send(pilot, "edit calc.py")
    await wait_for(pilot, lambda: screen_is(app, ApprovalScreen), message="approval modal")
    await pilot.press("y")
    await wait_for(pilot, lambda: not focused_view(app).workstream.busy and
                   "Edited calc.py." in screen_text(app), message="turn over")


async def test_worktree_isolates_then_merges_and_a_second_one_conflicts(fake_openai, tmp_path):
    workspace = tmp_path / "ws"
    git_repo(workspace)
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(160, 40)) as pilot:
        await booted(pilot)
        await send(pilot, "/worktree")
        await wait_for_text(pilot, "now works in its own worktree")
        first = focused_view(app).workstream
        assert TabInfo.of(first).name.startswith("⎇ ")
        tree = Path(first.worktree.path)
        assert tree.is_relative_to(tmp_path / "data") and first.session.tool_context.workspace == tree.resolve()
        await sed_turn(pilot, fake_openai, "s/a + b/a + b  # first/")
        assert "# first" in (tree / "calc.py").read_text()
        assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"

        await pilot.press("f3")  # a second workstream in a split pane, in its own worktree too
        await wait_for(pilot, lambda: len(app.layout_tree.leaves()) == 2, message="split")
        await send(pilot, "/worktree")
        await wait_for(pilot, lambda: getattr(focused_view(app).workstream, "worktree", None) is not None)
        second = focused_view(app).workstream
        await sed_turn(pilot, fake_openai, "s/a + b/b + a  # second/")
        assert "# first" not in (Path(second.worktree.path) / "calc.py").read_text()

        await focus(pilot, first)
        await send(pilot, "/worktree")
        await wait_for(pilot, lambda: screen_is(app, WorktreeScreen), message="worktree screen")
        await wait_for_text(pilot, "+    return a + b  # first")
        await pilot.press("m")
        await wait_for_text(pilot, "Merged the worktree into")
        assert "# first" in (workspace / "calc.py").read_text()
        assert first.worktree is None and first.session.tool_context.workspace == workspace.resolve()

        await focus(pilot, second)
        await send(pilot, "/worktree merge")
        await wait_for_text(pilot, "conflict with the main tree: nothing was written")
        assert "<<<<<<< main tree: calc.py" in screen_text(app)
        assert "<<<<<<<" not in (workspace / "calc.py").read_text()
        await pilot.press("d")
        await wait_for_text(pilot, "Discarded the worktree")
        assert list((tmp_path / "data" / "worktrees").glob("*/" + second.id[:12])) == []
        assert second.worktree is None


async def test_worktree_outside_a_repository_says_so(fake_openai, tmp_path):
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(160, 40)) as pilot:
        await booted(pilot)
        await send(pilot, "/worktree")
        await wait_for_text(pilot, "is not a git repository")


async def test_the_worktree_flag_starts_in_one_and_a_resumed_workstream_goes_on_there(fake_openai, tmp_path):
    workspace = tmp_path / "ws"
    git_repo(workspace)
    app = make_app(tmp_path, fake_openai.base_url)
    app.options.worktree = True
    async with app.run_test(size=(160, 40)) as pilot:
        await booted(pilot)
        await wait_for(pilot, lambda: getattr(focused_view(app).workstream, "worktree", None) is not None,
                       message="worktree at start")
        await sed_turn(pilot, fake_openai, "s/a + b/a - b/")
        workstream_id = focused_view(app).workstream.id
        tree = focused_view(app).workstream.worktree.path
    again = make_app(tmp_path, fake_openai.base_url, resume=workstream_id[:8])
    async with again.run_test(size=(160, 40)) as pilot:
        await booted(pilot)
        view = again.main_screen.view_for(workstream_id)
        assert view.workstream.worktree.path == tree
        assert view.workstream.session.tool_context.workspace == Path(tree).resolve()


async def test_ctrl_n_with_the_worktree_flag_opens_a_workstream_in_its_own_worktree(fake_openai, tmp_path):
    from app.tui.screens.new_workstream import NewWorkstreamScreen
    from textual.widgets import Checkbox

    workspace = tmp_path / "ws"
    git_repo(workspace)
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(160, 40)) as pilot:
        await booted(pilot)
        first = focused_view(app).workstream
        await pilot.press("ctrl+n")  # a git workspace: the dialog asks, worktree off by default
        await wait_for(pilot, lambda: screen_is(app, NewWorkstreamScreen), message="the dialog")
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(app.manager) == 2, message="a plain second tab")
        plain = focused_view(app).workstream
        assert plain is not first and getattr(plain, "worktree", None) is None

        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: screen_is(app, NewWorkstreamScreen), message="the dialog again")
        assert "w opens it in its own worktree" in screen_text(app)  # the key the hint names, in one press
        await pilot.press("w")
        await wait_for(pilot, lambda: len(app.manager) == 3 and
                       getattr(focused_view(app).workstream, "worktree", None) is not None, message="worktree tab")
        isolated = focused_view(app).workstream
        assert TabInfo.of(isolated).name.startswith("⎇ ")
        tree = Path(isolated.worktree.path)
        assert tree.is_relative_to(tmp_path / "data") and isolated.session.tool_context.workspace == tree.resolve()
        await wait_for_text(pilot, "now works in its own worktree")
        await sed_turn(pilot, fake_openai, "s/a + b/a * b/")
        assert "a * b" in (tree / "calc.py").read_text()
        assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"

        await pilot.press("ctrl+n")  # or tick the box, then Enter
        await wait_for(pilot, lambda: screen_is(app, NewWorkstreamScreen), message="the dialog a third time")
        await pilot.press("tab", "space")
        assert app.screen.query_one("#new-workstream-worktree", Checkbox).value
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(app.manager) == 4 and
                       getattr(focused_view(app).workstream, "worktree", None) is not None, message="ticked")


async def test_ctrl_n_outside_a_repository_opens_a_tab_without_asking(fake_openai, tmp_path):
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(160, 40)) as pilot:
        await booted(pilot)
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: len(app.manager) == 2, message="second tab")
        assert getattr(focused_view(app).workstream, "worktree", None) is None


async def test_a_worktree_again_after_keep_works_and_a_failed_one_says_where_writes_go(fake_openai, tmp_path):
    workspace = tmp_path / "ws"
    git_repo(workspace)
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(160, 40)) as pilot:
        await booted(pilot)
        workstream = focused_view(app).workstream
        await send(pilot, "/worktree")
        await wait_for_text(pilot, "now works in its own worktree")
        await sed_turn(pilot, fake_openai, "s/a + b/a + b  # kept/")
        await send(pilot, "/worktree keep")
        await wait_for_text(pilot, "Kept the worktree's changes on branch")
        assert workstream.worktree is None

        await send(pilot, "/worktree")  # again, after keep: a new branch, and the tools act there
        await wait_for(pilot, lambda: workstream.worktree is not None, message="a second worktree")
        tree = Path(workstream.worktree.path)
        assert workstream.worktree.branch == f"whimbrel/{workstream.id[:12]}-2"
        assert workstream.session.tool_context.workspace == tree.resolve()
        await sed_turn(pilot, fake_openai, "s/a + b/a - b/")
        assert "a - b" in (tree / "calc.py").read_text()
        assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
        await send(pilot, "/worktree discard")
        await wait_for_text(pilot, "Discarded the worktree")

        (tmp_path / "data" / "worktrees").rename(tmp_path / "moved")
        (tmp_path / "data" / "worktrees").write_text("not a folder")  # the next worktree cannot be made
        await send(pilot, "/worktree")
        await wait_for_text(pilot, f"still works in the main tree {workspace}")
        assert workstream.worktree is None and workstream.session.tool_context.workspace == workspace.resolve()
        assert any("still works in the main tree" in str(note.message) and note.severity == "error"
                   for note in app._notifications)
