"""Running a tool call end to end through the pipeline, as the engine does."""

from __future__ import annotations

import json
from typing import Any

from app.vocabulary.messages import ToolCall
from tools.context import ToolContext
from tools.pipeline import PreparedCall, execute, prepare
from tools.registry import ToolRegistry


def call(name: str, args: dict[str, Any] | str) -> ToolCall:
    raw = args if isinstance(args, str) else json.dumps(args)
    return ToolCall(id="call_1", name=name, arguments=raw)


def prep(registry: ToolRegistry, ctx: ToolContext, name: str, args: dict[str, Any] | str) -> PreparedCall:
    return prepare(call(name, args), registry, ctx)


async def run(registry: ToolRegistry, ctx: ToolContext, name: str,
              args: dict[str, Any] | str) -> tuple[str, bool]:
    return await execute(prep(registry, ctx, name, args), ctx)
