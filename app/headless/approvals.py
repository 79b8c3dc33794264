"""The headless answer to an approval request: the policy judges each call, nobody is asked.

Every built-in tool is offered with approval required (`gated_registry`), so reading tools pass the
policy too and a --deny rule can stop them; the policy still lets reading tools through by default.
"""

from __future__ import annotations

import dataclasses

from app.engine import events as ev
from app.headless.policy import CallFacts, Decide, Verdict
from tools.arguments import parse_arguments
from tools.errors import ToolError
from tools.registry import ToolRegistry
from tools.workspace import resolve_path

POLICY_PREFIX = "(Nobody was asked: this is a headless run, and its policy refused the call.) "


def gated_registry(registry: ToolRegistry) -> tuple[ToolRegistry, frozenset[str]]:
    """A copy of `registry` where every tool asks, and the names of the tools that only read."""
    gated = ToolRegistry()
    read_only = set()
    for name in registry.names():
        spec = registry.get(name)
        if spec.auto_approve:
            read_only.add(name)
        gated.register(dataclasses.replace(spec, auto_approve=False))
    return gated, frozenset(read_only)


def facts_for(item: ev.ApprovalItem, arguments: str, registry: ToolRegistry, read_only: frozenset[str],
              workspace) -> CallFacts:
    """What the policy needs about one call: its subject and any path outside the workspace."""
    spec = registry.get(item.name)
    outside: list[str] = []
    if spec is not None:
        try:
            args = parse_arguments(arguments, spec)
        except ToolError:
            args = {}
        for key in spec.path_args:
            if isinstance(args.get(key), str):
                path, inside = resolve_path(args[key], workspace)
                if not inside:
                    outside.append(str(path))
    return CallFacts(item.name, item.preview, item.name in read_only, tuple(outside))


def decision_for(verdict: Verdict) -> ev.ApprovalDecision:
    """The engine's decision; a refusal carries the reason, which the model reads in the tool result."""
    if verdict.allowed:
        return ev.ApprovalDecision("approve")
    return ev.ApprovalDecision("deny", feedback=POLICY_PREFIX + verdict.reason)


__all__ = ["Decide", "decision_for", "facts_for", "gated_registry"]
