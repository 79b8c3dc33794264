"""A shadow git repository of one workspace: snapshots of the whole tree, diffs, restores.

GIT_DIR lives under Whimbrel's data dir and GIT_WORK_TREE is the workspace, so the user's own
`.git` is never read or written and a workspace that is no repository works the same. Git stores
content by hash, so identical files (across turns and workstreams) are stored once; its index
caches file stats, so a snapshot of an unchanged tree is about as cheap as `git status`.
Every operation holds an exclusive lock on the repository (two windows may share a workspace).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import stat
import subprocess
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Iterator, Mapping, Sequence

from app.sandbox import git as safe_git
from app.checkpoints.recheck import RecheckList, is_recent, stamp

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
_OBJECT_ID = re.compile(r"[0-9a-f]{40}")
STALE_LOCK_SECONDS = 30  # git holds the index lock for milliseconds; one this old was left by a kill
DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024
# core.splitIndex: a snapshot rewrites a small file of the changed entries, not the whole index
# (about 90 bytes a file), so a checkpoint in a big workspace costs what its changes cost.
SETTINGS = (("core.bare", "false"), ("core.autocrlf", "false"), ("core.filemode", "true"), ("core.symlinks", "true"),
            ("gc.auto", "0"), ("core.quotepath", "false"), ("core.splitindex", "true"))


class ShadowError(RuntimeError):
    """A git command of the shadow repository failed; the message says which and why."""


@dataclass(frozen=True)
class Snapshot:
    """One captured state of the workspace: its tree id and the files left out (with why)."""

    tree: str
    skipped: tuple[str, ...] = ()  # "path (12.0 MB, over the 10.0 MB limit)"


@dataclass(frozen=True)
class FileChange:
    """One file that differs between two trees: A added, D deleted, M modified, T type changed."""

    path: str
    status: str
    added: int = 0
    removed: int = 0
    binary: bool = False


@dataclass
class RestoreResult:
    """What a restore did: files written and removed, and those left alone (not captured now)."""

    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    left_alone: list[str] = field(default_factory=list)


def repo_dir_for(data_dir: Path, workspace: Path) -> Path:
    """Where the shadow repository of `workspace` lives: one per resolved workspace path."""
    key = hashlib.sha256(str(Path(workspace).resolve()).encode()).hexdigest()[:20]
    return Path(data_dir) / "checkpoints" / key


def _size_label(size: int) -> str:
    """A size as people read it: bytes, KB or MB."""
    if size < 1024:
        return f"{size} bytes"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


class ShadowRepo:
    """Snapshots and restores of one workspace through its shadow repository."""

    def __init__(self, data_dir: Path, workspace: Path, *, ignore: Sequence[str] = (),
                 max_file_size: int = DEFAULT_MAX_FILE_SIZE) -> None:
        self.workspace = Path(workspace).resolve()
        self.git_dir = repo_dir_for(Path(data_dir).resolve(), self.workspace)
        self.ignore = tuple(ignore)
        self.max_file_size = max_file_size
        self._data_dir = Path(data_dir).resolve()
        self._recheck = RecheckList(self.git_dir)

    # -- plumbing ---------------------------------------------------------------------------
    def _env(self) -> dict[str, str]:
        return safe_git.environment(GIT_DIR=str(self.git_dir), GIT_WORK_TREE=str(self.workspace),
                                    GIT_CONFIG_GLOBAL=os.devnull, GIT_LITERAL_PATHSPECS="1")

    def git(self, *args: str, stdin: bytes | None = None, check: bool = True) -> bytes:
        """Run one git command on the shadow repository; ShadowError (with git's words) on failure."""
        done = safe_git.run(args, self.workspace, probe=False, env=self._env(), input=stdin, capture_output=True)
        if check and done.returncode != 0:
            raise _failure(self.git_dir, args[0], done.stderr, done.returncode)
        return done.stdout

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the repository's lock (blocking): one snapshot or restore at a time, across processes."""
        self.git_dir.parent.mkdir(parents=True, exist_ok=True)
        with open(self.git_dir.parent / f"{self.git_dir.name}.lock", "a") as handle:  # beside it: init is locked too
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                self._ensure()
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _ensure(self) -> None:
        """Create the repository on first use, and write the ignore list every time (it may change)."""
        if not (self.git_dir / "HEAD").exists():
            self.git_dir.mkdir(parents=True, exist_ok=True)
            env = {k: v for k, v in self._env().items() if k not in ("GIT_DIR", "GIT_WORK_TREE")}
            done = safe_git.run(["init", "-q", "--bare", str(self.git_dir)], probe=False, env=env, capture_output=True)
            if done.returncode != 0:
                raise ShadowError(f"could not create the checkpoint store {self.git_dir}: "
                                  f"{done.stderr.decode(errors='replace').strip()}")
        config = (self.git_dir / "config").read_text().lower()
        for key, value in SETTINGS:  # a store made by an older version gets the settings added since
            if f"{key.split('.')[1]} = {value}" not in config:
                self.git("config", key, value)
        self._clear_stale_locks()
        patterns = ["/.git/", *self.ignore]
        if self._data_dir.is_relative_to(self.workspace) and self._data_dir != self.workspace:
            patterns.append("/" + self._data_dir.relative_to(self.workspace).as_posix() + "/")
        (self.git_dir / "info").mkdir(exist_ok=True)
        exclude = "\n".join(patterns) + "\n"
        target = self.git_dir / "info" / "exclude"
        if not target.exists() or target.read_text() != exclude:
            target.write_text(exclude)

    def _clear_stale_locks(self) -> None:
        """Remove git's lock files that a git killed with SIGKILL left (SIGTERM and SIGHUP let git clean
        up): with our lock held no other git works here, and one still holding a lock this old is dead, so
        checkpoints do not stop for good after such a kill."""
        for name in ("index.lock", "packed-refs.lock"):
            lock = self.git_dir / name
            try:
                if time.time() - lock.stat().st_mtime > STALE_LOCK_SECONDS:
                    lock.unlink()
            except FileNotFoundError:
                pass

    # -- snapshots --------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        """Capture the workspace as it is now (ignored and oversized files left out)."""
        with self.locked():
            return self._snapshot()

    def _snapshot(self) -> Snapshot:
        # The two listings run at once: untracked files (one walk, ignored directories pruned by git)
        # and tracked files whose cached stat (mtime, ctime, size, inode) no longer matches; unchanged
        # files are neither read nor hashed. Git re-reads a file whose mtime is not older than the index
        # ("racy git"); the recheck list covers a same-second change with the mtime put back.
        started = time.time_ns()
        recheck = self._recheck.load()
        forced = self._recheck.moved(self.workspace, recheck)
        untracked, tracked = self._git_together(("ls-files", "-z", "--others", "--exclude-standard"),
                                                ("diff-files", "-z", "--name-only", "--no-renames"))
        in_index = set(_split(tracked)) | forced
        update, drop, skipped, recent = [], [], [], {}
        for path in sorted(in_index | {p.rstrip("/") for p in _split(untracked)}):
            try:
                info = os.lstat(self.workspace / path)
            except (FileNotFoundError, NotADirectoryError):
                update.append(path)  # deleted: --remove takes it out of the index
                continue
            if stat.S_ISDIR(info.st_mode):  # an untracked embedded repository (its history is its own
                if path in in_index:        # business), or a captured file that is a directory now
                    drop.append(path)
                continue
            if info.st_size > self.max_file_size and not stat.S_ISLNK(info.st_mode):
                skipped.append(f"{path} ({_size_label(info.st_size)}, over the "
                               f"{_size_label(self.max_file_size)} limit)")
                if path in in_index:
                    drop.append(path)
                continue
            update.append(path)
            if is_recent(info, started):
                recent[path] = stamp(info)  # taken before git reads the file
        # A file to re-read goes out of the index first: update-index trusts a stat that matches to
        # the second, so only a fresh entry makes it hash the file again.
        drop += sorted(forced - set(drop))
        if drop:
            self.git("update-index", "--force-remove", "-z", "--stdin", stdin=_nul(drop))
        if update:  # --replace: a file where a captured directory was (or the reverse) takes its place
            self.git("update-index", "--add", "--remove", "--replace", "-z", "--stdin", stdin=_nul(update))
        self._recheck.save({**self._recheck.still_recent(recheck, started, forced), **recent})
        tree = self.git("write-tree").decode().strip()
        return Snapshot(tree, tuple(skipped))

    def _git_together(self, *commands: Sequence[str]) -> list[bytes]:
        """Run read-only git commands at the same time (they only read the index); their outputs."""
        started = [(args, subprocess.Popen(safe_git.command(args, probe=False, env=self._env())[0], stdin=subprocess.DEVNULL,
                                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self._env(), cwd=self.workspace))
                   for args in commands]
        outputs = []
        for args, process in started:
            out, err = process.communicate()
            if process.returncode != 0:
                raise _failure(self.git_dir, args[0], err, process.returncode)
            outputs.append(out)
        return outputs

    def snapshot_kept(self, name: str) -> Snapshot:
        """Capture the workspace and keep the tree under `name` in the same lock, so no prune by another
        process can drop it before the caller keeps it for good (a turn's start, until its end)."""
        with self.locked():
            snap = self._snapshot()
            self.keep(name, snap.tree)
            return snap

    def overlay(self, base: str, source: str, paths: Sequence[str]) -> str:
        """Tree `base` with `paths` as tree `source` has them (absent there: absent in the result).

        A rewind leaves the files another workstream changed since as they are now: its target is
        the checkpoint's tree overlaid with those paths from the current one. Built in a scratch
        index, so the shared index (and its cached stats) is untouched.
        """
        if not paths:
            return base
        scratch = self.git_dir / f"overlay-{os.getpid()}-{id(self)}.index"
        env = {**self._env(), "GIT_INDEX_FILE": str(scratch)}

        def run(*args: str, stdin: bytes | None = None) -> bytes:  # a whole scratch index: no shared part left behind
            done = safe_git.run(["-c", "core.splitIndex=false", *args], self.workspace, probe=False, env=env, input=stdin, capture_output=True)
            if done.returncode != 0:
                raise _failure(self.git_dir, args[0], done.stderr, done.returncode)
            return done.stdout

        try:
            run("read-tree", base)
            run("update-index", "--force-remove", "-z", "--stdin", stdin=_nul(paths))
            for chunk in (list(paths)[i:i + 500] for i in range(0, len(paths), 500)):
                entries = run("ls-tree", "-r", "-z", "--full-tree", source, "--", *chunk)
                if entries:
                    run("update-index", "-z", "--index-info", stdin=entries)
            return run("write-tree").decode().strip()
        finally:
            scratch.unlink(missing_ok=True)

    def entries(self, tree: str, paths: Sequence[str]) -> dict[str, str]:
        """path → "mode sha" in `tree` for those of `paths` it has (absent ones are left out)."""
        found: dict[str, str] = {}
        for chunk in (list(paths)[i:i + 500] for i in range(0, len(paths), 500)):
            raw = self.git("ls-tree", "-r", "-z", "--full-tree", tree, "--", *chunk).decode("utf-8", "surrogateescape")
            for line in filter(None, raw.split("\0")):
                meta, path = line.split("\t", 1)
                mode, _kind, sha = meta.split()
                found[path] = f"{mode} {sha}"
        return found

    def keep(self, name: str, tree: str) -> None:
        """Keep `tree` reachable under refs/whimbrel/`name` (so it survives a gc); the caller holds the lock.

        Written as git's own loose ref file (the object id and a newline, moved into place whole), which
        saves a git process at every turn's start and end; a gc packs it like any other ref.
        """
        if not _OBJECT_ID.fullmatch(tree):
            raise ShadowError(f"not a tree id, so not kept in the checkpoint store: {tree!r}")
        target = self.git_dir / "refs" / "whimbrel" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        scratch = self.git_dir / f"ref-{os.getpid()}-{threading.get_ident()}.tmp"  # outside refs/: never a ref
        scratch.write_text(tree + "\n")
        os.replace(scratch, target)

    def set_refs(self, keep: Mapping[str, str] = MappingProxyType({}), drop: Sequence[str] = ()) -> None:
        """Keep each tree of `keep` under its name and drop the refs `drop`, under one lock."""
        if keep or drop:
            with self.locked():
                for name, tree in keep.items():
                    self.keep(name, tree)
                self._drop(drop)

    def forget(self, names: Sequence[str]) -> None:
        """Drop the refs `names`; their objects go at the next `prune()` unless still used."""
        self.set_refs(drop=names)

    def _drop(self, names: Sequence[str]) -> None:
        """Remove the refs `names` (the caller holds the lock): a loose one by unlinking it, one a gc has
        packed through git, which rewrites packed-refs."""
        packed_file = self.git_dir / "packed-refs"
        packed = packed_file.read_text(errors="replace") if packed_file.exists() else ""
        left = []
        for name in names:
            ref = f"refs/whimbrel/{name}"
            loose = self.git_dir / ref
            loose.unlink(missing_ok=True)
            for parent in loose.parents:  # as git does: no empty directory left behind
                if parent == self.git_dir / "refs" / "whimbrel":
                    break
                try:
                    parent.rmdir()
                except OSError:
                    break
            if f" {ref}\n" in packed:
                left.append(ref)
        if left:
            self.git("update-ref", "--stdin", stdin="".join(f"delete {ref}\n" for ref in left).encode())

    def prune(self) -> None:
        """Delete objects no checkpoint refers to any more (retention)."""
        with self.locked():
            self.git("gc", "-q", "--prune=now")

    def stored_size(self) -> int:
        """Bytes the shadow repository takes on disk."""
        return sum(p.stat().st_size for p in self.git_dir.rglob("*") if p.is_file())

    # -- diffs ------------------------------------------------------------------------------
    def changes(self, old: str, new: str) -> list[FileChange]:
        """The files that differ from tree `old` to tree `new`, with their +/- line counts."""
        if old == new:
            return []
        entries, counts = _raw_diff(self.git("diff-tree", "-r", "-z", "--no-renames", "--raw", "--numstat",
                                             old, new))
        return [FileChange(e.path, e.status, *counts.get(e.path, (0, 0, False))) for e in entries]

    def patch(self, old: str, new: str, limit: int = 200_000) -> str:
        """The unified diff from `old` to `new` (binary files named, not shown), cut at `limit` chars."""
        if old == new:
            return ""
        text = self.git("diff-tree", "-r", "-p", "--no-renames", "--no-color", old, new).decode(
            "utf-8", "replace")
        return text if len(text) <= limit else text[:limit] + "\n… (diff cut here)\n"

    # -- restore ----------------------------------------------------------------------------
    def restore(self, target: str) -> RestoreResult:
        """Make the captured part of the workspace equal tree `target`: write, create, delete.

        A path `target` has but the current snapshot lacks while it exists on disk (ignored or
        oversized now) is left alone: it was not captured, so it is never overwritten.
        """
        with self.locked():
            current = self._snapshot().tree
            result = RestoreResult()
            entries, _counts = _raw_diff(self.git("diff-tree", "-r", "-z", "--no-renames", "--raw", current, target))
            writes: list[_RawEntry] = []
            for entry in entries:
                if entry.status == "D":
                    self._remove(entry.path)
                    result.removed.append(entry.path)
                elif entry.status == "A" and os.path.lexists(self.workspace / entry.path) and \
                        not os.path.isdir(self.workspace / entry.path):
                    result.left_alone.append(entry.path)
                else:
                    writes.append(entry)
            # One index update, from the diff itself (mode 0 takes an entry out): only the changed entries
            # are touched, so every other file keeps its cached stat and the next snapshot hashes no more.
            info = [f"0 {'0' * 40}\t{path}" for path in result.removed + result.left_alone]
            info += [f"{entry.mode} {entry.sha}\t{entry.path}" for entry in writes]
            if info:
                self.git("update-index", "-z", "--index-info", stdin=_nul(info))
            result.written = [entry.path for entry in writes]
            if writes:
                for path in result.written:
                    self._clear_way(path)
                self.git("checkout-index", "-f", "-u", "-z", "--stdin", stdin=_nul(result.written))
                self._recheck.save({**self._recheck.load(), **{path: None for path in result.written}})
            return result

    def _remove(self, path: str) -> None:
        full = self.workspace / path
        if os.path.lexists(full) and not (os.path.isdir(full) and not os.path.islink(full)):
            os.unlink(full)
        parent = full.parent
        while parent != self.workspace and parent.is_relative_to(self.workspace):
            try:
                parent.rmdir()
            except OSError:
                break
            parent = parent.parent

    def _clear_way(self, path: str) -> None:
        """A directory where the file goes (it was a file then) is removed if nothing captured is in it."""
        full = self.workspace / path
        if os.path.isdir(full) and not os.path.islink(full):
            try:
                full.rmdir()
            except OSError:
                pass
        for parent in Path(path).parents:
            spot = self.workspace / parent
            if parent != Path(".") and os.path.lexists(spot) and not os.path.isdir(spot):
                os.unlink(spot)


def _nul(paths: Sequence[str]) -> bytes:
    return b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in paths)


def _split(raw: bytes) -> list[str]:
    """The paths of a `-z` listing."""
    return [p for p in raw.decode("utf-8", "surrogateescape").split("\0") if p]


def _failure(git_dir: Path, command: str, stderr: bytes, code: int) -> ShadowError:
    said = stderr.decode(errors="replace").strip().splitlines()
    return ShadowError(f"git {command} failed in the checkpoint store {git_dir}: "
                       f"{said[-1] if said else 'exit ' + str(code)}")


@dataclass(frozen=True)
class _RawEntry:
    """One path of a raw tree diff: its status letter and its mode and blob on the new side."""

    status: str
    path: str
    mode: str
    sha: str


def _raw_diff(raw: bytes) -> tuple[list[_RawEntry], dict[str, tuple[int, int, bool]]]:
    """The entries and the numstat counts (path → added, removed, binary) of `diff-tree -z --raw [--numstat]`."""
    fields = raw.decode("utf-8", "surrogateescape").split("\0")
    entries: list[_RawEntry] = []
    counts: dict[str, tuple[int, int, bool]] = {}
    index = 0
    while index < len(fields):
        item = fields[index]
        if item.startswith(":") and index + 1 < len(fields):  # ":old_mode new_mode old_sha new_sha S" path
            _old_mode, mode, _old_sha, sha, status = item[1:].split()
            entries.append(_RawEntry(status[0], fields[index + 1], mode, sha))
            index += 2
            continue
        parts = item.split("\t", 2)  # "added\tremoved\tpath" ("-" for a binary file)
        if len(parts) == 3:
            binary = parts[0] == "-"
            counts[parts[2]] = (0 if binary else int(parts[0]), 0 if binary else int(parts[1]), binary)
        index += 1
    return entries, counts
