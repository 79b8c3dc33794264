"""Whimbrel's tool calls as Claude Code names them, so hook scripts written for it work unchanged.

A hook receives `tool_name` "Bash", "Read", "Write", "Edit", "Grep", "WebFetch", "WebSearch" or
"Task" (MCP tools keep `mcp__server__tool`) and `tool_input` with Claude Code's keys (`file_path`,
Bash `timeout` in milliseconds); the Whimbrel name and arguments ride along as
`whimbrel_tool_name` / `whimbrel_tool_input`. An `updatedInput` in either spelling comes back in
Whimbrel's keys.
"""

from __future__ import annotations

from typing import Any

# whimbrel tool -> (Claude Code name, {whimbrel key: Claude Code key})
_TOOLS: dict[str, tuple[str, dict[str, str]]] = {
    "bash": ("Bash", {}),
    "read_file": ("Read", {"path": "file_path"}),
    "write_file": ("Write", {"path": "file_path"}),
    "edit_file": ("Edit", {"path": "file_path"}),
    "search": ("Grep", {}),
    "web_fetch": ("WebFetch", {"question": "prompt"}),
    "web_search": ("WebSearch", {}),
    "task": ("Task", {}),
    "plan": ("Task", {}),
}
# names a matcher may use for a tool besides its own and its Claude Code name
_ALSO = {"search": ("Glob",)}


def claude_name(tool: str) -> str:
    """The name Claude Code gives this tool (MCP and unmapped tools keep theirs)."""
    return _TOOLS.get(tool, (tool, {}))[0]


def matcher_names(tool: str) -> list[str]:
    """Every name a hook matcher may use for `tool`: Whimbrel's, Claude Code's, and aliases."""
    names = [tool, claude_name(tool), *_ALSO.get(tool, ())]
    return list(dict.fromkeys(names))


def claude_input(tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """`args` with Claude Code's keys (`path` → `file_path`; Bash timeout seconds → milliseconds)."""
    keys = _TOOLS.get(tool, (tool, {}))[1]
    out = {keys.get(key, key): value for key, value in args.items()}
    if tool == "bash" and isinstance(out.get("timeout"), (int, float)):
        out["timeout"] = out["timeout"] * 1000
    if tool == "plan":
        out.setdefault("subagent_type", "Plan")
    return out


def whimbrel_input(tool: str, updated: dict[str, Any], original: dict[str, Any]) -> dict[str, Any]:
    """A hook's `updatedInput` (Claude Code's keys or Whimbrel's) in Whimbrel's keys. A Bash timeout
    left as sent, or above Whimbrel's 3600 s limit, is read as Claude Code's milliseconds."""
    keys = {claude: ours for ours, claude in _TOOLS.get(tool, (tool, {}))[1].items()}
    out = {keys.get(key, key): value for key, value in updated.items()}
    timeout = updated.get("timeout")
    if tool == "bash" and isinstance(timeout, (int, float)) and not isinstance(timeout, bool):
        if timeout == claude_input(tool, original).get("timeout") and "timeout" in original:
            out["timeout"] = original["timeout"]
        elif timeout > 3600:
            out["timeout"] = timeout / 1000
    if tool == "plan":
        out.pop("subagent_type", None)
    return out


def tool_payload(tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """The tool part of a PreToolUse / PostToolUse event."""
    return {"tool_name": claude_name(tool), "tool_input": claude_input(tool, args),
            "whimbrel_tool_name": tool, "whimbrel_tool_input": args}
