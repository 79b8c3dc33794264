"""Whimbrel's own files are the user's alone: the data dir 0700; the store (and its WAL, SHM and journal),
the logs and OAuth tokens 0600. They are created so (never relying on the umask, which the tools' commands
inherit and must keep), and checked at every start: a looser mode is tightened and said once in words.

Only files Whimbrel writes are touched; checkpoints and worktrees under the data dir are protected by the
directory's own 0700.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

DIR_MODE, FILE_MODE = 0o700, 0o600
# the store and what SQLite keeps beside it, the error log and its rotations
PRIVATE_FILES = ("whimbrel.db", "whimbrel.db-wal", "whimbrel.db-shm", "whimbrel.db-journal",
                 "whimbrel.log", "whimbrel.log.1", "whimbrel.log.2")
PRIVATE_DIRS = ("mcp-oauth",)  # every file inside is private too


def private_dir(path: Path) -> Path:
    """Create `path` (and missing parents) with the directory itself 0700; an existing one is left as
    it is (`secure` tightens it, with a notice)."""
    path = Path(path)
    if not path.is_dir():
        path.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
        os.chmod(path, DIR_MODE)  # mkdir's mode is masked by the umask; this one is exact
    return path


def create_private_file(path: Path) -> None:
    """Create `path` empty and 0600 unless it exists (SQLite then gives its WAL and SHM the same mode)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        return
    os.close(fd)


def open_private(path: Path, flags: int = os.O_WRONLY | os.O_CREAT | os.O_APPEND) -> int:
    """A file descriptor on `path`, created 0600 when it is new."""
    return os.open(path, flags, FILE_MODE)


def _tighten(path: Path, wanted: int, fixed: list[str]) -> None:
    try:
        info = path.lstat()
    except OSError:
        return
    if stat.S_ISLNK(info.st_mode) or info.st_uid != os.getuid():
        return  # never follow a link or change another user's file
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o077:
        try:
            os.chmod(path, mode & ~0o077 & 0o7777 if wanted == DIR_MODE else wanted)
        except OSError:
            return
        fixed.append(f"{path} ({mode:04o})")


def secure(data_dir: Path) -> list[str]:
    """Tighten the data dir and Whimbrel's files in it; returns one notice when any was looser."""
    data_dir = Path(data_dir)
    fixed: list[str] = []
    if not data_dir.is_dir():
        return []
    _tighten(data_dir, DIR_MODE, fixed)
    for name in PRIVATE_FILES:
        _tighten(data_dir / name, FILE_MODE, fixed)
    for name in PRIVATE_DIRS:
        folder = data_dir / name
        if folder.is_dir() and not folder.is_symlink():
            _tighten(folder, DIR_MODE, fixed)
            for root, dirs, files in os.walk(folder):
                for entry in dirs:
                    _tighten(Path(root) / entry, DIR_MODE, fixed)
                for entry in files:
                    _tighten(Path(root) / entry, FILE_MODE, fixed)
    if not fixed:
        return []
    return ["Whimbrel's files could be read by other users of this machine; they are now yours alone "
            "(data dir 0700, files 0600): " + ", ".join(fixed)]
