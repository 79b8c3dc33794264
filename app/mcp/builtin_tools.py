"""The built-in MCP tools `read_resource` and `use_prompt`, and the catalog for the system message."""

from __future__ import annotations

from typing import Any, Mapping, Protocol

from app.mcp import convert
from tools.errors import ToolError
from tools.spec import ToolSpec


class McpServers(Protocol):
    """What the built-ins need of the MCP manager: its servers and two requests (no import of it)."""

    servers: Mapping[str, Any]

    async def read_resource(self, server: str, uri: str) -> Any: ...

    async def get_prompt(self, server: str, name: str, arguments: dict[str, str]) -> Any: ...


READ_RESOURCE, USE_PROMPT = "read_resource", "use_prompt"
BUILTIN_NAMES = (READ_RESOURCE, USE_PROMPT)
MAX_RESOURCES, MAX_PROMPTS = 50, 30


def _ready(manager: McpServers) -> list[Any]:
    return [s for s in manager.servers.values() if s.status == "ready"]


def builtin_specs(manager: McpServers) -> list[ToolSpec]:
    """read_resource when a ready server has resources or templates; use_prompt when one has prompts."""
    specs: list[ToolSpec] = []
    with_resources = [s.name for s in _ready(manager) if s.resources or s.templates]
    with_prompts = [s.name for s in _ready(manager) if s.prompts]
    if with_resources:
        async def read(args: dict[str, Any], ctx: Any) -> str:
            result = await manager.read_resource(args["server"], args["uri"])
            return convert.read_result_to_text(result)

        schema = convert.function_schema(READ_RESOURCE, (
            "Read a resource from an MCP server by URI (see the MCP resources listed in the system message; "
            "fill a template's {placeholders} to read from it)."), {
            "type": "object",
            "properties": {"server": {"type": "string", "enum": with_resources, "description": "MCP server name"},
                           "uri": {"type": "string", "description": "resource URI"}},
            "required": ["server", "uri"], "additionalProperties": False})
        specs.append(ToolSpec(name=READ_RESOURCE, schema=schema, implementation=read, auto_approve=False,
                              approval_reason="reads a resource from an MCP server"))
    if with_prompts:
        async def use(args: dict[str, Any], ctx: Any) -> str:
            arguments = args.get("arguments") or {}
            if not isinstance(arguments, dict):
                raise ToolError("use_prompt: 'arguments' must be an object of argument names to values")
            result = await manager.get_prompt(args["server"], args["name"], arguments)
            return convert.prompt_result_to_text(result)

        schema = convert.function_schema(USE_PROMPT, (
            "Get the messages of a prompt offered by an MCP server (see the MCP prompts listed in the system "
            "message), with its arguments filled in."), {
            "type": "object",
            "properties": {"server": {"type": "string", "enum": with_prompts, "description": "MCP server name"},
                           "name": {"type": "string", "description": "prompt name"},
                           "arguments": {"type": "object", "description": "prompt arguments (strings)",
                                         "additionalProperties": {"type": "string"}}},
            "required": ["server", "name"], "additionalProperties": False})
        specs.append(ToolSpec(name=USE_PROMPT, schema=schema, implementation=use, auto_approve=False,
                              approval_reason="gets a prompt from an MCP server"))
    return specs


def _one_line(text: str | None, limit: int = 120) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def catalog_text(manager: McpServers) -> str:
    """Up to 50 resources (templates included) and 30 prompts, for the system message; '' when none."""
    resources: list[str] = []
    prompts: list[str] = []
    total_resources = total_prompts = 0
    for state in _ready(manager):
        for r in state.resources:
            total_resources += 1
            if len(resources) < MAX_RESOURCES:
                desc = _one_line(r.description)
                resources.append(f"- [{state.name}] {r.uri} — {r.title or r.name}" + (f": {desc}" if desc else ""))
        for t in state.templates:
            total_resources += 1
            if len(resources) < MAX_RESOURCES:
                desc = _one_line(t.description)
                resources.append(f"- [{state.name}] {t.uri_template} (template) — {t.title or t.name}"
                                 + (f": {desc}" if desc else ""))
        for p in state.prompts:
            total_prompts += 1
            if len(prompts) < MAX_PROMPTS:
                args = ", ".join(a.name + ("*" if a.required else "") for a in (p.arguments or []))
                desc = _one_line(p.description)
                prompts.append(f"- [{state.name}] {p.name}({args})" + (f": {desc}" if desc else ""))
    parts: list[str] = []
    if resources:
        more = f"\n(and {total_resources - len(resources)} more)" if total_resources > len(resources) else ""
        parts.append("MCP resources (read them with the read_resource tool):\n" + "\n".join(resources) + more)
    if prompts:
        more = f"\n(and {total_prompts - len(prompts)} more)" if total_prompts > len(prompts) else ""
        parts.append("MCP prompts (get them with the use_prompt tool; * marks a required argument):\n"
                     + "\n".join(prompts) + more)
    return "\n\n".join(parts)
