"""Tools whose schema lives here but whose work needs a workstream session (task, plan, watch): the
engine binds their implementation per session; anywhere else they say so instead of running."""

from __future__ import annotations

from typing import Any

from tools.errors import ToolError

SESSION_BOUND = ("task", "plan", "watch")


async def needs_a_session(args: dict[str, Any], ctx: Any) -> str:
    raise ToolError("this tool needs a workstream (sub-agents and background watches belong to one), "
                    "so only a workstream's own model can use it")
