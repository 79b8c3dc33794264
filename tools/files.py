"""read_file, write_file and edit_file. File work runs in a thread so the event loop never waits on disk."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tools.context import ToolContext
from tools.edits import EditPlan, plan_edit
from tools.errors import ToolError
from tools.textfile import load_text
from tools.workspace import display_path, resolve_path

DEFAULT_LINE_LIMIT = 2000
MAX_LINE_CHARS = 2000


def _target(args: dict[str, Any], ctx: ToolContext, resolved: Path | None = None) -> tuple[Path, str]:
    """The call's path, resolved in the workspace (or as already resolved by the caller), and its label."""
    path = resolved if resolved is not None else resolve_path(args["path"], ctx.workspace)[0]
    return path, display_path(path, ctx.workspace)


def _numbered(lines: list[str], first: int) -> str:
    out = []
    for number, line in enumerate(lines, start=first):
        if len(line) > MAX_LINE_CHARS:
            line = line[:MAX_LINE_CHARS] + f"… [line truncated, {len(line):,} chars]"
        out.append(f"{number:>6}\t{line}")
    return "\n".join(out)


def _read(args: dict[str, Any], ctx: ToolContext) -> str:
    path, label = _target(args, ctx)
    text = load_text(path, label, strict=False)
    ctx.read_paths.add(path)
    return read_window(text, label, args)


def read_window(text: str, label: str, args: dict[str, Any]) -> str:
    """read_file's answer for a file's text: the numbered lines of the window `offset`/`limit` asks for."""
    lines = text.splitlines()
    if not lines:
        return f"({label} is empty)"
    offset = args.get("offset") or 1
    limit = args.get("limit") or DEFAULT_LINE_LIMIT
    if offset > len(lines):
        raise ToolError(f"offset {offset} is past the end of {label}, which has {len(lines)} lines.")
    shown = lines[offset - 1: offset - 1 + limit]
    body = _numbered(shown, offset)
    last = offset - 1 + len(shown)
    if last < len(lines):
        body += (f"\n… {len(lines) - last} more lines ({label} has {len(lines)});"
                 f" continue with offset={last + 1}.")
    return body


def plan_file_edit(args: dict[str, Any], ctx: ToolContext,
                   resolved: Path | None = None) -> tuple[Path, str, EditPlan]:
    """Resolve (unless `resolved` is given), load and plan an edit_file call without writing: used by the
    edit and its preview."""
    path, label = _target(args, ctx, resolved)
    text = load_text(path, label)
    plan = plan_edit(text, args["old_string"], args["new_string"], near_line=args.get("near_line"),
                     replace_all=bool(args.get("replace_all")), label=label)
    return path, text, plan


def _write_text(path: Path, text: str) -> int:
    data = text.encode("utf-8")
    path.write_bytes(data)
    return len(data)


def _count_lines(text: str) -> int:
    return len(text.splitlines())


def _write(args: dict[str, Any], ctx: ToolContext) -> str:
    path, label = _target(args, ctx)
    if path.is_dir():
        raise ToolError(f"{label} is a directory; give a file path.")
    existed = path.exists()
    path.parent.mkdir(parents=True, exist_ok=True)
    size = _write_text(path, args["content"])
    ctx.read_paths.add(path)
    return wrote_message(label, args["content"], size, existed)


def wrote_message(label: str, content: str, size: int, existed: bool) -> str:
    """write_file's answer: what was written, in bytes and lines."""
    verb = "Overwrote" if existed else "Created"
    return f"{verb} {label}: {size:,} bytes, {_count_lines(content)} lines."


def _edit(args: dict[str, Any], ctx: ToolContext) -> str:
    path, label = _target(args, ctx)
    if path not in ctx.read_paths:
        raise ToolError(f"Read {label} with read_file before editing it, so the edit is based on its current text.")
    path, _old, plan = plan_file_edit(args, ctx)
    _write_text(path, plan.new_text)
    ctx.read_paths.add(path)
    return edited_message(label, plan)


def edited_message(label: str, plan: EditPlan) -> str:
    """edit_file's answer: how many replacements, at which lines."""
    where = ", ".join(str(n) for n in plan.lines)
    count = len(plan.lines)
    noun = "occurrence" if count == 1 else "occurrences"
    return f"Edited {label}: replaced {count} {noun} at line{'s' if count > 1 else ''} {where}."


async def read_file(args: dict[str, Any], ctx: ToolContext) -> str:
    """Line-numbered text of a file (or a window of it); records the path as read."""
    return await asyncio.to_thread(_read, args, ctx)


async def write_file(args: dict[str, Any], ctx: ToolContext) -> str:
    """Create or overwrite a file, creating parent directories."""
    return await asyncio.to_thread(_write, args, ctx)


async def edit_file(args: dict[str, Any], ctx: ToolContext) -> str:
    """Replace exact text in a previously read file."""
    return await asyncio.to_thread(_edit, args, ctx)
