"""The skill tool: list the user's skills and read one (app/memory/skills.py does the work)."""

from __future__ import annotations

import asyncio
from typing import Any

from app.memory.skills import discover
from tools.context import ToolContext
from tools.errors import ToolError


async def skill(args: dict[str, Any], ctx: ToolContext) -> str:
    config_dir = getattr(ctx.memory, "config_dir", None)
    skills, problems = await asyncio.to_thread(discover, ctx.workspace, config_dir)
    notes = "".join(f"\n(could not load: {problem})" for problem in problems)
    if args["action"] == "list":
        if not skills:
            return "No skills are defined (skills are .toml or .md files in .whimbrel/skills/ or the config dir)." + notes
        return "\n".join(f"- {s.name}: {s.description or '(no description)'}" for s in skills.values()) + notes
    name = (args.get("name") or "").strip()
    if not name:
        raise ToolError("skill read needs `name`")
    found = skills.get(name)
    if found is None:
        raise ToolError(f"no skill called {name!r}; known: {', '.join(skills) or 'none'}")
    variables = ", ".join(f"{v}={found.defaults[v]!r}" if v in found.defaults else v for v in found.variables)
    settings = ", ".join(f"{k}={v!r}" for k, v in found.settings.items())
    return (f"skill {found.name} (version {found.version}, {found.path})\n{found.description}\n"
            f"variables: {variables or 'none'}\nsettings: {settings or 'none'}\n\n{found.prompt}")
