"""A git worktree per workstream: created under Whimbrel's data dir from the repository's HEAD, so
parallel workstreams never overwrite each other's files; when done, its diff against the main tree,
then merge (apply its changes to the main working tree), keep (commit them on its branch) or discard.

Merging is a three-way merge per file (base = the commit the worktree started from, ours = the main
working tree, theirs = the worktree). If any file conflicts nothing is written: the conflicts are
returned with their markers, to be shown, never forced.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from app.sandbox import git as safe_git

IDENTITY = {"GIT_AUTHOR_NAME": "Whimbrel", "GIT_AUTHOR_EMAIL": "whimbrel@localhost",
            "GIT_COMMITTER_NAME": "Whimbrel", "GIT_COMMITTER_EMAIL": "whimbrel@localhost"}


class WorktreeError(RuntimeError):
    """A worktree operation that cannot be done; the message says why, for the user."""


@dataclass(frozen=True)
class Worktree:
    """One workstream's worktree: where it is, its branch, the commit it started from, the main tree."""

    path: str
    branch: str
    base: str
    main: str

    def as_dict(self) -> dict[str, str]:
        return {"path": self.path, "branch": self.branch, "base": self.base, "main": self.main}


@dataclass
class MergeResult:
    """Files merged into the main tree, or (nothing written) the conflicts with their marked text."""

    merged: list[str] = field(default_factory=list)
    conflicts: dict[str, str] = field(default_factory=dict)

    @property
    def clean(self) -> bool:
        return not self.conflicts


def _git(cwd: str | Path, *args: str, stdin: bytes | None = None, check: bool = True) -> bytes:
    try:
        done = safe_git.run(args, cwd, env=safe_git.environment(**IDENTITY), input=stdin, capture_output=True)
    except OSError as error:  # the worktree's folder is gone, or git is missing: a message, never a crash
        raise WorktreeError(f"git {args[0]} could not run in {cwd}: {error.strerror or error}") from None
    if check and done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip().splitlines()
        raise WorktreeError(f"git {args[0]} failed: {said[-1] if said else 'exit ' + str(done.returncode)}")
    return done.stdout


def repository_root(workspace: Path) -> Path:
    """The top of the git repository holding `workspace`; WorktreeError when it is not in one."""
    try:
        top = _git(workspace, "rev-parse", "--show-toplevel").decode().strip()
        _git(workspace, "rev-parse", "--verify", "HEAD")
    except WorktreeError:
        raise WorktreeError(f"{workspace} is not a git repository with a commit, so it cannot have worktrees "
                            "(checkpoints and rewind still work there).") from None
    return Path(top)


def _branch_exists(main: Path, branch: str) -> bool:
    return bool(_git(main, "branch", "--list", branch).strip())


def create(data_dir: Path, workspace: Path, name: str) -> Worktree:
    """A new worktree of `workspace`'s repository at its HEAD, on branch whimbrel/`name`.

    When that branch is taken (a worktree kept before keeps its branch) or its folder is in use, the
    next free whimbrel/`name`-2, -3, …: entering a worktree again after keeping one always works, and
    never touches the kept branch."""
    main = repository_root(workspace)
    base = _git(main, "rev-parse", "HEAD").decode().strip()
    key = hashlib.sha256(str(main).encode()).hexdigest()[:12]
    folder = Path(data_dir).resolve() / "worktrees" / key
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise WorktreeError(f"cannot make the worktrees' folder {folder}: {error.strerror or error}") from None
    _git(main, "worktree", "prune")  # forget worktrees whose folders are gone, so their names free up
    for number in range(1, 1000):
        label = name if number == 1 else f"{name}-{number}"
        path, branch = folder / label, f"whimbrel/{label}"
        if not path.exists() and not _branch_exists(main, branch):
            break
    else:
        raise WorktreeError(f"every branch name whimbrel/{name}-N is taken; delete some old ones (git branch -D).")
    _git(main, "worktree", "add", "-q", "-b", branch, str(path), base)
    return Worktree(str(path), branch, base, str(main))


def _changed_paths(tree: Worktree) -> list[str]:
    """Paths the worktree changed against its base (untracked files included, ignored ones not)."""
    _git(tree.path, "add", "-A")
    raw = _git(tree.path, "diff", "--cached", "--name-only", "-z", "--no-renames", tree.base)
    return [p for p in raw.decode("utf-8", "surrogateescape").split("\0") if p]


def diff(tree: Worktree) -> str:
    """The worktree's changes against the commit it started from, as a unified diff."""
    _git(tree.path, "add", "-A")
    return _git(tree.path, "diff", "--cached", "--no-color", "--no-renames", tree.base).decode("utf-8", "replace")


def _base_blob(tree: Worktree, path: str) -> bytes | None:
    done = safe_git.run(["cat-file", "blob", f"{tree.base}:{path}"], tree.main, capture_output=True)
    return done.stdout if done.returncode == 0 else None


def _read(root: str, path: str) -> bytes | None:
    try:
        return (Path(root) / path).read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def _three_way(ours: bytes, base: bytes, theirs: bytes, path: str) -> tuple[bytes, bool]:
    """git merge-file on the three versions: (result, clean)."""
    with tempfile.TemporaryDirectory(prefix="whimbrel-merge-") as scratch:
        files = []
        for label, data in (("main", ours), ("base", base), ("worktree", theirs)):
            spot = Path(scratch) / label
            spot.write_bytes(data)
            files.append(str(spot))
        done = safe_git.run(["merge-file", "-p", "-L", f"main tree: {path}", "-L", "base",
                             "-L", f"worktree: {path}", *files], scratch, capture_output=True)
    return done.stdout, done.returncode == 0


def merge(tree: Worktree) -> MergeResult:
    """Apply the worktree's changes to the main working tree, or (on any conflict) nothing."""
    result = MergeResult()
    planned: dict[str, bytes | None] = {}
    for path in _changed_paths(tree):
        base, theirs, ours = _base_blob(tree, path), _read(tree.path, path), _read(tree.main, path)
        if ours == base or ours == theirs:
            planned[path] = theirs
        elif None in (ours, base, theirs) or b"\0" in (ours or b"") + (theirs or b""):
            result.conflicts[path] = ("both changed (or one deleted) this file, which cannot be merged line by "
                                      "line; resolve it by hand.")
        else:
            merged, clean = _three_way(ours, base, theirs, path)
            if clean:
                planned[path] = merged
            else:
                result.conflicts[path] = merged.decode("utf-8", "replace")
    if result.conflicts:
        return result
    for path, content in planned.items():
        target = Path(tree.main) / path
        if content is None:
            if target.exists():
                target.unlink()
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        source = Path(tree.path) / path
        os.chmod(target, source.stat().st_mode & 0o7777)
        result.merged.append(path)
    result.merged.sort()
    return result


def keep(tree: Worktree, message: str) -> str:
    """Commit the worktree's changes on its branch and remove the worktree; returns the branch."""
    _git(tree.path, "add", "-A")
    if _git(tree.path, "diff", "--cached", "--name-only"):
        _git(tree.path, "commit", "-q", "-m", message)
    try:
        _git(tree.main, "worktree", "remove", "--force", tree.path)
    except WorktreeError as error:
        raise WorktreeError(f"the changes are committed on {tree.branch}, but the worktree stays: {error}") from None
    return tree.branch


def discard(tree: Worktree) -> None:
    """Remove the worktree and its branch, changes and all."""
    _git(tree.main, "worktree", "remove", "--force", tree.path, check=False)
    _git(tree.main, "worktree", "prune")
    _git(tree.main, "branch", "-D", tree.branch, check=False)
