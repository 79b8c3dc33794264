"""`ToolSpec`: one tool's schema, policy metadata and implementation, on its own so that code which only holds
specs (the MCP client, the one-shot `whimbrel mcp` verbs) does not import every built-in tool with tools.registry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Awaitable, Callable

if TYPE_CHECKING:
    from tools.context import ToolContext

Implementation = Callable[[dict[str, Any], "ToolContext"], Awaitable[str]]
"""Runs a call with validated arguments; returns the result text or raises ToolError."""


@dataclass
class ToolSpec:
    """One tool: the schema sent to models (no metadata keys), its policy metadata and implementation.

    `agent`: offered to the main agent; `task_agent`: offered to task sub-agents; `plan_agent`:
    offered to read-only plan sub-agents. `read_only`: changes nothing outside its result (served
    by `whimbrel mcp serve` by default). `path_args` name the arguments holding file-system paths
    (checked against the workspace). `builtin`: shipped with Whimbrel (never deferred by tool search).
    """

    name: str
    schema: dict[str, Any]
    implementation: Implementation
    auto_approve: bool = False
    agent: bool = True
    task_agent: bool = True
    primary_key: str | None = None
    path_args: tuple[str, ...] = ()
    approval_reason: str = "needs approval to run"
    plan_agent: bool = False
    read_only: bool = False
    category: str = "other"
    builtin: bool = False
    run_limit: float | None = None  # seconds before the pipeline stops it (None: the bash timeout + margin)
    claims_read_only: bool = False  # an MCP server annotates it readOnlyHint: the server's word, not a fact

    @property
    def parameters(self) -> dict[str, Any]:
        """The JSON schema of the arguments."""
        return self.schema["function"].get("parameters", {"type": "object"})
