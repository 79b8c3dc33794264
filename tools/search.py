"""The search tool: regex over file contents with ripgrep, or an equivalent pure-Python walk without it.

A folder search leaves out the files the call may not read unasked (a path rule denies or asks about them,
or they are secrets no allow rule names: `ctx.unreadable`), and its result says how many and why. Which
files are left out is decided by name before anything is read, so the note never depends on their content.
A file named as the path itself was judged by the gate like any other path argument.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from app.vocabulary.globs import glob_to_regex
from app.permissions.risk import is_secret_path
from tools.context import ToolContext
from tools.errors import ToolError
from tools.textfile import looks_binary
from tools.workspace import display_path, resolve_path

SKIP_DIRS = (".git", "node_modules", ".venv", "__pycache__")
MAX_MATCHES = 200
MAX_TEXT = 300
SHOWN_SKIPPED = 5  # files named in the note about what was left out
RG_LINE_LIMIT = 16 * 1024 * 1024  # bytes one output line of rg may take


@dataclass(frozen=True)
class Match:
    path: str  # as displayed: relative to the workspace when inside it
    line: int
    text: str


def _clip(text: str) -> str:
    text = text.rstrip("\r")
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "…"


def glob_regex(glob: str) -> re.Pattern[str]:
    """Translate a ripgrep/gitignore-style glob: `*` and `?` stay within one path segment, `**` spans any."""
    return re.compile(glob_to_regex(glob, char_classes=True) + r"\Z")


def _glob_filter(glob: str, ctx: ToolContext) -> Callable[[Path], bool]:
    """Like rg --glob: without '/' the glob matches file names; with '/' the path from the workspace."""
    regex = glob_regex(glob.lstrip("/"))
    if "/" not in glob:
        return lambda path: regex.match(path.name) is not None
    return lambda path: regex.match(display_path(path, ctx.workspace)) is not None


def _candidate_files(root: Path, wanted: Callable[[Path], bool]) -> list[Path]:
    if root.is_file():
        return [root]
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
        for name in filenames:
            path = Path(dirpath, name)
            if name in SKIP_DIRS or path.is_symlink():  # rg skips both by default
                continue
            if not wanted(path):
                continue
            found.append(path)
    return sorted(found, key=lambda p: p.relative_to(root).parts)


def _python_search(regex: re.Pattern[str], root: Path, glob: str | None, ctx: ToolContext,
                   cap: int, skip: frozenset[Path] = frozenset()) -> list[Match]:
    matches: list[Match] = []
    wanted = _glob_filter(glob, ctx) if glob else (lambda _path: True)
    for path in _candidate_files(root, wanted):
        if path in skip:
            continue
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if looks_binary(data):
            continue
        label = display_path(path, ctx.workspace)
        lines = data.decode("utf-8", errors="replace").split("\n")
        if lines[-1] == "":
            lines.pop()  # the text after a final newline is not a line (rg agrees)
        for number, line in enumerate(lines, start=1):
            if regex.search(line.rstrip("\r")):
                matches.append(Match(label, number, _clip(line)))
                if len(matches) >= cap:
                    return matches
    return matches


def python_search(pattern: str, root: Path, glob: str | None, ctx: ToolContext, cap: int,
                  skip: frozenset[Path] = frozenset()) -> list[Match]:
    """Pure-Python search; skips SKIP_DIRS, binary files and the files in `skip`, like the ripgrep search."""
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise ToolError(f"Invalid regular expression {pattern!r}: {exc}.") from None
    return _python_search(regex, root, glob, ctx, cap, skip)


def _secret_only(path: Path) -> str:
    """Without a gate to ask (`ctx.unreadable` unset), secret files are still left out."""
    return f"{path.name} is a secret" if is_secret_path(str(path)) else ""


def left_out(root: Path, glob: str | None, ctx: ToolContext) -> dict[Path, str]:
    """The files under the folder `root` that may not be read unasked, each with why (by name only)."""
    if root.is_file():
        return {}
    check = ctx.unreadable or _secret_only
    out: dict[Path, str] = {}
    for path in _candidate_files(root, lambda _path: True):
        why = check(path)
        if why:
            out[path] = why
    return out


def _left_out_note(skipped: dict[Path, str], glob: str | None, ctx: ToolContext) -> str:
    """'[N files not searched …]' naming the first few and why, or "" when none was left out."""
    if glob:
        wanted = _glob_filter(glob, ctx)
        skipped = {path: why for path, why in skipped.items() if wanted(path)}
    if not skipped:
        return ""
    items = [f"{display_path(p, ctx.workspace)} ({why})" for p, why in list(skipped.items())[:SHOWN_SKIPPED]]
    more = len(skipped) - len(items)
    count = f"{len(skipped)} file{'s' if len(skipped) != 1 else ''}"
    return (f"[{count} not searched (not to be read unasked): {'; '.join(items)}"
            + (f"; and {more} more" if more else "") + "]")


def _rg_command(pattern: str, root: Path, glob: str | None, ctx: ToolContext) -> list[str]:
    cmd = ["rg", "--line-number", "--no-heading", "--color", "never", "--with-filename", "--null",
           "--no-ignore", "--hidden", "--sort", "path", "--no-messages"]
    for skip in SKIP_DIRS:
        cmd += ["--glob", f"!{skip}"]
    if glob:
        cmd += ["--glob", glob]
    cmd += ["--regexp", pattern]
    if root != ctx.workspace:
        cmd.append(display_path(root, ctx.workspace))
    return cmd


def _parse_rg_line(raw: bytes, ctx: ToolContext) -> tuple[Match, Path]:
    path, _, rest = raw.decode("utf-8", errors="replace").partition("\0")
    number, _, text = rest.partition(":")
    resolved, _inside = resolve_path(path, ctx.workspace)
    return Match(display_path(resolved, ctx.workspace), int(number), _clip(text)), resolved


async def rg_search(pattern: str, root: Path, glob: str | None, ctx: ToolContext,
                    cap: int, skip: frozenset[Path] = frozenset()) -> list[Match] | None:
    """Search with ripgrep; None when rg rejected the pattern (the caller falls back to Python). Lines from
    the files in `skip` are dropped unread by the caller, and do not count towards `cap`."""
    proc = await asyncio.create_subprocess_exec(
        *_rg_command(pattern, root, glob, ctx), cwd=ctx.workspace, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, limit=RG_LINE_LIMIT)
    assert proc.stdout is not None
    check = ctx.unreadable or _secret_only
    judged: dict[Path, bool] = {}

    def refused(path: Path) -> bool:
        if path not in judged:
            judged[path] = bool(check(path))
        return judged[path]
    matches: list[Match] = []
    finished = False
    try:
        while len(matches) < cap:
            raw = await proc.stdout.readline()
            if not raw:
                finished = True
                break
            match, path = _parse_rg_line(raw.rstrip(b"\n"), ctx)
            if path not in skip and not refused(path):  # judged again: rg may reach what the walk did not
                matches.append(match)
    finally:
        if not finished:  # stopped early (cap or cancel): rg is still running
            _kill_quietly(proc)
        await proc.wait()
    if finished and proc.returncode == 2 and not matches:
        return None
    return matches


def _kill_quietly(proc: asyncio.subprocess.Process) -> None:
    """Stop rg; only used while it still runs (Popen.kill reaps an exited child, confusing asyncio)."""
    try:
        proc.kill()
    except ProcessLookupError:
        pass


def _format(matches: list[Match], pattern: str, where: str, cap: int, note: str = "") -> str:
    if not matches:
        return "\n".join(filter(None, [f"No matches for /{pattern}/ in {where}.", note]))
    lines = [f"{m.path}:{m.line}:{m.text}" for m in matches[:cap]]
    if len(matches) > cap:
        lines.append(f"[results capped at {cap} matches; narrow the pattern, path or glob]")
    return "\n".join(lines + ([note] if note else []))


async def search(args: dict[str, Any], ctx: ToolContext) -> str:
    """Regex search over file contents under a directory (default: the workspace) or in one file."""
    pattern = args["pattern"]
    root, _inside = resolve_path(args.get("path") or ".", ctx.workspace)
    where = display_path(root, ctx.workspace)
    if not root.exists():
        raise ToolError(f"{where} does not exist.")
    glob = args.get("glob") or None
    skipped = await asyncio.to_thread(left_out, root, glob, ctx)
    skip = frozenset(skipped)
    matches = None
    if shutil.which("rg"):
        matches = await rg_search(pattern, root, glob, ctx, MAX_MATCHES + 1, skip)
    if matches is None:
        matches = await asyncio.to_thread(python_search, pattern, root, glob, ctx, MAX_MATCHES + 1, skip)
    return _format(matches, pattern, where, MAX_MATCHES, _left_out_note(skipped, glob, ctx))
