"""The one function that decides which tools a model sees, and therefore which calls may be dispatched.

`visible_tools(registry, scope)` is used both for the tool list sent to the model and by the
pipeline's `prepare`, so a tool the model was not shown can never run (even if the model guesses
its name). A scope narrows by audience (main agent, task or plan sub-agent), by an explicit allow
set (a sub-agent never gets more than its parent), and by tool search (deferred tools stay hidden
until `tool_search` finds them). With a provider that defers natively, `schemas` also sends the
deferred tools, marked `defer_loading`, from the same `offer`: they stay undispatchable until the
provider's own search loads them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from tools.registry import ToolRegistry, ToolSpec
from tools.tool_search import NATIVE_TOOL_SEARCH, ToolSearch, deferred_schema

MAIN, TASK, PLAN = "main", "task", "plan"
AUDIENCES = (MAIN, TASK, PLAN)
RUN_CODE = "run_code"  # code mode's one tool: offered in the "code" and "both" modes only
TOOL_MODES = ("native", "code", "both")


def offered_to(spec: ToolSpec, audience: str) -> bool:
    """Whether the registry metadata offers `spec` to this kind of agent."""
    if audience == PLAN:
        return spec.plan_agent
    if audience == TASK:
        return spec.task_agent
    return spec.agent


@dataclass
class ToolScope:
    """Who is asking: the audience, an optional allow set that only narrows, and tool search state."""

    audience: str = MAIN
    allowed: frozenset[str] | None = None
    search: ToolSearch | None = None
    extra: dict[str, ToolSpec] = field(default_factory=dict)  # session-bound tools (task, plan, watch…)
    hidden: frozenset[str] = frozenset()  # tools this session cannot serve (web_search without a backend)
    tool_mode: Callable[[], str] | None = None  # native | code | both (app/engine/code_mode.py); None: native

    def mode(self) -> str:
        return self.tool_mode() if self.tool_mode is not None else "native"

    def narrowed(self, audience: str, names: frozenset[str] | None = None) -> ToolScope:
        """A child scope: never wider than this one (a sub-agent's tools ⊆ its parent's)."""
        allowed = names if self.allowed is None else (self.allowed if names is None else self.allowed & names)
        return ToolScope(audience=audience, allowed=allowed, search=None, extra={}, hidden=self.hidden)


def _candidates(registry: ToolRegistry, scope: ToolScope) -> list[ToolSpec]:
    """The registry's tools (a session-bound one replaced by the scope's own), then the scope's others."""
    specs = [scope.extra.get(n) or registry.get(n) for n in registry.names()]
    specs += [s for n, s in scope.extra.items() if registry.get(n) is None]
    return [s for s in specs if s is not None and offered_to(s, scope.audience) and s.name not in scope.hidden
            and (scope.allowed is None or s.name in scope.allowed)]


def offer(registry: ToolRegistry, scope: ToolScope | None = None,
          mode: str | None = None) -> tuple[list[ToolSpec], list[ToolSpec]]:
    """(visible, deferred natively): the tools this scope may see and call, in registration order
    (tool_search last when active), and those a natively deferring provider gets marked
    `defer_loading` (not callable until its search loads them; empty otherwise).

    The tool mode then decides how they are offered: all but run_code (native), only run_code
    (code), both (both). `mode` overrides the scope's: code mode's API is what "native" sees.
    """
    scope = scope or ToolScope()
    candidates = _candidates(registry, scope)
    transport = [s for s in candidates if s.name == RUN_CODE]
    tools = [s for s in candidates if s.name != RUN_CODE]
    deferred: list[ToolSpec] = []
    if scope.search is not None and scope.search.active(tools):
        tools = scope.search.visible(tools)
        deferred = list(scope.search.deferred().values()) if scope.search.native else []
    mode = mode or scope.mode()
    if mode == "code":
        return transport, []
    return (tools + transport if mode == "both" else tools), deferred


def visible_tools(registry: ToolRegistry, scope: ToolScope | None = None, mode: str | None = None) -> list[ToolSpec]:
    """The tools this scope may see and call (see `offer`)."""
    return offer(registry, scope, mode)[0]


def lookup(registry: ToolRegistry, scope: ToolScope | None, name: str) -> ToolSpec | None:
    """The spec a call named `name` may run, or None when it is unknown or hidden from this scope."""
    return next((s for s in visible_tools(registry, scope) if s.name == name), None)


def schemas(registry: ToolRegistry, scope: ToolScope | None = None) -> list[dict[str, Any]]:
    """The tool list to send to the model: exactly the visible tools, then, for a provider that defers
    natively, the deferred ones marked `defer_loading` and its own search tool."""
    visible, deferred = offer(registry, scope)
    native = [deferred_schema(s) for s in deferred] + [NATIVE_TOOL_SEARCH] if deferred else []
    return [s.schema for s in visible] + native
