"""Short previews and would-be diffs of tool calls, for the approval modal and tool cards. Never writes."""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

from tools.context import ToolContext
from tools.errors import ToolError
from tools.files import plan_file_edit
from tools.textfile import existing_text
from tools.workspace import display_path, resolve_path


def _read_range(args: dict[str, Any]) -> str:
    offset, limit = args.get("offset"), args.get("limit")
    if not offset and not limit:
        return ""
    start = offset or 1
    return f" (lines {start}–{start + limit - 1})" if limit else f" (from line {start})"


def preview_text(name: str, args: dict[str, Any]) -> str:
    """One line saying what a call does: the command, the path, the pattern and where."""
    if name == "bash":
        return str(args.get("command", ""))
    if name == "read_file":
        return f"{args.get('path', '')}{_read_range(args)}"
    if name in ("write_file", "edit_file"):
        return str(args.get("path", ""))
    if name == "search":
        where = args.get("path") or "."
        glob = f" [{args['glob']}]" if args.get("glob") else ""
        return f"/{args.get('pattern', '')}/ in {where}{glob}"
    if name in ("task", "plan"):
        return str(args.get("prompt", ""))
    if name in ("web_fetch", "math", "man", "notify"):
        return str(args.get({"web_fetch": "url", "math": "code", "man": "page", "notify": "message"}[name], ""))
    if name == "run_code":  # code mode: the program's first line, and how long it is
        lines = [line for line in str(args.get("code", "")).splitlines() if line.strip()]
        return (lines[0].strip() if lines else "") + (f"  … {len(lines)} lines" if len(lines) > 1 else "")
    if name == "watch" and args.get("command"):
        return f"{args['command']}  every {args.get('poll_every') or '5m'}" + \
            (f"  until {args['stop_on']}" if args.get("stop_on") else "")
    return json.dumps(args, ensure_ascii=False)


def unified_diff(before: str, after: str, label: str) -> str:
    """A unified diff with a/ and b/ labels; empty when nothing changes."""
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                 fromfile=f"a/{label}", tofile=f"b/{label}")
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                   for line in lines)


def diff_for(name: str, args: dict[str, Any], ctx: ToolContext, resolved: Path | None = None) -> str:
    """The diff write_file / edit_file would make, computed without writing ("" for other tools or when
    the edit cannot apply; the real call then reports why). `resolved` is the path already resolved."""
    if name not in ("write_file", "edit_file") or not isinstance(args.get("path"), str):
        return ""
    path = resolved if resolved is not None else resolve_path(args["path"], ctx.workspace)[0]
    label = display_path(path, ctx.workspace).lstrip("/")
    if name == "write_file":
        return unified_diff(existing_text(path), str(args.get("content", "")), label)
    try:
        _path, before, plan = plan_file_edit(args, ctx, path)
    except (ToolError, OSError, KeyError):
        return ""
    return unified_diff(before, plan.new_text, label)
