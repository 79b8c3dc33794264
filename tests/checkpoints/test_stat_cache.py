"""The shadow index is a stat cache: files whose (mtime, ctime, size, inode) are unchanged are not
re-read. These are the edits such a cache can miss, each caught: an edit in the same instant that
keeps size and mtime (git's racy-clean rule re-reads it), an edit that puts the old mtime back
(its ctime moved), a file that became a directory and the reverse; a touch alone is no change."""

from __future__ import annotations

import os
from pathlib import Path

from app.checkpoints.shadow import ShadowRepo


def blob(repo: ShadowRepo, tree: str, path: str) -> bytes:
    return repo.git("cat-file", "blob", f"{tree}:{path}")


def start(tmp_path: Path, files: dict[str, str]) -> tuple[Path, ShadowRepo]:
    """A workspace holding `files` (name → text) and its shadow repository."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    for name, text in files.items():
        (workspace / name).write_text(text)
    return workspace, ShadowRepo(tmp_path / "data", workspace)


def test_a_same_size_edit_right_after_a_snapshot_with_the_mtime_put_back_is_caught(tmp_path):
    workspace, repo = start(tmp_path, {})
    target = workspace / "f.txt"
    for round_number in range(5):  # a few times: some rounds land in the same clock tick as the index write
        target.write_text(f"aaaa{round_number}\n")
        first = repo.snapshot().tree
        stamp = os.stat(target).st_mtime_ns
        target.write_text(f"bbbb{round_number}\n")  # same size, straight away
        os.utime(target, ns=(stamp, stamp))
        second = repo.snapshot().tree
        assert second != first
        assert blob(repo, second, "f.txt") == f"bbbb{round_number}\n".encode()


def test_an_edit_long_after_that_keeps_size_and_mtime_is_caught(tmp_path):
    workspace, repo = start(tmp_path, {"old.txt": "version one\n"})
    target = workspace / "old.txt"
    hours_ago = (os.stat(target).st_mtime_ns - 7200 * 10**9,) * 2
    os.utime(target, ns=hours_ago)  # an old file: not racy, its cached stat is trusted
    first = repo.snapshot().tree
    assert repo.snapshot().tree == first
    target.write_text("version two\n")
    os.utime(target, ns=hours_ago)  # as `cp -p`, `tar x` or `rsync -t` leave it
    second = repo.snapshot().tree
    assert blob(repo, second, "old.txt") == b"version two\n"
    assert [(c.path, c.status) for c in repo.changes(first, second)] == [("old.txt", "M")]


def test_a_touch_alone_is_no_change(tmp_path):
    workspace, repo = start(tmp_path, {"a.txt": "same\n"})
    first = repo.snapshot().tree
    os.utime(workspace / "a.txt", ns=(1, 1))
    assert repo.snapshot().tree == first
    assert repo.snapshot().tree == first


def test_a_file_that_became_a_directory_and_back_is_captured_and_restored(tmp_path):
    workspace, repo = start(tmp_path, {"a": "a file\n", "keep.txt": "kept\n"})
    as_file = repo.snapshot().tree
    (workspace / "a").unlink()
    (workspace / "a").mkdir()
    (workspace / "a" / "inside.txt").write_text("in a directory now\n")
    as_directory = repo.snapshot().tree
    assert blob(repo, as_directory, "a/inside.txt") == b"in a directory now\n"
    assert {(c.path, c.status) for c in repo.changes(as_file, as_directory)} == {("a", "D"), ("a/inside.txt", "A")}

    repo.restore(as_file)
    assert (workspace / "a").read_text() == "a file\n"
    repo.restore(as_directory)
    assert (workspace / "a" / "inside.txt").read_text() == "in a directory now\n"
    assert sorted(p.name for p in Path(workspace).iterdir()) == ["a", "keep.txt"]


def test_line_counts_come_with_each_change_even_for_odd_names(tmp_path):
    workspace, repo = start(tmp_path, {"tab\there.txt": "one\ntwo\n", ":colon": "\0binary"})
    first = repo.snapshot().tree
    (workspace / "tab\there.txt").write_text("one\nthree\nfour\n")
    (workspace / ":colon").write_text("\0other")
    changes = {c.path: (c.status, c.added, c.removed, c.binary) for c in repo.changes(first, repo.snapshot().tree)}
    assert changes == {"tab\there.txt": ("M", 2, 1, False), ":colon": ("M", 0, 0, True)}


def test_a_lock_file_left_by_a_killed_git_does_not_stop_checkpoints(tmp_path):
    workspace, repo = start(tmp_path, {"a.txt": "one\n"})
    repo.snapshot()
    for name in ("index.lock", "packed-refs.lock"):  # as `kill -9` of a git in the middle leaves them
        (repo.git_dir / name).write_text("")
        os.utime(repo.git_dir / name, (1, 1))
    (workspace / "a.txt").write_text("two\n")
    tree = repo.snapshot().tree
    assert blob(repo, tree, "a.txt") == b"two\n"
    repo.set_refs({"turn/1/after": tree})
    repo.prune()
    repo.forget(["turn/1/after"])
