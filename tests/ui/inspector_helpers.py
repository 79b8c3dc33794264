"""Helpers for the MCP inspector tests: a manager of our own for the app, the user's steps in the
inspector (choose a server and tab, pick an item, fill a field, run it), and an in-process server
whose tools cover every form field kind and every kind of result content (deterministic answers)."""

from __future__ import annotations

import json
from typing import Any

from textual.widgets import OptionList, Static, TabbedContent

from app.mcp.breaker import CircuitBreaker
from app.mcp.config import ServerConfig
from app.mcp.manager import McpManager
from app.tui.screens.mcp_inspector import McpInspectorScreen
from tests.ui.helpers import screen_is, screen_text, wait_for
from widgets.mcp_catalog import CatalogPane
from widgets.mcp_servers import ServerList
from widgets.schema_form import SchemaForm

EVERYTHING = ServerConfig("everything", command="mcp-server-everything", args=["stdio"])  # from npm

FORM_SCHEMA = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "What to look for"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 5},
        "exact": {"type": "boolean", "description": "Match whole words only"},
        "mode": {"type": "string", "enum": ["fast", "deep"], "default": "fast"},
        "tags": {"type": "array", "items": {"type": "string"}, "description": "Only these tags"},
        "filters": {"type": "object", "description": "Extra filters"},
    },
    "required": ["query"],
}


def attach_manager(app, *configs: ServerConfig, retry_delay: float = 3600.0) -> McpManager:
    """Give a running app (built without MCP config) a started manager of real servers.

    Its breaker waits `retry_delay` before retrying, so a failed server stays 'failed' while a test
    looks at it (the app's own manager retries after about a second)."""
    manager = McpManager(list(configs), workspace=app.options.workdir, listener=app.mcp.server_changed,
                         refresh_interval=0, breaker=lambda: CircuitBreaker(base_delay=retry_delay, jitter=0))
    manager.start()
    app.mcp.manager = manager
    return manager


async def open_inspector(pilot, **kwargs: Any) -> McpInspectorScreen:
    """Open the inspector the way a user does (F9), or push one with a fixed clock when kwargs are given."""
    app = pilot.app
    if kwargs:
        app.push_screen(McpInspectorScreen(app.options.config_path, **kwargs))
    else:
        await pilot.press("f9")
    await wait_for(pilot, lambda: screen_is(app, McpInspectorScreen), message="the inspector opens")
    await pilot.pause()
    return app.screen


def fixed_clock(step_ms: float = 12.5):
    """A clock that advances `step_ms` per reading: every request seems to take exactly that long."""
    now = [1000.0]

    def clock() -> float:
        now[0] += step_ms / 1000
        return now[0]

    return clock


def demo_server() -> Any:
    """A low-level SDK server: `search` (every field kind), `report` (every content kind), `broken`
    (isError), a resource, a template and a prompt."""
    import mcp.types as types
    from mcp.server import Server

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=[
            types.Tool(name="search", title="Search notes", description="Search the notes by text, tag and mode.",
                       input_schema=FORM_SCHEMA),
            types.Tool(name="report", description="A report with text, structured data, an image and a resource.",
                       input_schema={"type": "object", "properties": {}}),
            types.Tool(name="broken", description="Always reports an error.",
                       input_schema={"type": "object", "properties": {}}),
        ])

    async def call_tool(ctx: Any, params: Any) -> Any:
        args = params.arguments or {}
        if params.name == "search":
            return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(args,
                                                                                               sort_keys=True))])
        if params.name == "broken":
            return types.CallToolResult(is_error=True, content=[
                types.TextContent(type="text", text="the index is locked by another process")])
        return types.CallToolResult(
            content=[
                types.TextContent(type="text", text="3 notes matched."),
                types.ImageContent(type="image", data="iVBORw0KGgoAAAANSUhEUg==", mime_type="image/png"),
                types.EmbeddedResource(type="resource", resource=types.TextResourceContents(
                    uri="notes://2024/whimbrel", mime_type="text/plain", text="Whimbrels migrate in May.")),
            ],
            structured_content={"matches": 3, "tags": ["birds", "migration"], "best": {"id": 7, "score": 0.92}})

    async def list_resources(ctx: Any, params: Any) -> Any:
        return types.ListResourcesResult(resources=[
            types.Resource(uri="notes://index", name="index", description="All notes", mime_type="text/plain")])

    async def list_templates(ctx: Any, params: Any) -> Any:
        return types.ListResourceTemplatesResult(resource_templates=[
            types.ResourceTemplate(uri_template="notes://{year}/{slug}", name="note",
                                   description="One note by year and slug", mime_type="text/plain")])

    async def read_resource(ctx: Any, params: Any) -> Any:
        uri = str(params.uri)
        text = "index: 2 notes" if uri == "notes://index" else f"note at {uri}"
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, mime_type="text/plain",
                                                                             text=text)])

    async def list_prompts(ctx: Any, params: Any) -> Any:
        return types.ListPromptsResult(prompts=[types.Prompt(
            name="summarize", description="Summarize a topic",
            arguments=[types.PromptArgument(name="topic", required=True, description="What to summarize"),
                       types.PromptArgument(name="tone", required=False)])])

    async def get_prompt(ctx: Any, params: Any) -> Any:
        args = params.arguments or {}
        return types.GetPromptResult(description="A summary request", messages=[types.PromptMessage(
            role="user", content=types.TextContent(
                type="text", text=f"Summarize {args.get('topic')} in a {args.get('tone', 'neutral')} tone."))])

    return Server("demo", version="1.0", instructions="Notes about birds.", on_list_tools=list_tools,
                  on_call_tool=call_tool, on_list_resources=list_resources,
                  on_list_resource_templates=list_templates, on_read_resource=read_resource,
                  on_list_prompts=list_prompts, on_get_prompt=get_prompt)


def demo_config(name: str = "demo") -> ServerConfig:
    return ServerConfig(name, inprocess=demo_server())


def visible_text(screen) -> str:
    """The screen's Static text plus every option list's options (the server list, the catalogs)."""
    lines = [screen_text(screen.app)]
    for options in screen.query(OptionList):
        lines += [str(option.prompt) for option in options.options]
    return "\n".join(lines)


def result_text(pane: CatalogPane) -> str:
    """The pane's result and status lines as plain text."""
    from rich.console import Console

    console = Console(width=200, record=True, file=open("/dev/null", "w"))
    console.print(pane.query_one(f"#{pane.KIND}-result", Static).content)
    console.print(pane.query_one(f"#{pane.KIND}-status", Static).content)
    return console.export_text()


async def choose(pilot, screen: McpInspectorScreen, server: str, tab: str) -> None:
    """Select `server` in the list (with the arrow keys, as a user does) and open its `tab`."""
    servers = screen.query_one(ServerList)
    servers.focus()
    while servers.selected != server:
        await pilot.press("down")
    screen.query_one(TabbedContent).active = f"tab-{tab}"
    await pilot.pause()


async def pick(pilot, pane: CatalogPane, key: str) -> SchemaForm:
    """Highlight `key` in the pane's list; returns its (new) form."""
    pane.option_list.focus()
    pane.option_list.highlighted = pane.option_list.get_option_index(key)
    await wait_for(pilot, lambda: pane.current == key and pane.form is not None
                   and pane._form_key == (pane.server, key), message=f"form of {key}")
    await pilot.pause()
    return pane.form


async def type_into(pilot, form: SchemaForm, name: str, text: str) -> None:
    """Focus the form's field `name` and type `text` into it."""
    index = next(i for i, f in enumerate(form.fields) if f.name == name)
    form.query_one(f"#field-{index}").focus()
    await pilot.press(*text)


async def run_and_wait(pilot, pane: CatalogPane, expected: str, timeout: float = 30) -> str:
    """Run the pane's current item and wait for `expected` in its result; returns the result's text."""
    pane.submit()
    await wait_for(pilot, lambda: expected in result_text(pane), timeout=timeout,
                   message=f"{expected!r} in the {pane.KIND} result")
    return result_text(pane)


async def inspect(pilot, config: ServerConfig, tab: str = "tools",
                  **inspector: Any) -> tuple[McpManager, McpInspectorScreen]:
    """Boot, start `config` as the app's only server, open the inspector (`inspector`: as in
    open_inspector) and choose the server and `tab`; (manager, screen). The caller stops the manager."""
    app = pilot.app
    await wait_for(pilot, lambda: app.ready.is_set(), message="boot")
    manager = attach_manager(app, config)
    await manager.wait_ready(config.name, 60)
    screen = await open_inspector(pilot, **inspector)
    await choose(pilot, screen, config.name, tab)
    return manager, screen


def catalog(screen: McpInspectorScreen, kind: str) -> CatalogPane:
    """The screen's tools, resources or prompts pane."""
    return screen.query_one(f"#mcp-{kind}", CatalogPane)


async def tool_result(pilot, config: ServerConfig, tool: str, expected: str, **inspector: Any):
    """Start `config` as the app's server, open the inspector (`inspector`: as in open_inspector) on its
    tools, run `tool` with no arguments and wait for `expected` in its result.

    Returns (manager, screen, the tools pane, the result's text); the caller stops the manager."""
    manager, screen = await inspect(pilot, config, "tools", **inspector)
    pane = catalog(screen, "tools")
    await pick(pilot, pane, tool)
    shown = await run_and_wait(pilot, pane, expected)
    return manager, screen, pane, shown
