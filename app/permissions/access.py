"""What a call reads and writes on disk, whatever the tool: the gate applies path rules, plan mode,
protected places and secret paths to these.

- Built-in file tools declare their path arguments (tools/*.json `path_args`): a read-only tool reads them,
  another writes them (`edit_file` reads and writes).
- bash: `shell_access.touched` (redirection targets, the files `cp`, `mv`, `tee`, `sed -i`… write, and the
  folders `grep -r`, `rg`, `tar c`, `cp -r`… read whole).
- MCP tools: arguments whose names say they hold paths (`path`, `source`, `destination`, `*_path`, …),
  resolved against the workspace; the server's own meaning is unknown, so each counts as read and written.

Each path is judged both as written (`..` folded) and resolved (symlinks followed), so a rule on the link's
name and one on its target both apply. A file with several hard links is judged under every name found in
the workspace (same `st_dev` and `st_ino`), and a write to it is reported, since it changes the other names.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.permissions.shell_access import touched

MCP_PREFIX = "mcp__"
PATH_ARGUMENT_NAMES = frozenset({
    "path", "paths", "file", "files", "filename", "filenames", "filepath", "file_path", "file_paths", "source",
    "sources", "destination", "dest", "src", "dst", "target", "directory", "dir", "folder", "root", "cwd",
    "old_path", "new_path", "repo_path"})
PATH_ARGUMENT_ENDINGS = ("_path", "_paths", "path", "paths", "_file", "_files", "_dir", "_directory", "_folder")
LINK_SEARCH_LIMIT = 50_000  # entries looked at when finding a hard link's other names in the workspace
# not searched for other names (pnpm links its store into node_modules): a write through any link asks anyway
BULKY_FOLDERS = frozenset({"node_modules", ".git", ".venv", "__pycache__"})


@dataclass
class Access:
    """Resolved absolute paths read and written, targets nobody can know before the run, hard-link notes."""

    reads: list[Path] = field(default_factory=list)
    writes: list[Path] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)  # why a write lands on a file with other names
    folders: list[Path] = field(default_factory=list)  # read recursively (`grep -r`, `tar c`…): every file inside

    @property
    def touched(self) -> list[Path]:
        return list(dict.fromkeys(self.writes + self.reads))


def call_access(tool: str, args: dict[str, Any], paths: list[Path], path_args: tuple[str, ...], read_only: bool,
                workspace: Path) -> Access:
    """What one call reads and writes (see the module docstring)."""
    root = workspace.resolve()
    if tool == "bash":
        command = args.get("command")
        if not isinstance(command, str):
            return Access()
        found = touched(command, root)
        access = Access(list(found.reads), list(found.writes), list(found.unknown), folders=list(found.folders))
    elif tool.startswith(MCP_PREFIX):
        named = _named_paths(args, root)
        access = Access(list(named), list(named))
    else:
        declared = list(paths) + [_literal(args[k], root) for k in path_args if isinstance(args.get(k), str)]
        declared = list(dict.fromkeys(declared))
        if read_only:
            access = Access(reads=declared)
        else:
            access = Access(reads=declared if tool == "edit_file" else [], writes=declared)
    _follow_hard_links(access, root)
    return access


def _literal(raw: str, root: Path) -> Path:
    """The path as written (`~` expanded, `..` folded) without following symlinks."""
    path = Path(os.path.expanduser(raw))
    return Path(os.path.normpath(path if path.is_absolute() else root / path))


def _resolved(raw: str, root: Path) -> list[Path]:
    literal = _literal(raw, root)
    try:
        resolved = literal.resolve()
    except (OSError, RuntimeError):
        return [literal]
    return list(dict.fromkeys([resolved, literal]))


def _is_path_name(name: str) -> bool:
    """`path`, `filePath`, `source-dir`, `repo_path`: names that say the value is a path."""
    key = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower().replace("-", "_")
    return key in PATH_ARGUMENT_NAMES or key.endswith(PATH_ARGUMENT_ENDINGS)


def _named_paths(args: dict[str, Any], root: Path, depth: int = 0) -> list[Path]:
    """Paths in arguments whose names say they hold paths (strings or lists of strings; nested objects too)."""
    out: list[Path] = []
    if depth > 4:
        return out
    for name, value in args.items():
        if isinstance(value, dict):
            out += _named_paths(value, root, depth + 1)
            continue
        if not isinstance(name, str) or not _is_path_name(name):
            continue
        values = value if isinstance(value, list) else [value]
        for item in values:
            if isinstance(item, dict):
                out += _named_paths(item, root, depth + 1)
            elif isinstance(item, str) and item and "://" not in item and "\x00" not in item:
                out += _resolved(item, root)
    return list(dict.fromkeys(out))


def _follow_hard_links(access: Access, root: Path) -> None:
    """Add the workspace's other names of every multiply linked file the call touches; note the writes."""
    for paths, writing in ((access.writes, True), (access.reads, False)):
        for path in list(paths):
            try:
                info = path.lstat()
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode) or info.st_nlink < 2:
                continue
            others = [p for p in _same_file(info, root) if p != path]
            paths.extend(p for p in others if p not in paths)
            if writing:
                shown = ", ".join(_shown(p, root) for p in others) or "none of them in the workspace"
                access.links.append(f"{_shown(path, root)} is a hard link with {info.st_nlink} names (other names "
                                    f"found: {shown}): writing it changes all of them")


def _same_file(info: os.stat_result, root: Path) -> list[Path]:
    found: list[Path] = []
    seen = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in BULKY_FOLDERS]
        for name in files:
            seen += 1
            if seen > LINK_SEARCH_LIMIT:
                return found
            path = Path(folder, name)
            try:
                other = path.lstat()
            except OSError:
                continue
            if other.st_ino == info.st_ino and other.st_dev == info.st_dev:
                found.append(path)
    return found


def _shown(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)

