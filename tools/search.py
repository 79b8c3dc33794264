"""The search tool: regex over file contents with ripgrep, or an equivalent pure-Python walk without it."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from app.vocabulary.globs import glob_to_regex
from tools.context import ToolContext
from tools.errors import ToolError
from tools.textfile import looks_binary
from tools.workspace import display_path, resolve_path

SKIP_DIRS = (".git", "node_modules", ".venv", "__pycache__")
MAX_MATCHES = 200
MAX_TEXT = 300
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
                   cap: int) -> list[Match]:
    matches: list[Match] = []
    wanted = _glob_filter(glob, ctx) if glob else (lambda _path: True)
    for path in _candidate_files(root, wanted):
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


def python_search(pattern: str, root: Path, glob: str | None, ctx: ToolContext, cap: int) -> list[Match]:
    """Pure-Python search; skips SKIP_DIRS and binary files like the ripgrep invocation does."""
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise ToolError(f"Invalid regular expression {pattern!r}: {exc}.") from None
    return _python_search(regex, root, glob, ctx, cap)


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


def _parse_rg_line(raw: bytes, ctx: ToolContext) -> Match:
    path, _, rest = raw.decode("utf-8", errors="replace").partition("\0")
    number, _, text = rest.partition(":")
    resolved, _inside = resolve_path(path, ctx.workspace)
    return Match(display_path(resolved, ctx.workspace), int(number), _clip(text))


async def rg_search(pattern: str, root: Path, glob: str | None, ctx: ToolContext,
                    cap: int) -> list[Match] | None:
    """Search with ripgrep; None when rg rejected the pattern (the caller falls back to Python)."""
    proc = await asyncio.create_subprocess_exec(
        *_rg_command(pattern, root, glob, ctx), cwd=ctx.workspace, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, limit=RG_LINE_LIMIT)
    assert proc.stdout is not None
    matches: list[Match] = []
    finished = False
    try:
        while len(matches) < cap:
            raw = await proc.stdout.readline()
            if not raw:
                finished = True
                break
            matches.append(_parse_rg_line(raw.rstrip(b"\n"), ctx))
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


def _format(matches: list[Match], pattern: str, where: str, cap: int) -> str:
    if not matches:
        return f"No matches for /{pattern}/ in {where}."
    lines = [f"{m.path}:{m.line}:{m.text}" for m in matches[:cap]]
    if len(matches) > cap:
        lines.append(f"[results capped at {cap} matches; narrow the pattern, path or glob]")
    return "\n".join(lines)


async def search(args: dict[str, Any], ctx: ToolContext) -> str:
    """Regex search over file contents under a directory (default: the workspace) or in one file."""
    pattern = args["pattern"]
    root, _inside = resolve_path(args.get("path") or ".", ctx.workspace)
    where = display_path(root, ctx.workspace)
    if not root.exists():
        raise ToolError(f"{where} does not exist.")
    glob = args.get("glob") or None
    matches = None
    if shutil.which("rg"):
        matches = await rg_search(pattern, root, glob, ctx, MAX_MATCHES + 1)
    if matches is None:
        matches = await asyncio.to_thread(python_search, pattern, root, glob, ctx, MAX_MATCHES + 1)
    return _format(matches, pattern, where, MAX_MATCHES)
