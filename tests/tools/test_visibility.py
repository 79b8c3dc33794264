"""What the model sees and what may be dispatched come from one function: hidden tools cannot run."""

from __future__ import annotations

import json
from typing import Any

from tests.tools.helpers import call
from tools.context import ToolContext
from tools.pipeline import execute, prepare
from tools.registry import ToolRegistry, ToolSpec
from tools.tool_search import TOOL_SEARCH, ToolSearch
from tools.visibility import PLAN, TASK, ToolScope, schemas, visible_tools


def mcp_spec(name: str, description: str, params: dict[str, Any] | None = None) -> ToolSpec:
    async def run(args: dict[str, Any], _ctx: Any) -> str:
        return f"{name} ran with {json.dumps(args, sort_keys=True)}"
    parameters = {"type": "object", "properties": params or {}}
    schema = {"type": "function", "function": {"name": name, "description": description, "parameters": parameters}}
    return ToolSpec(name=name, schema=schema, implementation=run, approval_reason="MCP tool")


def with_mcp(count: int) -> ToolRegistry:
    registry = ToolRegistry.load_builtin()
    for i in range(count):
        registry.register(mcp_spec(f"mcp__srv__tool_{i}", f"filler tool number {i} for padding"))
    return registry


def names(registry: ToolRegistry, scope: ToolScope | None) -> list[str]:
    return [s["function"]["name"] for s in schemas(registry, scope)]


def test_plan_scope_sees_read_only_tools_and_cannot_call_bash(registry: ToolRegistry, ctx: ToolContext) -> None:
    scope = ToolScope(audience=PLAN)
    assert names(registry, scope) == ["man", "math", "notify", "read_file", "search", "web_fetch", "web_search"]
    prepared = prepare(call("bash", {"command": "touch pwned"}), registry, ctx, scope)
    assert prepared.spec is None and "Unknown tool 'bash'" in prepared.error
    assert "Available tools: man, math, notify, read_file, search, web_fetch, web_search" in prepared.error


async def test_hidden_tool_cannot_be_called_even_by_exact_name(registry: ToolRegistry, ctx: ToolContext) -> None:
    scope = ToolScope(audience=TASK, allowed=frozenset({"read_file"}))
    assert names(registry, scope) == ["read_file"]
    prepared = prepare(call("write_file", {"path": "x.txt", "content": "no"}), registry, ctx, scope)
    text, is_error = await execute(prepared, ctx)
    assert is_error and "Unknown tool 'write_file'" in text
    assert not (ctx.workspace / "x.txt").exists()


def test_a_child_scope_never_widens(registry: ToolRegistry) -> None:
    parent = ToolScope(audience="main", allowed=frozenset({"read_file", "search"}))
    child = parent.narrowed(TASK, frozenset({"read_file", "bash"}))
    assert child.allowed == frozenset({"read_file"})
    assert parent.narrowed(TASK).allowed == parent.allowed
    assert names(registry, child) == ["read_file"]


def test_below_the_threshold_everything_is_shown() -> None:
    registry = with_mcp(20 - len(names(with_mcp(0), ToolScope())))  # exactly at the threshold
    scope = ToolScope(search=ToolSearch(threshold=20))
    shown = names(registry, scope)
    assert TOOL_SEARCH not in shown and "mcp__srv__tool_0" in shown and len(shown) == 20


async def test_past_the_threshold_mcp_tools_are_deferred_and_found_by_search(ctx: ToolContext) -> None:
    registry = with_mcp(30)
    registry.register(mcp_spec("mcp__gh__create_issue", "Open a new issue in a GitHub repository",
                               {"title": {"type": "string", "description": "issue title"}}))
    scope = ToolScope(search=ToolSearch(threshold=20))
    shown = names(registry, scope)
    assert shown == ["bash", "edit_file", "man", "math", "memory", "notify", "plan", "read_file", "recall", "search",
                     "skill", "task", "watch", "web_fetch", "web_search", "write_file", TOOL_SEARCH]
    hidden = prepare(call("mcp__gh__create_issue", {"title": "t"}), registry, ctx, scope)
    assert hidden.spec is None and "Unknown tool" in hidden.error

    found = prepare(call(TOOL_SEARCH, "open a github issue"), registry, ctx, scope)
    text, is_error = await execute(found, ctx)
    assert not is_error and text.splitlines()[1].startswith("- mcp__gh__create_issue:")
    assert "mcp__gh__create_issue" in names(registry, scope)  # found tools stay visible
    ran = prepare(call("mcp__gh__create_issue", {"title": "t"}), registry, ctx, scope)
    assert ran.error is None
    assert (await execute(ran, ctx))[0] == 'mcp__gh__create_issue ran with {"title": "t"}'


async def test_tool_search_ranks_by_name_description_and_parameters(ctx: ToolContext) -> None:
    registry = with_mcp(25)
    registry.register(mcp_spec("mcp__db__query", "Run SQL against the database"))
    registry.register(mcp_spec("mcp__db__schema", "Describe tables", {"table_name": {"type": "string"}}))
    registry.register(mcp_spec("mcp__weather__forecast", "Weather forecast for a city"))
    search = ToolSearch(threshold=20, max_results=2)
    visible_tools(registry, ToolScope(search=search))
    assert [s.name for s in search.search("sql database query")][:1] == ["mcp__db__query"]
    assert [s.name for s in search.search("table name")][:1] == ["mcp__db__schema"]
    assert search.search("zzz nothing like it") == []


def test_a_search_after_finds_offers_the_next_best_never_a_found_one() -> None:
    """Found tools leave the deferred set (the next request shows them); the next search ranks the rest."""
    registry = with_mcp(25)
    for i in range(3):
        registry.register(mcp_spec(f"mcp__db__query_{i}", f"Run SQL against database number {i}"))
    search = ToolSearch(threshold=20, max_results=2)
    scope = ToolScope(search=search)
    visible_tools(registry, scope)
    first = {s.name for s in search.search("sql database")}
    assert len(first) == 2 and first <= {"mcp__db__query_0", "mcp__db__query_1", "mcp__db__query_2"}
    assert first <= set(names(registry, scope))  # the request between: now shown, no longer deferred
    second = [s.name for s in search.search("sql database")]
    assert second[:1] == sorted({"mcp__db__query_0", "mcp__db__query_1", "mcp__db__query_2"} - first)
    assert not set(second) & first


def test_tool_search_off_and_on_modes() -> None:
    registry = with_mcp(30)
    assert TOOL_SEARCH not in names(registry, ToolScope(search=ToolSearch(mode="off")))
    small = with_mcp(1)
    assert names(small, ToolScope(search=ToolSearch(mode="on")))[-1] == TOOL_SEARCH
    assert TOOL_SEARCH not in names(ToolRegistry.load_builtin(), ToolScope(search=ToolSearch(mode="on")))


async def test_session_bound_tools_say_so_outside_a_session(registry: ToolRegistry, ctx: ToolContext) -> None:
    text, is_error = await execute(prepare(call("task", {"prompt": "x"}), registry, ctx), ctx)
    assert is_error and "only a workstream's own model can use it" in text
