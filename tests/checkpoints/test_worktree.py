"""Worktrees per workstream with real git: isolation between two sessions, diff, merge (clean, then
a conflict shown and nothing forced), keep and discard."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from app.checkpoints import worktree as wt
from tests.checkpoints.harness import args
from tests.engine.harness import Recorder, make_session, shutdown
from tests.fake_llm.script import TextReply, ToolCallReply

ORIGINAL = "def area(w, h):\n    return w * h\n\n\ndef unrelated():\n    return 0\n"


def git(cwd: Path, *words: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin", "HOME": str(cwd)}
    return subprocess.run(["git", *words], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout


@pytest.fixture
def repo(tmp_path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    (path / "geometry.py").write_text(ORIGINAL)
    (path / "README.md").write_text("# Geometry\n")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "start")
    return path


async def test_two_sessions_in_two_worktrees_do_not_see_each_other_and_merge_then_conflict(
        fake_openai, repo, tmp_path):
    """Acceptance 4: both edit the same function differently; merging the first is clean, the second
    shows the conflict and writes nothing."""
    data = tmp_path / "data"
    first, second = wt.create(data, repo, "first"), wt.create(data, repo, "second")
    assert Path(first.path).is_relative_to(data) and first.branch == "whimbrel/first"
    sessions = []
    for tree, new in ((first, "return w * h  # area"), (second, "return float(w) * float(h)")):
        fake_openai.queue(ToolCallReply([("read_file", args(path="geometry.py"), "r")]),
                          ToolCallReply([("edit_file", args(path="geometry.py", old_string="return w * h",
                                                            new_string=new), "e")]),
                          TextReply("edited"))
        session, store = await make_session(fake_openai, Path(tree.path), tmp_path / f"d-{tree.branch[-5:]}",
                                            Recorder())
        await session.run_turn("change area")
        sessions.append((session, store))
    assert "# area" in (Path(first.path) / "geometry.py").read_text()
    assert "float" not in (Path(first.path) / "geometry.py").read_text()  # neither sees the other
    assert "float" in (Path(second.path) / "geometry.py").read_text()
    assert (repo / "geometry.py").read_text() == ORIGINAL  # nor does the main tree, until merged
    assert "+    return w * h  # area" in wt.diff(first)

    merged = wt.merge(first)
    assert merged.clean and merged.merged == ["geometry.py"]
    assert "# area" in (repo / "geometry.py").read_text()
    conflict = wt.merge(second)
    assert not conflict.clean and list(conflict.conflicts) == ["geometry.py"]
    marked = conflict.conflicts["geometry.py"]
    assert "<<<<<<< main tree: geometry.py" in marked and ">>>>>>> worktree: geometry.py" in marked
    assert "float(w)" in marked and "# area" in marked
    assert "<<<<<<<" not in (repo / "geometry.py").read_text()  # never forced
    for session, store in sessions:
        await shutdown(session, store)


def test_a_change_elsewhere_in_the_file_merges_cleanly_and_new_files_come_along(repo, tmp_path):
    tree = wt.create(tmp_path / "data", repo, "side")
    (Path(tree.path) / "geometry.py").write_text(ORIGINAL.replace("return 0", "return 1"))
    (Path(tree.path) / "new_module.py").write_text("X = 1\n")
    (Path(tree.path) / "README.md").unlink()
    (repo / "geometry.py").write_text(ORIGINAL.replace("w * h", "h * w"))  # the main tree moved on meanwhile
    result = wt.merge(tree)
    assert result.clean and result.merged == ["geometry.py", "new_module.py"]
    assert (repo / "geometry.py").read_text() == ORIGINAL.replace("w * h", "h * w").replace("return 0", "return 1")
    assert (repo / "new_module.py").read_text() == "X = 1\n" and not (repo / "README.md").exists()


def test_keep_commits_on_the_branch_and_discard_removes_everything(repo, tmp_path):
    kept = wt.create(tmp_path / "data", repo, "kept")
    (Path(kept.path) / "README.md").write_text("# Kept\n")
    assert wt.keep(kept, "work from a workstream") == "whimbrel/kept"
    assert not Path(kept.path).exists()
    assert git(repo, "show", "whimbrel/kept:README.md") == "# Kept\n"
    assert (repo / "README.md").read_text() == "# Geometry\n"
    dropped = wt.create(tmp_path / "data", repo, "dropped")
    (Path(dropped.path) / "README.md").write_text("# Dropped\n")
    wt.discard(dropped)
    assert not Path(dropped.path).exists()
    assert "whimbrel/dropped" not in git(repo, "branch", "--list")


def test_not_a_repository_says_so(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(wt.WorktreeError, match="not a git repository"):
        wt.create(tmp_path / "data", plain, "x")


def test_a_worktree_again_after_keeping_one_gets_a_new_branch_and_the_kept_one_stays(repo, tmp_path):
    data = tmp_path / "data"
    first = wt.create(data, repo, "abc")
    (Path(first.path) / "geometry.py").write_text("kept\n")
    assert wt.keep(first, "kept work") == "whimbrel/abc"
    again = wt.create(data, repo, "abc")  # the branch whimbrel/abc exists now: a new name, not a failure
    assert again.branch == "whimbrel/abc-2" and Path(again.path).is_dir() and again.path != first.path
    assert (Path(again.path) / "geometry.py").read_text() == ORIGINAL
    assert git(repo, "show", "whimbrel/abc:geometry.py") == "kept\n"  # the kept branch is untouched
    third = wt.create(data, repo, "abc")
    assert third.branch == "whimbrel/abc-3"


def test_a_worktree_whose_folder_is_gone_is_an_error_not_a_crash(repo, tmp_path):
    import shutil

    tree = wt.create(tmp_path / "data", repo, "gone")
    shutil.rmtree(tree.path)
    with pytest.raises(wt.WorktreeError):
        wt.keep(tree, "nothing")
    wt.discard(tree)
    assert "whimbrel/gone" not in git(repo, "branch", "--list")
