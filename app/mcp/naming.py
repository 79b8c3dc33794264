"""Tool names as the model sees them: `mcp__<server>__<tool>`."""

from __future__ import annotations

import re

PREFIX = "mcp__"
SEPARATOR = "__"
MAX_NAME = 64  # OpenAI function names: ^[a-zA-Z0-9_-]{1,64}$
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def server_name_problem(name: str) -> str | None:
    """Why `name` cannot be a server name, or None when it can."""
    if not name:
        return "an MCP server name cannot be empty"
    if SEPARATOR in name:
        return (f"MCP server name '{name}' contains '__', which Whimbrel uses to separate the parts of "
                f"tool names (mcp__<server>__<tool>); rename it, e.g. '{name.replace(SEPARATOR, '_')}'")
    if _UNSAFE.search(name):
        return (f"MCP server name '{name}' may only contain letters, digits, '-' and '_' "
                f"(it becomes part of tool names)")
    return None


def tool_name(server: str, tool: str) -> str:
    """The model-facing name; unsafe characters become '_' and long names are shortened stably."""
    name = f"{PREFIX}{server}{SEPARATOR}{_UNSAFE.sub('_', tool)}"
    if len(name) > MAX_NAME:
        import hashlib

        digest = hashlib.sha1(tool.encode()).hexdigest()[:8]
        name = name[:MAX_NAME - 9] + "_" + digest
    return name


def split_tool_name(name: str) -> tuple[str, str] | None:
    """(server, tool-part) of a model-facing MCP tool name, or None for other names."""
    if not name.startswith(PREFIX):
        return None
    server, sep, tool = name[len(PREFIX):].partition(SEPARATOR)
    return (server, tool) if sep and server and tool else None
