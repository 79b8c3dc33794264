"""The inspector's Tools, Resources and Prompts tabs: what each lists, its form, and the request it makes."""

from __future__ import annotations

import time
from typing import Any

from rich.console import RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Button, Collapsible, Static

from app.runtime.error_log import in_words

from app.mcp.convert import _get, dump
from app.mcp.schema_form import FormField, fields_from_schema, prompt_fields
from app.mcp.uri_template import expand, template_fields
from widgets import mcp_result
from widgets.mcp_catalog import CatalogPane


def _two_lines(name: str, detail: str, width: int = 60) -> Text:
    label = Text(name, style="bold")
    detail = " ".join((detail or "").split())
    if detail:
        label.append("\n" + (detail if len(detail) <= width else detail[:width - 1] + "…"), style="dim")
    return label


def _about(title: str, *lines: tuple[str, str]) -> Static:
    text = Text(title, style="bold")
    for label, value in lines:
        if value:
            text.append(f"\n{label}: ", style="dim")
            text.append(value)
    return Static(text, classes="catalog-about-text")


class SubscriptionBar(Horizontal):
    """Subscribe/Unsubscribe for one resource, with when it last changed."""

    DEFAULT_CSS = """
    SubscriptionBar { height: auto; margin: 0 0 1 0; }
    SubscriptionBar Button { margin: 0 1 0 0; }
    SubscriptionBar #subscription-state { width: 1fr; }
    """

    def __init__(self, uri: str, subscribed: bool) -> None:
        super().__init__()
        self.uri, self.subscribed, self.updates = uri, subscribed, 0

    def compose(self) -> ComposeResult:
        yield Button("", id="resource-subscribe", compact=True)
        yield Static("", id="subscription-state")

    def on_mount(self) -> None:
        self.show(self.subscribed)

    def show(self, subscribed: bool) -> None:
        self.subscribed = subscribed
        self.query_one(Button).label = "Unsubscribe" if subscribed else "Subscribe"
        self._state_line()

    def updated(self, at: float) -> None:
        self.updates += 1
        self._state_line(at)

    def _state_line(self, at: float | None = None) -> None:
        if not self.subscribed:
            text = Text("not subscribed", style="dim")
        elif not self.updates:
            text = Text("subscribed: waiting for notifications/resources/updated", style="cyan")
        else:
            text = Text(f"subscribed: {self.updates} update(s)", style="green")
            if at is not None:
                text.append(time.strftime(", the last at %H:%M:%S", time.localtime(at)), style="dim")
        self.query_one("#subscription-state", Static).update(text)


class ToolsPane(CatalogPane):
    """Every tool with its input schema and a form to call it by hand; the result shows isError clearly."""

    KIND, ACTION, EMPTY = "tools", "Call", "This server offers no tools."
    HINTS = (("readOnlyHint", "read-only"), ("destructiveHint", "destructive"), ("idempotentHint", "idempotent"),
             ("openWorldHint", "open world"))
    problems: dict[str, str] = {}  # tool name -> why its schema was replaced for the model

    def items(self, state: Any) -> list[tuple[str, Any]]:
        self.problems = dict(state.schema_problems)
        return [(tool.name, tool) for tool in state.tools]

    def label(self, item: Any) -> RenderableType:
        return _two_lines(item.name, item.description or item.title or "")

    def describe(self, item: Any) -> list[Any]:
        annotations = dump(item.annotations) if getattr(item, "annotations", None) is not None else {}
        hints = ", ".join(word for key, word in self.HINTS if annotations.get(key))
        widgets: list[Any] = [_about(item.title or item.name, ("name", item.name if item.title else ""),
                                     ("hints", hints), ("description", item.description or ""))]
        problem = self.problems.get(item.name)
        if problem:
            widgets.append(Static(Text(f"⚠ {problem}", style="yellow"), classes="catalog-about-text"))
        widgets.append(Collapsible(Static(mcp_result.pretty_json(dump(item.input_schema) or {})),
                                   title="Input schema", collapsed=True, classes="catalog-schema"))
        output = getattr(item, "output_schema", None)
        if output:
            widgets.append(Collapsible(Static(mcp_result.pretty_json(dump(output))), title="Output schema",
                                       collapsed=True, classes="catalog-schema"))
        return widgets

    def fields(self, item: Any) -> list[FormField]:
        return fields_from_schema(item.input_schema)

    def schema(self, item: Any) -> Any:
        return dump(item.input_schema)

    def running_text(self, item: Any) -> str:
        return f"Calling {item.name}… (Cancel abandons the call)"

    async def run(self, item: Any, arguments: dict[str, Any]) -> dict[str, Any]:
        from app.mcp.output_check import output_problems

        result = await self.manager.call_tool_unchecked(self.server, item.name, arguments, on_progress=self.progress)
        self.found(result)
        schema = dump(item.output_schema) if getattr(item, "output_schema", None) else None
        problems = output_problems(schema, result.structured_content, is_error=bool(result.is_error)) \
            if schema else None
        return {"result": dump(result), "problems": problems}


class ResourcesPane(CatalogPane):
    """Resources (read at once) and resource templates (fill the URI variables, then read). A resource
    of a server that offers subscriptions can be subscribed to: each `resources/updated` re-reads it."""

    KIND, ACTION, EMPTY = "resources", "Read", "This server offers no resources or templates."
    can_subscribe = False

    def items(self, state: Any) -> list[tuple[str, Any]]:
        self.can_subscribe = bool((state.capabilities.get("resources") or {}).get("subscribe"))
        pairs: list[tuple[str, Any]] = []
        if state.resources:
            pairs.append(("#resources", f"Resources ({len(state.resources)})"))
            pairs += [(f"r:{r.uri}", ("resource", r)) for r in state.resources]
        if state.templates:
            pairs.append(("#templates", f"Templates ({len(state.templates)})"))
            pairs += [(f"t:{t.uri_template}", ("template", t)) for t in state.templates]
        return pairs

    def label(self, item: Any) -> RenderableType:
        kind, entry = item
        return _two_lines(entry.title or entry.name, str(entry.uri if kind == "resource" else entry.uri_template))

    def describe(self, item: Any) -> list[Any]:
        kind, entry = item
        size = getattr(entry, "size", None)
        widgets: list[Any] = [_about(entry.title or entry.name,
                                     ("uri" if kind == "resource" else "template",
                                      str(entry.uri if kind == "resource" else entry.uri_template)),
                                     ("type", entry.mime_type or ""), ("size", f"{size} bytes" if size else ""),
                                     ("description", entry.description or ""))]
        if kind == "resource" and self.can_subscribe:
            widgets.append(SubscriptionBar(str(entry.uri), self.subscribed(str(entry.uri))))
        return widgets

    def subscribed(self, uri: str) -> bool:
        state = self.manager.servers.get(self.server) if self.manager is not None and self.server else None
        return state is not None and uri in state.inspection.subscriptions

    def _shown_uri(self) -> str | None:
        item = self.entries.get(self.current or "")
        return str(item[1].uri) if item is not None and item[0] == "resource" else None

    @on(Button.Pressed, "#resource-subscribe")
    def _toggle_subscription(self, event: Button.Pressed) -> None:
        event.stop()
        uri, server = self._shown_uri(), self.server
        if uri is not None and server is not None:
            self.run_worker(self._subscription(server, uri, not self.subscribed(uri)), group="mcp-subscribe",
                            exit_on_error=False)

    async def _subscription(self, server: str, uri: str, subscribe: bool) -> None:
        try:
            if subscribe:
                await self.manager.subscribe_resource(server, uri)
            else:
                await self.manager.unsubscribe_resource(server, uri)
        except Exception as exc:  # noqa: BLE001 - the words go on screen
            self._status(mcp_result.failure(in_words("The subscription", exc)))
            return
        for bar in self.query(SubscriptionBar):
            bar.show(bar.uri in self.manager.servers[server].inspection.subscriptions)
        self._status(Text(f"Subscribed to {uri}: each update is read again here." if subscribe
                          else f"Unsubscribed from {uri}.", style="green"))

    def resource_updated(self, server: str, uri: str) -> None:
        """The server said `uri` changed: read it again when it is the one on screen."""
        if server != self.server or uri != self._shown_uri():
            return
        for bar in self.query(SubscriptionBar):
            bar.updated(time.time())
        if not (self.worker is not None and self.worker.is_running):
            self.submit()

    def fields(self, item: Any) -> list[FormField]:
        kind, entry = item
        return template_fields(entry.uri_template) if kind == "template" else []

    def uri(self, item: Any, arguments: dict[str, Any]) -> str:
        kind, entry = item
        return expand(entry.uri_template, arguments) if kind == "template" else str(entry.uri)

    def running_text(self, item: Any) -> str:
        return "Reading…"

    def completion_ref(self, item: Any) -> tuple[str, str] | None:
        kind, entry = item
        return ("template", entry.uri_template) if kind == "template" else None

    async def run(self, item: Any, arguments: dict[str, Any]) -> dict[str, Any]:
        uri = self.uri(item, arguments)
        self._status(f"Reading {uri}…")
        result = await self.manager.read_resource(self.server, uri)
        self.found(result)
        return {"result": dump(result), "uri": uri}


class PromptsPane(CatalogPane):
    """Prompts: fill the arguments, get the messages the server builds from them."""

    KIND, ACTION, EMPTY = "prompts", "Get", "This server offers no prompts."

    def items(self, state: Any) -> list[tuple[str, Any]]:
        return [(prompt.name, prompt) for prompt in state.prompts]

    def label(self, item: Any) -> RenderableType:
        return _two_lines(item.title or item.name, item.description or "")

    def describe(self, item: Any) -> list[Any]:
        return [_about(item.title or item.name, ("name", item.name if item.title else ""),
                       ("description", item.description or ""))]

    def fields(self, item: Any) -> list[FormField]:
        return prompt_fields(_get(item, "arguments", default=[]))

    def running_text(self, item: Any) -> str:
        return f"Getting {item.name}…"

    def completion_ref(self, item: Any) -> tuple[str, str] | None:
        return ("prompt", item.name)

    async def run(self, item: Any, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await self.manager.get_prompt(self.server, item.name, arguments)
        self.found(result)
        return {"result": dump(result)}
