"""Files whose cached stat git cannot trust yet, because they changed within two seconds of a snapshot.

This git compares ctime and mtime in whole seconds, so a file rewritten in the second it was captured,
with its size kept and its mtime put back (`cp -p`, `tar x`, `rsync -t`), looks unchanged to it (git's
own racy-clean rule only covers an mtime that is not older than the index). Each such file is listed in
the shadow repository with its stat in nanoseconds, taken before git read it; the next snapshot re-reads
any whose stat has moved at all. A file a restore wrote has no stat here and is re-read once.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

WINDOW_NS = 2 * 10**9  # a stat this close to a snapshot's start is checked in nanoseconds next time
FILE_NAME = "whimbrel-recheck.json"

Stamp = list[int] | None  # [ctime_ns, mtime_ns, size, inode]; None: re-read next time whatever it says


def stamp(info: os.stat_result) -> list[int]:
    return [info.st_ctime_ns, info.st_mtime_ns, info.st_size, info.st_ino]


def is_recent(info: os.stat_result, started_ns: int) -> bool:
    """Whether a change to this file may hide from git's whole-second compare at the next snapshot."""
    return info.st_ctime_ns >= started_ns - WINDOW_NS


class RecheckList:
    """The list, kept in one small JSON file beside the index (read and written under the repo lock)."""

    def __init__(self, git_dir: Path) -> None:
        self.path = git_dir / FILE_NAME

    def load(self) -> dict[str, Stamp]:
        try:
            data = json.loads(self.path.read_text())
        except (FileNotFoundError, ValueError, UnicodeDecodeError):
            return {}
        return data if isinstance(data, dict) else {}

    def save(self, entries: dict[str, Stamp]) -> None:
        """Replace the list whole (a kill mid-write leaves the old one); no file when it is empty."""
        if not entries:
            self.path.unlink(missing_ok=True)
            return
        text = json.dumps(entries, sort_keys=True)
        try:
            if self.path.read_text() == text:
                return
        except (FileNotFoundError, UnicodeDecodeError):
            pass
        scratch = self.path.with_name(f"{FILE_NAME}.{os.getpid()}-{threading.get_ident()}.tmp")
        scratch.write_text(text)
        os.replace(scratch, self.path)

    @staticmethod
    def moved(workspace: Path, entries: dict[str, Stamp]) -> set[str]:
        """The listed paths to re-read: never stamped, gone, or with any part of their stat changed."""
        found = set()
        for path, seen in entries.items():
            try:
                now = stamp(os.lstat(workspace / path))
            except (FileNotFoundError, NotADirectoryError):
                now = None
            if seen is None or now != list(seen):
                found.add(path)
        return found

    @staticmethod
    def still_recent(entries: dict[str, Stamp], started_ns: int, skip: set[str]) -> dict[str, Stamp]:
        """The stamped entries (but `skip`) still inside the window of a snapshot started at `started_ns`."""
        return {path: seen for path, seen in entries.items()
                if path not in skip and seen is not None and seen[0] >= started_ns - WINDOW_NS}
