"""What an ACP client needs to follow a built-in tool call: its `kind`, the files it touches (`locations`) and,
for a write or an edit, the change itself as ACP `diff` content.

The diff is computed when the call is announced, before it runs (the engine emits the call before approving or
running it), from the file as it is then: old text and new text, never a write. A file too large or not text, or an
edit that cannot apply, gets no diff (the call's result then says why).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

# ACP's ToolKind for each built-in tool; an MCP or unknown tool is "other"
TOOL_KINDS = {"bash": "execute", "run_code": "execute", "watch": "execute", "math": "execute",
              "read_file": "read", "man": "read", "skill": "read",
              "write_file": "edit", "edit_file": "edit",
              "search": "search", "recall": "search", "tool_search": "search", "web_search": "search",
              "web_fetch": "fetch", "plan": "think"}
EDITS = ("write_file", "edit_file")
PATH_TOOLS = ("read_file", "write_file", "edit_file", "search")
DIFF_LIMIT = 1_000_000  # bytes of a file beyond which no diff is sent


def tool_kind(name: str) -> str:
    return TOOL_KINDS.get(name, "other")


def _arguments(arguments: str) -> dict[str, Any]:
    try:
        parsed = json.loads(arguments)
    except (ValueError, TypeError):
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _absolute(raw: Any, workdir: Path) -> Path | None:
    if not isinstance(raw, str) or not raw.strip():
        return None
    path = Path(raw).expanduser()
    return (path if path.is_absolute() else workdir / path).resolve()


def locations(name: str, arguments: str, workdir: Path) -> list[Any] | None:
    """The absolute path a read, write, edit or search touches (with the first line read or edited, when known)."""
    from acp.schema import ToolCallLocation

    if name not in PATH_TOOLS:
        return None
    args = _arguments(arguments)
    path = _absolute(args.get("path") or ("." if name == "search" else None), workdir)
    if path is None:
        return None
    line = args.get("offset") if name == "read_file" else args.get("near_line") if name == "edit_file" else None
    return [ToolCallLocation(path=str(path), line=line if isinstance(line, int) and line >= 0 else None)]


def diff_content(name: str, arguments: str, workdir: Path) -> Any | None:
    """ACP `diff` content for a write_file / edit_file call, from the file as it is now (None when there is none)."""
    import acp

    if name not in EDITS:
        return None
    args = _arguments(arguments)
    path = _absolute(args.get("path"), workdir)
    if path is None or path.is_dir():
        return None
    try:
        if path.exists() and path.stat().st_size > DIFF_LIMIT:
            return None
        if name == "write_file":
            if not isinstance(args.get("content"), str):
                return None
            old = _text(path)
            return acp.tool_diff_content(str(path), args["content"], old)
        return _edit_diff(args, path, workdir)
    except OSError:
        return None


def _text(path: Path) -> str | None:
    """The file's text, None when it does not exist (a new file); unreadable or binary raises OSError."""
    if not path.exists():
        return None
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise OSError("not text") from None


def _edit_diff(args: dict[str, Any], path: Path, workdir: Path) -> Any | None:
    import acp

    from tools.context import ToolContext
    from tools.errors import ToolError
    from tools.files import plan_file_edit

    try:
        _path, before, plan = plan_file_edit(args, ToolContext(workspace=workdir), path)
    except (ToolError, KeyError, TypeError, ValueError):
        return None
    return acp.tool_diff_content(str(path), plan.new_text, before)
