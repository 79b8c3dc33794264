"""The shadow repository on its own: content stored once, the user's .git untouched, a workspace
without git, and two processes snapshotting one workspace at once (the lock keeps the repo whole)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from app.checkpoints.shadow import ShadowError, ShadowRepo, repo_dir_for

ROOT = Path(__file__).resolve().parents[2]


def objects(repo: ShadowRepo) -> int:
    out = repo.git("count-objects", "-v").decode()
    return int(next(line.split()[1] for line in out.splitlines() if line.startswith("count:")))


def test_identical_content_is_stored_once(tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "one.txt").write_text("same bytes\n" * 100)
    repo = ShadowRepo(tmp_path / "data", workspace)
    repo.snapshot()
    count = objects(repo)
    (workspace / "two.txt").write_text("same bytes\n" * 100)  # a copy: no new blob, one new tree
    repo.snapshot()
    assert objects(repo) == count + 1
    (workspace / "two.txt").unlink()  # back to the first tree: nothing new at all
    repo.snapshot()
    assert objects(repo) == count + 1


def test_the_repository_lives_in_the_data_dir(tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "f").write_text("x")
    repo = ShadowRepo(tmp_path / "data", workspace)
    repo.snapshot()
    assert repo.git_dir == repo_dir_for((tmp_path / "data").resolve(), workspace)
    assert repo.git_dir.is_relative_to((tmp_path / "data").resolve()) and (repo.git_dir / "HEAD").exists()
    assert not (workspace / ".git").exists()


def test_a_data_dir_inside_the_workspace_is_not_captured(tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "f").write_text("x")
    repo = ShadowRepo(workspace / ".whimbrel-data", workspace)
    tree = repo.snapshot().tree
    listed = repo.git("ls-tree", "-r", "--name-only", tree).decode().split()
    assert listed == ["f"]


SNAPSHOTTER = """
import sys
from pathlib import Path
from app.checkpoints.shadow import ShadowRepo
repo = ShadowRepo(Path(sys.argv[1]), Path(sys.argv[2]))
for n in range(15):
    (Path(sys.argv[2]) / f"{sys.argv[3]}-{n % 4}.txt").write_text(f"{n}\\n")
    repo.snapshot()
print("ok")
"""


def test_two_processes_on_one_workspace_keep_the_repository_whole(tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    children = [subprocess.Popen([sys.executable, "-c", SNAPSHOTTER, str(tmp_path / "data"), str(workspace), name],
                                 cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}) for name in ("a", "b")]
    for child in children:
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0 and out.strip() == "ok", err
    repo = ShadowRepo(tmp_path / "data", workspace)
    repo.git("fsck", "--no-dangling")
    tree = repo.snapshot().tree
    listed = sorted(repo.git("ls-tree", "-r", "--name-only", tree).decode().split())
    assert listed == sorted(f"{name}-{n}.txt" for name in "ab" for n in range(4))


def test_kept_trees_survive_a_prune_and_forgotten_ones_go_even_once_packed(tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    repo = ShadowRepo(tmp_path / "data", workspace)
    trees = []
    for text in ("one\n", "two\n", "three\n"):
        (workspace / "f.txt").write_text(text)
        trees.append(repo.snapshot().tree)
    repo.set_refs({"turn/1/before": trees[0], "turn/1/after": trees[1]})
    repo.prune()  # gc packs the refs: forgetting one now goes through git
    (workspace / "f.txt").write_text("four\n")
    repo.snapshot()  # the index moves on: only the refs keep the old trees
    repo.set_refs({"open/w": trees[2]}, drop=["turn/1/before"])
    repo.prune()
    assert _exists(repo, trees[1]) and _exists(repo, trees[2]) and not _exists(repo, trees[0])
    repo.forget(["turn/1/after", "open/w"])
    repo.prune()
    assert not _exists(repo, trees[1]) and not _exists(repo, trees[2])
    assert not (repo.git_dir / "refs" / "whimbrel" / "turn").exists()  # no empty directories left


def _exists(repo: ShadowRepo, tree: str) -> bool:
    try:
        repo.git("cat-file", "-e", tree)
    except ShadowError:
        return False
    return True
