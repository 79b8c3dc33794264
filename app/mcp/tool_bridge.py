"""MCP tools as Whimbrel tools: `mcp__<server>__<tool>` specs, snapshots and copy-on-write registries.

A mixin of `McpManager`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable

from app.mcp import convert
from app.mcp.builtin_tools import BUILTIN_NAMES, builtin_specs, catalog_text
from app.mcp.naming import split_tool_name, tool_name
from app.mcp.server_state import READY, ServerState
from tools.errors import ToolError
from tools.spec import ToolSpec

if TYPE_CHECKING:  # the registry imports every built-in tool: only a session building one needs it
    from tools.registry import ToolRegistry


class ToolBridge:
    def _make_specs(self, state: ServerState, tools: list[Any]) -> list[ToolSpec]:
        specs: list[ToolSpec] = []
        names: dict[str, str] = {}
        state.schema_problems = {}
        for tool in tools:
            name = tool_name(state.name, tool.name)
            if name in names:
                state.logs.log("warning", "whimbrel", f"tool {tool.name!r} clashes with {names[name]!r} "
                                                      f"as {name}; skipped")
                continue
            names[name] = tool.name
            parameters, problem = convert.convert_input_schema(tool.input_schema)
            description = tool.description or tool.title or f"{tool.name} (MCP server {state.name})"
            if problem:
                state.schema_problems[tool.name] = problem
                state.logs.log("warning", "whimbrel", f"tool {tool.name!r}: {problem}")
            specs.append(ToolSpec(
                name=name, schema=convert.function_schema(name, description, parameters),
                implementation=self._implementation(state.name, tool.name), auto_approve=False,
                approval_reason=f"MCP tool {tool.name!r} from server '{state.name}'",
                claims_read_only=_claims_read_only(tool)))
        state._tool_names = names
        return specs

    def _implementation(self, server: str, tool: str) -> Callable[[dict[str, Any], Any], Any]:
        async def run(args: dict[str, Any], ctx: Any) -> str:
            with self.calls.running(server, getattr(ctx, "workstream_id", "")):
                text, is_error = await self.call_tool(server, tool, args, on_output=getattr(ctx, "on_output", None),
                                                      on_progress=getattr(ctx, "on_progress", None))
            if is_error:
                raise ToolError(text)
            return text
        return run

    def tool_specs(self) -> tuple[ToolSpec, ...]:
        """The current MCP tools (ready servers, config order) plus read_resource/use_prompt when useful.

        An immutable snapshot: later changes build a new tuple, never mutate this one.
        """
        if self._snapshot is None:
            specs: list[ToolSpec] = []
            for state in self.servers.values():
                if state.status == READY:
                    specs.extend(state.specs)
            specs.extend(builtin_specs(self))
            self._snapshot = tuple(specs)
        return self._snapshot

    def build_registry(self, base: ToolRegistry, keep: Iterable[str] = ()) -> ToolRegistry:
        """A new registry: `base`'s non-MCP tools, then the current MCP tools (copy-on-write).

        `keep` names tools the session has already used: if one vanished from the snapshot (server
        down, tool removed), its previous spec from `base` stays, so the conversation can still
        refer to it and a call gets a clear error instead of 'unknown tool'.
        """
        from tools.registry import ToolRegistry

        registry = ToolRegistry()
        mcp_names = set()
        for name in base.names():
            spec = base.get(name)
            if spec is None:
                continue
            if split_tool_name(name) is not None or name in BUILTIN_NAMES:
                mcp_names.add(name)
                continue
            registry.register(spec)
        current = self.tool_specs()
        for spec in current:
            registry.register(spec)
        for name in keep:
            if name in mcp_names and registry.get(name) is None:
                old = base.get(name)
                if old is not None:
                    registry.register(old)
        return registry

    def catalog_text(self) -> str:
        return catalog_text(self)


def _claims_read_only(tool: Any) -> bool:
    """The server annotates the tool `readOnlyHint` (its own word: the gate never trusts it to run unasked)."""
    annotations = getattr(tool, "annotations", None)
    hint = getattr(annotations, "read_only_hint", None)
    return bool(hint if hint is not None else getattr(annotations, "readOnlyHint", False))
