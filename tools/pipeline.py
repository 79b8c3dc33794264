"""What the engine calls for each tool call: prepare → approval_reason → execute."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.vocabulary.messages import ToolCall
from tools.arguments import parse_arguments, validate_arguments
from tools.context import ToolContext
from tools.errors import ToolError
from tools.preview import diff_for, preview_text
from tools.registry import ToolRegistry, ToolSpec
from tools.truncate import truncate
from tools.visibility import ToolScope, lookup, visible_tools
from tools.workspace import resolve_path

SAFEGUARD_MARGIN = 30.0  # seconds beyond the bash timeout before the pipeline gives up on any tool


@dataclass
class PreparedCall:
    """A call checked and summarised before it runs. `error`, when set, is the result the model gets."""

    call: ToolCall
    spec: ToolSpec | None
    args: dict[str, Any] | None
    error: str | None = None
    preview: str = ""
    diff: str = ""
    outside_paths: list[str] = field(default_factory=list)
    resolved_paths: dict[str, Path] = field(default_factory=dict)
    permission: Any = None  # how the policy gate decided it (app/engine/gating.py's Decided)


def _resolve_paths(spec: ToolSpec, args: dict[str, Any], ctx: ToolContext) -> tuple[dict[str, Path], list[str]]:
    """Each path argument resolved once in the workspace, and those that land outside it."""
    resolved: dict[str, Path] = {}
    outside: list[str] = []
    for key in spec.path_args:
        value = args.get(key)
        if isinstance(value, str):
            path, inside = resolve_path(value, ctx.workspace)
            resolved[key] = path
            if not inside:
                outside.append(str(path))
    return resolved, outside


def prepare(call: ToolCall, registry: ToolRegistry, ctx: ToolContext,
            scope: ToolScope | None = None) -> PreparedCall:
    """Find the tool among those `scope` may see, parse and validate the arguments, build the preview.

    A tool that exists but is hidden from this scope (a sub-agent's narrower set, a deferred tool)
    is refused exactly like an unknown one: what may run is what the model was shown.
    """
    name = call.name.strip()
    spec = lookup(registry, scope, name)
    if spec is None:
        available = ", ".join(s.name for s in visible_tools(registry, scope)) or "none"
        return PreparedCall(call, None, None, error=f"Unknown tool {name!r}. Available tools: {available}.",
                            preview=call.arguments[:200])
    try:
        args = parse_arguments(call.arguments, spec)
    except ToolError as exc:
        return PreparedCall(call, spec, None, error=str(exc), preview=call.arguments[:200])
    resolved, outside = _resolve_paths(spec, args, ctx)
    prepared = PreparedCall(call, spec, args, preview=preview_text(name, args),
                            outside_paths=outside, resolved_paths=resolved)
    try:
        validate_arguments(args, spec)
    except ToolError as exc:
        prepared.error = str(exc)
        return prepared
    prepared.diff = diff_for(name, args, ctx, resolved.get("path"))
    return prepared


async def refusal_before_asking(prepared: PreparedCall, ctx: ToolContext) -> str | None:
    """Why a call would be refused when it runs, known before anyone is asked to approve it (a web
    fetch of an address the address policy refuses), or None."""
    if prepared.spec is not None and prepared.spec.name == "web_fetch" and prepared.args:
        from tools.pinned_fetch import destination_refusal

        return await destination_refusal(str(prepared.args.get("url", "")).strip(), ctx.web)
    return None


def approval_reason(prepared: PreparedCall, always_allowed: set[str]) -> str | None:
    """Why the user must approve this call, or None when it may run at once.

    Paths outside the workspace always ask, even for auto-approved or always-allowed tools. A call
    that failed preparation never runs, so there is nothing to approve.
    """
    spec = prepared.spec
    if spec is None or prepared.error is not None:
        return None
    if prepared.outside_paths:
        return "path outside the workspace: " + ", ".join(prepared.outside_paths)
    if spec.auto_approve or spec.name in always_allowed:
        return None
    return spec.approval_reason


def _safeguard(args: dict[str, Any], ctx: ToolContext) -> float:
    requested = args.get("timeout")
    bash_limit = max(ctx.bash_timeout, requested if isinstance(requested, (int, float)) else 0)
    return bash_limit + SAFEGUARD_MARGIN


def _describe_os_error(exc: OSError) -> str:
    where = f": {exc.filename}" if exc.filename else ""
    return f"{exc.strerror or type(exc).__name__}{where}"


async def execute(prepared: PreparedCall, ctx: ToolContext) -> tuple[str, bool]:
    """Run a prepared call: (output text, is_error). Failures become words; cancellation propagates."""
    if prepared.error is not None or prepared.spec is None or prepared.args is None:
        return prepared.error or "The call could not be prepared.", True
    spec = prepared.spec
    limit = spec.run_limit or _safeguard(prepared.args, ctx)
    try:
        text, is_error = await asyncio.wait_for(spec.implementation(prepared.args, ctx), limit), False
    except ToolError as exc:
        text, is_error = str(exc), True
    except asyncio.TimeoutError:
        text, is_error = f"{spec.name} did not finish within {limit:g}s and was stopped.", True
    except OSError as exc:
        text, is_error = f"{spec.name} failed: {_describe_os_error(exc)}", True
    except Exception:  # a bug in a tool: the traceback goes to the log, the model and the user get words
        logging.getLogger("whimbrel").exception("tool %s failed", spec.name)
        text, is_error = (f"{spec.name} failed because of an internal error in Whimbrel (not in the call's "
                          f"arguments); the details are in Whimbrel's log."), True
    return truncate(text, ctx.output_limit), is_error
