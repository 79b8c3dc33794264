"""The memory and recall tools: thin adapters from validated arguments to app/memory's service."""

from __future__ import annotations

import time
from typing import Any

from app.memory.records import InvalidMemory, Memory, RecallError, Visibility
from tools.context import ToolContext
from tools.errors import ToolError

DEFAULT_LIMIT = 20
SHOWN_CONTENT = 4_000  # characters of each memory's content a search shows


def _service(ctx: ToolContext) -> Any:
    if ctx.memory is None:
        raise ToolError("memory is not available in this session (no store is open)")
    return ctx.memory


def visibility(ctx: ToolContext) -> Visibility:
    """What this call's workstream sees: global memories, its own, its workspace's and the team's."""
    return Visibility(workstream_id=ctx.workstream_id, workspace=str(ctx.workspace))


def _needs(args: dict[str, Any], key: str, action: str) -> str:
    value = args.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ToolError(f"memory {action} needs `{key}`")
    return value


def _summary(memory: Memory, *, saver: bool = False) -> str:
    """One line for `memory`; with `saver`, who saved it (lists and searches: on a team store, whose it is)."""
    about = f" — {memory.description}" if memory.description else ""
    by = f", by {' '.join(memory.who.split())}" if saver and memory.who else ""
    return f"{memory.name} [{memory.type}, {memory.scope}{by}]{about}"


def _result_count(args: dict[str, Any], service: Any) -> int:
    """The number of results the model asked for, else the service's [memory] results (20 by default)."""
    limits = getattr(service, "limits", None)
    return args.get("limit") or (limits.results if limits is not None else DEFAULT_LIMIT)


async def memory(args: dict[str, Any], ctx: ToolContext) -> str:
    """save / search / list / delete, with model-facing errors in words."""
    service, action, seen = _service(ctx), args["action"], visibility(ctx)
    limit = _result_count(args, service)
    try:
        if action == "save":
            name = _needs(args, "name", "save")
            kind = args.get("type")
            scope = args.get("scope")
            if scope is None:
                existing = await service.get(seen, name)
                scope = existing.scope if existing else ("global" if kind == "user" else "workspace")
            saved, created = await service.save(seen, name, args.get("content"), description=args.get("description"),
                                                type=kind, scope=scope)
            return f"{'Saved new' if created else 'Updated'} memory {_summary(saved)}."
        if action == "delete":
            gone = await service.delete(seen, _needs(args, "name", "delete"), args.get("scope"))
            if gone is None:
                raise ToolError(f"no memory called {args['name']!r} is visible here; list shows the names")
            return f"Deleted memory {_summary(gone)}."
        if action == "list":
            found = await service.list(seen, type=args.get("type"), scope=args.get("scope"), limit=limit)
            if not found:
                return "No memories saved yet."
            return f"{len(found)} memories:\n" + "\n".join(f"- {_summary(m, saver=True)}" for m in found)
        found = await service.search(seen, _needs(args, "query", "search"), type=args.get("type"),
                                     scope=args.get("scope"), limit=limit)
        if not found:
            return f"No memory matches {args['query']!r}."
        return "\n\n".join(f"## {_summary(m, saver=True)}\n{m.content[:SHOWN_CONTENT]}" for m in found)
    except InvalidMemory as error:
        raise ToolError(str(error)) from None


async def recall(args: dict[str, Any], ctx: ToolContext) -> str:
    """Search all stored conversations; syntax errors and empty queries come back in words."""
    service = _service(ctx)
    try:
        hits = await service.recall(args["query"], limit=_result_count(args, service),
                                    syntax=bool(args.get("syntax")), role=args.get("role"),
                                    workstream_id=ctx.workstream_id if args.get("this_workstream") else None,
                                    asking=ctx.workstream_id or None)
    except RecallError as error:
        raise ToolError(str(error)) from None
    if not hits:
        return f"Nothing in the stored conversations matches {args['query']!r}."
    lines = [hit.line(time.strftime("%Y-%m-%d %H:%M", time.localtime(hit.created_at))) for hit in hits]
    return f"{len(hits)} messages found:\n" + "\n".join(lines)
