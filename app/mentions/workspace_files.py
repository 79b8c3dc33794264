"""The workspace's files for @-mentions: listed once (respecting .gitignore), then matched fuzzily on
every keystroke, fast on 50,000 files (benchmarks/mention_completion.py).

Listing uses `git ls-files` in a git work tree (what git itself ignores is left out); elsewhere a
walk that skips .git and the patterns of the top .gitignore.
"""

from __future__ import annotations

import fnmatch
import heapq
import os
import re
import subprocess
from pathlib import Path

from app.sandbox import git as safe_git

SKIPPED_DIRS = {".git", ".hg", ".svn", "__pycache__", "node_modules", ".venv", ".mypy_cache", ".pytest_cache"}
MAX_FILES = 500_000
SUBSEQUENCE_WORK = 4_000  # paths a query's rarest letter may lead to testing, per keystroke


def list_workspace(root: Path) -> list[str]:
    """Relative paths of the workspace's files (POSIX separators), ignored files left out."""
    try:
        out = safe_git.run(["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--deduplicate"],
                           root, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        out = None
    if out is not None and out.returncode == 0:
        return [p for p in out.stdout.decode("utf-8", "replace").split("\0") if p][:MAX_FILES]
    return _walk(root)


def _ignore_patterns(root: Path) -> list[str]:
    try:
        lines = (root / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    return [line.strip().rstrip("/") for line in lines if line.strip() and not line.startswith(("#", "!"))]


def _walk(root: Path) -> list[str]:
    patterns = _ignore_patterns(root)

    def ignored(relative: str, name: str) -> bool:
        return any(fnmatch.fnmatch(name, p) or fnmatch.fnmatch(relative, p.lstrip("/")) for p in patterns)

    found: list[str] = []
    for folder, dirs, files in os.walk(root):
        base = os.path.relpath(folder, root)
        prefix = "" if base == "." else base.replace(os.sep, "/") + "/"
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not ignored(prefix + d, d))
        found.extend(prefix + f for f in sorted(files) if not ignored(prefix + f, f))
        if len(found) >= MAX_FILES:
            break
    return found[:MAX_FILES]


def with_folders(files: list[str]) -> list[str]:
    """The files and every folder above them (folders end with "/"), folders first."""
    folders = {file[:index + 1] for file in files for index in _slashes(file)}
    return sorted(folders) + files


def _slashes(path: str):
    index = path.find("/")
    while index >= 0:
        yield index
        index = path.find("/", index + 1)


class FileIndex:
    """Fuzzy matching over workspace paths: path prefix, then a folder or file name prefix, then
    substring, then the letters in order (subsequence).

    Prefix tiers are ranges of sorted lists found by bisection; the other two are one regex scan
    in C over the lowered paths joined by newlines, and only when the prefix tiers found too few.
    """

    def __init__(self, paths: list[str]) -> None:
        self.paths = paths
        self._original: dict[str, str] = {}
        for path in paths:
            self._original.setdefault(path.lower(), path)
        self._sorted = sorted(self._original)
        # every name inside a path ("sub0/mod1.py" and "mod1.py" of "pkg/sub0/mod1.py"), NUL, the path
        self._names = sorted(f"{lowered[index + 1:]}\0{lowered}" for lowered in self._sorted
                             for index in _slashes(lowered.rstrip("/")))
        self._all = "\n".join(self._sorted)

    def match(self, query: str, limit: int = 20) -> list[str]:
        """The best `limit` paths for `query` (at most `limit`)."""
        lowered = query.lower()
        results: list[str] = []
        seen: set[str] = set()

        def add(candidates) -> bool:
            for path in candidates:
                if path not in seen:
                    seen.add(path)
                    results.append(path)
                    if len(results) >= limit:
                        return True
            return False

        if (add(_prefixed(self._sorted, lowered, limit))
                or add(name.split("\0", 1)[1] for name in _prefixed(self._names, lowered, limit * 2))):
            return [self._original[p] for p in results]
        substring, subsequence = self._scan(lowered, limit * 10)
        add(sorted(substring, key=len))
        add(sorted(subsequence, key=len))
        return [self._original[p] for p in results]

    def _scan(self, query: str, cap: int) -> tuple[list[str], list[str]]:
        """Up to `cap` paths containing `query`, and paths with its letters in order.

        Both start from literal searches in C: the substring itself, then the query's rarest letter
        (every subsequence match contains it); at most SUBSEQUENCE_WORK lines are tested one by one.
        """
        substring = self._lines_with(query, cap)
        if len(substring) >= cap:
            return substring, []
        text = self._all
        rarest = min(set(query), key=text.count)
        in_order = re.compile("[^\n]*?".join(map(re.escape, query)))
        contains = set(substring)
        subsequence = [line for line in self._lines_with(rarest, SUBSEQUENCE_WORK)
                       if line not in contains and in_order.search(line)]
        return substring, subsequence[:cap]

    def _lines_with(self, literal: str, cap: int) -> list[str]:
        """Up to `cap` distinct paths that contain `literal` (found in the joined text)."""
        text, lines, last_start = self._all, [], -1
        for match in re.finditer(re.escape(literal), text):
            start = text.rfind("\n", 0, match.start()) + 1
            if start == last_start:
                continue
            last_start = start
            end = text.find("\n", match.end())
            lines.append(text[start:end if end >= 0 else len(text)])
            if len(lines) >= cap:
                break
        return lines


def _prefixed(ordered: list[str], prefix: str, limit: int) -> list[str]:
    """Up to `limit` entries of the sorted list `ordered` that start with `prefix`."""
    import bisect

    start = bisect.bisect_left(ordered, prefix)
    out = []
    for entry in ordered[start:start + limit]:
        if not entry.startswith(prefix):
            break
        out.append(entry)
    return out
